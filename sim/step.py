"""The order of the physics: one substep of the seed-000 chain, and the batched fixed step.

`substep` is the single place that says in which order things happen; each stage below it is glue that
loops over the four wheels and calls the formulas in the topical files (contact, suspension, tire,
wheel, body, aero, drive). Stages talk through the telemetry rows `tw[v, w, :]`, which double as the
per-wheel scratch of the substep, so nothing is allocated inside the loop.

The state the stages read (pose, velocities, wheel speeds) is frozen for the whole substep: only the
last stage, `body_stage`, writes the body state, after every wheel has been computed from the same start.
"""
from __future__ import annotations

import math

import numpy as np

from sim.aero import downforce, drag_force, rolling_resistance
from sim.body import integrate_body
from sim.collision import deepest_penetration, hull_contact_force, hull_neighbours
from sim.contact import A_MIN, contact_point, rolling_arm, support_radius, suspension_length, tire_frame
from sim.drive import direct_drive
from sim.powertrain import DIFF_LOCKED, DIFF_LSD, RPM, clutch_torque, engine_brake_torque, lsd_lock, \
    steer_angles, torque_curve
from sim.jit import kernel, leaf
from sim.layout import *  # noqa: F401,F403 (column constants)
from sim.parking import ENTER_SPEED, EXIT_SPEED, SPEED_TOLERANCE, brake_interval, contact_speeds, \
    solve_impulses
from sim.query import QUERY_DISC, cast
from sim.suspension import compression, compression_rate, r_eff_rate, suspension_force
from sim.tire import combined_limit, raw_force, slip
from sim.vec import add, cross, dot, madd, norm, quat_rotate, scale, sub, world_inertia_apply, world_inertia_solve
from sim.wheel import wheel_spin

TWO_PI = 2.0 * math.pi
NO_SKIP = (False, False, False, False)


@leaf
def read3(arr, v, i0):
    return (arr[v, i0], arr[v, i0 + 1], arr[v, i0 + 2])


@leaf
def read3w(arr, v, w, i0):
    return (arr[v, w, i0], arr[v, w, i0 + 1], arr[v, w, i0 + 2])


@leaf
def write3(arr, v, i0, x):
    arr[v, i0] = x[0]
    arr[v, i0 + 1] = x[1]
    arr[v, i0 + 2] = x[2]


@leaf
def write3w(arr, v, w, i0, x):
    arr[v, w, i0] = x[0]
    arr[v, w, i0 + 1] = x[1]
    arr[v, w, i0 + 2] = x[2]


@leaf
def body_state(bs, v):
    """The frozen body state of vehicle v: position, orientation, velocity, angular velocity (world)."""
    return (read3(bs, v, BS_PX), (bs[v, BS_QW], bs[v, BS_QX], bs[v, BS_QY], bs[v, BS_QZ]),
            read3(bs, v, BS_VX), read3(bs, v, BS_WX))


@leaf
def spin_axis(q, camber, steer):
    """u in world: the body's +y axis turned by camber about x, then by the steering angle about z.

    Positive omega about u = +y rolls the car forward, so t = normalize(u x n) points forward (spec)."""
    ub = (0.0, math.cos(camber), math.sin(camber))
    cs = math.cos(steer)
    sn = math.sin(steer)
    return quat_rotate(q, (ub[0] * cs - ub[1] * sn, ub[0] * sn + ub[1] * cs, ub[2]))


# ---------------------------------------------------------------------------------------------------
# Stages

@leaf
def approach(value, target, step):
    if value < target:
        return min(target, value + step)
    return max(target, value - step)


@kernel
def steering_brakes(v, wp, vp, ctrl, bs, ws, tw, h):
    """Road-wheel angles (Ackermann, speed limit, rate limit) and brake torques (bias, handbrake, ABS).

    Writes tw STEER (the angle for this substep) and tw T_BRAKE (the most the brake may apply)."""
    speed = math.sqrt(bs[v, BS_VX] ** 2 + bs[v, BS_VY] ** 2 + bs[v, BS_VZ] ** 2)
    left, right = steer_angles(ctrl[v, CT_STEER], vp[v, VP_WHEELBASE], vp[v, VP_TRACK_F], vp[v, VP_STEER_MAX],
                               vp[v, VP_ACKERMANN], speed, vp[v, VP_STEER_LIMIT_V])
    brake = min(1.0, max(0.0, ctrl[v, CT_BRAKE]))
    hand = min(1.0, max(0.0, ctrl[v, CT_HANDBRAKE]))
    abs_on = ctrl[v, CT_ABS] > 0.5
    for i in range(NW):
        target = (left if i % 2 == 0 else right) * wp[v, i, WP_STEERS]
        tw[v, i, TW_STEER] = approach(ws[v, i, WS_STEER], target, vp[v, VP_STEER_RATE] * h)
        # ABS: release (to zero in 50 ms) while the wheel's slip is below -abs_slip, re-apply in 100 ms
        factor = ws[v, i, WS_ABS]
        if abs_on and brake > 0.0 and tw[v, i, TW_GROUNDED] > 0.0 and tw[v, i, TW_KAPPA] < -vp[v, VP_ABS_SLIP]:
            factor = max(0.0, factor - h / 0.05)
        else:
            factor = min(1.0, factor + h / 0.1)
        ws[v, i, WS_ABS] = factor
        tw[v, i, TW_ABS] = 1.0 if factor < 1.0 and abs_on and brake > 0.0 else 0.0
        t_brake = brake * wp[v, i, WP_TBRAKE] * (factor if abs_on else 1.0)
        tw[v, i, TW_T_BRAKE] = t_brake + hand * wp[v, i, WP_THAND]
        tw[v, i, TW_T_BRAKE_MAX] = tw[v, i, TW_T_BRAKE]


@kernel
def gearbox_stage(v, vp, ctrl, bs, omega_w, h):
    """Shift requests, automatic shifting and the shift timer; returns the signed total ratio g
    (0 in neutral and while a shift has the clutch open) and whether a shift is in progress.

    The automatic judges by the engine speed the wheels imply in the current gear (omega_w, rad/s, is
    the driveline speed), not by the engine's own speed, which flares while the clutch is open."""
    gear = int(bs[v, BS_GEAR])
    n = int(vp[v, VP_NGEARS])
    if bs[v, BS_SHIFT_T] > 0.0:
        bs[v, BS_SHIFT_T] -= h
        if bs[v, BS_SHIFT_T] <= 0.0:
            bs[v, BS_SHIFT_T] = 0.0
            gear = int(bs[v, BS_GEAR_TARGET])
            bs[v, BS_GEAR] = gear
    else:
        target = gear
        req = ctrl[v, CT_GEAR]
        if req != NO_GEAR:
            target = int(min(n, max(-1.0, req)))
        elif ctrl[v, CT_SHIFT] != 0.0:
            target = int(min(n, max(-1, gear + (1 if ctrl[v, CT_SHIFT] > 0.0 else -1))))
        elif vp[v, VP_AUTO] > 0.5 and gear >= 1:
            omega_e = vp[v, VP_RATIO + gear - 1] * vp[v, VP_FINAL] * omega_w
            if omega_e > vp[v, VP_UP_OMEGA] and gear < n:
                target = gear + 1
            elif omega_e < vp[v, VP_DOWN_OMEGA] and gear > 1:
                target = gear - 1
            elif ctrl[v, CT_THROTTLE] > 0.95 and gear > 1:
                # kick-down: one gear lower if the engine would still be below the upshift speed there
                lower = omega_e * vp[v, VP_RATIO + gear - 2] / vp[v, VP_RATIO + gear - 1]
                if lower < 0.85 * vp[v, VP_UP_OMEGA] and omega_e < 0.6 * vp[v, VP_UP_OMEGA]:
                    target = gear - 1
        if target != gear:
            bs[v, BS_GEAR_TARGET] = target
            bs[v, BS_SHIFT_T] = max(vp[v, VP_SHIFT_TIME], 1e-9)
    tb_shifting = bs[v, BS_SHIFT_T] > 0.0
    if tb_shifting or gear == 0:
        return 0.0, tb_shifting
    if gear < 0:
        return -vp[v, VP_REVERSE] * vp[v, VP_FINAL], tb_shifting
    return vp[v, VP_RATIO + gear - 1] * vp[v, VP_FINAL], tb_shifting


@kernel
def engine_stage(v, vp, wp, ctrl, bs, ws, tw, tb, h):
    """Engine, clutch, gearbox, differentials: drive torque per wheel (tw T_DRIVE); advances omegaE."""
    # driveline speed seen through the differentials: s (front mean) + (1 - s) (rear mean)
    split = vp[v, VP_SPLIT]
    omega_w = split * 0.5 * (ws[v, 0, WS_OMEGA] + ws[v, 1, WS_OMEGA]) \
        + (1.0 - split) * 0.5 * (ws[v, 2, WS_OMEGA] + ws[v, 3, WS_OMEGA])
    g, shifting = gearbox_stage(v, vp, ctrl, bs, omega_w, h)
    omega_e = bs[v, BS_OMEGA_E]
    # traction control: cut the throttle while a driven wheel spins past tc_slip
    tc = bs[v, BS_TC]
    spinning = False
    for i in range(NW):
        if wp[v, i, WP_SHARE] > 0.0 and tw[v, i, TW_GROUNDED] > 0.0 and tw[v, i, TW_KAPPA] > vp[v, VP_TC_SLIP]:
            spinning = True
    if ctrl[v, CT_TC] > 0.5 and spinning:
        tc = max(0.0, tc - h / 0.1)
    else:
        tc = min(1.0, tc + h / 0.3)
    bs[v, BS_TC] = tc
    tb[v, TB_TC_ACTIVE] = 1.0 if (ctrl[v, CT_TC] > 0.5 and tc < 1.0) else 0.0
    throttle = min(1.0, max(0.0, ctrl[v, CT_THROTTLE]))
    if ctrl[v, CT_TC] > 0.5:
        throttle *= tc
    # idle controller: more throttle the further the engine drops below idle
    throttle = min(1.0, throttle + max(0.0, vp[v, VP_IDLE_GAIN] * (vp[v, VP_IDLE_OMEGA] - omega_e)))
    rpm = omega_e * RPM
    t_full = torque_curve(vp[v, VP_CURVE_RPM:VP_CURVE_RPM + MAX_CURVE], vp[v, VP_CURVE_NM:VP_CURVE_NM + MAX_CURVE],
                          int(vp[v, VP_NCURVE]), rpm)
    if omega_e >= vp[v, VP_REDLINE_OMEGA] or shifting:
        throttle = 0.0                                               # rev limiter, or a shift: fuel cut
    t_engine = throttle * t_full - (1.0 - throttle) * engine_brake_torque(vp[v, VP_ENGINE_BRAKE], omega_e)
    # clutch: the pedal, the automatic launch (closing between idle and launch speed), open while shifting
    engage = 1.0 - min(1.0, max(0.0, ctrl[v, CT_CLUTCH]))
    launch = (omega_e - vp[v, VP_IDLE_OMEGA]) / max(vp[v, VP_LAUNCH_OMEGA] - vp[v, VP_IDLE_OMEGA], 1e-6)
    engage = min(engage, min(1.0, max(0.0, launch)))
    t_clutch = 0.0
    if g != 0.0 and not shifting:
        # the spec's clutch law with the slip taken at the end of the substep (backward Euler on the
        # engine and the driveline): Kc_eff = Kc / (1 + Kc h (1/Ie + g^2 sum(share_i^2 / Iw_i))); the
        # plain explicit law is unstable in low gears unless Kc h (...) < 2
        compliance = 1.0 / vp[v, VP_IE]
        for i in range(NW):
            compliance += g * g * wp[v, i, WP_SHARE] ** 2 / wp[v, i, WP_IW]
        kc_eff = vp[v, VP_KC] / (1.0 + vp[v, VP_KC] * h * compliance)
        t_clutch = clutch_torque(kc_eff, omega_e - g * omega_w, vp[v, VP_TCAP] * engage)
    omega_next = omega_e + h * (t_engine - t_clutch) / vp[v, VP_IE]   # omegaE += dt (Te - Tclutch - Teb)/Ie
    bs[v, BS_OMEGA_E] = max(0.0, omega_next)
    # differentials: each axle gets its share of g T_clutch (efficiency applied), split by its diff
    shaft = g * t_clutch * vp[v, VP_EFF]
    for axle in range(2):
        l = 2 * axle
        r = l + 1
        half = shaft * wp[v, l, WP_SHARE]
        lock = 0.0
        kind = vp[v, VP_DIFF_F] if axle == 0 else vp[v, VP_DIFF_R]
        if kind == DIFF_LSD and half != 0.0:
            lock = lsd_lock(vp[v, VP_LSD_K], ws[v, l, WS_OMEGA], ws[v, r, WS_OMEGA], vp[v, VP_LSD_T])
        tw[v, l, TW_T_DRIVE] = half - lock                            # left minus, right plus
        tw[v, r, TW_T_DRIVE] = half + lock
        tb[v, TB_LOCK_F + axle] = lock
    tb[v, TB_RPM] = bs[v, BS_OMEGA_E] * RPM
    tb[v, TB_GEAR] = bs[v, BS_GEAR]
    tb[v, TB_T_ENGINE] = t_engine
    tb[v, TB_T_CLUTCH] = t_clutch


@kernel
def drive_stage(v, wp, vp, ctrl, bs, ws, tw, tb, h):
    """Controls -> road-wheel angles, brake torques and drive torques (engine or direct drive)."""
    steering_brakes(v, wp, vp, ctrl, bs, ws, tw, h)
    if vp[v, VP_DIRECT] > 0.5:
        for i in range(NW):
            t_drive, _, _ = direct_drive(ctrl[v, CT_THROTTLE], 0.0, 0.0, 0.0, ws[v, i, WS_OMEGA],
                                         wp[v, i, WP_TDRIVE], wp[v, i, WP_WMAX], 0.0, 0.0, 0.0, 0.0)
            tw[v, i, TW_T_DRIVE] = t_drive
    else:
        engine_stage(v, vp, wp, ctrl, bs, ws, tw, tb, h)


@kernel
def query_stage(v, wp, bs, tw, planes, boxes, hf_meta, hf_z, surf_mu, t, box_mask, hf_mask):
    """Query the ground along each suspension axis and place the wheel: s, a, l, C, Q, x, t, b.
    Only the boxes and heightfields in the masks of `nearby_shapes` are tested."""
    pos = read3(bs, v, BS_PX)
    q = (bs[v, BS_QW], bs[v, BS_QX], bs[v, BS_QY], bs[v, BS_QZ])
    for i in range(NW):
        kind = int(wp[v, i, WP_QUERY])
        r = wp[v, i, WP_R]
        l_min = wp[v, i, WP_LMIN]
        l_max = wp[v, i, WP_LMAX]
        anchor = add(pos, quat_rotate(q, read3w(wp, v, i, WP_AX)))      # A, world
        d = quat_rotate(q, read3w(wp, v, i, WP_DX))                      # unit axis, world, points down
        u = spin_axis(q, wp[v, i, WP_CAMBER], tw[v, i, TW_STEER])        # spin axis after steer and camber
        hit, s, p, n, surf, shape, vg = cast(planes, boxes, hf_meta, hf_z, kind, anchor, d, r, l_max,
                                             A_MIN, t, v, box_mask, hf_mask)
        a = -dot(n, d)                                                   # a = -dot(n, d)
        grounded = hit and a >= A_MIN
        l_raw = l_max
        l = l_max
        r_eff = r
        if grounded:
            r_eff = support_radius(kind, r, n, u)                        # sphere r; disc r sqrt(1-(n.u)^2)
            grounded, l_raw, l = suspension_length(s, a, r_eff, l_min, l_max)   # l_raw = s - rEff/a
        tt = (1.0, 0.0, 0.0)
        bb = (0.0, 1.0, 0.0)
        if grounded:
            grounded, tt, bb = tire_frame(u, n)                          # t = u x n / |u x n|, b = n x t
        c = madd(anchor, d, l)                                           # C = A + l d
        if grounded:
            qc = contact_point(kind, c, n, u, r)                         # Q per shape
        else:
            qc = madd(c, d, r)
            s = 0.0
            a = 0.0
            surf = -1
            shape = -1
            n = scale(d, -1.0)
            vg = (0.0, 0.0, 0.0)
        tw[v, i, TW_S] = s
        tw[v, i, TW_A] = a
        tw[v, i, TW_L] = l
        tw[v, i, TW_LRAW] = l_raw
        tw[v, i, TW_X] = compression(wp[v, i, WP_L0], l) if grounded else 0.0   # x = max(0, l0 - l)
        tw[v, i, TW_R_EFF] = r_eff
        tw[v, i, TW_GROUNDED] = 1.0 if grounded else 0.0
        tw[v, i, TW_SURFACE] = surf
        tw[v, i, TW_SHAPE] = shape
        tw[v, i, TW_MU] = surf_mu[surf] * wp[v, i, WP_GRIP] if grounded else 0.0
        write3w(tw, v, i, TW_QX, qc)
        write3w(tw, v, i, TW_NX, n)
        write3w(tw, v, i, TW_TX, tt)
        write3w(tw, v, i, TW_BX, bb)
        write3w(tw, v, i, TW_CX, c)
        write3w(tw, v, i, TW_UX, u)
        write3w(tw, v, i, TW_VGX, vg)


@kernel
def suspension_stage(v, wp, bs, ws, tw, h):
    """Compression rate and suspension force Fs along -d, Fz = Fs a; the anti-roll bar couples an axle."""
    pos, q, vel, w = body_state(bs, v)
    z_body = quat_rotate(q, (0.0, 0.0, 1.0))
    for i in range(NW):
        steer_rate = (tw[v, i, TW_STEER] - ws[v, i, WS_STEER]) / h
        if tw[v, i, TW_GROUNDED] == 0.0:
            tw[v, i, TW_XDOT] = 0.0
            tw[v, i, TW_FS] = 0.0
            tw[v, i, TW_FZ] = 0.0
            write3w(tw, v, i, TW_FSX, (0.0, 0.0, 0.0))
            continue
        a = tw[v, i, TW_A]
        c = read3w(tw, v, i, TW_CX)
        qc = read3w(tw, v, i, TW_QX)
        n = read3w(tw, v, i, TW_NX)
        u = read3w(tw, v, i, TW_UX)
        vg = read3w(tw, v, i, TW_VGX)
        # vn: wheel centre velocity from body motion (length frozen) minus ground velocity at Q, along n
        vn = dot(n, sub(add(vel, cross(w, sub(c, pos))), vg))
        # nDot from the contact plane's history; reset (zero) when the contact shape changed
        n_dot = (0.0, 0.0, 0.0)
        if ws[v, i, WS_SHAPE] == tw[v, i, TW_SHAPE]:
            n_dot = scale(sub(n, read3w(ws, v, i, WS_NX)), 1.0 / h)
        r_eff_dot = 0.0
        if int(wp[v, i, WP_QUERY]) == QUERY_DISC:
            # uDot from body rotation and steering about the body's z axis
            u_dot = add(cross(w, u), scale(cross(z_body, u), steer_rate))
            hh = dot(n, u)
            r_eff_dot = r_eff_rate(wp[v, i, WP_R], hh, dot(n_dot, u) + dot(n, u_dot))
        x_dot = compression_rate(a, vn, r_eff_dot, n_dot, c, qc)    # xdot = (rEffDot - nDot.(C-Q) - vn)/a
        j = int(wp[v, i, WP_PARTNER])
        f_bar = wp[v, i, WP_ARB] * (tw[v, i, TW_X] - tw[v, j, TW_X])  # anti-roll bar: k_bar (x_i - x_j)
        fs, fz = suspension_force(wp[v, i, WP_K], wp[v, i, WP_C], tw[v, i, TW_X], x_dot, wp[v, i, WP_LMIN],
                                  tw[v, i, TW_LRAW], a, f_bar)
        d = quat_rotate(q, read3w(wp, v, i, WP_DX))
        tw[v, i, TW_XDOT] = x_dot
        tw[v, i, TW_FS] = fs
        tw[v, i, TW_FZ] = fz
        write3w(tw, v, i, TW_FSX, scale(d, -fs))                     # force along -d


@kernel
def tire_stage(v, wp, bs, ws, tw):
    """Contact velocity, slip, raw tire force, combined limit, rolling resistance."""
    pos = read3(bs, v, BS_PX)
    vel = read3(bs, v, BS_VX)
    w = read3(bs, v, BS_WX)
    for i in range(NW):
        omega = ws[v, i, WS_OMEGA]
        tw[v, i, TW_OMEGA] = omega
        if tw[v, i, TW_GROUNDED] == 0.0:
            tw[v, i, TW_VX] = 0.0
            tw[v, i, TW_VY] = 0.0
            tw[v, i, TW_KAPPA] = 0.0
            tw[v, i, TW_ALPHA] = 0.0
            tw[v, i, TW_FX_RAW] = 0.0
            tw[v, i, TW_FY_RAW] = 0.0
            tw[v, i, TW_FX] = 0.0
            tw[v, i, TW_FY] = 0.0
            tw[v, i, TW_GRIP_SCALE] = 1.0
            tw[v, i, TW_RHO] = wp[v, i, WP_R]
            write3w(tw, v, i, TW_FTX, (0.0, 0.0, 0.0))
            write3w(tw, v, i, TW_FRX, (0.0, 0.0, 0.0))
            continue
        qc = read3w(tw, v, i, TW_QX)
        c = read3w(tw, v, i, TW_CX)
        u = read3w(tw, v, i, TW_UX)
        tt = read3w(tw, v, i, TW_TX)
        bb = read3w(tw, v, i, TW_BX)
        # body velocity at Q minus ground velocity at Q, on t and b
        v_rel = sub(add(vel, cross(w, sub(qc, pos))), read3w(tw, v, i, TW_VGX))
        vx = dot(v_rel, tt)
        vy = dot(v_rel, bb)
        rho = rolling_arm(u, qc, c, tt)                               # rho = -dot(u x (Q - C), t)
        kappa, alpha = slip(rho, omega, vx, vy, wp[v, i, WP_VMIN])   # kappa, alpha with vMin
        mu = tw[v, i, TW_MU]
        fz = tw[v, i, TW_FZ]
        fx_raw, fy_raw = raw_force(int(wp[v, i, WP_MODEL]), kappa, alpha, wp[v, i, WP_CK], wp[v, i, WP_CA],
                                   wp[v, i, WP_BX], wp[v, i, WP_CX], wp[v, i, WP_DXF], wp[v, i, WP_EX],
                                   wp[v, i, WP_BY], wp[v, i, WP_CY], wp[v, i, WP_DYF], wp[v, i, WP_EY], mu, fz)
        fx, fy, grip_scale = combined_limit(fx_raw, fy_raw, mu, fz)  # scale = min(1, mu Fz / |Fraw|)
        tw[v, i, TW_VX] = vx
        tw[v, i, TW_VY] = vy
        tw[v, i, TW_RHO] = rho
        tw[v, i, TW_KAPPA] = kappa
        tw[v, i, TW_ALPHA] = alpha
        tw[v, i, TW_FX_RAW] = fx_raw
        tw[v, i, TW_FY_RAW] = fy_raw
        tw[v, i, TW_FX] = fx
        tw[v, i, TW_FY] = fy
        tw[v, i, TW_GRIP_SCALE] = grip_scale
        write3w(tw, v, i, TW_FTX, add(scale(tt, fx), scale(bb, fy)))  # Fx t + Fy b
        write3w(tw, v, i, TW_FRX, rolling_resistance(wp[v, i, WP_ROLL], fz, vx, wp[v, i, WP_VMIN], tt))


@kernel
def wheel_stage(v, wp, vp, bs, ws, tw, h):
    """Spin each wheel with the limited Fx and the brake rule; a locked differential then shares one
    speed between its two wheels (keeping their spin momentum); return the ledger's sum dHw + dHe."""
    for i in range(NW):
        omega_next, t_brake = wheel_spin(ws[v, i, WS_OMEGA], tw[v, i, TW_T_DRIVE], tw[v, i, TW_T_BRAKE],
                                         tw[v, i, TW_RHO], tw[v, i, TW_FX], wp[v, i, WP_IW], h)
        tw[v, i, TW_T_BRAKE] = t_brake
        tw[v, i, TW_OMEGA_NEXT] = omega_next
    if vp[v, VP_DIRECT] < 0.5:
        for axle in range(2):
            l = 2 * axle
            kind = vp[v, VP_DIFF_F] if axle == 0 else vp[v, VP_DIFF_R]
            if kind == DIFF_LOCKED and wp[v, l, WP_SHARE] > 0.0:
                il = wp[v, l, WP_IW]
                ir = wp[v, l + 1, WP_IW]
                common = (il * tw[v, l, TW_OMEGA_NEXT] + ir * tw[v, l + 1, TW_OMEGA_NEXT]) / (il + ir)
                tw[v, l, TW_OMEGA_NEXT] = common
                tw[v, l + 1, TW_OMEGA_NEXT] = common
    d_h = (0.0, 0.0, 0.0)
    for i in range(NW):
        iw = wp[v, i, WP_IW]
        omega_next = tw[v, i, TW_OMEGA_NEXT]
        # Hw = Iw omega u, u in world (steering and body rotation change it)
        h_new = scale(read3w(tw, v, i, TW_UX), iw * omega_next)
        d_h = add(d_h, sub(h_new, read3w(ws, v, i, WS_HX)))
        write3w(ws, v, i, WS_HX, h_new)
        ws[v, i, WS_OMEGA] = omega_next
        ws[v, i, WS_STEER] = tw[v, i, TW_STEER]
        ws[v, i, WS_ANGLE] = (ws[v, i, WS_ANGLE] + omega_next * h) % TWO_PI
        ws[v, i, WS_SHAPE] = tw[v, i, TW_SHAPE]
        write3w(ws, v, i, WS_NX, read3w(tw, v, i, TW_NX))
    # He = Ie omegaE uEngine, the rotor axis in world
    q = (bs[v, BS_QW], bs[v, BS_QX], bs[v, BS_QY], bs[v, BS_QZ])
    he_new = scale(quat_rotate(q, read3(vp, v, VP_UEX)), vp[v, VP_IE] * bs[v, BS_OMEGA_E])
    d_h = add(d_h, sub(he_new, read3(bs, v, BS_HEX)))
    write3(bs, v, BS_HEX, he_new)
    return d_h


@kernel
def collision_stage(v, vp, hull, bs, tb, planes, boxes, hf_meta, hf_z, surf_mu, t, box_mask, hf_mask):
    """Body collision: every hull point inside the ground pushes out; returns (force, torque about com)."""
    pos, q, vel, w = body_state(bs, v)
    force = (0.0, 0.0, 0.0)
    tau = (0.0, 0.0, 0.0)
    contacts = 0
    for k in range(hull.shape[1]):
        r = quat_rotate(q, (hull[v, k, 0], hull[v, k, 1], hull[v, k, 2]))
        p = add(pos, r)
        depth, n, surf, vg = deepest_penetration(planes, boxes, hf_meta, hf_z, p, t, v, box_mask, hf_mask)
        if depth <= 0.0:
            continue
        contacts += 1
        v_rel = sub(add(vel, cross(w, r)), vg)
        f = hull_contact_force(depth, n, surf_mu[surf] * vp[v, VP_HULL_MU], v_rel, vp[v, VP_HULL_K],
                               vp[v, VP_HULL_C], vp[v, VP_HULL_CT])
        force = add(force, f)
        tau = add(tau, cross(r, f))
    write3(tb, v, TB_COLLISION_X, force)
    tb[v, TB_HULL_CONTACTS] = contacts
    return force, tau


@kernel
def sum_wrench(v, vp, bs, tw, tb, gravity, f_hull, tau_hull, skip_tire):
    """Total external force and torque about the centre of mass from the frozen state (N, N m, world);
    the tire and rolling forces of wheel i are left out when skip_tire[i] (the parking solve replaces
    them). Writes the named forces into the body telemetry."""
    pos, q, vel, w = body_state(bs, v)
    mass = vp[v, VP_MASS]
    rho_air = vp[v, VP_RHO]
    f_gravity = (0.0, 0.0, -mass * gravity)
    f_drag = drag_force(rho_air, vp[v, VP_CD], vp[v, VP_AREA], vel)
    z_body = quat_rotate(q, (0.0, 0.0, 1.0))
    vx_air = dot(vel, quat_rotate(q, (1.0, 0.0, 0.0)))
    df_front = downforce(rho_air, vp[v, VP_CLA_F], vx_air, z_body)
    df_rear = downforce(rho_air, vp[v, VP_CLA_R], vx_air, z_body)
    tau = add(cross(quat_rotate(q, (vp[v, VP_XF], 0.0, 0.0)), df_front),
              cross(quat_rotate(q, (vp[v, VP_XR], 0.0, 0.0)), df_rear))
    tau = add(tau, tau_hull)
    f_susp = (0.0, 0.0, 0.0)
    f_tire = (0.0, 0.0, 0.0)
    f_roll = (0.0, 0.0, 0.0)
    for i in range(NW):
        fs = read3w(tw, v, i, TW_FSX)
        ft = (0.0, 0.0, 0.0)
        fr = (0.0, 0.0, 0.0)
        if not skip_tire[i]:
            ft = read3w(tw, v, i, TW_FTX)
            fr = read3w(tw, v, i, TW_FRX)
        f_susp = add(f_susp, fs)
        f_tire = add(f_tire, ft)
        f_roll = add(f_roll, fr)
        # contact forces act at Q: torque (Q - com) x F
        tau = add(tau, cross(sub(read3w(tw, v, i, TW_QX), pos), add(add(fs, ft), fr)))
    f_down = add(df_front, df_rear)
    force = add(add(add(f_gravity, f_drag), add(f_down, f_roll)), add(add(f_susp, f_tire), f_hull))
    write3(tb, v, TB_GRAVITY_X, f_gravity)
    write3(tb, v, TB_DRAG_X, f_drag)
    write3(tb, v, TB_DOWNFORCE_X, f_down)
    write3(tb, v, TB_ROLLING_X, f_roll)
    write3(tb, v, TB_SUSPENSION_X, f_susp)
    write3(tb, v, TB_TIRE_X, f_tire)
    return force, tau


@kernel
def parking_stage(v, vp, wp, bs, ws, tw, tb, gravity, d_h, f_hull, tau_hull, h):
    """Static friction (spec 000, 驻车): braked wheels that are all but still try to lock together.

    Their dynamic tire forces and spin updates are replaced by the impulses of sim/parking.py within
    each wheel's friction disc and brake interval; a wheel whose brake cannot hold it (empty interval)
    is dropped and the rest re-solved from the same frozen state. Returns the ledger's dHw + dHe with
    the held wheels' spin momentum stopped."""
    any_cand = False
    for i in range(NW):
        rho = tw[v, i, TW_RHO]
        limit = EXIT_SPEED if ws[v, i, WS_LOCKED] > 0.0 else ENTER_SPEED
        is_cand = tw[v, i, TW_GROUNDED] > 0.0 and tw[v, i, TW_T_BRAKE_MAX] > 0.0 and \
            abs(tw[v, i, TW_VX]) < limit and abs(tw[v, i, TW_VY]) < limit and abs(rho * tw[v, i, TW_OMEGA]) < limit
        tw[v, i, TW_LOCKED] = 1.0 if is_cand else 0.0        # scratch: candidate flags until the commit
        ws[v, i, WS_LOCKED] = 0.0
        any_cand = any_cand or is_cand
    if not any_cand:
        return d_h
    cand = np.zeros(NW, dtype=np.bool_)                      # allocated only when a wheel is parked
    for i in range(NW):
        cand[i] = tw[v, i, TW_LOCKED] > 0.0
        tw[v, i, TW_LOCKED] = 0.0
    pos, q, vel, w = body_state(bs, v)
    mass = vp[v, VP_MASS]
    inertia = (vp[v, VP_IXX], vp[v, VP_IYY], vp[v, VP_IZZ])
    k_mat = np.zeros((2 * NW, 2 * NW))
    c = np.zeros(2 * NW)
    lo = np.zeros(NW)
    hi = np.zeros(NW)
    budget = np.zeros(NW)
    j = np.zeros(2 * NW)
    speeds = np.zeros(2 * NW)
    for attempt in range(NW + 1):
        # the ledger with the candidates stopped: their committed spin momentum goes to zero instead
        d_h_lock = d_h
        for i in range(NW):
            if cand[i]:
                d_h_lock = sub(d_h_lock, read3w(ws, v, i, WS_HX))
        force, tau = sum_wrench(v, vp, bs, tw, tb, gravity, f_hull, tau_hull, cand)
        tau = madd(tau, d_h_lock, -1.0 / h)
        v_free = madd(vel, force, h / mass)
        w_free = world_inertia_solve(q, inertia, madd(world_inertia_apply(q, inertia, w), tau, h))
        feasible = True
        for i in range(NW):
            if not cand[i]:
                continue
            r = sub(read3w(tw, v, i, TW_QX), pos)
            v_q = sub(add(v_free, cross(w_free, r)), read3w(tw, v, i, TW_VGX))
            e0 = read3w(tw, v, i, TW_TX)
            e1 = read3w(tw, v, i, TW_BX)
            c[2 * i] = dot(v_q, e0)
            c[2 * i + 1] = dot(v_q, e1)
            budget[i] = tw[v, i, TW_MU] * tw[v, i, TW_FZ] * h               # B = mu Fz dt
            l_, u_ = brake_interval(tw[v, i, TW_T_DRIVE], tw[v, i, TW_T_BRAKE_MAX], wp[v, i, WP_IW],
                                    tw[v, i, TW_OMEGA], tw[v, i, TW_RHO], h)
            lo[i] = max(l_, -budget[i])
            hi[i] = min(u_, budget[i])
            if lo[i] > hi[i]:
                cand[i] = False                                           # the brake cannot hold it
                feasible = False
            for a in range(2):
                ea = e0 if a == 0 else e1
                ra = cross(r, ea)
                for k in range(NW):
                    if not cand[k]:
                        continue
                    rk = sub(read3w(tw, v, k, TW_QX), pos)
                    for b in range(2):
                        eb = read3w(tw, v, k, TW_TX) if b == 0 else read3w(tw, v, k, TW_BX)
                        k_mat[2 * i + a, 2 * k + b] = dot(ea, eb) / mass + \
                            dot(ra, world_inertia_solve(q, inertia, cross(rk, eb)))
        if not feasible:
            if not cand.any():
                break
            continue
        for a in range(2 * NW):
            j[a] = 0.0
        solve_impulses(k_mat, c, lo, hi, budget, cand, j)
        contact_speeds(k_mat, c, cand, j, speeds)
        # commit: the impulses become this substep's tire forces and the braked wheels stay stopped.
        # A contact that ends still (under SPEED_TOLERANCE) is locked; one whose budget could not stop
        # it this substep keeps its friction-limited impulse (Coulomb friction of a braked wheel) where
        # the spec would hand it back to the dynamic tire: at these speeds the slip floor vMin makes
        # that tire viscous and the car would creep on a slope forever.
        for i in range(NW):
            if not cand[i]:
                continue
            fx = j[2 * i] / h
            fy = j[2 * i + 1] / h
            tt = read3w(tw, v, i, TW_TX)
            bb = read3w(tw, v, i, TW_BX)
            write3w(tw, v, i, TW_FTX, add(scale(tt, fx), scale(bb, fy)))
            write3w(tw, v, i, TW_FRX, (0.0, 0.0, 0.0))
            tw[v, i, TW_FX] = fx
            tw[v, i, TW_FY] = fy
            tw[v, i, TW_GRIP_SCALE] = 1.0
            # T_brake actual = T_drive + Iw omega / dt - rho j_x / dt
            tw[v, i, TW_T_BRAKE] = tw[v, i, TW_T_DRIVE] + wp[v, i, WP_IW] * tw[v, i, TW_OMEGA] / h \
                - tw[v, i, TW_RHO] * fx
            ws[v, i, WS_OMEGA] = 0.0
            write3w(ws, v, i, WS_HX, (0.0, 0.0, 0.0))
            still = math.sqrt(speeds[2 * i] ** 2 + speeds[2 * i + 1] ** 2) < SPEED_TOLERANCE
            ws[v, i, WS_LOCKED] = 1.0 if still else 0.0
            tw[v, i, TW_LOCKED] = 1.0 if still else 0.0
        return d_h_lock
    return d_h


@kernel
def body_stage(v, vp, bs, ws, tw, tb, gravity, d_h, f_hull, tau_hull, h):
    """Sum the external forces and torques, take the ledger's dH/dt off the torque, integrate."""
    pos, q, vel, w = body_state(bs, v)
    mass = vp[v, VP_MASS]
    inertia = (vp[v, VP_IXX], vp[v, VP_IYY], vp[v, VP_IZZ])
    force, tau = sum_wrench(v, vp, bs, tw, tb, gravity, f_hull, tau_hull, NO_SKIP)
    tau = madd(tau, d_h, -1.0 / h)                                   # ledger: minus (sum dHw + dHe)/dt
    pos, q, vel, w = integrate_body(pos, q, vel, w, force, tau, mass, inertia, h)
    write3(bs, v, BS_PX, pos)
    bs[v, BS_QW] = q[0]
    bs[v, BS_QX] = q[1]
    bs[v, BS_QY] = q[2]
    bs[v, BS_QZ] = q[3]
    write3(bs, v, BS_VX, vel)
    write3(bs, v, BS_WX, w)
    angular_momentum(v, vp, bs, ws, tb)


@kernel
def angular_momentum(v, vp, bs, ws, tb):
    """Body, wheel-spin and engine-rotor angular momentum about the centre of mass, and their sum."""
    q = (bs[v, BS_QW], bs[v, BS_QX], bs[v, BS_QY], bs[v, BS_QZ])
    h_body = world_inertia_apply(q, (vp[v, VP_IXX], vp[v, VP_IYY], vp[v, VP_IZZ]), read3(bs, v, BS_WX))
    h_wheels = (0.0, 0.0, 0.0)
    for i in range(NW):
        h_wheels = add(h_wheels, read3w(ws, v, i, WS_HX))
    h_engine = read3(bs, v, BS_HEX)
    write3(tb, v, TB_HBODY_X, h_body)
    write3(tb, v, TB_HWHEELS_X, h_wheels)
    write3(tb, v, TB_HENGINE_X, h_engine)
    write3(tb, v, TB_HTOTAL_X, add(add(h_body, h_wheels), h_engine))


@kernel
def nearby_shapes(v, wp, hull, bs, boxes, hf_meta, t):
    """Bit masks of the boxes and heightfields that vehicle v's suspension sweeps or body hull could
    touch this substep: one bounding test per shape, shared by the wheel queries and the collision."""
    reach = 0.0
    for i in range(NW):
        reach = max(reach, norm(read3w(wp, v, i, WP_AX)) + wp[v, i, WP_LMAX] + wp[v, i, WP_R] * (1.0 + 1.0 / A_MIN))
    for k in range(hull.shape[1]):
        reach = max(reach, norm((hull[v, k, 0], hull[v, k, 1], hull[v, k, 2])))
    return hull_neighbours(boxes, hf_meta, read3(bs, v, BS_PX), reach, t, v)


# ---------------------------------------------------------------------------------------------------
# The order

@kernel
def substep(v, vp, wp, hull, ctrl, bs, ws, tw, tb, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t, h):
    """One substep of vehicle v from the frozen start state, in the order of spec 000."""
    drive_stage(v, wp, vp, ctrl, bs, ws, tw, tb, h)                        # steering, brakes, engine, gearbox, diffs
    box_mask, hf_mask = nearby_shapes(v, wp, hull, bs, boxes, hf_meta, t)  # shapes within reach (broad phase)
    query_stage(v, wp, bs, tw, planes, boxes, hf_meta, hf_z, surf_mu, t, box_mask, hf_mask)  # query, geometry, x
    suspension_stage(v, wp, bs, ws, tw, h)                                 # xdot, Fs, Fz (+ anti-roll)
    tire_stage(v, wp, bs, ws, tw)                                          # slip, raw force, combined limit
    d_h = wheel_stage(v, wp, vp, bs, ws, tw, h)                            # wheel spin, brake rule, dHw + dHe
    f_hull, tau_hull = collision_stage(v, vp, hull, bs, tb, planes, boxes, hf_meta, hf_z, surf_mu, t,
                                       box_mask, hf_mask)                  # body hull against the ground
    d_h = parking_stage(v, vp, wp, bs, ws, tw, tb, gravity, d_h, f_hull, tau_hull, h)  # static friction
    body_stage(v, vp, bs, ws, tw, tb, gravity, d_h, f_hull, tau_hull, h)   # forces, ledger torque, integrate


@kernel
def step_batch(vp, wp, hull, ctrl, bs, ws, tw, tb, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0, dt,
               substeps):
    """Advance every vehicle by one fixed step dt (s) made of `substeps` equal substeps, from time t0."""
    h = dt / substeps
    for v in range(bs.shape[0]):
        for k in range(substeps):
            substep(v, vp, wp, hull, ctrl, bs, ws, tw, tb, planes, boxes, hf_meta, hf_z, surf_mu, gravity,
                    t0 + k * h, h)


@kernel
def run_batch(vp, wp, hull, ctrl_trace, bs, ws, tw, tb, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0, dt,
              substeps):
    """Advance len(ctrl_trace) steps; ctrl_trace[k] holds the controls (N, CT_N) of step k."""
    for k in range(ctrl_trace.shape[0]):
        step_batch(vp, wp, hull, ctrl_trace[k], bs, ws, tw, tb, planes, boxes, hf_meta, hf_z, surf_mu, gravity,
                   t0 + k * dt, dt, substeps)
