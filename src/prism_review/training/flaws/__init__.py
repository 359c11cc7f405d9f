"""Training of the offline flaws models (:mod:`.criticism`) and the clustering gold check."""
