"""The refit of the encoder's heads writes the provenance line the shipped encoder.json holds, so
the retrain command (now under prism_review.training) still reproduces that file byte for byte."""

from __future__ import annotations

import json

from prism_review.judge.depth.encoder import ENCODER_META
from prism_review.training.depth.train import DEFAULT_OUT
from prism_review.training.depth.train_heads import HEADS_REFIT


def test_heads_refit_text_is_the_shipped_one() -> None:
    shipped = json.loads((DEFAULT_OUT / ENCODER_META).read_text("utf-8"))
    assert shipped["heads_refit"] == HEADS_REFIT
