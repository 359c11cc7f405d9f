"""prism_review.metrics"""
