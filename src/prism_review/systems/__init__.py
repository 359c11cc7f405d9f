"""prism_review.systems"""
