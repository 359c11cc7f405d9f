"""Constructiveness judge: the ARC step (:mod:`.arc`), its LLM prompt (:mod:`.prompt`) and the
offline judge (:mod:`.offline`: segmentation, RevUtil-trained scorers, DISAPERE-trained comment
types, rubric rules), with its training script (:mod:`.train`)."""
