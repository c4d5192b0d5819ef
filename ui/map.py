"""The map panel: the world from above with its named features, the spawn points, the markings, a circuit
with its sectors, and the car; a click on a feature (or its name in the list) asks for a teleport to its
approach point."""
from __future__ import annotations

import math

import numpy as np
from imgui_bundle import imgui

from sim.model.features import Feature

SECTOR_COLORS = ((0.35, 0.75, 1.0), (1.0, 0.62, 0.25), (0.78, 0.5, 1.0), (0.45, 0.9, 0.5), (1.0, 0.45, 0.6),
                 (0.95, 0.9, 0.35), (0.4, 0.95, 0.95), (0.9, 0.9, 0.9), (0.6, 0.6, 1.0))
_OUTLINES: dict[int, tuple] = {}


def track_outline(track, step: float = 4.0):
    """The centre line every `step` m, split by sector: [(sector index, (K, 2) points)], closed."""
    key = id(track)
    if key not in _OUTLINES:
        s = np.append(np.arange(0.0, track.length, step), track.length)
        xy = np.column_stack([track.at(s, "x"), track.at(s, "y")])
        sector = track.sector_of(np.minimum(s, track.length - 1e-6))
        parts = [(int(k), xy[max(0, int(np.flatnonzero(sector == k)[0]) - 1):int(np.flatnonzero(sector == k)[-1]) + 2])
                 for k in np.unique(sector)]
        _OUTLINES.clear()
        _OUTLINES[key] = (track, parts)
    return _OUTLINES[key][1]


def draw_track(dl, track, to_screen, scale: float) -> None:
    """The road (its width to scale, at least 3 px) with each sector's stretch of centre line in its colour."""
    parts = track_outline(track)
    road = imgui.get_color_u32((0.42, 0.43, 0.46, 1.0))
    width = max(3.0, 2.0 * float(track.width_left.mean()) * scale)
    for _, pts in parts:
        dl.add_polyline([to_screen(x, y) for x, y in pts], road, width, 0)
    for k, pts in parts:
        dl.add_polyline([to_screen(x, y) for x, y in pts], imgui.get_color_u32((*SECTOR_COLORS[k % 9], 1.0)),
                        max(1.5, width / 4.0), 0)


def draw_map(feats: list[Feature], box: tuple[float, float, float, float], car_xy, car_yaw: float,
             markings=(), spawns=(), track=None) -> Feature | None:
    """Draw into the current window; returns the feature the user picked this frame, or None. `track`: a
    circuit's Track, drawn with its sectors in colour (its timing lines are among the features)."""
    picked = None
    avail = imgui.get_content_region_avail()
    beside = avail.x > 420                         # the names beside the map, else below it
    list_w = 150.0 if beside else 0.0
    size = max(80.0, min(avail.x - list_w - 8.0, avail.y - (4.0 if beside else 90.0)))
    x0, y0, x1, y1 = box
    scale = size / max(x1 - x0, y1 - y0)
    origin = imgui.get_cursor_screen_pos()

    def to_screen(x, y):            # north (+y) up, east (+x) right
        return origin.x + (x - x0) * scale, origin.y + (y1 - y) * scale

    dl = imgui.get_window_draw_list()
    dl.add_rect_filled(origin, (origin.x + size, origin.y + size), imgui.get_color_u32((0.20, 0.21, 0.22, 1)))
    if track is not None:
        draw_track(dl, track, to_screen, scale)
    for m in markings:
        col = imgui.get_color_u32((*m.color, 0.8))
        if m.kind == "circle":
            dl.add_circle(to_screen(*m.center), m.radius * scale, col, 48, 1.0)
        else:
            dl.add_line(to_screen(*m.center), to_screen(*m.end), col, 1.0)
    mouse = imgui.get_mouse_pos()
    hovered = None
    for f in feats:
        pts = [to_screen(x, y) for x, y in f.corners]
        inside = hovered is None and (_inside(mouse, pts) or _near(mouse, pts, 6.0))   # thin ones: near is enough
        if inside:
            hovered = f
        col = imgui.get_color_u32((*[min(1.0, c * (1.4 if inside else 1.0)) for c in f.color], 1.0))
        dl.add_convex_poly_filled(pts, col)
        dl.add_polyline(pts, imgui.get_color_u32((0, 0, 0, 0.6)), 1.0, imgui.ImDrawFlags_.closed)
    for sx, sy, _ in spawns:
        dl.add_circle(to_screen(sx, sy), 3.0, imgui.get_color_u32((0.9, 0.9, 0.9, 0.8)), 12, 1.5)
    cx, cy = to_screen(*car_xy)
    c, s = math.cos(car_yaw), math.sin(car_yaw)
    tri = [(cx + 9 * c, cy - 9 * s), (cx - 5 * c - 5 * s, cy + 5 * s - 5 * c), (cx - 5 * c + 5 * s, cy + 5 * s + 5 * c)]
    dl.add_circle_filled((cx, cy), 11.0, imgui.get_color_u32((0, 0, 0, 0.5)))
    dl.add_triangle_filled(*tri, imgui.get_color_u32((1.0, 0.3, 0.25, 1)))
    dl.add_triangle(*tri, imgui.get_color_u32((1, 1, 1, 1)), 1.5)
    imgui.invisible_button("map canvas", (size, size))
    if hovered is not None and imgui.is_item_hovered():
        imgui.set_tooltip(f"{hovered.name}: click to drive there")
        if imgui.is_item_clicked():
            picked = hovered
    if beside:
        imgui.same_line()
    imgui.begin_child("features", (list_w if beside else 0.0, size if beside else 0.0))
    imgui.text_disabled("teleport to:")
    for k, f in enumerate(feats):
        if not beside and k:
            label_w = imgui.calc_text_size(f.name).x + 2 * imgui.get_style().item_spacing.x + 8.0
            if imgui.get_item_rect_max().x + label_w < imgui.get_window_pos().x + imgui.get_window_size().x:
                imgui.same_line()
        if imgui.small_button(f.name):
            picked = f
    imgui.end_child()
    return picked


def _near(p, pts, pixels: float) -> bool:
    """Whether screen point p lies within `pixels` of the polygon's outline."""
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1]):
        dx, dy = bx - ax, by - ay
        n2 = dx * dx + dy * dy
        t = 0.0 if n2 == 0.0 else max(0.0, min(1.0, ((p.x - ax) * dx + (p.y - ay) * dy) / n2))
        if math.hypot(p.x - ax - t * dx, p.y - ay - t * dy) <= pixels:
            return True
    return False


def _inside(p, pts) -> bool:
    """Whether screen point p lies inside the convex polygon pts."""
    sign = 0
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1]):
        cross = (bx - ax) * (p.y - ay) - (by - ay) * (p.x - ax)
        if cross != 0:
            if sign and (cross > 0) != (sign > 0):
                return False
            sign = 1 if cross > 0 else -1
    return True
