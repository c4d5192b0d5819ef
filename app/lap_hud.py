"""The lap timing over the 3D view (a circuit only): the lap in progress, the last and best laps, this lap's
sector splits with their delta to the best lap's (green ahead, red behind), and the live delta bar."""
from __future__ import annotations

import math

from imgui_bundle import imgui

from app.hud import HUD_FONT_SIZE
from app.laps import LapKeeper
from ui.panels.laps import clock as lap_clock

GREEN = (0.35, 0.95, 0.45, 1.0)
RED = (1.0, 0.38, 0.33, 1.0)
WHITE = (1.0, 1.0, 1.0, 1.0)
GREY = (0.72, 0.74, 0.78, 1.0)
DELTA_RANGE = 2.0          # s: the delta bar's full length either side of its centre
BAR_W, BAR_H = 300.0, 22.0


def signed(x: float) -> str:
    return f"{x:+.3f}" if math.isfinite(x) else ""


def lap_hud(keeper: LapKeeper | None, rect, hud_lines=()) -> None:
    """Draw the timing block in the top-right corner of the 3D view (x, y, w, h pixels) and the delta bar
    at its top centre, each moved down below the HUD's block (its `hud_lines`, top left) where they would
    cover it; nothing when the world is no circuit."""
    timer = None if keeper is None else keeper.timer
    if timer is None:
        return
    vx, vy, vw, vh = rect
    now = keeper.session.sim.time
    best, last, lap = timer.best(), timer.last, timer.current
    rows: list[tuple[str, tuple]] = []
    if lap is None:
        rows.append(("out lap: the timing starts at the start/finish line", GREY))
    else:
        why = "" if lap.valid else f"   INVALID: {lap.why}"
        rows.append((f"LAP {lap.number}   {lap_clock(timer.elapsed(now))}{why}", WHITE if lap.valid else RED))
        for k, split in enumerate(lap.sectors):
            ref = best.sectors[k] if best is not None else math.nan
            d = split - ref
            rows.append((f"S{k + 1} {split:7.3f}  {signed(d)}", GREEN if d < -5e-4 else RED if d > 5e-4 else WHITE))
    rows.append((f"last {lap_clock(last.time) if last else '-'}"
                 f"{'' if last is None or last.valid else ' (invalid)'}   best {lap_clock(best.time) if best else '-'}",
                 GREY))
    imgui.push_font(None, HUD_FONT_SIZE)
    hud = imgui.calc_text_size("\n".join(hud_lines), wrap_width=max(vw - 20, 200)) if hud_lines else None
    hud_right, hud_bottom = (vx + 10.0 + hud.x + 16.0, vy + 10.0 + hud.y + 16.0) if hud else (vx, vy)
    width = max(imgui.calc_text_size(text).x for text, _ in rows) + 16.0
    line = imgui.get_text_line_height_with_spacing()
    x0 = vx + vw - width - 10.0
    y0 = vy + 10.0 if x0 > hud_right + 6.0 else hud_bottom + 6.0
    bottom = y0 + len(rows) * line + 12.0
    dl = imgui.get_background_draw_list()
    dl.add_rect_filled((x0, y0), (x0 + width, bottom), imgui.get_color_u32((0.04, 0.05, 0.06, 0.67)), 3.0)
    for k, (text, color) in enumerate(rows):
        dl.add_text((x0 + 8.0, y0 + 6.0 + k * line), imgui.get_color_u32(color), text)
    delta = timer.delta(now)
    if math.isfinite(delta):
        cx = vx + vw / 2.0
        clear = cx - BAR_W / 2.0 > hud_right + 6.0 and cx + BAR_W / 2.0 < x0 - 6.0
        delta_bar(dl, cx, vy + 10.0 if clear else max(hud_bottom, bottom) + 6.0, delta)
    imgui.pop_font()


def delta_bar(dl, cx: float, y: float, delta: float) -> None:
    """A bar centred at cx: green to the left when ahead of the best lap, red to the right when behind,
    DELTA_RANGE seconds to each end, with the delta written on it."""
    x0, x1 = cx - BAR_W / 2.0, cx + BAR_W / 2.0
    dl.add_rect_filled((x0, y), (x1, y + BAR_H), imgui.get_color_u32((0.04, 0.05, 0.06, 0.67)), 3.0)
    frac = max(-1.0, min(1.0, delta / DELTA_RANGE))
    end = cx + frac * BAR_W / 2.0
    color = GREEN if delta < 0 else RED
    dl.add_rect_filled((min(cx, end), y + 3.0), (max(cx, end), y + BAR_H - 3.0), imgui.get_color_u32(color))
    dl.add_line((cx, y), (cx, y + BAR_H), imgui.get_color_u32(WHITE), 1.5)
    text = f"{delta:+.2f} s"
    size = imgui.calc_text_size(text)
    tx = cx + 8.0 if delta < 0 else cx - size.x - 8.0             # on the empty half
    dl.add_text((tx, y + (BAR_H - size.y) / 2.0), imgui.get_color_u32(WHITE), text)
