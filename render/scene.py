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
from render import carbody
from render import meshes
from render.interp import Pose
from render.mathx import gl
from render.mathx import pose_matrix
from render.mathx import quat_matrix
from render.mathx import rot_axis
from render.mathx import scale
from render.mathx import translate
from render.track import track_mesh

SKY = (0.62, 0.74, 0.88)
GHOST = (0.55, 0.8, 1.0)          # the reference run's translucent car
LIGHT = np.array([-0.45, -0.30, -0.84]) / np.linalg.norm([-0.45, -0.30, -0.84])

# per instance: the model matrix, a colour the mesh's own is multiplied by, its alpha, and whether the
# ground grid is painted on it; one draw call draws every instance of a mesh (wheels, boxes, arrows)
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
    vec3 color = in_color * i_color.rgb;
    // lit per vertex, both sides (a face seen from behind is lit as its far side): the meshes' faces
    // are flat, so only the wheels' and the body's rounded parts are shaded differently from per pixel
    v_front = lit(color, n);
    v_back = lit(color, -n);
    v_up = abs(n.z);
    v_alpha = i_color.a;
    v_grid = int(i_grid);
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


def instance(model: np.ndarray, color=(1.0, 1.0, 1.0), alpha: float = 1.0, grid: bool = False) -> np.ndarray:
    """One row of the instance buffer: (21,) float32."""
    row = np.empty(INSTANCE_FLOATS, dtype="f4")
    row[:16] = np.asarray(model, dtype="f4").T.reshape(16)
    row[16:19] = color
    row[19] = alpha
    row[20] = 1.0 if grid else 0.0
    return row


class Instances:
    """A per-instance buffer and the vertex array that draws a mesh with it. Each use in a frame has its own
    (a software renderer waits for the frame so far to be rasterised before it rewrites a buffer that frame
    already read); the buffer is orphaned before it is rewritten, so last frame's draws are not waited for."""

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, vbo: moderngl.Buffer, ibo=None):
        self.buffer = ctx.buffer(reserve=INSTANCE_FLOATS * 4 * 4, dynamic=True)
        self._last = b""
        content = [(vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color"),
                   (self.buffer, INSTANCE_FORMAT, *INSTANCE_ATTRS)]
        self.vao = ctx.vertex_array(prog, content, index_buffer=ibo, index_element_size=4)

    def write(self, rows: np.ndarray) -> int:
        data = np.ascontiguousarray(rows, dtype="f4").tobytes()
        if data != self._last:              # what does not move (the ground, the boxes) is written once
            self.buffer.orphan(max(len(data), self.buffer.size))
            self.buffer.write(data)
            self._last = data
        return len(data) // (INSTANCE_FLOATS * 4)

    def release(self):
        self.vao.release()
        self.buffer.release()


class Mesh:
    """A triangle mesh drawn instanced: `draw(slot, rows)` draws one copy per row in one draw call; each
    slot (a use in the frame: the car's wheels, the ghost's wheels) has its own instance buffer."""

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, data: np.ndarray):
        self.ctx, self.prog = ctx, prog
        self.vbo = ctx.buffer(np.ascontiguousarray(data, dtype="f4").tobytes())
        self.slots: dict[str, Instances] = {}

    def draw(self, slot: str, rows, mode=moderngl.TRIANGLES) -> None:
        rows = np.asarray(rows, dtype="f4").reshape(-1, INSTANCE_FLOATS)
        if not len(rows):
            return
        inst = self.slots.get(slot)
        if inst is None:
            inst = self.slots[slot] = Instances(self.ctx, self.prog, self.vbo)
        inst.vao.render(mode, instances=inst.write(rows))

    def release(self):
        for inst in self.slots.values():
            inst.release()
        self.vbo.release()


class TiledMesh:
    """A static mesh drawn in tiles: a tile out of view is skipped, and a far one may be drawn with fewer
    triangles (runs[t][lod], lod 0 near .. 2 far); the tiles in view go to the renderer as one indirect
    draw (one command per tile, one call). `grid`: the ground grid painted on it."""

    LOD_DISTANCES = (10.0, 25.0)       # m: full detail nearer than the first, a quarter of it beyond the second

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, vertices, indices, runs, boxes,
                 grid: bool = True):
        self.runs, self.boxes = runs, boxes
        self.vbo = ctx.buffer(vertices.tobytes())
        self.ibo = ctx.buffer(indices.tobytes())
        self.inst = Instances(ctx, prog, self.vbo, self.ibo)
        self.inst.write(instance(np.eye(4), grid=grid))          # drawn where it is, in its own colours
        self.commands = ctx.buffer(reserve=20 * max(len(self.boxes), 1), dynamic=True)
        corners = np.array([[(lo if (k >> a) & 1 == 0 else hi)[a] for a in range(3)] + [1.0]
                            for lo, hi in self.boxes for k in range(8)])
        self.corners = corners.reshape(len(self.boxes), 8, 4)

    def draw(self, vp: np.ndarray, eye: np.ndarray) -> None:
        clip = self.corners @ vp.T                                    # (tiles, 8, 4)
        w = clip[..., 3:4]
        outside = (clip[..., :3] > w) | (clip[..., :3] < -w)          # per corner and axis
        culled = (outside & (np.sign(clip[..., :3]) > 0)).all(axis=1).any(axis=1) | \
            (outside & (np.sign(clip[..., :3]) < 0)).all(axis=1).any(axis=1) | (w[..., 0] <= 0).all(axis=1)
        commands = []                       # (count, instances, first index, base vertex, base instance) per tile
        for t, (lo, hi) in enumerate(self.boxes):
            if culled[t]:
                continue
            dist = float(np.linalg.norm(np.maximum(0.0, np.maximum(lo - eye, eye - hi))))
            lod = 0 if dist < self.LOD_DISTANCES[0] else 1 if dist < self.LOD_DISTANCES[1] else 2
            first, count = self.runs[t][lod]
            commands.append((count, 1, first, 0, 0))
        if commands:
            data = np.array(commands, dtype="u4").tobytes()
            self.commands.orphan(self.commands.size)
            self.commands.write(data)
            self.inst.vao.render_indirect(self.commands, moderngl.TRIANGLES, count=len(commands))


class FieldMesh(TiledMesh):
    """A heightfield drawn in tiles, a far one with every second or fourth row and column (docs: issue 11;
    57k triangles cost llvmpipe 6 ms a frame). A large field (a circuit's run-off) has tiles twice as wide
    (each tile in view is a command of the one draw, and llvmpipe pays for each: about 10 us) and coarser far
    levels (its grass is smooth)."""

    LARGE = 250_000             # grid points from which a field's tiles are twice as wide

    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program, h, color):
        large = np.asarray(h.heights).size >= self.LARGE
        super().__init__(ctx, prog, *meshes.heightfield_tiles(h.origin, h.spacing, h.heights, color,
                                                             tile=80 if large else 40,
                                                             steps=(2, 8, 20) if large else (2, 4, 8)))


def rim_frame(world, plane, color, size: float = 4000.0) -> list[np.ndarray]:
    """A circuit's rim plane as four strips around its drawn ground (the run-off field): the plane under the
    field would cost llvmpipe a depth test per pixel of it for nothing (about 2 ms a frame at 1280x720)."""
    h = next(f for f in world.heightfields if f.drawn)
    nx, ny = np.asarray(h.heights).shape
    x0, y0 = h.origin[0], h.origin[1]
    x1, y1 = x0 + (nx - 1) * h.spacing[0], y0 + (ny - 1) * h.spacing[1]
    lo, hi = -size / 2.0, size / 2.0
    out = []
    for a, b, c, d in ((lo, x0, lo, hi), (x1, hi, lo, hi), (x0, x1, lo, y0), (x0, x1, y1, hi)):
        m = translate(((a + b) / 2.0, (c + d) / 2.0, plane.point[2])) @ scale(((b - a) / size, (d - c) / size, 1.0))
        out.append(instance(m, color, grid=True))
    return out


class SceneRenderer:
    def __init__(self, ctx: moderngl.Context, world: sim.World):
        self.ctx = ctx
        self.world = world
        self.prog = ctx.program(vertex_shader=VERT, fragment_shader=FRAG)
        self.prog["u_light"].value = tuple(LIGHT)
        self.prog["u_sky"].value = SKY
        self.cube = Mesh(ctx, self.prog, meshes.cube())
        self.wheel = Mesh(ctx, self.prog, meshes.wheel())
        # the infinite planes: one white quad, an instance per plane in its surface's colour
        self.plane = Mesh(ctx, self.prog, meshes.quad(4000.0, (1.0, 1.0, 1.0)))
        ground = []
        for p in world.planes:
            color = world.surfaces[world.surface_index[p.surface]].color
            n = np.asarray(p.normal, float) / np.linalg.norm(p.normal)
            m = np.eye(4)
            z = n
            x = np.cross((0.0, 1.0, 0.0), z)
            x /= np.linalg.norm(x)
            m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
            m[:3, 3] = p.point
            if world.track is not None and p.name == "rim":
                ground += rim_frame(world, p, color)
            else:
                ground.append(instance(m, color, grid=True))
        self.ground = np.array(ground, dtype="f4").reshape(-1, INSTANCE_FLOATS)
        self.box_colors = [world.surfaces[world.surface_index[b.surface]].color for b in world.boxes]
        self.fields = [FieldMesh(ctx, self.prog, h, world.surfaces[world.surface_index[h.surface]].color)
                       for h in world.heightfields if h.drawn]
        # a circuit's road, kerbs, traps and lines (its ground's other layers are not drawn)
        self.track = None if world.track is None else TiledMesh(ctx, self.prog, *track_mesh(world), grid=False)
        marks = [meshes.ring(m.center, m.radius, m.width, 0.012, m.color) if m.kind == "circle"
                 else meshes.strip(m.center, m.end, m.width, 0.012, m.color) for m in world.markings]
        self.markings = Mesh(ctx, self.prog, np.concatenate(marks)) if marks else None
        self.shadow = Mesh(ctx, self.prog, meshes.quad(1.0, (0.0, 0.0, 0.0)))
        self.body: Mesh | None = None                # the car's body, built for the parameters in _body_for
        self.body_shape: carbody.CarShape | None = None
        self._body_key = None
        self._body_for = None

    # ------------------------------------------------------------------------------------------------
    def draw(self, view: np.ndarray, proj: np.ndarray, eye: np.ndarray, pose: Pose, size: tuple[int, int],
             vehicle: sim.Vehicle, wheels: sim.WheelGeometry, wheel_tints=None, arrows=(), viewport=None,
             ghost: Pose | None = None, companions=()) -> None:
        """The world, then the car as the physics has it: the parameters in use (`vehicle`) and where its
        wheels hang (`wheels`), posed by `pose`; into `viewport` (x, y from the bottom, w, h; default the
        whole window)."""
        ctx = self.ctx
        ctx.viewport = viewport or (0, 0, *size)
        ctx.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)
        ctx.depth_func = "<"
        ctx.clear(*SKY, 1.0, depth=1.0, viewport=ctx.viewport)     # the view only: the app clears around it
        vp = proj @ view
        self.prog["u_vp"].write(gl(vp))
        self.prog["u_eye"].value = tuple(float(v) for v in eye)
        # opaque things nearest the camera first: the car, the boxes, the bump fields, then the ground, so a
        # renderer that tests depth before shading (llvmpipe does) shades no ground behind them
        self.draw_car(pose, vehicle, wheels, wheel_tints)
        t = pose.time
        if getattr(self, "_static_boxes", None) is None:
            # a box that does not move keeps its instance row: built once (the pose at t = 0)
            self._static_boxes = {}
            for i, b in enumerate(self.world.boxes):
                if not (any(b.angular_velocity) or any(b.velocity) or (any(b.oscillation) and b.period > 0.0)):
                    c, q, _ = self.world.box_pose(i, 0.0)
                    self._static_boxes[i] = instance(pose_matrix(c, q) @ scale(b.size), self.box_colors[i],
                                                     grid=True)
        boxes = []
        for i, b in enumerate(self.world.boxes):
            row = self._static_boxes.get(i)
            if row is None:
                c, q, _ = self.world.box_pose(i, t)
                row = instance(pose_matrix(c, q) @ scale(b.size), self.box_colors[i], grid=True)
            boxes.append(row)
        self.cube.draw("boxes", boxes)
        if self.track is not None:
            self.track.draw(vp, np.asarray(eye, float))
        for field in self.fields:
            field.draw(vp, np.asarray(eye, float))
        if self.markings is not None:                # painted 12 mm above the pad
            self.markings.draw("markings", instance(np.eye(4)))
        self.plane.draw("ground", self.ground)
        self.draw_shadow(pose, vehicle)
        if ghost is not None:
            self.draw_ghost(ghost, vehicle, wheels)
        for c_pose, c_vehicle, c_wheels, color in companions:     # compare mode's variants, each in its colour
            self.draw_ghost(c_pose, c_vehicle, c_wheels, color, alpha=0.5)
        self.draw_arrows(arrows)

    def draw_ghost(self, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry, color=GHOST, alpha: float = 0.35) -> None:
        """A translucent copy of the car at `pose` (the reference run of a before/after comparison): seen
        through, and hiding nothing (no depth writes)."""
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.depth_mask = False
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self.body.draw("ghost", instance(body, color, alpha=alpha))
        wheels = []
        for i in range(len(sim.WHEEL_NAMES)):
            r = g.radius[i]
            centre = g.anchor[i] + g.axis[i] * pose.wheel_l[i]
            model = body @ translate(centre) @ rot_axis("z", pose.wheel_steer[i]) @ scale((r, shape.tire_width[i], r))
            wheels.append(instance(model, color, alpha=alpha))
        self.wheel.draw("ghost", wheels)
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
        # one draw: instances are drawn in order, so the ghosts still blend under the solid arrows
        self.cube.draw("arrows", [instance(m, color, alpha) for m, color, alpha in sorted(arrows, key=lambda a: a[2])])
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
        """The body (one draw) and the four wheels where the suspension holds them."""
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self.body.draw("car", instance(body))
        wheels = []
        for i in range(len(sim.WHEEL_NAMES)):
            r = g.radius[i]
            centre = g.anchor[i] + g.axis[i] * pose.wheel_l[i]
            model = body @ translate(centre) @ rot_axis("z", pose.wheel_steer[i]) @ rot_axis("x", g.camber[i]) \
                @ rot_axis("y", pose.wheel_angle[i]) @ scale((r, shape.tire_width[i], r))
            wheels.append(instance(model, (1.0, 1.0, 1.0) if wheel_tints is None else wheel_tints[i]))
        self.wheel.draw("car", wheels)

    def draw_shadow(self, pose: Pose, v: sim.Vehicle) -> None:
        """A soft dark patch under the car, on the ground below its centre of mass (after the ground)."""
        ch = v.chassis
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ground = self.world.ray_cast(pose.position, (0.0, 0.0, -1.0), 50.0)
        if ground.hit:
            rot = quat_matrix(pose.orientation)
            yaw = math.atan2(rot[1, 0], rot[0, 0])
            m = translate(ground.P + ground.n * 0.02) @ rot_axis("z", yaw) \
                @ scale((ch.length * 0.95, ch.width * 0.95, 1))
            self.shadow.draw("shadow", instance(m, (0.0, 0.0, 0.0), alpha=0.35))
        ctx.disable(moderngl.BLEND)
