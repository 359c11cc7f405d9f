"""prism-review: the PRISM benchmark for scientific peer reviews."""

__version__ = "0.1.0"
