"""Static friction for braked wheels at rest (spec 000: 驻车与时间步, 多轮约束与统一提交).

The slip floor vMin keeps kappa finite but gives no static friction: a braked car on a slope creeps.
Wheels that are braked and all but still become *candidates* to lock. From the frozen state (with every
other force, the other wheels' dynamic tire forces and the candidates' stopping reaction already in)
the body's free velocity gives each candidate contact a free tangential velocity c (along t and b).
The impulses j that stop them couple through the body:

    K[ia, jb] = e_ia . e_jb / M + (r_i x e_ia) . I^-1 (r_j x e_jb)

and each wheel's accumulated impulse must lie in D_i = { |j| <= B_i = mu Fz dt } and, along t, in the
brake's interval  ((T_drive - T_b) dt + Iw omega) / rho <= j_x <= ((T_drive + T_b) dt + Iw omega) / rho
(the brake must be able to hold the wheel at zero). The solver minimises 1/2 j^T K j + c^T j over D by
projected gradient with step 1/max_i sum_j |K_ij| (all wheels updated from the same old j), projecting
the accumulated impulse onto disc-and-interval exactly as the spec describes. A wheel whose interval
misses the disc, or whose final tangential speed stays above the tolerance, is dropped and the rest are
solved again from the same frozen state.
"""
from __future__ import annotations

import math

import numpy as np

from sim.jit import leaf

ENTER_SPEED = 0.1          # m/s: |vx|, |vy| and |rho omega| below this (and a brake) make a candidate
EXIT_SPEED = 0.2           # m/s: a locked contact stays a candidate below this (hysteresis)
IMPULSE_TOLERANCE = 1e-6   # N s: the solver has converged when no impulse moves more than this
SPEED_TOLERANCE = 1e-4     # m/s: a locked contact must end slower than this
MAX_ITERATIONS = 400


@leaf
def brake_interval(t_drive, t_brake, iw, omega, rho, dt):
    """Range of the longitudinal impulse j_x (N s) for which a brake of at most t_brake holds the wheel
    at zero this step: ((T_drive - T_b) dt + Iw omega) / rho .. ((T_drive + T_b) dt + Iw omega) / rho."""
    return ((t_drive - t_brake) * dt + iw * omega) / rho, ((t_drive + t_brake) * dt + iw * omega) / rho


@leaf
def project_disc_interval(zx, zy, b, lo, hi):
    """Nearest point to (zx, zy) with x^2 + y^2 <= b^2 and lo <= x <= hi (the interval already cut to
    [-b, b] by the caller, lo <= hi). Candidates: z itself, its radial projection when that lies inside
    the interval, and the points x = lo, x = hi with y clamped to the disc."""
    if zx * zx + zy * zy <= b * b and lo <= zx <= hi:
        return zx, zy
    best_x = 0.0
    best_y = 0.0
    best_d = 1e300
    m = math.sqrt(zx * zx + zy * zy)
    if m > b and m > 0.0:
        px = zx * b / m
        py = zy * b / m
        if lo <= px <= hi:
            best_x, best_y, best_d = px, py, (px - zx) ** 2 + (py - zy) ** 2
    for x in (lo, hi):
        half = math.sqrt(max(0.0, b * b - x * x))
        y = min(half, max(-half, zy))
        d = (x - zx) ** 2 + (y - zy) ** 2
        if d < best_d:
            best_x, best_y, best_d = x, y, d
    return best_x, best_y


@leaf
def solve_impulses(k_mat, c, lo, hi, budget, active, j):
    """Projected gradient on 1/2 j^T K j + c^T j over each active wheel's disc-and-interval.

    k_mat (2n, 2n), c (2n,): the coupling and the free tangential speeds (wheel w: rows 2w along t and
    2w+1 along b); lo, hi, budget (n,): brake interval and friction budget B = mu Fz dt; active (n,)
    bool; j (2n,) in: start, out: the accumulated impulses (N s). Returns the iterations used."""
    n2 = c.shape[0]
    lipschitz = 0.0
    for a in range(n2):
        if not active[a // 2]:
            continue
        row = 0.0
        for b in range(n2):
            if active[b // 2]:
                row += abs(k_mat[a, b])
        lipschitz = max(lipschitz, row)
    if lipschitz <= 0.0:
        return 0
    eta = 1.0 / lipschitz
    grad = np.zeros(n2)
    for it in range(MAX_ITERATIONS):
        for a in range(n2):                       # gradient from the same old j for every wheel
            g = c[a]
            for b in range(n2):
                if active[b // 2]:
                    g += k_mat[a, b] * j[b]
            grad[a] = g
        moved = 0.0
        for w in range(n2 // 2):
            if not active[w]:
                continue
            zx = j[2 * w] - eta * grad[2 * w]
            zy = j[2 * w + 1] - eta * grad[2 * w + 1]
            nx, ny = project_disc_interval(zx, zy, budget[w], lo[w], hi[w])
            moved = max(moved, abs(nx - j[2 * w]), abs(ny - j[2 * w + 1]))
            j[2 * w] = nx
            j[2 * w + 1] = ny
        if moved < IMPULSE_TOLERANCE * 1e-3:
            return it + 1
    return MAX_ITERATIONS


@leaf
def contact_speeds(k_mat, c, active, j, out):
    """Tangential speeds after the impulses: out = c + K j (active wheels only)."""
    n2 = c.shape[0]
    for a in range(n2):
        v = c[a]
        for b in range(n2):
            if active[b // 2]:
                v += k_mat[a, b] * j[b]
        out[a] = v
