"""``python -m prism_review.cli`` runs the ``prism`` command."""

from prism_review.cli import main

main()
