"""The wheels: where each hangs (suspension travel, steering angle, camber, spin) and how its pattern shows
spin, lock and wheelspin without strobing.

Placement. A wheel's model matrix is the body's pose, then the translation along the suspension axis d
by the suspension length l (the wheel centre is A + l d, sim.WheelGeometry), then the steering angle about
the body's z, the static camber about x and the spin angle about the axle y (docs/physics.md: the spin
axis u is the body's +y turned by the camber about x, then by the steering angle about z), then the
wheel's size. So the drawn axle is the physics' u and the drawn centre its C.

Pattern and temporal aliasing. The rim carries crash-test quadrants (two light, two dark) and the tread
24 blocks. A pattern of k-fold symmetry that turns by more than half its period (pi / k) between two
frames strobes (the wagon-wheel effect: at 60 frames a second the quadrants would seem to stand or run
backwards from 15 rev/s, about 100 km/h, the tread blocks from 8 km/h). The fragment shader writes
each pattern as a few Fourier harmonics and weighs harmonic k by what a camera with its shutter open for
the whole frame records of it, the average over the angle swept during the exposure: sinc(k sweep / 2)
(a box filter, motion blur), and fades it to nothing before k sweep reaches pi, so no harmonic that would
alias is ever drawn. `sweep` is |omega| times the simulated time the frame covers (the frame's shutter in
simulated time: slow motion shows the wheel turning, a paused frame keeps the last frame's blur).
What reads at a glance: crisp quadrants and tread on a car that moves = a locked wheel; a grey, blurred
rim on a car that hardly moves = wheelspin; a rolling wheel blurs smoothly as the car speeds up.
"""
from __future__ import annotations

import math

import moderngl
import numpy as np

from render.instancing import Slots

RIM = 0.62                   # rim radius as a share of the tire radius (the rest of the side is sidewall)
SEGMENTS = 32
TREAD, SIDEWALL, RIM_FACE = 0.0, 1.0, 2.0           # the part, in the vertex colour's red channel
PLAIN, TINTED, FLAT = 0.0, 1.0, 2.0                 # i_mode: own colours, grip tint, one colour (a ghost)
INSTANCE_FORMAT = "16f 4f 1f 1f/i"                  # i_model (column-major), i_color, i_sweep, i_mode
INSTANCE_ATTRS = ("i_model", "i_color", "i_sweep", "i_mode")
INSTANCE_FLOATS = 22

VERT = """
#version 330
uniform mat4 u_vp;
uniform vec3 u_light;
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
in mat4 i_model;
in vec4 i_color;
in float i_sweep;
in float i_mode;
out vec3 v_local;
out vec3 v_world;
out vec2 v_light;
flat out int v_part;
flat out int v_mode;
flat out vec4 v_tint;
flat out float v_sweep;
float lit(vec3 n) {
    return 0.28 + 0.17 * (0.5 + 0.5 * n.z) + 0.62 * max(dot(n, -u_light), 0.0);
}
void main() {
    vec4 w = i_model * vec4(in_pos, 1.0);
    vec3 n = normalize(mat3(i_model) * in_normal);
    v_local = in_pos;
    v_world = w.xyz;
    v_light = vec2(lit(n), lit(-n));
    v_part = int(in_color.x + 0.5);
    v_mode = int(i_mode + 0.5);
    v_tint = i_color;
    v_sweep = i_sweep;
    gl_Position = u_vp * w;
}
"""

FRAG = """
#version 330
const float PI = 3.14159265;
uniform vec3 u_eye;
uniform vec3 u_sky;
in vec3 v_local;
in vec3 v_world;
in vec2 v_light;
flat in int v_part;
flat in int v_mode;
flat in vec4 v_tint;
flat in float v_sweep;
out vec4 f_color;
// what the frame shows of the k-th harmonic of a pattern that turns v_sweep while the shutter is open:
// its average over the sweep (sinc), faded to nothing before the sweep reaches half its period (k s = pi)
float w(float k) {
    float x = 0.5 * k * v_sweep;
    float box = x < 1e-4 ? 1.0 : sin(x) / x;
    return box * (1.0 - smoothstep(0.7 * PI, PI, k * v_sweep));
}
void main() {
    float th = atan(v_local.x, v_local.z);
    vec3 rubber = vec3(0.10, 0.10, 0.11);
    vec3 c;
    float shade;                                   // 0 dark .. 1 light part of the pattern
    if (v_part == 0) {                             // tread: 24 blocks
        shade = 0.5 + 0.5 * w(24.0) * cos(24.0 * th);
        c = rubber * (0.55 + 0.9 * shade);
        if (v_mode == 1) c = mix(c, v_tint.rgb * (0.6 + 0.3 * shade), 0.5);
    } else if (v_part == 1) {                      // sidewall, with the tint on its outer band
        shade = 0.3;
        c = rubber;
        if (v_mode == 1 && length(v_local.xz) > 0.8) c = v_tint.rgb * 0.85;
    } else {
        // rim: quadrants, the square wave (4 / pi) (cos 2t - cos 6t / 3 + cos 10t / 5) with Lanczos' sigma
        // factors against its ringing (sinc(pi m / 7) for the m-th odd term), a little over-driven
        float q = 1.45 * (0.966 * w(2.0) * cos(2.0 * th) - 0.241 * w(6.0) * cos(6.0 * th)
                          + 0.070 * w(10.0) * cos(10.0 * th));
        shade = clamp(0.5 + 0.5 * q, 0.0, 1.0);
        vec3 light = v_mode == 1 ? v_tint.rgb : vec3(0.88, 0.88, 0.84);
        c = mix(vec3(0.13, 0.13, 0.14), light, shade);
        if (length(v_local.xz) < 0.15) {           // the hub cap
            shade = 0.8;
            c = vec3(0.62, 0.62, 0.60);
        }
    }
    if (v_mode == 2) c = v_tint.rgb * (0.45 + 0.55 * shade);
    c *= gl_FrontFacing ? v_light.x : v_light.y;
    float d = length(v_world - u_eye);
    f_color = vec4(mix(c, u_sky, clamp((d - 120.0) / 700.0, 0.0, 1.0)), v_tint.a);
}
"""


def mesh(segments: int = SEGMENTS) -> np.ndarray:
    """A unit wheel around the y axis (radius 1, width 1): (n, 9) float32 rows of position, normal and
    (part, 0, 0); the shader paints each part."""
    rows = []
    ang = [2 * math.pi * k / segments for k in range(segments + 1)]
    for k in range(segments):
        (s0, c0), (s1, c1) = (math.sin(ang[k]), math.cos(ang[k])), (math.sin(ang[k + 1]), math.cos(ang[k + 1]))
        quad = [(s0, -0.5, c0), (s1, -0.5, c1), (s1, 0.5, c1), (s0, 0.5, c0)]
        normals = [(s0, 0.0, c0), (s1, 0.0, c1), (s1, 0.0, c1), (s0, 0.0, c0)]
        for i in (0, 1, 2, 0, 2, 3):                     # counter-clockwise seen from outside, as every face
            rows.append([*quad[i], *normals[i], TREAD, 0.0, 0.0])
        for y in (-0.5, 0.5):
            ny = 1.0 if y > 0 else -1.0
            ring = [(RIM * s0, y, RIM * c0), (s0, y, c0), (s1, y, c1), (RIM * s1, y, RIM * c1)]
            for i in ((0, 1, 2, 0, 2, 3) if y > 0 else (0, 2, 1, 0, 3, 2)):
                rows.append([*ring[i], 0.0, ny, 0.0, SIDEWALL, 0.0, 0.0])
            disc = [(0.0, y, 0.0), (RIM * s0, y, RIM * c0), (RIM * s1, y, RIM * c1)]
            for i in ((0, 1, 2) if y > 0 else (0, 2, 1)):
                rows.append([*disc[i], 0.0, ny, 0.0, RIM_FACE, 0.0, 0.0])
    return np.array(rows, dtype="f4")


def wheel_matrices(body: np.ndarray, anchor, axis, l, steer, camber, angle, radius, width) -> np.ndarray:
    """(n, 4, 4) model matrices: body @ T(anchor + l axis) @ Rz(steer) @ Rx(camber) @ Ry(angle) @ S(r, w, r)
    for n wheels at once (anchor, axis (n, 3) body frame; the rest (n,); angles rad, lengths m)."""
    l = np.asarray(l, float)
    cs, ss, cc, sc = np.cos(steer), np.sin(steer), np.cos(camber), np.sin(camber)
    ca, sa = np.cos(angle), np.sin(angle)
    r, w = np.asarray(radius, float), np.asarray(width, float)
    # Rx(camber) Ry(angle) = [[ca, 0, sa], [sc sa, cc, -sc ca], [-cc sa, sc, cc ca]]; Rz mixes rows 0 and 1
    m = np.zeros((len(l), 4, 4))
    m[:, 0, 0], m[:, 0, 1], m[:, 0, 2] = (cs * ca - ss * sc * sa) * r, -ss * cc * w, (cs * sa + ss * sc * ca) * r
    m[:, 1, 0], m[:, 1, 1], m[:, 1, 2] = (ss * ca + cs * sc * sa) * r, cs * cc * w, (ss * sa - cs * sc * ca) * r
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = -cc * sa * r, sc * w, cc * ca * r
    m[:, :3, 3] = anchor + axis * l[:, None]
    m[:, 3, 3] = 1.0
    return np.asarray(body, float) @ m


def instance_rows(models: np.ndarray, colors, alpha: float, sweep, mode) -> np.ndarray:
    """(n, 22) instance rows: the models, a colour per wheel (n, 3) or one, alpha, sweep (rad), mode."""
    n = len(models)
    rows = np.empty((n, INSTANCE_FLOATS), dtype="f4")
    rows[:, :16] = models.transpose(0, 2, 1).reshape(n, 16)
    rows[:, 16:19] = colors
    rows[:, 19] = alpha
    rows[:, 20] = sweep
    rows[:, 21] = mode
    return rows


class Exposure:
    """The shutter: the simulated time one frame shows, from the drawn poses' times. A frame that moves
    time forward by a plausible frame's worth sets it; a paused frame, a rewind or a jump keeps the last."""

    def __init__(self, initial: float = 1.0 / 60.0, longest: float = 0.25):
        self.seconds = initial
        self.longest = longest
        self.last: float | None = None

    def update(self, t: float) -> float:
        if self.last is not None and 0.0 < t - self.last <= self.longest:
            self.seconds = t - self.last
        self.last = t
        return self.seconds


def sweeps(omega, exposure: float) -> np.ndarray:
    """rad each wheel turns while the shutter is open: |omega| (rad/s) times the exposure (s)."""
    return np.abs(np.asarray(omega, float)) * exposure


class WheelRenderer(Slots):
    """The patterned wheel drawn instanced: `draw(slot, rows)` draws one wheel per row (instance_rows)."""

    def __init__(self, ctx: moderngl.Context, light, sky):
        prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        prog["u_light"].value = tuple(float(x) for x in light)
        prog["u_sky"].value = tuple(sky)
        self.vbo = ctx.buffer(mesh().tobytes())
        super().__init__(ctx, prog, [(self.vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color")], INSTANCE_FORMAT,
                         INSTANCE_ATTRS, INSTANCE_FLOATS)

    def frame(self, vp_bytes: bytes, eye) -> None:
        self.prog["u_vp"].write(vp_bytes)
        self.prog["u_eye"].value = tuple(float(v) for v in eye)
