"""prism_review.report"""
