"""The shared folder's paths for tests (they live in :mod:`prism_review.shared_folder`)."""

from prism_review.shared_folder import DATA, SHARED, VECTORS, shared_dir

__all__ = ["DATA", "SHARED", "VECTORS", "shared_dir"]
