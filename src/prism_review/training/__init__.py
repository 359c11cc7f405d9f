"""Training, export and cross-validation code of the offline judges' artefacts.

Nothing a run executes imports this package: it imports the judges (:mod:`prism_review.judge`)
to fit, export and measure what they load from ``resources/models/`` (each artefact's model card
gives its exact ``python -m prism_review.training.…`` command). Subpackages are named by the
judge they train; :mod:`.onnx_export` and :mod:`.onnx_post` build the ONNX graphs of the DoA
encoder and the novelty embedder.
"""
