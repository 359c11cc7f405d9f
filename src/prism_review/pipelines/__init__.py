"""prism_review.pipelines"""
