"""The car as the physics has it: its body, its wheels where the suspension, the steering, the camber and
the spin put them (render.wheels), its contact shadows and grip rings (render.shadows), its tire smoke
(render.smoke), and translucent ghosts of other runs and variants, each in one flat colour."""
from __future__ import annotations

import moderngl
import numpy as np

import sim
from render import carbody
from render import shadows
from render import smoke
from render import wheels
from render.decals import Decals
from render.interp import Pose
from render.lit import GHOST
from render.lit import LIGHT
from render.lit import SKY
from render.lit import Mesh
from render.lit import instance
from render.mathx import pose_matrix

NEUTRAL = (1.0, 1.0, 1.0)
PIN = (0.45, 0.28, 0.4)       # m: a ghost's pin is this long and wide, its tip this far over the roof (and pins
#                               stack this far apart)


def pin_matrix(body: np.ndarray, v: sim.Vehicle, k: int) -> np.ndarray:
    """Model matrix of the k-th ghost's pin: a pyramid pointing down at the roof over the centre of mass."""
    ch = v.chassis
    tip = body[:3, 3] + np.array([0.0, 0.0, ch.floor_z + ch.height - ch.com_z + PIN[2] * (k + 1)])
    m = np.zeros((4, 4))
    m[:3, 0] = (0.0, 0.0, -PIN[0])                 # the pyramid's x (base to tip) points down
    m[:3, 1] = (PIN[1], 0.0, 0.0)
    m[:3, 2] = (0.0, PIN[1], 0.0)
    m[:3, 3] = tip + (0.0, 0.0, PIN[0])
    m[3, 3] = 1.0
    return m


def posed_wheels(pose: Pose, body: np.ndarray, g: sim.WheelGeometry, tire_width) -> np.ndarray:
    """(4, 4, 4) world model matrices of the unit wheel (render.wheels.wheel_matrices) for the body's pose
    matrix `body`: the suspension length, steering angle, camber, toe and spin angle from the pose."""
    return wheels.wheel_matrices(body, g.anchor, g.axis, pose.wheel_l, pose.wheel_steer + pose.wheel_toe,
                                 pose.wheel_camber, pose.wheel_angle, g.radius, tire_width)


class CarRenderer:
    def __init__(self, ctx: moderngl.Context, prog: moderngl.Program):
        self.ctx, self.prog = ctx, prog
        self.wheels = wheels.WheelRenderer(ctx, LIGHT, SKY)
        self.decals = Decals(ctx)
        self.smoke = smoke.Smoke()
        self.exposure = wheels.Exposure()
        self.body: Mesh | None = None                # the car's body, built for the parameters in _body_for
        self.body_shape: carbody.CarShape | None = None
        self._body_key = None
        self._body_for = None
        self.pin: Mesh | None = None
        self.pins: list[tuple[np.ndarray, tuple]] = []    # this frame's ghost pins: (base centre, world; rgb)

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

    def wheel_models(self, pose: Pose, body: np.ndarray, g: sim.WheelGeometry, shape: carbody.CarShape) -> np.ndarray:
        return posed_wheels(pose, body, g, shape.tire_width)

    def draw_car(self, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry, tints=None) -> np.ndarray:
        """The body (one draw) and the four wheels (one draw); returns the wheels' model matrices."""
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self.body.draw("car", instance(body))
        models = self.wheel_models(pose, body, g, shape)
        sweep = wheels.sweeps(pose.wheel_omega, self.exposure.seconds)
        rows = wheels.instance_rows(models, NEUTRAL if tints is None else tints, 1.0, sweep,
                                    wheels.PLAIN if tints is None else wheels.TINTED)
        self.wheels.draw("car", rows)
        return models

    def draw_ghost(self, slot: str, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry, color=GHOST,
                   alpha: float = 0.35, pin: int | None = None) -> None:
        """A translucent copy of the car at `pose` in one flat colour (the reference run of a comparison,
        a compare-mode variant): seen through, and hiding nothing (no depth writes). With `pin` (0, 1,
        2, ...) a solid marker in its colour floats over its roof, each pin at its own height, so variants
        that drive on top of each other still show one pin each."""
        ctx = self.ctx
        ctx.enable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        ctx.fbo.depth_mask = False
        shape = self.car_body(v)
        body = pose_matrix(pose.position, pose.orientation)
        self.body.draw(slot, instance(body, color, alpha=alpha, flat=True))
        models = self.wheel_models(pose, body, g, shape)
        sweep = wheels.sweeps(pose.wheel_omega, self.exposure.seconds)
        self.wheels.draw(slot, wheels.instance_rows(models, color, alpha, sweep, wheels.FLAT))
        ctx.fbo.depth_mask = True
        ctx.disable(moderngl.BLEND)
        if pin is not None and self.pin is not None:
            m = pin_matrix(body, v, pin)
            self.pin.draw(slot, instance(m, color, marker=True))
            self.pins.append((m[:3, 3].copy(), color))

    def attach_pin(self, mesh: Mesh) -> None:
        """The mesh the ghosts' pins are drawn with (a pyramid, tip at x = 1)."""
        self.pin = mesh

    def ground_marks(self, world: sim.World, pose: Pose, v: sim.Vehicle, g: sim.WheelGeometry, models: np.ndarray,
                     tel, tints) -> list[np.ndarray]:
        """Decal rows: the contact shadows of the body and each wheel, and with `tints` (grip state colours,
        (4, 3)) a ring around each grounded wheel's contact."""
        ground = world.ray_cast(pose.position, (0.0, 0.0, -1.0), 50.0)
        if not ground.hit:
            return []
        ch, shape = v.chassis, self.car_body(v)
        rot = pose_matrix(pose.position, pose.orientation)[:3, :3]
        hl, hw = ch.length / 2, ch.width / 2
        z = ch.floor_z - ch.com_z
        floor = np.array([(-hl, -hw, z), (hl, -hw, z), (hl, hw, z), (-hl, hw, z)]) - (ch.com_x, ch.com_y, 0.0)
        body = shadows.body_shadow(rot, pose.position, floor, z - shape.ground_z, ground.P, ground.n)
        if tel is not None:
            contact_p, contact_n = np.asarray(tel.Q, float), np.asarray(tel.n, float)
        else:
            contact_p, contact_n = ground.P, ground.n
        blobs, rings = shadows.wheel_marks(models[:, :3, 3], models[:, :3, 0], g.radius, shape.tire_width,
                                           pose.wheel_grounded, tints, contact_p, contact_n, ground.P, ground.n)
        return [body, blobs, rings]

    def smoke_puffs(self, pose: Pose, tel, view: np.ndarray, eye: np.ndarray, px_per_m: float,
                    view_px: float) -> np.ndarray:
        """Advance the smoke to the drawn time, emit what the telemetry slides out; decal rows of its puffs
        (covering at most smoke.SCREEN_SHARE of the `view_px` pixels of the view)."""
        if tel is not None:
            self.smoke.update(pose.time, tel)
        return self.smoke.rows(eye, view[0, :3], view[1, :3], px_per_m, smoke.SCREEN_SHARE * view_px)

    def draw_decals(self, rows: list[np.ndarray], vp_bytes: bytes) -> None:
        """Shadows, rings and smoke in one draw call (each call costs a software renderer its own setup)."""
        rows = [r for r in rows if len(r)]
        if rows:
            self.decals.blend("decals", np.concatenate(rows), vp_bytes)
