"""A racing line through a circuit and a car's limit speed along it (issue 31 item 4; docs/driver.md).

Racing line: the minimum-curvature line (Braghin, Cheli, Melzi, Sabbioni 2008, "Race driver model",
Computers & Structures 86; the quadratic programme of Heilmeier et al. 2019, Vehicle System Dynamics 58,
with finite differences in place of splines). Every `spacing` metres h of the centre line (curvature
kappa_c) a point moves sideways by n_i (+ left) along the centre line's normal N_i: P_i = C_i + n_i N_i.
The offset line's curvature is kappa_c / (1 - n kappa_c) + n'' to first order in n' (a parallel curve's, plus
the bending of the offset itself), linearised about offsets n0 and with n'' by second differences:

    kappa_i ~ f(n0_i) + f'(n0_i) (n_i - n0_i) + (n_{i-1} - 2 n_i + n_{i+1}) / h^2,  f(n) = kappa_c / (1 - n kappa_c)

The line minimising the sum of its squares within the road less a margin, -(w_right - margin) <= n_i <=
w_left - margin, is a convex quadratic programme with box bounds, solved by an active set (no solver
library), `rounds` times, each about the offsets found before (one by default: on the circuit a second
round changes the predicted lap by 0.4 %). (The sum of squared second differences of
the points themselves, the simplest form, favours the inside of every bend: there the points bunch up
and the same turn is a smaller difference.) The points are then joined by the track's own periodic spline
and resampled every metre: a Track (sim/model/track.py) of its own, so the driver asks it the same
questions (project, follow, sample). Computed once per track and margin, cached.

Limit speed: the quasi-steady point mass with a g-g ellipse (the lap-time simulation of OptimumLap and of
Brayshaw & Harrison 2005): at each station the cornering limit v^2 |kappa| = a_lat (a_lat the lateral
limit, with the downforce's share rising with v^2), then a forward pass (traction within the ellipse,
(a_x / a_x,max)^2 + (a_y / a_y,max)^2 <= 1, the engine's power P / (m v), less drag and rolling
resistance) and a backward pass (braking within the ellipse, helped by drag), twice round the closed lap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel.units import GRAVITY as G
from sim.model.params import Vehicle
from sim.model.track import Track
from sim.model.track import centre_line

SPACING = 4.0          # m between the racing line's free points
LINE_DS = 1.0          # m between the stations of the resampled racing line
SMOOTH = 4.0           # m the curvature is averaged over (about a car's length) for the limit speed
LAT_FACTOR = 0.75      # the lateral limit a car starts from, as a share of its tires' peak friction (load
#                        transfer and load sensitivity take the rest; the driver then learns its own)


def _quadratic(track: Track, spacing: float, n0: np.ndarray | None = None):
    """The centre line's stations s, points C (M, 2) and normals N (M, 2) every `spacing` m, and the quadratic
    programme 0.5 n'Hn + g'n of the summed squares of the offset line's curvature, linearised about the
    offsets n0 (module docstring)."""
    m = max(16, int(round(track.length / spacing)))
    h = track.length / m
    s = np.arange(m) * h
    c = np.column_stack([track.at(s, "x"), track.at(s, "y")])
    heading = track.at(s, "heading")
    nrm = np.column_stack([-np.sin(heading), np.cos(heading)])
    kc = track.at(s, "curvature")
    n0 = np.zeros(m) if n0 is None else n0
    room = np.maximum(1.0 - n0 * kc, 0.2)
    f = kc / room                                          # an offset curve's curvature, kc / (1 - n kc)
    slope = kc * kc / (room * room)
    idx = np.arange(m)
    a = np.zeros((m, m))
    a[idx, idx] = slope - 2.0 / (h * h)                   # + n'' by second differences
    a[idx, (idx - 1) % m] += 1.0 / (h * h)
    a[idx, (idx + 1) % m] += 1.0 / (h * h)
    b = f - slope * n0
    hess = a.T @ a
    hess[idx, idx] += 1e-9 * float(np.mean(np.diag(hess)))       # the straights' near-null directions
    return s, c, nrm, hess, a.T @ b


def box_qp(hess: np.ndarray, grad: np.ndarray, lo: np.ndarray, hi: np.ndarray, iterations: int = 400,
           start: np.ndarray | None = None) -> np.ndarray:
    """argmin 0.5 x'Hx + g'x for lo <= x <= hi (H positive definite) by a primal active set: solve on the free
    variables, fix those that leave their bounds, free the fixed ones whose multiplier has the wrong sign."""
    n = len(grad)
    x = np.clip(np.zeros(n) if start is None else start, lo, hi)
    fixed = (x <= lo) | (x >= hi) if start is not None else np.zeros(n, dtype=bool)
    for _ in range(iterations):
        free = ~fixed
        rhs = -grad[free] - hess[np.ix_(free, fixed)] @ x[fixed]
        x_free = np.linalg.solve(hess[np.ix_(free, free)], rhs)
        out = (x_free < lo[free] - 1e-9) | (x_free > hi[free] + 1e-9)
        x[free] = np.clip(x_free, lo[free], hi[free])
        if out.any():
            fixed[np.flatnonzero(free)[out]] = True
            continue
        g = hess @ x + grad
        wrong = fixed & (((x <= lo) & (g < -1e-12)) | ((x >= hi) & (g > 1e-12)))
        if not wrong.any():
            return x
        # free the worst one only (freeing them all at once can cycle)
        fixed[int(np.argmax(np.where(wrong, np.abs(g), -1.0)))] = False
    return x


def racing_line(track: Track, margin: float = 1.5, spacing: float = SPACING, rounds: int = 1) -> Track:
    """The minimum-curvature line through `track` keeping the car's centre `margin` m inside each edge of the
    road, as a Track resampled every LINE_DS m from the point beside the start/finish line. Cached on the
    track (per margin and spacing).

    `rounds`: the programme solved again about the offsets found before (the parallel curve's curvature
    re-linearised)."""
    cache = track.__dict__.setdefault("_racing_lines", {})
    key = (round(float(margin), 6), round(float(spacing), 6))
    if key in cache:
        return cache[key]
    n = None
    for _ in range(rounds):
        s, c, nrm, hess, grad = _quadratic(track, spacing, n)
        hi = np.maximum(track.at(s, "width_left") - margin, 0.0)
        lo = -np.maximum(track.at(s, "width_right") - margin, 0.0)
        n = box_qp(hess, grad, lo, hi, start=n)
    pts = c + n[:, None] * nrm
    z = track.point(s, n)[:, 2]
    st, xy, zz, heading, curvature, w, b, length, _ = centre_line(pts, z, np.ones(len(s)), track.at(s, "bank"), LINE_DS)
    line = Track(st, xy, zz, heading, curvature, w, w, b, length)
    object.__setattr__(line, "offset", n)               # the points' offsets (m, + left) from the centre line
    object.__setattr__(line, "offset_s", s)             # at these stations of the centre line
    cache[key] = line
    return line


def margin_for(car: Vehicle) -> float:
    """How far (m) inside each edge of the road the racing line keeps a car's centre: half its widest
    track, half a tire and 0.4 m."""
    return max(car.front_axle.half_track, car.rear_axle.half_track) + 0.1 + 0.4


@dataclass(frozen=True)
class Envelope:
    """A car's g-g figures and the rest of what limits its speed (SI), per car (arrays (N,))."""
    lateral: np.ndarray        # m/s^2, the steady cornering limit without downforce
    braking: np.ndarray        # m/s^2
    traction: np.ndarray       # m/s^2, the driven wheels' limit
    power: np.ndarray          # W at the wheels
    drag: np.ndarray           # 1/m: drag deceleration / v^2 (0.5 rho Cd A / m)
    rolling: np.ndarray        # m/s^2
    downforce: np.ndarray      # 1/m: downforce / (m v^2) (0.5 rho ClA / m)
    v_top: np.ndarray          # m/s: the gearing's top speed at the redline

    @classmethod
    def of(cls, cars: list[Vehicle], road_mu: float = 1.0) -> Envelope:
        """Estimated from the parameters (the driver then learns the car's own limit lap by lap): the tires'
        peak friction on the road (LAT_FACTOR of it sideways), braking within the brakes' torque, traction on
        the driven axle's static load, the engine's peak power less 10 % for the driveline."""
        rows = []
        for car in cars:
            m = car.chassis.mass
            grip_f, grip_r = road_mu * car.front_tire.grip, road_mu * car.rear_tire.grip
            a = car.front_axle.x - car.chassis.com_x
            b = car.chassis.com_x - car.rear_axle.x
            front_share = b / (a + b)
            r = car.rear_tire.radius
            brake = min(0.85 * G * 0.5 * (grip_f + grip_r),
                        2.0 * (car.brakes.max_torque_front + car.brakes.max_torque_rear) / (r * m))
            share = {"rwd": 1.0 - front_share, "fwd": front_share, "awd": 1.0}[car.drive.layout]
            traction = G * share * (grip_r if car.drive.layout == "rwd" else grip_f) * 1.1
            if car.drive.mode == "engine":
                e = car.engine
                rpm = np.linspace(e.torque_rpm[0], min(e.torque_rpm[-1], e.redline_rpm), 400)
                power = 0.9 * float(np.max(np.interp(rpm, e.torque_rpm, e.torque_nm) * rpm * 2.0 * math.pi / 60.0))
                g = car.gearbox
                v_top = e.redline_rpm * 2.0 * math.pi / 60.0 / (g.ratios[-1] * g.final_drive) * r
            else:
                wheels = 4 if car.drive.layout == "awd" else 2
                power = wheels * car.drive.max_wheel_torque * 0.5 * car.drive.max_wheel_speed
                v_top = car.drive.max_wheel_speed * r
            ae = car.aero
            rows.append((LAT_FACTOR * G * min(grip_f, grip_r), brake, traction, power,
                         0.5 * ae.air_density * ae.drag_coefficient * ae.frontal_area / m,
                         G * 0.5 * (car.front_tire.rolling + car.rear_tire.rolling),
                         0.5 * ae.air_density * (ae.downforce_front + ae.downforce_rear) / m,
                         min(v_top, 100.0)))
        cols = np.array(rows, dtype=float).T
        return cls(*(np.asarray(c) for c in cols))


def limit_speed(line: Track, env: Envelope, scale: np.ndarray | None = None) -> np.ndarray:
    """The limit speed (N, M) m/s of each car at every station of `line`: the cornering limit with the
    lateral, braking and traction limits multiplied by `scale` (N, M) (1: the envelope as it is), then the
    forward and backward passes round the closed lap (module docstring)."""
    n, m = len(env.lateral), len(line.s)
    scale = np.ones((n, m)) if scale is None else np.asarray(scale, dtype=float)
    k = max(1, int(round(SMOOTH / 2.0 / line.ds)))
    kern = np.ones(2 * k + 1) / (2 * k + 1)
    kappa = np.abs(np.convolve(np.concatenate([line.curvature[-k:], line.curvature, line.curvature[:k]]),
                               kern, "valid"))
    mu_lat = env.lateral[:, None] * scale                          # (N, M) m/s^2 without downforce
    df = (env.lateral / G)[:, None] * scale * env.downforce[:, None] * G   # lateral m/s^2 per (m/s)^2 of downforce
    room = np.maximum(kappa[None, :] - df, 1e-9)
    v = np.minimum(env.v_top[:, None], np.sqrt(mu_lat / room))
    ds = line.ds

    def lat_share(vi, i):                                          # (a_y / a_y,max)^2, at most 1
        ay = vi * vi * kappa[i]
        top = mu_lat[:, i] + df[:, i] * vi * vi
        return np.minimum(1.0, (ay / np.maximum(top, 1e-9)) ** 2)

    start = int(np.argmax(kappa))          # the tightest point, the same for every car (a car in a batch alone)
    for _ in range(2):                                             # forward: accelerate within the ellipse
        for j in range(m):
            i, nxt = (start + j) % m, (start + j + 1) % m
            vi = v[:, i]
            grip = env.traction * scale[:, i] * np.sqrt(1.0 - lat_share(vi, i))
            ax = np.minimum(grip, env.power / np.maximum(vi, 1.0)) - env.drag * vi * vi - env.rolling
            v[:, nxt] = np.minimum(v[:, nxt], np.sqrt(np.maximum(vi * vi + 2.0 * ax * ds, 0.0)))
    for _ in range(2):                                             # backward: brake within the ellipse
        for j in range(m):
            i, prev = (start - j) % m, (start - j - 1) % m
            vi = v[:, i]
            ax = env.braking * scale[:, i] * np.sqrt(1.0 - lat_share(vi, i)) + env.drag * vi * vi + env.rolling
            v[:, prev] = np.minimum(v[:, prev], np.sqrt(vi * vi + 2.0 * ax * ds))
    return v
