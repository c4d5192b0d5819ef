"""The partial redraw of the overlay on a software renderer whose window keeps its pixels between frames: how
often the overlay is built (OVERLAY_PERIOD), the regions around the 3D view its panels are drawn in one a
frame (panel_regions), and the style that makes drawing the panels again over their own pixels safe
(opaque_lines). App.draw decides, frame by frame, what is drawn.
"""
from __future__ import annotations

from imgui_bundle import imgui

# s: on a software renderer whose window keeps its pixels between frames, the ImGui overlay (panels, HUD,
# labels) is built at most this often (and at once after input it takes); the panels of a build are drawn
# one region per frame over the next five frames (panel_regions), and every frame puts the build's
# commands back over the new 3D view, clipped to it: the panels show new numbers at 30 Hz, or a fifth of
# the frame rate below 150 frames a second (12 Hz at 60), and no frame pays for more than a fifth of
# their pixels (the panels' fill cost llvmpipe about 10 ms at 1280x720, two to three times the 3D
# view's; with three regions a frame took 9.6 - 10 ms, with five 6.4 - 7.1). The numbers stay readable.
OVERLAY_PERIOD = 1.0 / 30.0


def panel_regions(view: tuple[int, int, int, int], size: tuple[int, int]) -> list[list[tuple[int, int, int, int]]]:
    """The window around the 3D view `view` (GL: x, y from the bottom, w, h) as five regions of one or two
    rectangles, of about the same area at the default layouts: the upper and lower halves of the column
    left of the view, the strips above and below it, and the halves of the column right of it. Empty ones
    are left out."""
    x, y, w, h = view
    width, height = size
    half = height // 2
    regions = [[(0, half, x, height - half)], [(0, 0, x, half)], [(x, 0, w, y), (x, y + h, w, height - y - h)],
               [(x + w, half, width - x - w, height - half)], [(x + w, 0, width - x - w, half)]]
    return [rs for rs in ([r for r in region if r[2] > 0 and r[3] > 0] for region in regions) if rs]


def opaque_lines() -> None:
    """Give the style's border and separator colours (half transparent) their look over the window
    background, opaque. Where the panels are drawn again over their last pixels without a clear (the
    regions of a window that keeps its back buffer), a half-transparent line in a gap between two docked
    panels, over no background of its own, would blend over itself and brighten with every redraw."""
    style = imgui.get_style()
    bg = style.color_(imgui.Col_.window_bg)
    for col in (imgui.Col_.border, imgui.Col_.separator):
        c = style.color_(col)
        a = c.w
        style.set_color_(col, imgui.ImVec4(c.x * a + bg.x * (1.0 - a), c.y * a + bg.y * (1.0 - a),
                                           c.z * a + bg.z * (1.0 - a), 1.0))
