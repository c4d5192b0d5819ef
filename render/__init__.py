"""Contact Patch: render package."""
