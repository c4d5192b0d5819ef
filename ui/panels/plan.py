"""The Plan view panel: the car from above, where nothing hides the forces."""
from __future__ import annotations

import math

import numpy as np
from imgui_bundle import imgui

import sim
from ui.panels import StepPanel
from ui.widgets import GREY
from ui.widgets import STATE_COLORS
from ui.widgets import text_wrapped_colored


def arrow(dl, a, b, color, thickness: float, hollow: bool = False) -> None:
    """A line from a to b (pixels) with a head at b; `hollow` outlines the head (the raw force's ghost)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n < 2.0:
        return
    col = imgui.get_color_u32(color)
    ux, uy = dx / n, dy / n
    head = min(10.0, 0.4 * n)
    left = (b[0] - head * ux + 0.5 * head * uy, b[1] - head * uy - 0.5 * head * ux)
    right = (b[0] - head * ux - 0.5 * head * uy, b[1] - head * uy + 0.5 * head * ux)
    dl.add_line(a, (b[0] - head * ux, b[1] - head * uy), col, thickness)
    if hollow:
        dl.add_triangle(b, left, right, col, 1.0)
    else:
        dl.add_triangle_filled(b, left, right, col)


class PlanPanel(StepPanel):
    def draw(self, w: float, h: float) -> None:
        """The car from above, where nothing hides the forces: each wheel at its place and steering angle,
        tinted by its grip state, with the contact's velocity (blue), the raw force (hollow) and the limited
        force (solid) on one scale, its load and slip angle. x forward is up, y left is left."""
        if self.begin("Plan view"):
            s = self.session.sim
            tel, geo, shown = s.telemetry, s.wheel_geometry(), self.shown()
            avail = imgui.get_content_region_avail()
            size = max(80.0, min(avail.x, avail.y - 2 * imgui.get_text_line_height_with_spacing()))
            o = imgui.get_cursor_screen_pos()
            cx, cy = o.x + avail.x / 2, o.y + size / 2
            xs, ys, radius = geo.anchor[:, 0], geo.anchor[:, 1], geo.radius
            x_mid = 0.5 * (xs.max() + xs.min())
            span = max(xs.max() - xs.min() + 2 * radius.max(), 2 * np.abs(ys).max() + 0.6) * 1.9
            px = size / span                                               # pixels per metre

            def at(x, y):
                return cx - y * px, cy - (x - x_mid) * px

            dl = imgui.get_window_draw_list()
            body = [at(xs.max() + radius.max(), ys.max() - 0.1), at(xs.max() + radius.max(), ys.min() + 0.1),
                    at(xs.min() - radius.max(), ys.min() + 0.1), at(xs.min() - radius.max(), ys.max() - 0.1)]
            dl.add_convex_poly_filled(body, imgui.get_color_u32((1, 1, 1, 0.08)))
            budgets = tel.mu * tel.Fz
            f_ref = max(float(np.max(budgets)), float(np.max(np.hypot(tel.Fx_raw, tel.Fy_raw))), 1.0)
            f_px = 0.30 * span * px / f_ref                                # pixels per newton, all wheels
            v_px = 0.30 * span * px / max(float(np.max(np.hypot(tel.vx, tel.vy))), 5.0)
            for i in range(4):
                d = float(tel.steer[i])
                u, v = (math.cos(d), math.sin(d)), (-math.sin(d), math.cos(d))
                x, y = float(xs[i]), float(ys[i])
                p0 = at(x, y)

                def tip(a, b, scale, p0=p0, u=u, v=v):             # a along u, b along v, in pixels
                    return p0[0] - (a * u[1] + b * v[1]) * scale, p0[1] - (a * u[0] + b * v[0]) * scale
                col = STATE_COLORS[shown[i].state]
                r = float(radius[i])
                wheel = [at(x + r * u[0] + 0.1 * v[0], y + r * u[1] + 0.1 * v[1]),
                         at(x + r * u[0] - 0.1 * v[0], y + r * u[1] - 0.1 * v[1]),
                         at(x - r * u[0] - 0.1 * v[0], y - r * u[1] - 0.1 * v[1]),
                         at(x - r * u[0] + 0.1 * v[0], y - r * u[1] + 0.1 * v[1])]
                dl.add_convex_poly_filled(wheel, imgui.get_color_u32(col))
                if tel.grounded[i] > 0.5:
                    budget = float(budgets[i])
                    dl.add_circle(p0, budget * f_px, imgui.get_color_u32((*col[:3], 0.35)), 40, 1.0)
                    arrow(dl, p0, tip(float(tel.vx[i]), float(tel.vy[i]), v_px), (0.45, 0.7, 1.0, 0.9), 1.5)
                    arrow(dl, p0, tip(float(tel.Fx_raw[i]), float(tel.Fy_raw[i]), f_px), (1, 1, 1, 0.55), 1.0,
                          hollow=True)
                    arrow(dl, p0, tip(float(tel.Fx[i]), float(tel.Fy[i]), f_px), col, 3.0)
                label = (f"{sim.WHEEL_NAMES[i]} {float(tel.Fz[i]) / 1000:.2f} kN\n"
                         f"alpha {math.degrees(float(tel.alpha[i])):+.1f} deg\nkappa {float(tel.kappa[i]):+.2f}")
                ts = imgui.calc_text_size(label)
                # front wheels' figures above them, rear wheels' below, the left ones ending at the wheel and
                # the right ones starting there, kept inside the panel
                lx = p0[0] - ts.x + 8 if y > 0 else p0[0] - 8
                lx = min(max(lx, o.x), o.x + avail.x - ts.x)
                ly = p0[1] - r * px - ts.y - 4 if i < 2 else p0[1] + r * px + 4
                dl.add_text((lx, min(max(ly, o.y), o.y + size - ts.y)), imgui.get_color_u32((1, 1, 1, 0.85)), label)
            imgui.dummy((avail.x, size))
            text_wrapped_colored(GREY, f"circle: mu Fz; blue: contact velocity ({0.30 * span * px / v_px:.0f} m/s "
                                       f"long); hollow: raw force, solid: limited ({f_ref / 1000:.1f} kN long)")
        imgui.end()
