"""The 3D scene with moderngl: the world from its description, the car from the sim's state.

Everything drawn comes from the world tables, the vehicle parameters and the interpolated Pose; the
moving platform is posed by the world's own kinematics at the drawn time. The scene sets every GL state
it needs each frame, because the overlay drawn after it changes blending and scissoring.
"""
from __future__ import annotations

import moderngl
import numpy as np

import sim
from render import meshes
from render.arrows import legible
from render.car import CarRenderer
from render.instancing import InstanceBuffer
from render.interp import Pose
from render.lit import FRAG
from render.lit import INSTANCE_ATTRS
from render.lit import INSTANCE_FLOATS
from render.lit import INSTANCE_FORMAT
from render.lit import LIGHT
from render.lit import MARKER
from render.lit import SKY
from render.lit import VERT
from render.lit import Mesh
from render.lit import instance
from render.lit import instances
from render.mathx import gl
from render.mathx import pose_matrix
from render.mathx import scale
from render.mathx import translate
from render.track import track_mesh


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
        self.inst = InstanceBuffer(ctx, prog, [(self.vbo, "3f 3f 3f", "in_pos", "in_normal", "in_color")],
                                   INSTANCE_FORMAT, INSTANCE_ATTRS, INSTANCE_FLOATS, self.ibo)
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
        self.head = Mesh(ctx, self.prog, meshes.pyramid())          # the force arrows' heads
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
        self.car = CarRenderer(ctx, self.prog)
        self.car.attach_pin(self.head)

    # ------------------------------------------------------------------------------------------------
    def draw(self, view: np.ndarray, proj: np.ndarray, eye: np.ndarray, pose: Pose, size: tuple[int, int],
             vehicle: sim.Vehicle, wheels: sim.WheelGeometry, wheel_tints=None, arrows=(), viewport=None,
             ghost: Pose | None = None, companions=(), telemetry=None, skids=None) -> None:
        """The world, then the car as the physics has it: the parameters in use (`vehicle`) and where its
        wheels hang (`wheels`), posed by `pose`; into `viewport` (x, y from the bottom, w, h; default the
        whole window). With the car's `telemetry` its wheels cast their shadows where they touch the
        ground and a sliding wheel smokes; `skids` (render.skids.SkidMarks) are drawn on the ground."""
        ctx = self.ctx
        ctx.viewport = viewport or (0, 0, *size)
        ctx.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)
        ctx.depth_func = "<"
        ctx.clear(*SKY, 1.0, depth=1.0, viewport=ctx.viewport)     # the view only: the app clears around it
        vp = proj @ view
        vp_bytes = gl(vp)
        self.prog["u_vp"].write(vp_bytes)
        self.prog["u_eye"].value = tuple(float(v) for v in eye)
        self.car.wheels.frame(vp_bytes, eye)
        self.car.exposure.update(pose.time)
        # opaque things nearest the camera first: the car, the boxes, the bump fields, then the ground, so a
        # renderer that tests depth before shading (llvmpipe does) shades no ground behind them
        models = self.car.draw_car(pose, vehicle, wheels, wheel_tints)
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
        if skids is not None:
            skids.draw(vp)
        # on the ground, in one call: the shadows, the grip rings, then the smoke over them
        px_per_m = ctx.viewport[3] * proj[1, 1] / 2                  # px a metre spans one metre from the eye
        marks = self.car.ground_marks(self.world, pose, vehicle, wheels, models, telemetry, wheel_tints)
        puffs = self.car.smoke_puffs(pose, telemetry, view, np.asarray(eye, float), px_per_m,
                                     ctx.viewport[2] * ctx.viewport[3])
        self.car.draw_decals([*marks, puffs], vp_bytes)
        self.car.pins = []
        if ghost is not None:
            self.car.draw_ghost("ghost", ghost, vehicle, wheels)
        for k, (c_pose, c_vehicle, c_wheels, color) in enumerate(companions):   # compare mode, each in its colour
            self.car.draw_ghost(f"companion {k}", c_pose, c_vehicle, c_wheels, color, alpha=0.45, pin=k)
        self.draw_arrows(arrows, np.asarray(eye, float), px_per_m)

    def draw_arrows(self, arrows, eye: np.ndarray, px_per_m: float) -> None:
        """[(model, colour, alpha)], drawn over everything (a debug view must not hide inside the
        wheel): translucent raw ghosts first, then the solid limited forces; each at least a legible size
        on screen (arrows.legible: `px_per_m` pixels per metre one metre from the eye), with a head."""
        if not arrows:
            return
        ctx = self.ctx
        ctx.disable(moderngl.DEPTH_TEST)
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        # one draw each for the shafts and the heads: instances are drawn in order, so the ghosts still
        # blend under the solid arrows
        arrows = sorted(arrows, key=lambda a: a[2])
        alphas = np.array([a[2] for a in arrows])
        colors = np.array([a[1] for a in arrows])
        shafts, heads, opacity = legible(np.array([a[0] for a in arrows]), alphas < 1.0, eye, px_per_m)
        alphas = alphas * opacity
        self.cube.draw("arrows", instances(shafts, colors, alphas, MARKER))
        self.head.draw("arrows", instances(heads, colors, alphas, MARKER))
        ctx.disable(moderngl.BLEND)
        ctx.enable(moderngl.DEPTH_TEST)
