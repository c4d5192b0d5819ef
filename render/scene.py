"""The 3D scene with moderngl: the world from its description, the car from the sim's state.

Everything drawn comes from the world tables, the vehicle parameters and the interpolated Pose; the
moving platform is posed by the world's own kinematics at the drawn time. The scene sets every GL state
it needs each frame, because the overlay drawn after it changes blending and scissoring.
"""
from __future__ import annotations

import math

import moderngl
import numpy as np

import sim
from render import carbody, meshes
from render.interp import Pose
from render.mathx import gl, pose_matrix, quat_matrix, rot_axis, scale, translate

SKY = (0.62, 0.74, 0.88)
LIGHT = np.array([-0.45, -0.30, -0.84]) / np.linalg.norm([-0.45, -0.30, -0.84])

VERT = """
#version 330
uniform mat4 u_vp;
uniform mat4 u_model;
uniform vec4 u_color;
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
void main() {
    vec4 w = u_model * vec4(in_pos, 1.0);
    v_world = w.xyz;
    v_normal = mat3(u_model) * in_normal;
    v_color = in_color * u_color.rgb;
    gl_Position = u_vp * w;
}
"""

FRAG = """
#version 330
uniform vec3 u_light;
uniform vec3 u_eye;
uniform vec3 u_sky;
uniform int u_grid;
uniform float u_alpha;
in vec3 v_world;
in vec3 v_normal;
in vec3 v_color;
out vec4 f_color;
float gridline(vec2 p, float spacing) {
    vec2 q = p / spacing;
    vec2 g = abs(fract(q + 0.5) - 0.5) / max(fwidth(q), vec2(1e-5));
    return 1.0 - min(min(g.x, g.y), 1.0);
}
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    float diffuse = max(dot(n, -u_light), 0.0);
    float sky = 0.5 + 0.5 * n.z;
    vec3 c = v_color * (0.28 + 0.17 * sky + 0.62 * diffuse);
    if (u_grid == 1 && abs(n.z) > 0.6) {
        c = mix(c, c * 1.45 + 0.02, 0.45 * gridline(v_world.xy, 1.0));
        c = mix(c, vec3(0.86, 0.86, 0.82), 0.55 * gridline(v_world.xy, 10.0));
    }
    float d = length(v_world - u_eye);
    c = mix(c, u_sky, clamp((d - 120.0) / 700.0, 0.0, 1.0));
    f_color = vec4(c, u_alpha);
}
"""


class Mesh:
    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, data: np.ndarray):
        self.vbo = ctx.buffer(np.ascontiguousarray(data, dtype="f4").tobytes())
        self.vao = ctx.vertex_array(prog, [(self.vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color")])

    def release(self):
        self.vao.release()
        self.vbo.release()


class FieldMesh:
    """A heightfield drawn in tiles: a tile out of view is skipped, and a far one is drawn with every
    second or fourth row and column (docs: issue 11; 57k triangles cost llvmpipe 6 ms a frame)."""

    LOD_DISTANCES = (10.0, 25.0)       # m: full detail nearer than the first, a quarter of it beyond the second

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, h, color):
        vertices, indices, self.runs, self.boxes = meshes.heightfield_tiles(h.origin, h.spacing, h.heights, color)
        self.vbo = ctx.buffer(vertices.tobytes())
        self.ibo = ctx.buffer(indices.tobytes())
        self.vao = ctx.vertex_array(prog, [(self.vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color")],
                                    index_buffer=self.ibo, index_element_size=4)
        corners = np.array([[(lo if (k >> a) & 1 == 0 else hi)[a] for a in range(3)] + [1.0]
                            for lo, hi in self.boxes for k in range(8)])
        self.corners = corners.reshape(len(self.boxes), 8, 4)

    def draw(self, vp: np.ndarray, eye: np.ndarray) -> None:
        clip = self.corners @ vp.T                                    # (tiles, 8, 4)
        w = clip[..., 3:4]
        outside = (clip[..., :3] > w) | (clip[..., :3] < -w)          # per corner and axis
        culled = (outside & (np.sign(clip[..., :3]) > 0)).all(axis=1).any(axis=1) | \
            (outside & (np.sign(clip[..., :3]) < 0)).all(axis=1).any(axis=1) | (w[..., 0] <= 0).all(axis=1)
        for t, (lo, hi) in enumerate(self.boxes):
            if culled[t]:
                continue
            dist = float(np.linalg.norm(np.maximum(0.0, np.maximum(lo - eye, eye - hi))))
            lod = 0 if dist < self.LOD_DISTANCES[0] else 1 if dist < self.LOD_DISTANCES[1] else 2
            first, count = self.runs[t][lod]
            self.vao.render(moderngl.TRIANGLES, vertices=count, first=first)


class SceneRenderer:
    def __init__(self, ctx: moderngl.Context, world: sim.World):
        self.ctx = ctx
        self.world = world
        self.prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.prog["u_light"].value = tuple(LIGHT)
        self.prog["u_sky"].value = SKY
        self.cube = Mesh(ctx, self.prog, meshes.cube())
        self.wheel = Mesh(ctx, self.prog, meshes.wheel())
        self.ground = []                         # (mesh, model matrix) of the infinite planes
        for p in world.planes:
            color = world.surfaces[world.surface_index[p.surface]].color
            n = np.asarray(p.normal, float) / np.linalg.norm(p.normal)
            m = np.eye(4)
            z = n
            x = np.cross((0.0, 1.0, 0.0), z)
            x /= np.linalg.norm(x)
            m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
            m[:3, 3] = p.point
            self.ground.append((Mesh(ctx, self.prog, meshes.quad(4000.0, color)), m))
        self.fields = [FieldMesh(ctx, self.prog, h, world.surfaces[world.surface_index[h.surface]].color)
                       for h in world.heightfields]
        marks = [meshes.ring(m.center, m.radius, m.width, 0.012, m.color) if m.kind == "circle"
                 else meshes.strip(m.center, m.end, m.width, 0.012, m.color) for m in world.markings]
        self.markings = Mesh(ctx, self.prog, np.concatenate(marks)) if marks else None
        self.shadow = Mesh(ctx, self.prog, meshes.quad(1.0, (0.0, 0.0, 0.0)))
        self.body: Mesh | None = None                # the car's body, built for the parameters in _body_for
        self.body_shape: carbody.CarShape | None = None
        self._body_key = None
        self._body_for = None

    # ------------------------------------------------------------------------------------------------
    def _draw(self, mesh: Mesh, model: np.ndarray, color=(1.0, 1.0, 1.0), grid: bool = False,
              alpha: float = 1.0, mode=moderngl.TRIANGLES):
        self.prog["u_model"].write(gl(model))
        self.prog["u_color"].value = (*color, 1.0)
        self.prog["u_grid"].value = 1 if grid else 0
        self.prog["u_alpha"].value = alpha
        mesh.vao.render(mode)

    def draw(self, view: np.ndarray, proj: np.ndarray, eye: np.ndarray, pose: Pose, size: tuple[int, int],
             vehicle: sim.Vehicle, wheels: sim.WheelGeometry, wheel_tints=None, arrows=(), viewport=None,
             ghost: Pose | None = None) -> None:
        """The world, then the car as the physics has it: the parameters in use (`vehicle`) and where its
        wheels hang (`wheels`), posed by `pose`; into `viewport` (x, y from the bottom, w, h; default the
        whole window)."""
        ctx = self.ctx
        ctx.viewport = viewport or (0, 0, *size)
        ctx.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)
        ctx.depth_func = "<"
        ctx.clear(*SKY, 1.0, depth=1.0)
        vp = proj @ view
        self.prog["u_vp"].write(gl(vp))
        self.prog["u_eye"].value = tuple(float(v) for v in eye)
        for mesh, m in self.ground:
            self._draw(mesh, m, grid=True)
        self.prog["u_model"].write(gl(np.eye(4)))
        self.prog["u_color"].value = (1.0, 1.0, 1.0, 1.0)
        self.prog["u_grid"].value = 1
        self.prog["u_alpha"].value = 1.0
        for field in self.fields:
            field.draw(vp, np.asarray(eye, float))
        t = pose.time
        for i, b in enumerate(self.world.boxes):
            c, q, _ = self.world.box_pose(i, t)
            model = pose_matrix(c, q) @ scale(b.size)
            color = self.world.surfaces[self.world.surface_index[b.surface]].color
            self._draw(self.cube, model, color, grid=True)
        if self.markings is not None:                # painted 12 mm above the pad
            self._draw(self.markings, np.eye(4))
        self.draw_car(pose, vehicle, wheels, wheel_tints)
        if ghost is not None:
            self.draw_ghost(ghost, vehicle, wheels)
        self.draw_arrows(arrows)

    def draw_ghost(self, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry) -> None:
        """A translucent copy of the car at `pose` (the reference run of a before/after comparison): seen
        through, and hiding nothing (no depth writes)."""
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.depth_mask = False
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self._draw(self.body, body, (0.55, 0.8, 1.0), alpha=0.35)
        for i in range(len(sim.WHEEL_NAMES)):
            r = g.radius[i]
            centre = g.anchor[i] + g.axis[i] * pose.wheel_l[i]
            model = body @ translate(centre) @ rot_axis("z", pose.wheel_steer[i]) @ scale((r, shape.tire_width[i], r))
            self._draw(self.wheel, model, (0.55, 0.8, 1.0), alpha=0.35)
        ctx.depth_mask = True
        ctx.disable(moderngl.BLEND)

    def draw_arrows(self, arrows) -> None:
        """[(model, colour, alpha)], drawn over everything (a debug view must not hide inside the
        wheel): translucent raw ghosts first, then the solid limited forces."""
        if not arrows:
            return
        ctx = self.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        for m, color, alpha in sorted(arrows, key=lambda a: a[2]):
            self._draw(self.cube, m, color, alpha=alpha)
        ctx.disable(moderngl.BLEND)
        ctx.enable(moderngl.DEPTH_TEST)

    def car_body(self, v: sim.Vehicle) -> carbody.CarShape:
        """The body mesh for parameters `v`: built once, and again only when a parameter that shapes it
        changes (the overlay's tuning hands over a new Vehicle for any edit; most leave the body alone)."""
        if v is not self._body_for:
            key = carbody.shape_key(v)
            if key != self._body_key:
                shape = carbody.build(v)
                if self.body is not None:
                    self.body.release()
                self.body = Mesh(self.ctx, self.prog, shape.vertices)
                self.body_shape, self._body_key = shape, key
            self._body_for = v
        return self.body_shape

    def draw_car(self, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry, wheel_tints=None) -> None:
        """The body (one draw), the four wheels where the suspension holds them, and a shadow."""
        ch = v.chassis
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self._draw(self.body, body)
        for i in range(len(sim.WHEEL_NAMES)):
            r = g.radius[i]
            centre = g.anchor[i] + g.axis[i] * pose.wheel_l[i]
            model = body @ translate(centre) @ rot_axis("z", pose.wheel_steer[i]) @ rot_axis("x", g.camber[i]) \
                @ rot_axis("y", pose.wheel_angle[i]) @ scale((r, shape.tire_width[i], r))
            tint = (1.0, 1.0, 1.0) if wheel_tints is None else wheel_tints[i]
            self._draw(self.wheel, model, tint)
        # a soft dark patch under the car, on the ground below its centre of mass
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ground = self.world.ray_cast(pose.position, (0.0, 0.0, -1.0), 50.0)
        if ground.hit:
            rot = quat_matrix(pose.orientation)
            yaw = math.atan2(rot[1, 0], rot[0, 0])
            m = translate(ground.P + ground.n * 0.02) @ rot_axis("z", yaw) \
                @ scale((ch.length * 0.95, ch.width * 0.95, 1))
            self._draw(self.shadow, m, (0.0, 0.0, 0.0), alpha=0.35)
        ctx.disable(moderngl.BLEND)
