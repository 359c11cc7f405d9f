"""Export of the offline novelty judge's text embedder (:mod:`.export_embedder`)."""
