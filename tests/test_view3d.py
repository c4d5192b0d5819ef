"""The 3D view shows the physics: each wheel drawn where the sim has it (travel, steering, camber, spin
axis), a pattern that blurs with spin instead of strobing, contact shadows that follow height and roll,
tire smoke at a rate set by the sliding power from a fixed-size pool, force arrows of a legible size,
grip tints that read on the red car from the chase camera, and compare ghosts told apart by colour.
Rendering checks draw with a standalone EGL context (no window) and look at the pixels."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from bodies import massless

import sim
from render import arrows
from render import carbody
from render import shadows
from render import smoke
from render import wheels
from render.interp import blend
from render.interp import capture
from render.mathx import look_at
from render.mathx import perspective
from render.mathx import pose_matrix
from render.mathx import project
from render.mathx import rot_axis
from render.mathx import scale
from render.mathx import translate

W, H = 480, 320


# -- where the wheels are drawn -----------------------------------------------------------------------
def test_the_wheel_matrix_is_the_suspension_travel_then_steer_camber_and_spin():
    """Independent construction, one wheel at a time: translation along the suspension axis d by the
    length l from the anchor, then Rz(steer) Rx(camber) Ry(spin), then the size."""
    rng = np.random.default_rng(7)
    body = pose_matrix(rng.normal(size=3), np.array([0.9, 0.1, -0.2, 0.3]) / np.linalg.norm([0.9, 0.1, -0.2, 0.3]))
    anchor, axis = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    l, steer, camber, angle = rng.uniform(0.2, 0.4, 4), rng.uniform(-0.5, 0.5, 4), rng.uniform(-0.05, 0.05, 4), \
        rng.uniform(0, 2 * math.pi, 4)
    radius, width = rng.uniform(0.25, 0.35, 4), rng.uniform(0.18, 0.25, 4)
    got = wheels.wheel_matrices(body, anchor, axis, l, steer, camber, angle, radius, width)
    for i in range(4):
        want = body @ translate(anchor[i] + l[i] * axis[i]) @ rot_axis("z", steer[i]) @ rot_axis("x", camber[i]) \
            @ rot_axis("y", angle[i]) @ scale((radius[i], width[i], radius[i]))
        assert got[i] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("geometry", [False, True])
def test_the_drawn_wheel_centre_and_axle_are_the_physics_c_and_u(geometry):
    """After a steered drive with camber, the drawn centre of each wheel is the sim's wheel centre C and its
    axle the sim's spin axis u (telemetry of the last substep: within the body's motion over one substep);
    with the suspension geometry's static toe, camber gain and bump steer (docs/physics.md §7.1) too. Massless
    wheels: with the presets' wheels of their own mass the drawing takes the wheel's own length l and the
    telemetry's C is where a rigid tire's centre would be, the tire's deflection (12-16 mm) above it."""
    from render.car import posed_wheels
    car = massless(sim.load_vehicle("hatchback"))
    changes = {"front_suspension.camber_deg": -2.5, "rear_suspension.camber_deg": -1.5}
    if geometry:
        changes.update({"front_suspension.toe_deg": 0.5, "front_suspension.camber_gain": -30.0,
                        "front_suspension.bump_steer": -8.0, "rear_suspension.camber_gain": -20.0})
    for key, value in changes.items():
        car = sim.with_value(car, key, value)
    s = sim.Simulation(car, sim.load_world("flat"))
    for k in range(480):
        s.step(sim.Controls(throttle=0.5, steer=0.6 if k > 240 else 0.0))
    pose, g = capture(s), s.wheel_geometry()
    models = posed_wheels(pose, pose_matrix(pose.position, pose.orientation), g, carbody.build(car).tire_width)
    substep = s.dt / s.substeps
    speed = float(np.linalg.norm(s.state.velocity)) + float(np.linalg.norm(s.state.angular_velocity)) * 2.0
    assert np.abs(pose.wheel_steer[:2]).min() > 0.1 and abs(g.camber[0]) > 0.04          # steered, cambered
    assert np.abs(models[:, :3, 3] - np.asarray(s.telemetry.C)).max() <= speed * substep * 1.2 + 1e-6
    axle = models[:, :3, 1] / np.linalg.norm(models[:, :3, 1], axis=1)[:, None]
    turn = float(np.linalg.norm(s.state.angular_velocity)) * substep
    assert np.abs(axle - np.asarray(s.telemetry.u)).max() <= 1.2 * turn + 1e-6
    if geometry:                                        # the camber and toe moved with travel and roll
        assert np.abs(pose.wheel_camber - g.camber).max() > 0.005
        assert np.abs(pose.wheel_toe).max() > 0.005


def test_the_spin_rate_is_interpolated_like_the_other_wheel_channels():
    s = sim.Simulation(sim.load_vehicle("hatchback"), sim.load_world("flat"))
    a = capture(s)
    for _ in range(60):
        s.step(sim.Controls(throttle=1.0))
    b = capture(s)
    mid = blend(a, b, 0.25)
    assert np.array_equal(b.wheel_omega, np.asarray(s.state.wheel_omega, float))
    assert mid.wheel_omega == pytest.approx(0.75 * a.wheel_omega + 0.25 * b.wheel_omega)


def test_the_shutter_is_the_simulated_time_a_frame_covers():
    e = wheels.Exposure(initial=1 / 60)
    assert e.update(2.0) == pytest.approx(1 / 60)            # no frame before: the initial
    assert e.update(2.0 + 1 / 120) == pytest.approx(1 / 120)  # a 120 Hz frame
    assert e.update(2.0 + 1 / 120) == pytest.approx(1 / 120)  # paused: the last
    assert e.update(1.0) == pytest.approx(1 / 120)            # a rewind: the last
    assert wheels.sweeps([-60.0, 0.0, 30.0, 90.0], 0.02) == pytest.approx([1.2, 0.0, 0.6, 1.8])


# -- contact shadows and arrows (geometry) -------------------------------------------------------------
def test_the_body_shadow_is_darker_under_the_corners_a_roll_brings_down():
    hl, hw, rest = 2.0, 0.8, 0.2
    floor = np.array([(-hl, -hw, 0.0), (hl, -hw, 0.0), (hl, hw, 0.0), (-hl, hw, 0.0)])
    up = np.array([0.0, 0.0, 1.0])
    level = shadows.body_shadow(np.eye(3), np.array([5.0, 1.0, rest]), floor, rest, np.zeros(3), up)[0]
    assert level[0:3] == pytest.approx((5.0, 1.0, shadows.LIFT))           # under the body, on the ground
    assert level[13:17] == pytest.approx(np.ones(4))
    phi = 0.05                                                              # rolled right side down
    rolled = shadows.body_shadow(rot_axis("x", phi)[:3, :3], np.array([5.0, 1.0, rest]), floor, rest,
                                 np.zeros(3), up)[0]
    drop = hw * math.sin(phi)
    expect = np.exp(np.array([drop, drop, -drop, -drop]) / shadows.FADE_HEIGHT)
    assert rolled[13:17] == pytest.approx(expect, rel=1e-5)
    jumped = shadows.body_shadow(np.eye(3), np.array([5.0, 1.0, rest + 1.0]), floor, rest, np.zeros(3), up)[0]
    assert jumped[13:17] == pytest.approx(np.exp(-1.0 / shadows.FADE_HEIGHT) * np.ones(4))


def test_a_wheel_blob_fades_as_the_wheel_lifts():
    r = np.full(4, 0.3)
    centres = np.array([[0, 0, 0.3], [0, 1, 0.3 + shadows.WHEEL_FADE / 2], [1, 0, 0.3 + shadows.WHEEL_FADE], [1, 1, 2]])
    rows, rings = shadows.wheel_marks(centres, np.tile([1.0, 0, 0], (4, 1)), r, np.full(4, 0.2), np.array([1, 0, 0, 0]),
                                      np.ones((4, 3)), np.zeros((4, 3)), np.tile([0, 0, 1.0], (4, 1)), np.zeros(3),
                                      np.array([0, 0, 1.0]))
    assert rows[:, 12] == pytest.approx([shadows.WHEEL_ALPHA, shadows.WHEEL_ALPHA / 2, 0.0, 0.0])
    assert rows[:, 2] == pytest.approx(np.full(4, shadows.LIFT))            # each on the ground under its wheel
    assert rings[:, :3] == pytest.approx(np.array([[0.0, 0.0, 1.5 * shadows.LIFT]]))   # a ring: the grounded wheel


def test_force_arrows_keep_a_legible_width_and_length_on_screen_and_get_a_head():
    eye = np.zeros(3)
    start, vec = np.array([30.0, 0.0, 0.0]), np.array([0.0, 0.02, 0.0])   # 2 cm long, 30 m away
    m = arrows.arrow_matrices(start[None], vec[None], np.array([0.05]))
    px_per_m = 600.0                                                      # at one metre
    shafts, heads, opacity = arrows.legible(m, np.array([False]), eye, px_per_m)
    px = px_per_m / 30.0
    width = np.linalg.norm(shafts[0, :3, 1]) * px
    tip = heads[0, :3, 3] + heads[0, :3, 0]
    assert width == pytest.approx(arrows.MIN_WIDTH_PX, rel=0.02)
    assert np.linalg.norm(tip - start) * px == pytest.approx(arrows.MIN_LENGTH_PX, rel=0.02)
    assert (tip - start) / np.linalg.norm(tip - start) == pytest.approx([0.0, 1.0, 0.0])   # its direction
    assert shafts[0, :3, 3] - shafts[0, :3, 0] / 2 == pytest.approx(start)                  # from its start
    assert opacity[0] == pytest.approx(0.02 * px / arrows.MIN_LENGTH_PX)        # as faint as it is short
    near = arrows.legible(arrows.arrow_matrices(np.array([[2.0, 0, 0]]), np.array([[0, 0, 0.8]]), np.array([0.05])),
                          np.array([False]), eye, px_per_m)
    assert near[1][0, :3, 3] + near[1][0, :3, 0] == pytest.approx([2.0, 0.0, 0.8])          # long enough: kept
    assert near[2][0] == 1.0


# -- tire smoke ----------------------------------------------------------------------------------------
class Tel:
    """Telemetry channels of four wheels: the smoke reads wheel_lists and the contact vectors."""

    def __init__(self, **channels):
        base = dict(grounded=1.0, rho=0.3, omega=0.0, vx=0.0, vy=0.0, mu=1.0, Fz=3000.0, Fx_raw=0.0, Fy_raw=0.0,
                    Fx=0.0, Fy=0.0)
        base.update(channels)
        self.c = {k: (list(v) if np.ndim(v) else [float(v)] * 4) for k, v in base.items()}
        self.Q = np.array([[1.3, 0.75, 0], [1.3, -0.75, 0], [-1.3, 0.75, 0], [-1.3, -0.75, 0]], float)
        self.t, self.b = np.tile([1.0, 0, 0], (4, 1)), np.tile([0, 1.0, 0], (4, 1))

    def wheel_lists(self, names):
        return [self.c[n] for n in names]


def test_smoke_comes_at_a_rate_proportional_to_the_sliding_power_and_not_without_sliding():
    # locked wheels at 10 m/s braking with 2 kN and turning with 1 kN against a 2 m/s side slide:
    # |Fx (vx - rho omega) + Fy vy| = |-2000 * 10 - 1000 * 2| = 22 kW
    locked = dict(vx=10.0, omega=0.0, Fx=-2000.0, Fx_raw=-2000.0, vy=2.0, Fy=-1000.0, Fy_raw=-1000.0)
    c = Tel(**locked).c
    assert smoke.sliding_power(c, 0) == pytest.approx(22000.0)
    assert smoke.emission_rates(c) == pytest.approx(np.full(4, 22000.0 / smoke.PUFF_ENERGY))
    half = Tel(**{**locked, "Fx": -1000.0, "Fy": -500.0}).c
    assert smoke.emission_rates(half) == pytest.approx(smoke.emission_rates(c) / 2)
    # a rolling wheel (tread speed = ground speed, a small slip angle) works the ground a little but does
    # not slide: no smoke
    rolling = Tel(vx=20.0, omega=20.0 / 0.3, vy=0.3, Fx=300.0, Fx_raw=300.0, Fy=-2000.0, Fy_raw=-2000.0).c
    assert smoke.sliding_power(rolling, 0) > 0.0
    assert not smoke.emission_rates(rolling).any()
    assert not smoke.emission_rates(Tel(**{**locked, "grounded": 0.0}).c).any()               # in the air


def test_the_smoke_pool_never_holds_more_than_its_size_and_keeps_the_newest():
    tel = Tel(vx=30.0, omega=0.0, Fx=-6000.0, Fx_raw=-6000.0)                # 180 kW a wheel: MAX_RATE each
    assert smoke.emission_rates(tel.c) == pytest.approx(np.full(4, smoke.MAX_RATE))
    puffs = smoke.Smoke()
    t, counts = 0.0, []
    for _ in range(240):
        t += 1 / 60
        puffs.update(t, tel)
        counts.append(puffs.count)
    assert max(counts) == smoke.POOL
    # the pool refills at 4 MAX_RATE puffs a second, so every puff alive was born within POOL / that
    assert puffs.age[puffs.alive].max() <= smoke.POOL / (4 * smoke.MAX_RATE) + 1 / 60
    puffs.spawn(np.zeros((3 * smoke.POOL, 3)), np.zeros((3 * smoke.POOL, 3)), np.ones(3 * smoke.POOL), 0.0)
    assert puffs.count == smoke.POOL
    puffs.update(t - 1.0, tel)                                               # a rewind clears it
    assert puffs.count == 0


# -- what the view shows (standalone EGL context) ---------------------------------------------------------
@pytest.fixture(scope="module")
def gl():
    moderngl = pytest.importorskip("moderngl")
    try:
        ctx = moderngl.create_standalone_context(backend="egl")
    except Exception as exc:                                                 # no EGL on this machine
        pytest.skip(f"no standalone GL context: {exc}")
    fbo = ctx.framebuffer(ctx.renderbuffer((W, H)), ctx.depth_renderbuffer((W, H)))
    yield ctx, fbo
    ctx.release()


@pytest.fixture(scope="module")
def parked():
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.load_world("flat"))
    for _ in range(120):
        s.step(sim.Controls())
    return car, s


def render(gl, car, s, eye, target, fov=40.0, **kw):
    from render.scene import SceneRenderer
    ctx, fbo = gl
    fbo.use()
    pose = kw.pop("pose", None) or capture(s)
    view, proj = look_at(eye, target), perspective(fov, W / H, 0.05, 1000.0)
    SceneRenderer(ctx, s.world).draw(view, proj, eye, pose, (W, H), car, s.wheel_geometry(), **kw)
    img = np.frombuffer(fbo.read(components=3), np.uint8).reshape(H, W, 3)[::-1].astype(int)
    return img, proj @ view


def test_a_locked_wheel_shows_its_quadrants_and_a_fast_one_is_an_even_blur(gl, parked):
    """Side view of the front-left rim: at rest its light and dark quadrants contrast; spinning so fast
    that the quadrants would turn more than half their period (pi / 2) in the 1/60 s shutter, the rim is
    one even grey (drawn as its average, not as a strobing pattern)."""
    car, s = parked
    c = np.asarray(s.telemetry.C[0], float)
    r = float(s.wheel_geometry().radius[0])
    eye = c + np.array([0.0, 1.4, 0.0])
    spread = []
    for omega in (0.0, 2 * (math.pi / 2) * 60 * 1.1):                      # 0 and 1.1 x the quadrants' limit
        pose = dataclasses.replace(capture(s), wheel_omega=np.full(4, omega), wheel_angle=np.full(4, 0.4))
        img, vp = render(gl, car, s, eye, c, pose=pose)
        cx, cy = project(vp, c, W, H)
        px = project(vp, c + np.array([0.0, 0.0, r]), W, H)[1]
        rpx = abs(cy - px)
        yy, xx = np.mgrid[0:H, 0:W]
        d = np.hypot(xx - cx, yy - cy) / rpx
        rim = img[(d > 0.25) & (d < 0.5)].mean(axis=1)
        spread.append(float(rim.std()))
    assert spread[0] > 40.0, spread
    assert spread[1] < 6.0, spread


def test_grip_tints_read_beside_the_red_car_from_the_chase_camera(gl, parked):
    from render.camera import ChaseCamera
    car, s = parked
    pose = capture(s)
    cam = ChaseCamera()
    cam.update(pose.position, np.array([1.0, 0.0, 0.0]), 0.0)
    green = (0.40, 0.85, 0.40)
    found = []
    for tints in (None, [green] * 4):
        img, vp = render(gl, car, s, cam.eye, cam.target, fov=cam.fov, wheel_tints=tints, telemetry=s.telemetry)
        hits = 0
        for i in (2, 3):                                                     # the rear contacts, seen from behind
            x, y = (int(v) for v in project(vp, s.telemetry.Q[i], W, H))
            box = img[y - 12:y + 12, x - 25:x + 25].reshape(-1, 3)
            hits += int(((box[:, 1] > box[:, 0] + 60) & (box[:, 1] > box[:, 2] + 60)).sum())
        found.append(hits)
    assert found[0] == 0 and found[1] > 40, found


def test_compare_ghosts_each_show_their_own_colour_and_pin(gl, parked):
    """Three variants side by side: each ghost's pin is its colour, and its body's weakest channel is the
    one its colour lacks (yellow: blue, cyan: red, magenta: green); the car's red paint does not tint them."""
    from app.session import COMPANION_COLORS
    car, s = parked
    pose = capture(s)
    ghosts = [(dataclasses.replace(pose, position=pose.position + np.array([0.0, dy, 0.0])), car, s.wheel_geometry(),
               color) for dy, color in zip((-3.2, 0.0, 3.2), COMPANION_COLORS)]
    away = dataclasses.replace(pose, position=pose.position + np.array([-60.0, 0.0, 0.0]))   # the car: out of view
    eye = pose.position + np.array([-9.0, 0.0, 4.0])
    img, vp = render(gl, car, s, eye, pose.position + np.array([0, 0, 0.6]), fov=50.0, companions=ghosts, pose=away)
    ch = car.chassis
    for k, (g_pose, _, _, color) in enumerate(ghosts):
        roof = ch.floor_z + ch.height - ch.com_z
        pin = g_pose.position + np.array([0.0, 0.0, roof + 0.4 * (k + 1) + 0.3])
        x, y = (int(v) for v in project(vp, pin, W, H))
        seen = img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0) / 255
        assert seen == pytest.approx(color, abs=0.2), (k, seen)
        x, y = (int(v) for v in project(vp, g_pose.position + np.array([-1.2, 0, 0]), W, H))
        body = img[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
        assert int(np.argmin(body)) == int(np.argmin(color)), (k, body)
