import os
import tempfile

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# what the app saves for the user (the overlay's layout, presets) goes to a folder of this run's own, never
# into the user's; a test that needs its own folder still sets XDG_DATA_HOME itself
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="contactpatch-tests-")


import pytest  # noqa: E402


def pytest_sessionstart(session):
    """Compile the single car's physics the way the app does on a cold start (with the warm-up's helper
    process where there is a core to spare), so the state-hash tests check code compiled that way."""
    import sim.warmup
    sim.warmup.warm_up()


@pytest.fixture
def gui():
    """A headless ImGui and ImPlot context with a renderer that draws nothing (the overlay's tests)."""
    from imgui_bundle import imgui
    from imgui_bundle import implot

    from ui.backend import NullRenderer
    from ui.backend import configure_io
    ctx = imgui.create_context()
    plot_ctx = implot.create_context()
    imgui.get_io().set_ini_filename("")
    configure_io((1280, 720))
    yield NullRenderer()
    implot.destroy_context(plot_ctx)
    imgui.destroy_context(ctx)
