pytest_plugins = ["prism_review.testing.fixtures"]
