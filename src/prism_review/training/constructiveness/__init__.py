"""Training of the offline constructiveness scorers (:mod:`.train`) and their checks."""
