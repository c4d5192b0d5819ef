"""Steering (docs/physics.md §2): the driver's steer input -> a road-wheel angle per wheel.

The input sets the path curvature; Ackermann geometry gives the inner and outer angles; the largest
angle shrinks with speed; each angle moves toward its target no faster than the steering rate.
"""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.lanes import atan4
from sim.kernel.lanes import div4
from sim.kernel.tables import BS_VX
from sim.kernel.tables import BS_VY
from sim.kernel.tables import BS_VZ
from sim.kernel.tables import CT_STEER
from sim.kernel.tables import CT_STEER_ANGLE
from sim.kernel.tables import NO_STEER_ANGLE
from sim.kernel.tables import NW
from sim.kernel.tables import TB_WORK_RACK
from sim.kernel.tables import VP_ACKERMANN
from sim.kernel.tables import VP_STEER_LIMIT_V
from sim.kernel.tables import VP_STEER_MAX
from sim.kernel.tables import VP_STEER_RATE
from sim.kernel.tables import VP_STEER_TORQUE
from sim.kernel.tables import VP_TRACK_F
from sim.kernel.tables import VP_WHEELBASE
from sim.kernel.tables import W_STEER
from sim.kernel.tables import WP_CAMBER_COS
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_STEERS
from sim.kernel.tables import WS_OMEGA
from sim.kernel.tables import WS_STEER
from sim.kernel.vec import quat_rotate_inv


@leaf
def approach(value, target, step):
    """value moved toward target by at most step (>= 0)."""
    if value < target:
        return min(target, value + step)
    return max(target, value - step)


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
    steering at the bicycle angle atan(L / R) (0).

    The turn's radius is R = R_min / |s| with R_min = L / tan(top) + W / 2, and `ackermann_angles`'
    arguments L / (R -+ W / 2) are written as L |s| T / (L + T W/2 (1 -+ |s|)) with T = tan(top) (the same
    numbers without R: divisions side by side instead of four in a row, done as one vector division); the
    arc tangents are taken together (sim/kernel/lanes.py div4, atan4)."""
    s = min(1.0, max(-1.0, steer))
    if s == 0.0 or max_angle <= 0.0:
        return 0.0, 0.0
    top = max_angle
    if limit_speed > 0.0:
        top = max_angle / (1.0 + (speed / limit_speed) ** 2)
    t = math.tan(top)
    m = abs(s)
    num = wheelbase * m * t
    half = t * (track / 2.0)
    blend = ackermann != 1.0 or not wheelbase > 0.0
    # the three divisions side by side in one vector instruction (sim/kernel/lanes.py div4, the same bits)
    inner, outer, mean, _ = atan4(div4((num, num, num if blend else 0.0, 0.0),
                                       (wheelbase + half * (1.0 - m), wheelbase + half * (1.0 + m),
                                        wheelbase + half if blend else 1.0, 1.0)))
    if blend:
        # (full Ackermann, the default: with L > 0, inner, outer and mean are all positive, or all nan, and
        # 1 x inner + 0 x mean is inner exactly)
        inner = ackermann * inner + (1.0 - ackermann) * mean
        outer = ackermann * outer + (1.0 - ackermann) * mean
    if s > 0.0:                                               # left turn: the left wheel is inside
        return inner, outer
    return -outer, -inner


@leaf
def mean_angle_pair(mean, wheelbase, track, max_angle, ackermann):
    """Road-wheel angles (left, right) in rad whose mean is `mean` (positive left), Ackermann blended as
    `steer_angles` does, the inner wheel at most max_angle: the turn radius R (about the rear axle's midpoint)
    solved by Newton's method on (ackermann (atan(L / (R - W/2)) + atan(L / (R + W/2))) / 2 + (1 - ackermann)
    atan(L / R)) = |mean|, from the bicycle radius L / tan |mean|."""
    m = abs(mean)
    if m == 0.0 or not wheelbase > 0.0:
        return mean, mean
    half = track / 2.0
    r_min = wheelbase / math.tan(min(max_angle, 1.5)) + half            # the inner wheel at the lock
    r = max(r_min, wheelbase / math.tan(min(m, 1.5)))
    for _ in range(8):
        a, b, c = r - half, r + half, r
        g = ackermann * 0.5 * (math.atan(wheelbase / a) + math.atan(wheelbase / b)) + \
            (1.0 - ackermann) * math.atan(wheelbase / c) - m
        l2 = wheelbase * wheelbase
        dg = -ackermann * 0.5 * (wheelbase / (a * a + l2) + wheelbase / (b * b + l2)) \
            - (1.0 - ackermann) * wheelbase / (c * c + l2)
        r = max(r_min, r - g / dg)
    inner_a, outer_a = ackermann_angles(wheelbase, track, r)
    bicycle = math.atan(wheelbase / r)
    inner = ackermann * inner_a + (1.0 - ackermann) * bicycle
    outer = ackermann * outer_a + (1.0 - ackermann) * bicycle
    if mean > 0.0:                                             # left turn: the left wheel is inside
        return inner, outer
    return -outer, -inner


@leaf
def steering_targets(v, vehicle_params, controls, body_state):
    """The road-wheel angles (left, right) the driver's input asks for this step (rad), and 1.0 when they are
    set at once (a road-wheel angle given, CT_STEER_ANGLE) or 0.0 when the rack moves toward them: the input
    and the speed at the start of the step (the input is the step's; the speed limit on the lock is the
    driver's aid, not a dynamic of the substeps), so they are worked out once a step (`sim.kernel.step`)."""
    angle = controls[v, CT_STEER_ANGLE]
    if abs(angle) < NO_STEER_ANGLE:
        left, right = mean_angle_pair(angle, vehicle_params[v, VP_WHEELBASE], vehicle_params[v, VP_TRACK_F],
                                      vehicle_params[v, VP_STEER_MAX], vehicle_params[v, VP_ACKERMANN])
        return left, right, 1.0
    vx, vy, vz = body_state[v, BS_VX], body_state[v, BS_VY], body_state[v, BS_VZ]
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    left, right = steer_angles(controls[v, CT_STEER], vehicle_params[v, VP_WHEELBASE], vehicle_params[v, VP_TRACK_F],
                               vehicle_params[v, VP_STEER_MAX], vehicle_params[v, VP_ACKERMANN], speed,
                               vehicle_params[v, VP_STEER_LIMIT_V])
    return left, right, 0.0


@leaf
def rack_torque(v, i, wheel_params, wheel_state, w_body, delta):
    """The torque (N m) the rack must give about wheel i's steering axis (body z) at the angle delta (rad)
    while the body turns at w_body (rad/s, body frame): the spin momentum H = Iw omega u turns with the body,
    and its change along the steering axis is H cos(c) (w_x cos(delta) + w_y sin(delta)) (c the static camber's
    turn, WP_CAMBER_COS; the suspension geometry's camber and toe curves left out). Turning the wheel by d delta
    the rack does that times d delta of work on the car."""
    h_spin = wheel_params[v, i, WP_IW] * wheel_state[v, i, WS_OMEGA] * wheel_params[v, i, WP_CAMBER_COS]
    if h_spin == 0.0:
        return 0.0
    return h_spin * (w_body[0] * math.cos(delta) + w_body[1] * math.sin(delta))


@stage
def steering_stage(v, vehicle_params, wheel_params, targets, q, w, wheel_state, wheel_scratch, body_telemetry, h):
    """Each wheel's road-wheel angle for this substep (W_STEER), moved toward this step's target
    (`steering_targets`: left, right) from the last committed angle by at most the steering rate; q, w: the
    body's orientation and angular velocity (world, rad/s); h: substep (s). A rack that would do positive work
    against more than VP_STEER_TORQUE (`rack_torque`: a spinning wheel's gyroscopic torque) stalls and holds
    the angle; the work it does is TB_WORK_RACK, energy from outside the car (docs/physics.md §2: a steering
    forced at any torque would put energy from nowhere into a body whose wheels spin fast)."""
    left, right, at_once = targets
    rate = vehicle_params[v, VP_STEER_RATE]
    limit = vehicle_params[v, VP_STEER_TORQUE]
    w_body = (0.0, 0.0, 0.0)
    turned = False                                            # w_body taken (only once a wheel moves)
    for i in range(NW):
        target = (left if i % 2 == 0 else right) * wheel_params[v, i, WP_STEERS]
        last = wheel_state[v, i, WS_STEER]
        if at_once != 0.0:                                    # a road-wheel angle given: no rate
            angle = target
        else:
            angle = approach(last, target, rate * h)
        if angle != last:
            if not turned:
                w_body = quat_rotate_inv(q, w)
                turned = True
            tau = rack_torque(v, i, wheel_params, wheel_state, w_body, 0.5 * (last + angle))   # over the move
            if tau * (angle - last) > 0.0 and abs(tau) > limit:
                angle = last                                  # the rack stalls
            else:
                body_telemetry[v, TB_WORK_RACK] += tau * (angle - last)
        wheel_scratch[v, i, W_STEER] = angle
