"""Skid marks: where a tire slides, a dark strip is left on the ground and fades over a minute.

`record(sim)` runs after every physics step and lays a segment under each wheel whose contact patch slides
over the ground (faster than SLIDE_MIN) while it is locked, spinning or past its grip (|F_raw| > mu Fz);
the segments live in a ring on the GPU and are drawn in one call, translucent, just above the ground.
"""
from __future__ import annotations

import math
import time

import moderngl
import numpy as np

from render.mathx import gl

CAP = 8000                # segments kept (the oldest are overwritten)
LIFETIME = 60.0           # s of wall time until a mark has faded away
SLIDE_MIN = 1.5           # m/s: the contact patch slides at least this fast over the ground
SEGMENT = 0.2             # m: a mark is laid in pieces about this long
LIFT = 0.02               # m above the ground (the markings are painted at 12 mm)
FLOATS = 5                # per vertex: x y z, strength, birth time

VERT = """
#version 330
uniform mat4 u_vp;
in vec3 in_pos;
in float in_strength;
in float in_birth;
out float v_alpha;
uniform float u_now;
uniform float u_life;
void main() {
    v_alpha = in_strength * clamp(1.0 - (u_now - in_birth) / u_life, 0.0, 1.0);
    gl_Position = u_vp * vec4(in_pos, 1.0);
}
"""

FRAG = """
#version 330
in float v_alpha;
out vec4 f_color;
void main() {
    if (v_alpha <= 0.0) discard;
    f_color = vec4(0.05, 0.05, 0.05, 0.75 * v_alpha);
}
"""


SLIDING_CHANNELS = ("grounded", "rho", "omega", "vx", "vy", "mu", "Fz", "Fx_raw", "Fy_raw")


def sliding(tel, i: int, channels: dict | None = None) -> float:
    """0..1: how strongly wheel i marks the ground now (0 when it grips or hardly slides). `channels`: the
    telemetry's SLIDING_CHANNELS already read as lists (a step asks for all four wheels)."""
    c = channels if channels is not None else {name: getattr(tel, name) for name in SLIDING_CHANNELS}
    if c["grounded"][i] < 0.5:
        return 0.0
    tread, ground = float(c["rho"][i]) * float(c["omega"][i]), float(c["vx"][i])
    slide = math.hypot(tread - ground, float(c["vy"][i]))
    if slide < SLIDE_MIN:
        return 0.0
    budget = float(c["mu"][i]) * float(c["Fz"][i])
    past = budget > 0.0 and math.hypot(float(c["Fx_raw"][i]), float(c["Fy_raw"][i])) > budget
    locked_or_spinning = abs(ground) > 1.0 and (abs(tread) < 0.1 * abs(ground) or abs(tread) > 1.5 * abs(ground))
    if not (past or locked_or_spinning):
        return 0.0
    return min(1.0, 0.35 + slide / 12.0)


class SkidMarks:
    def __init__(self, ctx: moderngl.Context, width: float = 0.19):
        self.ctx = ctx
        self.width = width
        self.prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.vbo = ctx.buffer(reserve=CAP * 6 * FLOATS * 4, dynamic=True)
        self.vao = ctx.vertex_array(self.prog, [(self.vbo, "3f 1f 1f", "in_pos", "in_strength", "in_birth")])
        self.head = 0                         # next segment slot
        self.count = 0                        # segments written (up to CAP)
        self.last: list[np.ndarray | None] = [None] * 4   # where each wheel's mark ends
        self.start = time.monotonic()

    def clear(self) -> None:
        self.count = self.head = 0
        self.last = [None] * 4

    def now(self) -> float:
        return time.monotonic() - self.start

    def record(self, s) -> None:
        """After a physics step: extend or end each wheel's mark."""
        tel = s.telemetry
        if not s.switched_on("friction"):                 # a kill switch: nothing grips, nothing marks
            self.last = [None] * 4
            return
        channels = dict(zip(SLIDING_CHANNELS, tel.wheel_lists(SLIDING_CHANNELS)))
        q = n = None
        for i in range(4):
            strength = sliding(tel, i, channels)
            if strength <= 0.0:
                self.last[i] = None
                continue
            if q is None:                    # (most steps no wheel marks: the vectors are read when one does)
                q, n = np.asarray(tel.Q, dtype=float), np.asarray(tel.n, dtype=float)
            p = q[i] + LIFT * n[i]
            if self.last[i] is None:
                self.last[i] = p
                continue
            d = p - self.last[i]
            length = float(np.linalg.norm(d))
            if length < SEGMENT:
                continue
            if length > 5.0:                 # a jump (reset, rewind): start again
                self.last[i] = p
                continue
            self.add(self.last[i], p, n[i], strength)
            self.last[i] = p

    def add(self, a: np.ndarray, b: np.ndarray, normal: np.ndarray, strength: float) -> None:
        side = np.cross(normal, b - a)
        norm = np.linalg.norm(side)
        if norm < 1e-9:
            return
        side *= 0.5 * self.width / norm
        corners = (a - side, a + side, b + side, a - side, b + side, b - side)
        birth = self.now()
        data = np.array([[*c, strength, birth] for c in corners], dtype="f4")
        self.vbo.write(data.tobytes(), offset=self.head * 6 * FLOATS * 4)
        self.head = (self.head + 1) % CAP
        self.count = min(self.count + 1, CAP)

    def draw(self, vp: np.ndarray) -> None:
        """Into the scene's framebuffer, after the scene (its depth buffer hides marks behind things)."""
        if self.count == 0:
            return
        ctx = self.ctx
        ctx.enable(moderngl.BLEND | moderngl.DEPTH_TEST)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.fbo.depth_mask = False
        self.prog["u_vp"].write(gl(vp))
        self.prog["u_now"].value = self.now()
        self.prog["u_life"].value = LIFETIME
        self.vao.render(moderngl.TRIANGLES, vertices=self.count * 6)
        ctx.fbo.depth_mask = True
        ctx.disable(moderngl.BLEND)
