"""prism_review.data"""
