"""Contact Patch: the application (window, loop, input). The only package that knows all the others."""
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
