"""The lit mesh program every solid thing is drawn with (the world, the car's body, arrows), its
per-instance rows and the instanced mesh (render.instancing)."""
from __future__ import annotations

import moderngl
import numpy as np

from render.instancing import Slots

SKY = (0.62, 0.74, 0.88)
GHOST = (0.55, 0.8, 1.0)          # the reference run's translucent car
LIGHT = np.array([-0.45, -0.30, -0.84]) / np.linalg.norm([-0.45, -0.30, -0.84])

# per instance: the model matrix, a colour the mesh's own is multiplied by (or, for a ghost, that replaces
# it), its alpha, and whether the ground grid is painted on it; one draw call draws every instance of a
# mesh (boxes, arrows)
VERT = """
#version 330
uniform mat4 u_vp;
uniform vec3 u_light;
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
in mat4 i_model;
in vec4 i_color;
in float i_grid;
out vec3 v_world;
out vec3 v_front;
out vec3 v_back;
out float v_up;
flat out float v_alpha;
flat out int v_grid;
vec3 lit(vec3 color, vec3 n) {
    return color * (0.28 + 0.17 * (0.5 + 0.5 * n.z) + 0.62 * max(dot(n, -u_light), 0.0));
}
void main() {
    vec4 w = i_model * vec4(in_pos, 1.0);
    v_world = w.xyz;
    vec3 n = normalize(mat3(i_model) * in_normal);
    vec3 color = i_grid > 1.5 ? i_color.rgb * (0.55 + 0.45 * dot(in_color, vec3(0.333))) : in_color * i_color.rgb;
    // lit per vertex, both sides (a face seen from behind is lit as its far side): the meshes' faces
    // are flat, so only the wheels' and the body's rounded parts are shaded differently from per pixel
    v_front = lit(color, n);
    v_back = lit(color, -n);
    if (i_grid > 2.5) {            // a marker (the force arrows): its own colour, lit only a little
        v_front = color * (0.8 + 0.2 * max(n.z, 0.0) + 0.1 * max(dot(n, -u_light), 0.0));
        v_back = v_front;
    }
    v_up = abs(n.z);
    v_alpha = i_color.a;
    v_grid = int(i_grid + 0.5);
    gl_Position = u_vp * w;
}
"""

FRAG = """
#version 330
uniform vec3 u_eye;
uniform vec3 u_sky;
in vec3 v_world;
in vec3 v_front;
in vec3 v_back;
in float v_up;
flat in float v_alpha;
flat in int v_grid;
out vec4 f_color;
void main() {
    vec3 c = gl_FrontFacing ? v_front : v_back;
    if (v_grid == 1 && v_up > 0.6) {
        vec2 q = v_world.xy;
        vec2 fw = max(fwidth(q), vec2(1e-5));                      // the 10 m grid's is a tenth of this
        vec2 g1 = abs(fract(q + 0.5) - 0.5) / fw;
        vec2 g10 = abs(fract(q * 0.1 + 0.5) - 0.5) / (fw * 0.1);
        c = mix(c, c * 1.45 + 0.02, 0.45 * (1.0 - min(min(g1.x, g1.y), 1.0)));
        c = mix(c, vec3(0.86, 0.86, 0.82), 0.55 * (1.0 - min(min(g10.x, g10.y), 1.0)));
    }
    float d = length(v_world - u_eye);
    f_color = vec4(mix(c, u_sky, clamp((d - 120.0) / 700.0, 0.0, 1.0)), v_alpha);
}
"""


INSTANCE_FORMAT = "16f 4f 1f/i"                  # i_model (column-major), i_color (rgb, alpha), i_grid
INSTANCE_ATTRS = ("i_model", "i_color", "i_grid")
INSTANCE_FLOATS = 21
GRID, FLAT, MARKER = 1.0, 2.0, 3.0               # i_grid: the ground grid painted on it; one colour (a ghost);
#                                                  its own colour hardly shaded (an arrow must read from any side)


def instance(model: np.ndarray, color=(1.0, 1.0, 1.0), alpha: float = 1.0, grid: bool = False,
             flat: bool = False, marker: bool = False) -> np.ndarray:
    """One row of the instance buffer: (21,) float32. `flat` paints the mesh in `color` alone (its own
    colours only shade it), else its colours are multiplied by `color`; a `marker` is hardly shaded."""
    row = np.empty(INSTANCE_FLOATS, dtype="f4")
    row[:16] = np.asarray(model, dtype="f4").T.reshape(16)
    row[16:19] = color
    row[19] = alpha
    row[20] = MARKER if marker else FLAT if flat else GRID if grid else 0.0
    return row


class Mesh(Slots):
    """A triangle mesh drawn instanced (render.instancing): `draw(slot, rows)` draws one copy per row."""

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, data: np.ndarray):
        self.vbo = ctx.buffer(np.ascontiguousarray(data, dtype="f4").tobytes())
        super().__init__(ctx, prog, [(self.vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color")], INSTANCE_FORMAT,
                         INSTANCE_ATTRS, INSTANCE_FLOATS)

    def release(self):
        super().release()
        self.vbo.release()


def instances(models: np.ndarray, colors, alphas, flag: float = 0.0) -> np.ndarray:
    """(n, 21) rows for n models (n, 4, 4) at once: colours (n, 3) or one, alphas (n,) or one, one flag
    (GRID, FLAT, MARKER or 0)."""
    n = len(models)
    rows = np.empty((n, INSTANCE_FLOATS), dtype="f4")
    rows[:, :16] = np.asarray(models).transpose(0, 2, 1).reshape(n, 16)
    rows[:, 16:19] = colors
    rows[:, 19] = alphas
    rows[:, 20] = flag
    return rows
