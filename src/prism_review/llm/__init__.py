"""prism_review.llm"""
