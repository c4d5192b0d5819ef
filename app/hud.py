"""What the window writes over the 3D view through ImGui, apart from the panels: the HUD's lines, the
messages' panels (text_block), the features' names, the compare-mode ghosts' names beside their pins and
the forces of the wheel the mouse is near.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from imgui_bundle import imgui

import sim
from app.frame_times import FrameTimes
from app.input import Input
from app.input import gear_name
from app.session import Session
from render.mathx import quat_matrix
from sim.diagnosis import WheelState
from sim.model.features import Feature

LABEL_RANGE = 90.0       # m: features nearer than this get their name in the 3D view
HUD_FONT_SIZE = 15.0     # px: four lines fit above the Tuning panel


def text_block(lines, pos, color=(1.0, 1.0, 1.0, 1.0), wrap: float = 0.0, size: float = HUD_FONT_SIZE,
               bottom: float | None = None, front: bool = False) -> float:
    """Lines of text on a translucent panel over the scene (behind ImGui's windows, or in front of them
    with `front`); pos is the top-left corner (pixels), y None to sit on `bottom` (the window's bottom edge
    by default). Returns the panel's height."""
    text = "\n".join(lines)
    imgui.push_font(None, size)
    font, font_size = imgui.get_font(), imgui.get_font_size()
    extent = imgui.calc_text_size(text, wrap_width=wrap) if wrap else imgui.calc_text_size(text)
    imgui.pop_font()
    pad = 8.0
    x, y = pos
    if y is None:
        y = (imgui.get_io().display_size.y if bottom is None else bottom) - extent.y - 2 * pad - 10.0
    dl = imgui.get_foreground_draw_list() if front else imgui.get_background_draw_list()
    dl.add_rect_filled((x, y), (x + extent.x + 2 * pad, y + extent.y + 2 * pad),
                       imgui.get_color_u32((0.04, 0.05, 0.06, 0.67)), 3.0)
    dl.add_text(font, font_size, (x + pad, y + pad), imgui.get_color_u32(color), text, wrap_width=wrap)
    return extent.y + 2 * pad


def hud_lines(s: Session, controls: Input, frame_rtf: float, times: FrameTimes, camera: str,
              pad_navigates: bool) -> list[str]:
    """The HUD's lines: speed and gear, the aids, real time and the step, the frame time and camera, and what
    holds the time (blown up, rewound, paused, slow motion, replay, recording)."""
    v = s.sim.state.velocity
    fwd = quat_matrix(s.sim.state.orientation)[:3, 0]
    speed = float(np.dot(v, fwd)) * sim.KMH
    if controls.direct_gears:
        driven = s.sim.wheel_geometry().driven
        wheel_rpm = float(np.mean(np.abs(s.sim.state.wheel_omega[driven]))) * sim.RPM
        drive = f"gear {controls.gear}   driven wheels {wheel_rpm:5.0f} rpm (direct drive)"
    else:
        gear = int(s.sim.state.gear)
        name = gear_name(gear)
        mode = "auto" if s.sim.vehicle.gearbox.mode == "auto" else "manual"
        drive = f"gear {name} ({mode})   {float(s.sim.state.engine_rpm):5.0f} rpm"
    tel = s.sim.telemetry
    # the aids always say whether they are on, and when they act
    aids = "   ".join(f"{name} {'on' if on else 'off'}{' ACTING' if on and float(np.max(act)) > 0.5 else ''}"
                      for name, on, act in (("ABS", controls.abs, tel.abs_active),
                                            ("TC", controls.tc, tel.tc_active),
                                            ("ESP", controls.esp, np.asarray(tel.esp_brake) > 0.0)))
    if not controls.direct_gears and ("clutch" in controls.held or "clutch" in controls.pad_held):
        aids += "   CLUTCH PEDAL DOWN"
    if controls.cruise is not None:
        aids += f"   cruise {controls.cruise * sim.KMH:.0f} km/h"
    if s.companions:
        aids += f"   COMPARING (ghosts): {', '.join(c.label for c in s.companions)}"
    off = [name.replace("_", " ") for name, on in s.sim.switches().items() if not on]
    if off:
        aids += f"   OFF (Lab menu): {', '.join(off)}"
    if controls.steer_hold:
        aids += f"   steering held at {controls.steer:+.2f}"
    if pad_navigates:
        aids += "   PAD NAVIGATES THE OVERLAY (click the left stick to drive)"
    lines = [f"{speed:6.1f} km/h   {drive}",
             aids.strip(),
             f"{frame_rtf:4.2f}x real time   t {s.sim.time:7.2f} s   1/{round(1 / s.sim.dt)} s x {s.sim.substeps}",
             f"frame {times.median('frame'):4.1f} ms (physics {times.median('physics'):4.1f})   "
             f"{camera} camera"]
    flags = []
    if s.blown_up:
        flags.append("BLOWN UP")
    elif s.scrub:
        flags.append(f"REWOUND {s.scrub * s.sim.dt:.2f} s (B, N: step back, forward; P: drive on)")
    elif s.pause_reason:
        flags.append(f"PAUSED: {s.pause_reason.removeprefix('paused: ')} (P resumes, N steps, B steps back)")
    elif s.paused:
        flags.append("PAUSED (N steps, B steps back)")
    if s.time_scale != 1.0:
        flags.append(f"slow motion {s.time_scale:g}x")
    if s.replaying:
        flags.append(f"replay {s.replay_pos}/{len(s.replay.rows)}")
    if s.recording is not None:
        flags.append("recording")
    if flags:
        lines.append("   ".join(flags))
    return lines


def force_tooltip(tel, states: Callable[[], list[WheelState]], vp: np.ndarray, rect) -> None:
    """Hovering near a wheel's contact in the 3D view shows its forces in numbers (`tel`, the car's
    telemetry) and its grip state (of `states()`)."""
    io = imgui.get_io()
    if io.want_capture_mouse:
        return
    ox, oy, w, h = rect
    mx, my = io.mouse_pos.x, io.mouse_pos.y
    if not (ox <= mx < ox + w and oy <= my < oy + h):
        return
    best, best_d = None, 40.0                             # px
    for i in range(4):
        if tel.grounded[i] < 0.5:
            continue
        c = vp @ np.array([*np.asarray(tel.Q[i], float), 1.0])
        if c[3] <= 0.1:
            continue
        x, y = ox + (c[0] / c[3] * 0.5 + 0.5) * w, oy + (0.5 - c[1] / c[3] * 0.5) * h
        d = float(np.hypot(x - mx, y - my))
        if d < best_d:
            best, best_d = i, d
    if best is not None:
        i = best
        state = states()[i]
        imgui.set_tooltip(f"{sim.WHEEL_NAMES[i]}: {state.name}\n"
                          f"Fz {tel.Fz[i] / 1000:.2f} kN (budget mu Fz {tel.mu[i] * tel.Fz[i] / 1000:.2f} kN)\n"
                          f"Fx {tel.Fx[i] / 1000:+.2f} kN (raw {tel.Fx_raw[i] / 1000:+.2f})\n"
                          f"Fy {tel.Fy[i] / 1000:+.2f} kN (raw {tel.Fy_raw[i] / 1000:+.2f})\n{state.reason}")


def feature_labels(features: list[Feature], vp: np.ndarray, eye: np.ndarray, rect) -> None:
    """Each named feature's name over it in the 3D view (those in front of the camera and near)."""
    ox, oy, w, h = rect
    dl = imgui.get_background_draw_list()
    taken: list[tuple[float, float, float, float]] = []     # labels drawn: a later one that overlaps is left out
    for f in features:
        p = np.array([*f.top, 1.0]) + np.array([0.0, 0.0, 1.5, 0.0])
        if np.linalg.norm(p[:3] - eye) > LABEL_RANGE:
            continue
        c = vp @ p
        if c[3] <= 0.1 or abs(c[0]) > c[3] or abs(c[1]) > c[3]:
            continue
        x, y = ox + (c[0] / c[3] * 0.5 + 0.5) * w, oy + (0.5 - c[1] / c[3] * 0.5) * h
        size = imgui.calc_text_size(f.name)
        box = (x - size.x / 2 - 4, y - 2, x + size.x / 2 + 4, y + size.y + 2)
        if box[0] < ox or box[2] > ox + w or box[1] < oy or box[3] > oy + h:
            continue                                     # a label the view's edge would cut is left out
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            continue
        taken.append(box)
        dl.add_rect_filled((x - size.x / 2 - 4, y - 2), (x + size.x / 2 + 4, y + size.y + 2),
                           imgui.get_color_u32((0.05, 0.05, 0.06, 0.55)), 3.0)
        dl.add_text((x - size.x / 2, y), imgui.get_color_u32((1, 1, 1, 0.9)), f.name)


def pin_labels(labels: list[str], pins: list[tuple[np.ndarray, tuple]], vp: np.ndarray, rect) -> None:
    """Each compare-mode ghost's name beside its pin (`pins`: (world point, rgb) per ghost, in the order
    of `labels`), in its colour, in the 3D view."""
    ox, oy, w, h = rect
    dl = imgui.get_background_draw_list()
    for label, (p, color) in zip(labels, pins):
        c = vp @ np.array([*p, 1.0])
        if c[3] <= 0.1:
            continue
        x, y = ox + (c[0] / c[3] * 0.5 + 0.5) * w + 18, oy + (0.5 - c[1] / c[3] * 0.5) * h
        size = imgui.calc_text_size(label)
        if not (ox <= x and x + size.x + 4 < ox + w and oy <= y - size.y / 2 and y + size.y / 2 < oy + h):
            continue                                     # a label the view's edge would cut is left out
        dl.add_rect_filled((x - 4, y - size.y / 2 - 2), (x + size.x + 4, y + size.y / 2 + 2),
                           imgui.get_color_u32((0.05, 0.05, 0.06, 0.6)), 3.0)
        dl.add_text((x, y - size.y / 2), imgui.get_color_u32((*color[:3], 1.0)), label)
