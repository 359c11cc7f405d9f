"""Training of the offline DoA judge: linear model (:mod:`.train`), encoder, heads, grounding."""
