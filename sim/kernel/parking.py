"""Static friction for wheels at rest (docs/physics.md §11).

The slip floor vMin keeps kappa finite but gives no static friction: a car left on a slope creeps.
Wheels that are all but still become *candidates* to hold, braked or not. From the frozen state (with every
other force, the other wheels' dynamic tire forces and the candidates' stopping reaction already in)
the body's free velocity gives each candidate contact a free tangential velocity c (along t and b).
The impulses j that stop them couple through the body:

    K[ia, jb] = e_ia . e_jb / M + (r_i x e_ia) . I^-1 (r_j x e_jb)

and each wheel's accumulated impulse must lie in D_i = { |j| <= B_i = mu Fz h } and, along t, in the
interval the wheel's brake and rolling resistance can hold it at zero within,
    ((T_drive - T_b) h + Iw omega) / rho - mu_r Fz h  <=  j_x  <=
    ((T_drive + T_b) h + Iw omega) / rho + mu_r Fz h
(T_b = 0 for an unbraked wheel: only rolling resistance holds its rolling direction, so a free car on a
slope steeper than rolling resistance allows still rolls). The solver minimises 1/2 j^T K j + c^T j over D by
projected gradient with step 1/max_i sum_j |K_ij| (all wheels updated from the same old j), projecting
the accumulated impulse onto disc-and-interval exactly as the spec describes; by default with momentum
(FISTA, restarted when a step goes uphill: brakes.hold_solver). A wheel whose interval
misses the disc is dropped and the rest are solved again from the same frozen state, and so is an
unbraked wheel whose final tangential speed stays above SPEED_TOLERANCE (it rolls or slides on the
dynamic tire). A braked wheel that the solve cannot stop is not held (WS_LOCKED stays 0) but keeps its
friction-limited impulse for this substep (docs/physics.md §14).

The stage runs in four steps: `find_candidates`, then per attempt `free_velocity` and `build_coupling`,
`solve_impulses`, and `commit_impulses`, which turns the impulses into the held wheels' tire forces.
"""
from __future__ import annotations

import math

import numpy as np

from sim.kernel.body import inertia_of
from sim.kernel.body import wrench
from sim.kernel.jit import allocating_kernel
from sim.kernel.jit import allocating_leaf
from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.shapes import surface_catch_up
from sim.kernel.tables import NW
from sim.kernel.tables import VP_HOLD_SOLVER
from sim.kernel.tables import VP_HOLD_STOP
from sim.kernel.tables import VP_MASS
from sim.kernel.tables import VP_MASS_U
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_FRX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_GRIP_SCALE
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_LOCKED
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_OMEGA
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_RHO
from sim.kernel.tables import W_ROLL_SURF
from sim.kernel.tables import W_SHAPE
from sim.kernel.tables import W_T_BRAKE
from sim.kernel.tables import W_T_BRAKE_MAX
from sim.kernel.tables import W_T_DRIVE
from sim.kernel.tables import W_TX
from sim.kernel.tables import W_VGX
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_ROLL
from sim.kernel.tables import WP_ROLLING_ON
from sim.kernel.tables import WS_HX
from sim.kernel.tables import WS_LOCKED
from sim.kernel.tables import WS_OMEGA
from sim.kernel.unsprung import held_unsprung_torque
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import madd
from sim.kernel.vec import scale
from sim.kernel.vec import set3w
from sim.kernel.vec import sub
from sim.kernel.vec import world_inertia_apply
from sim.kernel.vec import world_inertia_solve

ENTER_SPEED = 0.1          # m/s: |vx|, |vy| and |rho omega| below this make a wheel a candidate
EXIT_SPEED = 0.2           # m/s: a locked contact stays a candidate below this (hysteresis)
IMPULSE_TOLERANCE = 1e-9   # N s: the solver has converged when no impulse moves more than this
VELOCITY_TOLERANCE = 1e-10  # m/s: ... or (brakes.hold_stop = "velocity") no contact speed changes more than this
HOLD_STOP_VELOCITY = 0.0   # brakes.hold_stop, packed in VP_HOLD_STOP
HOLD_STOP_IMPULSE = 1.0
HOLD_STOPS = {"velocity": HOLD_STOP_VELOCITY, "impulse": HOLD_STOP_IMPULSE}
HOLD_SOLVER_ACCELERATED = 0.0   # brakes.hold_solver, packed in VP_HOLD_SOLVER
HOLD_SOLVER_GRADIENT = 1.0
HOLD_SOLVERS = {"accelerated": HOLD_SOLVER_ACCELERATED, "gradient": HOLD_SOLVER_GRADIENT}
SPEED_TOLERANCE = 1e-4     # m/s: a locked contact must end slower than this
MAX_ITERATIONS = 400


@leaf
def brake_interval(t_drive, t_brake, iw, omega, rho, h):
    """Range of the longitudinal impulse j_x (N s) for which a brake of at most t_brake holds the wheel
    at zero over a substep of h seconds: ((T_drive - T_b) h + Iw omega) / rho .. ((T_drive + T_b) h +
    Iw omega) / rho."""
    return ((t_drive - t_brake) * h + iw * omega) / rho, ((t_drive + t_brake) * h + iw * omega) / rho


@leaf
def project_disc_interval(zx, zy, b, lo, hi):
    """Nearest point to (zx, zy) with x^2 + y^2 <= b^2 and lo <= x <= hi (the interval already cut to
    [-b, b] by the caller, lo <= hi). Candidates: z itself, its radial projection when that lies inside
    the interval, and the points x = lo, x = hi with y clamped to the disc."""
    return project_onto(zx, zy, b, lo, hi, chord_half(b, lo), chord_half(b, hi))


@leaf
def chord_half(b, x):
    """Half the disc's chord at x: the largest |y| with x^2 + y^2 <= b^2 (0 outside the disc)."""
    return math.sqrt(max(0.0, b * b - x * x))


@leaf
def project_onto(zx, zy, b, lo, hi, half_lo, half_hi):
    """`project_disc_interval` with the chords at lo and hi (`chord_half`) given: they stay the same through a
    solve, so a solver works them out once, not every round."""
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
    y = min(half_lo, max(-half_lo, zy))
    d = (lo - zx) ** 2 + (y - zy) ** 2
    if d < best_d:
        best_x, best_y, best_d = lo, y, d
    y = min(half_hi, max(-half_hi, zy))
    d = (hi - zx) ** 2 + (y - zy) ** 2
    if d < best_d:
        best_x, best_y, best_d = hi, y, d
    return best_x, best_y


@leaf
def gradient_step(k_mat, active):
    """The projected gradient's step 1 / max_i sum_j |K_ij| over the active rows and columns (the row sums
    bound K's largest eigenvalue); 0 when K is zero there."""
    n2 = k_mat.shape[0]
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
        return 0.0
    return 1.0 / lipschitz


@allocating_leaf
def solve_impulses(k_mat, c, lo, hi, budget, active, j, velocity_stop, accelerated):
    """Projected gradient on 1/2 j^T K j + c^T j over each active wheel's disc-and-interval.

    k_mat (2n, 2n), c (2n,): the coupling and the free tangential speeds (wheel i: rows 2i along t and
    2i+1 along b); lo, hi, budget (n,): brake interval and friction budget B = mu Fz h; active (n,)
    bool; j (2n,) in: start, out: the accumulated impulses (N s). Stops when no impulse moves by more
    than IMPULSE_TOLERANCE, or with `velocity_stop` when the last round changed no contact speed c + K j
    by more than VELOCITY_TOLERANCE, or after MAX_ITERATIONS; the caller judges the result by the
    contact speeds it leaves (`contact_speeds`).

    Why the second rule: K has rank 3 for four contacts on flat ground (the body moves in the plane), so
    impulses along its near-null directions, wheels pushing against one another, move no contact. When
    an interval pins the longitudinal impulses, the gradient's tiny part along such a direction makes
    the iteration creep along it by the same step every round: 400 rounds that change the contact speeds
    by 1e-13 m/s and the internal forces by up to 1e-2 N s (docs/physics.md §11). The speed change of a
    round is the change of the gradient c + K j, computed anyway: the rule costs no extra product.

    With `accelerated` (brakes.hold_solver = "accelerated", docs/physics.md §11) the projected gradient
    step is taken from y = j_k + beta_k (j_k - j_{k-1}), beta_k = (t_{k-1} - 1) / t_k,
    t_k = (1 + sqrt(1 + 4 t_{k-1}^2)) / 2 (FISTA), and the momentum starts again (t = 1, y = j) whenever
    the step went uphill, g(y) . (j_{k+1} - j_k) > 0. The same projection keeps every iterate j feasible;
    the gradient at y is the same combination of the gradients at j_k and j_{k-1}, so a round costs one
    product K j either way. Where the contacts are badly balanced (a wheel against a curb: K's condition
    near 1000 off its null space) it ends in a third of the rounds and far nearer the minimum, and from
    j = 0 it finds the same least impulses (two equal wheels share equally). Without it, y = j_k: seed
    000's projected gradient, round for round (each round's speed check is the next round's first step
    in the plain form's order)."""
    n2 = c.shape[0]
    eta = gradient_step(k_mat, active)
    if eta <= 0.0:
        return
    g_j = np.zeros(n2)                           # the gradient c + K j at the current iterate
    y = np.zeros(n2)                             # where the next step starts, and the gradient there
    g_y = np.zeros(n2)
    nxt = np.zeros(n2)                           # the next iterate and its gradient
    g_n = np.zeros(n2)
    half_lo = np.zeros(n2 // 2)                  # the discs' chords at each interval's ends
    half_hi = np.zeros(n2 // 2)
    for i in range(n2 // 2):
        half_lo[i] = chord_half(budget[i], lo[i])
        half_hi[i] = chord_half(budget[i], hi[i])
    for a in range(n2):
        if active[a // 2]:
            g = c[a]
            for b in range(n2):
                if active[b // 2]:
                    g += k_mat[a, b] * j[b]
            g_j[a] = g
            y[a] = j[a]
            g_y[a] = g
    t_k = 1.0
    for _ in range(MAX_ITERATIONS):
        moved = 0.0
        for i in range(n2 // 2):
            if not active[i]:
                continue
            nx, ny = project_onto(y[2 * i] - eta * g_y[2 * i], y[2 * i + 1] - eta * g_y[2 * i + 1], budget[i],
                                  lo[i], hi[i], half_lo[i], half_hi[i])
            moved = max(moved, abs(nx - j[2 * i]), abs(ny - j[2 * i + 1]))
            nxt[2 * i] = nx
            nxt[2 * i + 1] = ny
        changed = 0.0                            # the largest change of a contact speed in this round
        uphill = 0.0
        for a in range(n2):
            if not active[a // 2]:
                continue
            g = c[a]
            for b in range(n2):
                if active[b // 2]:
                    g += k_mat[a, b] * nxt[b]
            g_n[a] = g
            changed = max(changed, abs(g - g_j[a]))
            uphill += g_y[a] * (nxt[a] - j[a])
        t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t_k * t_k))
        beta = (t_k - 1.0) / t_next
        if uphill > 0.0 or not accelerated:
            t_next = 1.0
            beta = 0.0
        for a in range(n2):
            if active[a // 2]:
                if beta == 0.0:
                    y[a] = nxt[a]
                    g_y[a] = g_n[a]
                else:
                    y[a] = nxt[a] + beta * (nxt[a] - j[a])
                    g_y[a] = g_n[a] + beta * (g_n[a] - g_j[a])
                j[a] = nxt[a]
                g_j[a] = g_n[a]
        t_k = t_next
        if moved < IMPULSE_TOLERANCE or (velocity_stop and changed < VELOCITY_TOLERANCE):
            return


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


@leaf
def find_candidates(v, wheel_state, wheel_scratch):
    """Bit i set when wheel i is a candidate to hold: grounded, with |vx|, |vy|, |rho omega| all under
    ENTER_SPEED (EXIT_SPEED while it is already held). Clears the held flags of every wheel."""
    bits = 0
    for i in range(NW):
        limit = EXIT_SPEED if wheel_state[v, i, WS_LOCKED] > 0.0 else ENTER_SPEED
        rho = wheel_scratch[v, i, W_RHO]
        if wheel_scratch[v, i, W_GROUNDED] > 0.0 and \
                abs(wheel_scratch[v, i, W_VX]) < limit and abs(wheel_scratch[v, i, W_VY]) < limit and \
                abs(rho * wheel_scratch[v, i, W_OMEGA]) < limit:
            bits |= 1 << i
        wheel_scratch[v, i, W_LOCKED] = 0.0
        wheel_state[v, i, WS_LOCKED] = 0.0
    return bits


@kernel
def free_velocity(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, f_hull, tau_hull, cand,
                  d_h_lock, h):
    """The body's velocity and angular velocity (world) at the end of the substep with every force but
    the candidates' tire forces, and the ledger with the candidates stopped (d_h_lock)."""
    pos, q, vel, w = body
    mass = vehicle_params[v, VP_MASS]
    inertia = inertia_of(vehicle_params, v)
    force, tau, _ = wrench(v, vehicle_params, body, wheel_scratch, gravity, f_hull, tau_hull, cand)
    if vehicle_params[v, VP_MASS_U] > 0.0:          # the wheels' weight and inertia at their contacts (§7.2)
        tau = add(tau, held_unsprung_torque(v, wheel_params, pos, q, wheel_state, wheel_scratch, gravity))
    tau = madd(tau, d_h_lock, -1.0 / h)
    v_free = madd(vel, force, h / mass)
    w_free = world_inertia_solve(q, inertia, madd(world_inertia_apply(q, inertia, w), tau, h))
    return v_free, w_free


@kernel
def build_coupling(v, vehicle_params, wheel_params, body, wheel_scratch, cand, v_free, w_free, h, k_mat, c, lo, hi,
                   budget, boxes, n_planes, t):
    """Fill the candidates' free tangential speeds c (along t and b), the coupling K, each wheel's
    friction budget B = mu Fz h and its holding interval (brake and rolling resistance) cut to [-B, B].
    A candidate whose interval is empty cannot be held: it is dropped (cand[i] = False) and the result is
    False (build again).

    c is measured against the speed the contact must end the substep with to stay on its spot of the
    ground: the ground's velocity at Q (W_VG) plus, on a moving box, what the ground point under the centre
    of mass gains on that velocity on average over the substep (`surface_catch_up`, at time t; boxes and
    n_planes, the world's box table and its number of planes, say which box a contact's shape is). The
    body's position advances with its end velocity, so a body held to W_VG alone on a turntable drifts
    outward by 1/2 W^2 r h^2 a substep; the catch-up is the same for every contact on one shape, so the
    target stays a rigid motion the four contacts can share (docs/physics.md §11)."""
    pos, q, vel, w = body
    mass = vehicle_params[v, VP_MASS]
    inertia = inertia_of(vehicle_params, v)
    feasible = True
    for i in range(NW):
        if not cand[i]:
            continue
        r = sub(get3w(wheel_scratch, v, i, W_QX), pos)
        v_q = sub(sub(add(v_free, cross(w_free, r)), get3w(wheel_scratch, v, i, W_VGX)),
                  surface_catch_up(boxes, n_planes, int(wheel_scratch[v, i, W_SHAPE]), t, h, pos))
        e0 = get3w(wheel_scratch, v, i, W_TX)
        e1 = get3w(wheel_scratch, v, i, W_BX)
        c[2 * i] = dot(v_q, e0)
        c[2 * i + 1] = dot(v_q, e1)
        budget[i] = wheel_scratch[v, i, W_MU] * wheel_scratch[v, i, W_FZ] * h       # B = mu Fz h
        l_, u_ = brake_interval(wheel_scratch[v, i, W_T_DRIVE], wheel_scratch[v, i, W_T_BRAKE_MAX],
                                wheel_params[v, i, WP_IW], wheel_scratch[v, i, W_OMEGA], wheel_scratch[v, i, W_RHO], h)
        rolling = (wheel_params[v, i, WP_ROLL] + wheel_scratch[v, i, W_ROLL_SURF]) * wheel_params[v, i, WP_ROLLING_ON] \
            * wheel_scratch[v, i, W_FZ] * h
        lo[i] = max(l_ - rolling, -budget[i])
        hi[i] = min(u_ + rolling, budget[i])
        if lo[i] > hi[i]:
            cand[i] = False                                                   # the brake cannot hold it
            feasible = False
        for a in range(2):
            ea = e0 if a == 0 else e1
            ra = cross(r, ea)
            for k in range(NW):
                if not cand[k]:
                    continue
                rk = sub(get3w(wheel_scratch, v, k, W_QX), pos)
                for b in range(2):
                    eb = get3w(wheel_scratch, v, k, W_TX) if b == 0 else get3w(wheel_scratch, v, k, W_BX)
                    k_mat[2 * i + a, 2 * k + b] = dot(ea, eb) / mass + \
                        dot(ra, world_inertia_solve(q, inertia, cross(rk, eb)))
    return feasible


@kernel
def commit_impulses(v, wheel_params, wheel_state, wheel_scratch, cand, j, speeds, h):
    """The impulses j become the candidates' tire forces for this substep and their wheels stay
    stopped. A contact that ends still (under SPEED_TOLERANCE) is held (WS_LOCKED); one whose budget could
    not stop it keeps its friction-limited impulse (Coulomb friction of a braked wheel) where the spec
    would hand it back to the dynamic tire: at these speeds the slip floor vMin makes that tire viscous
    and the car would creep on a slope forever (docs/physics.md §14)."""
    for i in range(NW):
        if not cand[i]:
            continue
        fx = j[2 * i] / h
        fy = j[2 * i + 1] / h
        tt = get3w(wheel_scratch, v, i, W_TX)
        bb = get3w(wheel_scratch, v, i, W_BX)
        set3w(wheel_scratch, v, i, W_FTX, add(scale(tt, fx), scale(bb, fy)))
        set3w(wheel_scratch, v, i, W_FRX, (0.0, 0.0, 0.0))
        wheel_scratch[v, i, W_FX] = fx
        wheel_scratch[v, i, W_FY] = fy
        wheel_scratch[v, i, W_GRIP_SCALE] = 1.0
        # T_brake actual = T_drive + Iw omega / h - rho j_x / h
        wheel_scratch[v, i, W_T_BRAKE] = wheel_scratch[v, i, W_T_DRIVE] + \
            wheel_params[v, i, WP_IW] * wheel_scratch[v, i, W_OMEGA] / h - wheel_scratch[v, i, W_RHO] * fx
        wheel_state[v, i, WS_OMEGA] = 0.0
        set3w(wheel_state, v, i, WS_HX, (0.0, 0.0, 0.0))
        still = math.sqrt(speeds[2 * i] ** 2 + speeds[2 * i + 1] ** 2) < SPEED_TOLERANCE
        wheel_state[v, i, WS_LOCKED] = 1.0 if still else 0.0
        wheel_scratch[v, i, W_LOCKED] = 1.0 if still else 0.0


@stage
def parking_stage(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, d_h, f_hull, tau_hull,
                  h, boxes, n_planes, t):
    """Static friction: wheels that are all but still try to hold together. Their dynamic tire forces and
    spin updates are replaced by the impulses within each wheel's friction disc and holding interval; a
    wheel that cannot be held (an empty interval, or unbraked and still moving after the solve) is
    dropped and the rest re-solved from the same frozen state. Returns the ledger's sum dHw + dHe, with
    the held wheels' spin momentum stopped. boxes, n_planes, t: the world's boxes, its number of planes and
    the substep's start (s), for the ground a held contact moves with (`build_coupling`)."""
    bits = find_candidates(v, wheel_state, wheel_scratch)
    if bits == 0:
        return d_h
    return hold_candidates(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, d_h, f_hull,
                           tau_hull, h, bits, boxes, n_planes, t)


@allocating_kernel
def hold_candidates(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, d_h, f_hull, tau_hull,
                    h, bits, boxes, n_planes, t):
    """parking_stage's solve for the candidate wheels in `bits` (bit i: wheel i); it allocates its small
    matrices, so it runs only when a wheel is parked."""
    cand = np.zeros(NW, dtype=np.bool_)
    for i in range(NW):
        cand[i] = (bits >> i) & 1 != 0
    k_mat = np.zeros((2 * NW, 2 * NW))
    c = np.zeros(2 * NW)
    lo = np.zeros(NW)
    hi = np.zeros(NW)
    budget = np.zeros(NW)
    j = np.zeros(2 * NW)
    speeds = np.zeros(2 * NW)
    for _ in range(NW + 1):
        # the ledger with the candidates stopped: their committed spin momentum goes to zero instead
        d_h_lock = d_h
        for i in range(NW):
            if cand[i]:
                d_h_lock = sub(d_h_lock, get3w(wheel_state, v, i, WS_HX))
        v_free, w_free = free_velocity(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity,
                                       f_hull, tau_hull, cand, d_h_lock, h)
        if not build_coupling(v, vehicle_params, wheel_params, body, wheel_scratch, cand, v_free, w_free, h, k_mat, c,
                              lo, hi, budget, boxes, n_planes, t):
            if not cand.any():
                break
            continue
        for a in range(2 * NW):
            j[a] = 0.0
        velocity_stop = vehicle_params[v, VP_HOLD_STOP] == HOLD_STOP_VELOCITY
        solve_impulses(k_mat, c, lo, hi, budget, cand, j, velocity_stop,
                       vehicle_params[v, VP_HOLD_SOLVER] == HOLD_SOLVER_ACCELERATED)
        contact_speeds(k_mat, c, cand, j, speeds)
        # an unbraked wheel the solve could not stop rolls (or slides) on: drop it and solve again
        rolling_on = False
        for i in range(NW):
            if cand[i] and wheel_scratch[v, i, W_T_BRAKE_MAX] <= 0.0 and \
                    math.sqrt(speeds[2 * i] ** 2 + speeds[2 * i + 1] ** 2) >= SPEED_TOLERANCE:
                cand[i] = False
                rolling_on = True
        if rolling_on:
            if not cand.any():
                break
            continue
        commit_impulses(v, wheel_params, wheel_state, wheel_scratch, cand, j, speeds, h)
        return d_h_lock
    return d_h
