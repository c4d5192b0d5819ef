"""The Telemetry panel: every wheel's numbers of the step on show, its grip state and the models that made them."""
from __future__ import annotations

import math

from imgui_bundle import imgui

from sim.diagnosis import CAUSE_SHORT
from sim.diagnosis import SATURATED
from sim.diagnosis import STATE_NAMES
from sim.diagnosis import force_was_cut
from ui.panels import StepPanel
from ui.widgets import STATE_COLORS
from ui.widgets import TABLE_FLAGS

# (label, telemetry name, unit, scale for display)
ROWS = [("s", "s", "m", 1.0), ("a", "a", "-", 1.0), ("l", "l", "m", 1.0), ("x", "x", "m", 1.0),
        ("xdot", "xdot", "m/s", 1.0), ("Fs", "Fs", "N", 1.0), ("Fz", "Fz", "N", 1.0),
        ("Fz links", "Fz_link", "N", 1.0), ("camber", "camber_body", "deg", 180.0 / math.pi),
        ("toe", "toe", "deg", 180.0 / math.pi), ("vx", "vx", "m/s", 1.0),
        ("vy", "vy", "m/s", 1.0), ("kappa", "kappa", "-", 1.0), ("alpha", "alpha", "deg", 180.0 / math.pi),
        ("Fx raw", "Fx_raw", "N", 1.0), ("Fy raw", "Fy_raw", "N", 1.0), ("Fx", "Fx", "N", 1.0),
        ("Fy", "Fy", "N", 1.0), ("grip scale", "grip_scale", "-", 1.0), ("T drive", "T_drive", "N m", 1.0),
        ("T brake", "T_brake", "N m", 1.0), ("ESP brake", "esp_brake", "N m", 1.0), ("omega", "omega", "rad/s", 1.0),
        ("mu", "mu", "-", 1.0)]

# what each telemetry row is, in plain words (docs/physics.md has the formulas)
ROW_HELP = {"s": "distance from the suspension anchor to the ground along the suspension axis",
            "a": "how square the ground meets the wheel (1: flat under it)",
            "l": "suspension length", "x": "suspension compression", "xdot": "compression speed",
            "Fs": "suspension force (spring, damper, bump stop, anti-roll bar)",
            "Fz": "load: the ground's push on the tire along the contact normal",
            "Fz_link": "the part of the load the suspension's links carry, not the spring (roll centre, anti-dive)",
            "camber_body": "camber against the body (negative: the top leans inward), at this suspension travel",
            "toe": "toe against the body (positive: toe-in), at this suspension travel; steering not included",
            "vx": "contact point's speed along the tire's heading", "vy": "contact point's speed sideways",
            "kappa": "slip ratio (tread speed minus ground speed, over the ground speed)",
            "alpha": "slip angle between the tire's heading and its direction of travel",
            "Fx_raw": "longitudinal force the tire curve asks for", "Fy_raw": "lateral force the tire curve asks for",
            "Fx": "longitudinal force after the combined friction limit",
            "Fy": "lateral force after the combined friction limit, as the body took it (mid-substep)",
            "grip_scale": "how much the combined limit scaled the raw force (1: not at all)",
            "T_drive": "drive torque at the wheel", "T_brake": "brake torque applied",
            "omega": "wheel spin speed",
            "esp_brake": "brake torque stability control (F7) asks of this wheel on top of the pedal's",
            "mu": "friction coefficient: surface x tire grip x load factor"}


def compact_number(v: float) -> str:
    """At most 7 characters, three significant decimals where they fit: a table column stays narrow."""
    a = abs(v)
    if a >= 9999.5:
        return f"{v:.3g}"
    if a >= 99.95:
        return f"{v:.0f}"
    if a >= 9.9995:
        return f"{v:.2f}"
    return f"{v:.3f}"


class TelemetryPanel(StepPanel):
    """A table of every wheel's telemetry (ROWS), its grip state and the tire and suspension models."""

    def draw(self, w: float, h: float) -> None:
        imgui.set_next_window_pos((w - 470, 28), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((460, 482), imgui.Cond_.first_use_ever)
        if self.begin("Telemetry"):
            tel = self.session.sim.telemetry
            shown = self.shown()
            if imgui.begin_table("wheels", 6, TABLE_FLAGS):
                # the labels and units as wide as their longest (a shared width drew the values over "grip
                # scale" and "ESP brake" in a narrow panel); the wheels share the rest
                fixed = imgui.TableColumnFlags_.width_fixed
                imgui.table_setup_column("", fixed, max(imgui.calc_text_size(r[0]).x for r in ROWS))
                for name in ("FL", "FR", "RL", "RR"):
                    imgui.table_setup_column(name, imgui.TableColumnFlags_.width_stretch)
                imgui.table_setup_column("unit", fixed, max(imgui.calc_text_size(r[2]).x for r in ROWS))
                imgui.table_headers_row()
                imgui.table_next_row()
                imgui.table_next_column()
                imgui.text("state")
                for i in range(4):
                    imgui.table_next_column()
                    w_ = shown[i]
                    imgui.text_colored(STATE_COLORS[w_.state], CAUSE_SHORT[w_.cause] or STATE_NAMES[w_.state])
                    if imgui.is_item_hovered():
                        imgui.set_tooltip(f"{w_.name}: {w_.reason}")
                imgui.table_next_column()
                car = self.session.sim.vehicle
                for row, part, usual in (("tire", "tire", "magic"), ("susp.", "suspension", "reference")):
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text(row)
                    if imgui.is_item_hovered():
                        imgui.set_tooltip(f"the {part} model that made each wheel's numbers (front_{part}.model, "
                                          f"rear_{part}.model; docs/models.md)")
                    for i in range(4):
                        imgui.table_next_column()
                        model = getattr(car, f"{'front' if i < 2 else 'rear'}_{part}").model
                        shown = "ref" if model == "reference" else model
                        (imgui.text if model != usual else imgui.text_disabled)(shown)
                    imgui.table_next_column()
                for label, name, unit, k in ROWS:
                    values = getattr(tel, name)
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text(label)
                    if imgui.is_item_hovered() and name in ROW_HELP:
                        imgui.set_tooltip(f"{label}: {ROW_HELP[name]} ({unit})")
                    for i in range(4):
                        imgui.table_next_column()
                        v = float(values[i]) * k
                        if tel.grounded[i] < 0.5:
                            imgui.text_disabled(compact_number(v))
                        elif name == "grip_scale" and force_was_cut(v):
                            imgui.text_colored(STATE_COLORS[SATURATED], compact_number(v))
                        else:
                            imgui.text(compact_number(v))
                    imgui.table_next_column()
                    imgui.text_disabled(unit)
                imgui.end_table()
            if self.session.sim.vehicle.drive.mode == "engine":
                imgui.text_wrapped(f"engine {float(tel.rpm):.0f} rpm   gear {int(tel.gear)}   clutch "
                                   f"{float(tel.T_clutch):.1f} N m   diff lock {tel.diff_lock[0]:.1f} / "
                                   f"{tel.diff_lock[1]:.1f} N m")
        imgui.end()
