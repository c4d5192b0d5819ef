"""Soft translucent quads, instanced: the contact shadows under the body and each wheel, the grip-state
rings around the contact patches and the tire smoke's puffs, one draw call each.

A decal is a quad `centre + x u + y v` (x, y in [-1, 1]) with a colour and an alpha, shaped in the
fragment shader: a rounded box whose edge fades over `soft` of its half size (soft 1: an elliptic blob
darkest in the middle), or a ring between `ring` and 1; the alpha is also scaled bilinearly between its
four corners (a shadow darker where the body is nearer the ground).
"""
from __future__ import annotations

import moderngl
import numpy as np

from render.instancing import Slots

# per instance: centre (3), u (3), v (3), rgba (4), corner alphas (4: -u-v, +u-v, +u+v, -u+v), soft, ring
INSTANCE_FORMAT = "3f 3f 3f 4f 4f 1f 1f/i"
INSTANCE_ATTRS = ("i_centre", "i_u", "i_v", "i_color", "i_corners", "i_soft", "i_ring")
INSTANCE_FLOATS = 19

VERT = """
#version 330
uniform mat4 u_vp;
in vec2 in_corner;
in vec3 i_centre;
in vec3 i_u;
in vec3 i_v;
in vec4 i_color;
in vec4 i_corners;
in float i_soft;
in float i_ring;
out vec2 v_uv;
out float v_corner;
flat out vec4 v_color;
flat out float v_soft;
flat out float v_ring;
void main() {
    v_uv = in_corner;
    vec2 t = in_corner * 0.5 + 0.5;
    v_corner = mix(mix(i_corners.x, i_corners.y, t.x), mix(i_corners.w, i_corners.z, t.x), t.y);
    v_color = i_color;
    v_soft = i_soft;
    v_ring = i_ring;
    gl_Position = u_vp * vec4(i_centre + i_u * in_corner.x + i_v * in_corner.y, 1.0);
}
"""

FRAG = """
#version 330
in vec2 v_uv;
in float v_corner;
flat in vec4 v_color;
flat in float v_soft;
flat in float v_ring;
out vec4 f_color;
void main() {
    float a;
    if (v_ring > 0.0) {
        float r = length(v_uv);
        a = smoothstep(v_ring - 0.1, v_ring, r) * (1.0 - smoothstep(0.9, 1.0, r));
    } else {
        float d = length(max(abs(v_uv) - (1.0 - v_soft), 0.0)) / max(v_soft, 1e-3);
        a = 1.0 - smoothstep(0.0, 1.0, d);
    }
    a *= v_color.a * v_corner;
    if (a < 0.004) discard;
    f_color = vec4(v_color.rgb, a);
}
"""

CORNERS = np.array([(-1, -1), (1, -1), (1, 1), (-1, -1), (1, 1), (-1, 1)], dtype="f4")


def rows(centres, u, v, rgba, corners=None, soft=1.0, ring=0.0) -> np.ndarray:
    """(n, 19) instance rows; rgba (n, 4) or one; corners (n, 4) or None (1 at every corner)."""
    centres = np.asarray(centres, float).reshape(-1, 3)
    n = len(centres)
    out = np.empty((n, INSTANCE_FLOATS), dtype="f4")
    out[:, 0:3], out[:, 3:6], out[:, 6:9] = centres, u, v
    out[:, 9:13] = rgba
    out[:, 13:17] = 1.0 if corners is None else corners
    out[:, 17], out[:, 18] = soft, ring
    return out


class Decals(Slots):
    """Depth writes are switched on the bound framebuffer (`ctx.fbo.depth_mask`): moderngl 5.13's Context
    has no depth_mask, and setting one on it only adds a Python attribute."""

    def __init__(self, ctx: moderngl.Context):
        prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.vbo = ctx.buffer(CORNERS.tobytes())
        super().__init__(ctx, prog, [(self.vbo, "2f", "in_corner")], INSTANCE_FORMAT, INSTANCE_ATTRS,
                         INSTANCE_FLOATS)

    def blend(self, slot: str, instance_rows: np.ndarray, vp_bytes: bytes, depth_test: bool = True) -> None:
        """Blended over what is drawn, writing no depth; tested against it unless `depth_test` is off."""
        if not len(instance_rows):
            return
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.fbo.depth_mask = False
        if not depth_test:
            ctx.disable(moderngl.DEPTH_TEST)
        self.prog["u_vp"].write(vp_bytes)
        self.draw(slot, instance_rows)
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.fbo.depth_mask = True
        ctx.disable(moderngl.BLEND)
