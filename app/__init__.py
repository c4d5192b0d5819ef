"""Contact Patch: app package."""
