"""The panel layouts per window size (issue 32 item 1), with real layout files the app saved: one at 1280x720
(compact), one at 1920x1080 (wide), and two damaged copies of the first (cut short in the middle of a docking
line; one docking line with a parent that does not exist). Headless: an ImGui context, no window."""
from pathlib import Path

import pytest
from imgui_bundle import imgui

import sim
from app.session import Session
from ui import layout
from ui.overlay import Overlay

DATA = Path(__file__).parent / "data" / "layouts"
COMPACT = (DATA / "compact-1280x720.ini").read_text()
WIDE = (DATA / "wide-1920x1080.ini").read_text()
DAMAGED = ("truncated.ini", "bogus-docking-line.ini")


def frames(overlay, renderer, n=3, size=None):
    if size is not None:
        imgui.get_io().display_size = size
    for _ in range(n):
        imgui.new_frame()
        overlay.build()
        imgui.render()
        renderer.render(imgui.get_draw_data())


def overlay_in(folder: Path) -> Overlay:
    s = Session(sim.load_vehicle("hatchback"), sim.load_world("flat"), substeps=2)
    return Overlay(s, layout_dir=folder)


@pytest.mark.parametrize("size, kind", [((1280, 720), "compact"), ((1366, 768), "compact"),
                                        ((1600, 900), "compact"), ((1920, 800), "compact"),
                                        ((1920, 1080), "wide"), ((1920, 1017), "wide"), ((2560, 1440), "wide")])
def test_the_size_class_of_a_window(size, kind):
    assert layout.size_class(*size) == kind


def test_the_docking_tree_of_the_saved_files():
    panels = ["Tuning", "Time", "Plan view", "Grip", "Map", "Test drives", "Telemetry", "Plots"]
    assert layout.docking_problem(COMPACT, panels) == "" == layout.docking_problem(WIDE, panels)
    assert layout.saved_class(COMPACT) == "compact" and layout.saved_class(WIDE) == "wide"
    for name in DAMAGED:
        text = (DATA / name).read_text()
        assert layout.parse(text, name) == text                     # they parse: the damage is in the tree
        assert layout.docking_problem(text, panels) != ""
    # a panel whose window section says it is docked in a node the tree does not have
    assert "Plots" in layout.docking_problem(COMPACT.replace("DockId=0x00000006,0", "DockId=0x00000042,0"), panels)


def sound(o: Overlay) -> None:
    """The layout in use docks every panel shown in the dockspace and leaves a 3D view of sensible size."""
    assert o.docking_problem() == ""
    w, h = imgui.get_io().display_size
    assert o.central is not None and not layout.view_too_small(o.central[2], o.central[3], w, h)


@pytest.mark.parametrize("name", DAMAGED)
def test_a_damaged_layout_gives_the_default_with_a_notice_and_is_not_saved_again(gui, tmp_path, name):
    damaged = (DATA / name).read_bytes()
    (tmp_path / "imgui-compact.ini").write_bytes(damaged)
    o = overlay_in(tmp_path)
    o.fit((1280, 720))
    assert len(o.notices) == 1 and "imgui-compact.ini" in o.notices[0] and ".bad" in o.notices[0]
    assert (tmp_path / "imgui-compact.ini.bad").read_bytes() == damaged      # kept for the user, aside
    frames(o, gui)
    sound(o)
    assert o.save_layout() == ""
    saved = (tmp_path / "imgui-compact.ini").read_text()
    assert layout.docking_problem(saved, o.docked_panels()) == ""           # the default, not the damage


def test_a_layout_cut_before_its_docking_section_gives_the_default_with_a_notice(gui, tmp_path):
    cut = COMPACT.split("[Docking]")[0]
    assert "DockId=" in cut
    (tmp_path / "imgui-compact.ini").write_text(cut)
    o = overlay_in(tmp_path)
    o.fit((1280, 720))
    assert len(o.notices) == 1 and "docking section" in o.notices[0] and ".bad" in o.notices[0]
    frames(o, gui)
    sound(o)


def test_a_wide_layout_in_a_1280x720_window_is_replaced_before_it_is_saved(gui, tmp_path):
    """A layout of 1920x1080 in the compact class's file passes the text check but leaves a 3D view of 338 px
    at 1280x720: the check of what ImGui made of it sets it aside; nothing is saved before that check."""
    (tmp_path / "imgui-compact.ini").write_text(WIDE)
    o = overlay_in(tmp_path)
    o.fit((1280, 720))
    assert o.notices == [] and o.layout_request is None                     # loaded, to be checked
    assert o.save_layout() == "" and (tmp_path / "imgui-compact.ini").read_text() == WIDE
    frames(o, gui, 2)
    assert len(o.notices) == 1 and "3D view 338 x" in o.notices[0]
    assert (tmp_path / "imgui-compact.ini.bad").read_text() == WIDE
    frames(o, gui)
    sound(o)
    assert o.central[2] >= 480


def test_the_layout_of_a_1920x1080_run_is_not_used_at_1280x720(gui, tmp_path):
    """The single imgui.ini of older versions, saved at 1920x1080, becomes the wide class's file; a run at
    1280x720 builds the compact layout, and the wide one is still there for the next run at 1920x1080."""
    (tmp_path / "imgui.ini").write_text(WIDE)
    o = overlay_in(tmp_path)
    o.fit((1280, 720))
    assert o.notices == [] and o.layout_request == "compact"
    assert (tmp_path / "imgui-wide.ini").read_text() == WIDE and not (tmp_path / "imgui.ini").exists()
    frames(o, gui)
    sound(o)
    assert o.central[2] == pytest.approx(1280 - 320 - 410, abs=4)           # the compact layout's view


def test_resizing_across_size_classes_takes_each_class_s_own_layout(gui, tmp_path):
    (tmp_path / "imgui-wide.ini").write_text(WIDE)
    o = overlay_in(tmp_path)
    o.fit((1920, 1080))
    frames(o, gui, size=(1920, 1080))
    sound(o)
    wide_view = o.central
    assert wide_view[2] == pytest.approx(978, abs=2)                         # the saved layout's, not a default
    o.fit((1, 1))                                                            # minimised: nothing changes
    assert o.size_kind == "wide" and o.layout_request is None and o.notices == []
    o.fit((1280, 720))                                                       # the window shrinks
    frames(o, gui, size=(1280, 720))
    sound(o)
    assert o.central[2] == pytest.approx(1280 - 320 - 410, abs=4)
    assert layout.saved_class((tmp_path / "imgui-wide.ini").read_text()) == "wide"    # kept for its class
    o.fit((1920, 1080))                                                      # and grows back
    frames(o, gui, size=(1920, 1080))
    sound(o)
    assert o.central == pytest.approx(wide_view, abs=1)
    assert layout.saved_class((tmp_path / "imgui-compact.ini").read_text()) == "compact"
