"""Contact Patch: ui package."""
