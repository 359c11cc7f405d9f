"""prism_review.retrieval"""
