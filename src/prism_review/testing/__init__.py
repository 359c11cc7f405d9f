"""prism_review.testing"""
