"""Constructiveness judge: the ARC step (:mod:`.arc`), its LLM prompt (:mod:`.prompt`) and the
offline judge (:mod:`.offline`: segmentation, RevUtil-trained scorers, DISAPERE-trained comment
types, rubric rules), trained by :mod:`prism_review.training.constructiveness.train`."""
