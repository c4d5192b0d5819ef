"""Engine, clutch, gearbox and differentials (spec 000: 发动机到车轮; seed 002).

Engine speed omegaE (rad/s) is its own state with inertia Ie. The clutch couples it to the driveline:
    T_clutch = clamp(Kc (omegaE - g omegaW), -Tcap, Tcap)
with g the signed total ratio (gear x final drive; negative in reverse, 0 in neutral) and omegaW the
driveline speed seen through the differentials. The engine then advances
    omegaE += dt (Te - T_clutch - T_engine_brake) / Ie
and the differentials hand g T_clutch x efficiency to the wheels. Engine speed is never forced to a
multiple of the wheel speed: a shift changes g, the clutch slips, and both speeds stay continuous.

The clutch law is evaluated with the slip at the end of the substep (see `engine_stage` in sim/step.py):
the explicit form is only stable while Kc dt (1/Ie + g^2 sum(share^2/Iw)) < 2, which first gear breaks
at the app's step unless Kc is small.
"""
from __future__ import annotations

import math

from sim.jit import leaf

RPM = 60.0 / (2.0 * math.pi)     # rpm per rad/s
DIFF_OPEN, DIFF_LSD, DIFF_LOCKED = 0, 1, 2


@leaf
def torque_curve(rpm_points, nm_points, n, rpm):
    """Full-throttle torque (N m) at `rpm`, linear between the table's points, flat outside it."""
    if rpm <= rpm_points[0]:
        return nm_points[0]
    for i in range(1, n):
        if rpm <= rpm_points[i]:
            f = (rpm - rpm_points[i - 1]) / (rpm_points[i] - rpm_points[i - 1])
            return nm_points[i - 1] + f * (nm_points[i] - nm_points[i - 1])
    return nm_points[n - 1]


@leaf
def engine_brake_torque(coefficient, omega_e):
    """Seed 002: T_eb = coefficient x engine revolutions per second (N m), against the rotation."""
    return coefficient * omega_e / (2.0 * math.pi)


@leaf
def clutch_torque(kc, slip, t_cap):
    """T = clamp(Kc slip, -Tcap, Tcap); slip = omegaE - g omegaW (rad/s)."""
    return min(t_cap, max(-t_cap, kc * slip))


@leaf
def lsd_lock(k_diff, omega_left, omega_right, t_max):
    """T_lock = clamp(Kdiff (omegaL - omegaR), -TdiffMax, TdiffMax): the left wheel gets -T_lock,
    the right +T_lock, so the axle's total torque is unchanged."""
    return min(t_max, max(-t_max, k_diff * (omega_left - omega_right)))


@leaf
def redline_speed(radius, ratio, final_drive, rpm):
    """Road speed (m/s) at engine speed `rpm` in a gear without slip: r omegaW, omegaW = omegaE/(g fd)."""
    return radius * (rpm / RPM) / (ratio * final_drive)


@leaf
def ackermann_angles(wheelbase, track, radius):
    """Inner and outer road-wheel angles (rad) for a turn of radius R (m, > W/2) about the rear axle's
    midpoint: atan(L / (R - W/2)) and atan(L / (R + W/2))."""
    return math.atan(wheelbase / (radius - track / 2.0)), math.atan(wheelbase / (radius + track / 2.0))


@leaf
def steer_angles(steer, wheelbase, track, max_angle, ackermann, speed, limit_speed):
    """Road-wheel angles (left, right) in rad for a steering input in [-1, 1] (positive turns left).

    The input sets the path curvature linearly, up to the curvature at which the inner wheel reaches
    max_angle; above `limit_speed` (m/s; 0 = no limit) that largest angle shrinks as
    max_angle / (1 + (v / limit_speed)^2). `ackermann` blends the Ackermann angles (1) with parallel
    steering at the bicycle angle atan(L / R) (0)."""
    s = min(1.0, max(-1.0, steer))
    if s == 0.0 or max_angle <= 0.0:
        return 0.0, 0.0
    top = max_angle
    if limit_speed > 0.0:
        top = max_angle / (1.0 + (speed / limit_speed) ** 2)
    r_min = wheelbase / math.tan(top) + track / 2.0          # the inner wheel at `top`
    r = r_min / abs(s)
    inner, outer = ackermann_angles(wheelbase, track, r)
    mean = math.atan(wheelbase / r)
    inner = ackermann * inner + (1.0 - ackermann) * mean
    outer = ackermann * outer + (1.0 - ackermann) * mean
    if s > 0.0:                                               # left turn: the left wheel is inside
        return inner, outer
    return -outer, -inner
