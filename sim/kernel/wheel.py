"""Wheel spin with the brake rule (docs/physics.md §9), and the commit of each wheel's state.

Two updates, chosen per axle (`tire.spin_update`):
    explicit  the seed's step with the tire force of the substep's start; stable only while
              h rho^2 (dFx/dkappa) / (Iw max(|vx|, vMin)) < 2
    implicit  the tire force linearised in the wheel speed, Fx(omega') = Fx + k (omega' - omega) with
              k = dFx/domega = (dFx/dkappa) rho / max(|vx|, vMin) >= 0, and the spin solved with it:
              the wheel meets the tire's own force at the end of the substep, at any substep count.
"""
from __future__ import annotations

import math

from sim.kernel.differential import lock_axles
from sim.kernel.jit import leaf, stage
from sim.kernel.tables import (
    NW,
    VP_DIRECT,
    W_ALPHA,
    W_BX,
    W_DFX,
    W_FTX,
    W_FX,
    W_FX_RAW,
    W_FY,
    W_FY_RAW,
    W_FZ,
    W_GRIP_SCALE,
    W_GROUNDED,
    W_INV_V,
    W_LRAW,
    W_MU,
    W_NX,
    W_OMEGA_NEXT,
    W_RHO,
    W_SHAPE,
    W_STEER,
    W_T_BRAKE,
    W_T_BRAKE_MAX,
    W_T_DRIVE,
    W_TX,
    W_VX,
    W_VY,
    WP_AVS_BLEND,
    WP_AVS_PEAK,
    WP_AVS_TAU,
    WP_DXF,
    WP_DYF,
    WP_FRICTION_ON,
    WP_FZ_STATIC,
    WP_IW,
    WP_LMAX,
    WP_LOAD_RATIO,
    WP_MODEL,
    WP_SPIN,
    WP_VMIN,
    WS_ANGLE,
    WS_LRAW,
    WS_NX,
    WS_OMEGA,
    WS_SHAPE,
    WS_STEER,
    WS_SX,
    WS_SY,
)
from sim.kernel.tire import MODEL_AVS, MODEL_CHAOS
from sim.kernel.vec import add, get3w, scale, set3w

TWO_PI = 2.0 * math.pi
SPIN_IMPLICIT, SPIN_EXPLICIT = 0, 1
SPIN_UPDATES = {"implicit": SPIN_IMPLICIT, "explicit": SPIN_EXPLICIT}


@leaf
def wrap_angle(x):
    """x % TWO_PI, in [0, 2 pi). An angle already inside (0, 2 pi), nearly always the case, is returned as it
    is (the remainder would give exactly x) without the call to fmod; 0, -0, negatives, 2 pi and beyond,
    inf and nan take the remainder itself."""
    if 0.0 < x < TWO_PI:
        return x
    return x % TWO_PI


@leaf
def wheel_spin(omega, t_drive, t_brake, rho, fx, iw, h):
    """One explicit step of h seconds of the wheel's spin.

    omega* = omega + h (T_drive - rho Fx) / Iw, with the *limited* Fx (N) of this step;
    omegaNext = sign(omega*) max(0, |omega*| - h Tb / Iw): the brake (Tb >= 0, N m) acts against the
    predicted spin, stops exactly at zero and never reverses it.
    Returns (omegaNext, T_brake_actual): the brake torque actually applied, back-computed from
    (omega* - omegaNext) Iw / h (N m, signed along the spin axis; smaller than Tb when it stopped)."""
    inv = 1.0 / iw                      # one division, not three (a division costs as much as ten products)
    omega_star = omega + h * (t_drive - rho * fx) * inv
    mag = max(0.0, abs(omega_star) - h * t_brake * inv)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * iw * (1.0 / h)


@leaf
def wheel_spin_implicit(omega, t_drive, t_brake, rho, fx, k, iw, h):
    """One step of h seconds with the tire force linearised in the spin: Fx(omega') = fx + k (omega' - omega),
    k = dFx/domega (N s/rad, >= 0). Backward Euler on Iw omega' = Iw omega + h (T_drive - rho Fx(omega')) with
    the brake rule is the explicit step with the effective inertia Ie = Iw + h rho k:

        omega* = omega + h (T_drive - rho fx) / Ie,   omegaNext = sign(omega*) max(0, |omega*| - h Tb / Ie)

    Returns (omegaNext, T_brake_actual, Fx at omegaNext); with that Fx the wheel's own balance
    Iw (omegaNext - omega) / h = T_drive - rho Fx - T_brake_actual holds exactly."""
    i_eff = iw + h * rho * k
    inv = 1.0 / i_eff                   # (as wheel_spin: with k = 0 the very same operations)
    omega_star = omega + h * (t_drive - rho * fx) * inv
    mag = max(0.0, abs(omega_star) - h * t_brake * inv)
    omega_next = -mag if (omega_star < 0.0 and mag > 0.0) else mag
    return omega_next, (omega_star - omega_next) * i_eff * (1.0 / h), fx + k * (omega_next - omega)


@leaf
def tire_spin_stiffness(v, i, wheel_params, wheel_scratch):
    """k = dFx/domega = dFx/dkappa dkappa/domega (N s/rad, >= 0), kappa = (rho omega - vx) / max(|vx|, vMin)
    (the tire stage keeps 1 / max(|vx|, vMin) in W_INV_V)."""
    return max(0.0, wheel_scratch[v, i, W_DFX]) * wheel_scratch[v, i, W_RHO] * wheel_scratch[v, i, W_INV_V]


@leaf
def wheel_inertia_with_tire(v, i, wheel_params, wheel_scratch, h):
    """The inertia (kg m^2) the wheel update gives wheel i against a torque: Iw + h rho k with the implicit
    update (the tire's force grows with the spin it gains), Iw with the explicit one."""
    iw = wheel_params[v, i, WP_IW]
    if int(wheel_params[v, i, WP_SPIN]) == SPIN_IMPLICIT:
        return iw + h * wheel_scratch[v, i, W_RHO] * tire_spin_stiffness(v, i, wheel_params, wheel_scratch)
    return iw


CHAOS_ROLLING_SPEED = 0.05   # m/s: below this the chaos wheel's brake opposes the drive, not the motion


@leaf
def chaos_request(t_drive, t_brake_max, rho, vx):
    """The chaos-style tire's longitudinal force request (N): (T_drive - T_brake) / rho, the brake against the
    motion (against the drive torque when all but still, nothing more than it: the parking stage holds a
    still car). Returns (request, the brake torque it counts, signed like wheel_spin's)."""
    if abs(vx) > CHAOS_ROLLING_SPEED:
        brake = t_brake_max if vx > 0.0 else -t_brake_max
    else:
        brake = min(t_brake_max, abs(t_drive)) * (1.0 if t_drive > 0.0 else -1.0 if t_drive < 0.0 else 0.0)
    return (t_drive - brake) / rho, brake


@leaf
def chaos_wheel(v, i, wheel_params, wheel_scratch, omega, t_drive, t_brake_max, rho, iw, h):
    """Chaos-style wheel (docs/models.md): the request (T_drive - T_brake) / rho and the lateral -ca alpha
    are scaled back together onto mu Fz_tire (Fz_tire blends the load with the static load by load_ratio).
    Within the budget the wheel rolls with the ground (omega = vx / rho at the end of the substep); cut
    back, it slides, and its spin takes the torque the ground does not (the brake rule as ever). Writes the
    forces; returns (omega_next, T_brake applied)."""
    vx = wheel_scratch[v, i, W_VX]
    req, brake = chaos_request(t_drive, t_brake_max, rho, vx)
    fy_raw = wheel_scratch[v, i, W_FY_RAW]
    r = wheel_params[v, i, WP_LOAD_RATIO]
    fz_tire = r * wheel_scratch[v, i, W_FZ] + (1.0 - r) * wheel_params[v, i, WP_FZ_STATIC]
    budget = wheel_scratch[v, i, W_MU] * fz_tire * wheel_params[v, i, WP_FRICTION_ON]
    mag = math.sqrt(req * req + fy_raw * fy_raw)
    s = min(1.0, budget / mag) if mag > 0.0 else 1.0
    fx, fy = s * req, s * fy_raw
    if s >= 1.0 and abs(vx) > CHAOS_ROLLING_SPEED:
        omega_next, t_brake = vx / rho, brake                           # grips: rolls with the ground
    else:
        omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
    write_request_forces(v, i, wheel_scratch, req, fy_raw, fx, fy, s)
    return omega_next, t_brake


@leaf
def write_request_forces(v, i, wheel_scratch, req, fy_raw, fx, fy, share):
    """A force-request wheel's raw and applied forces into the scratch (and the tire force's vector)."""
    wheel_scratch[v, i, W_FX_RAW] = req
    wheel_scratch[v, i, W_FY_RAW] = fy_raw
    wheel_scratch[v, i, W_FX] = fx
    wheel_scratch[v, i, W_FY] = fy
    wheel_scratch[v, i, W_GRIP_SCALE] = share
    set3w(wheel_scratch, v, i, W_FTX, add(scale(get3w(wheel_scratch, v, i, W_TX), fx),
                                          scale(get3w(wheel_scratch, v, i, W_BX), fy)))


AVS_SIGN_RAMP = 0.05       # m/s: the low-speed lateral target reaches +-1 over this much sideways speed
AVS_KAPPA_FULL = 0.1       # -: the slip ratio the avs wheel shows at a full longitudinal slip (drawing)


@leaf
def avs_follow(s, target, h, tau):
    """One substep of a slip following its target: s + (target - s) min(1, h / tau)."""
    return s + (target - s) * min(1.0, h / tau)


@leaf
def avs_targets(t_net, fz, rho, mu_x, alpha, vx, vy, peak, blend_speed):
    """The AVS-style wheel's target slips: longitudinal T / (Fz rho mu_x) in [-1, 1]; lateral the slip angle
    over its peak in [-1, 1], blended at low speed (weight 1 - |vx| / blend_speed) into the sign of the
    sideways speed (ramped over AVS_SIGN_RAMP so a car at rest does not chatter)."""
    grip = fz * rho * mu_x
    sx = min(1.0, max(-1.0, t_net / grip)) if grip > 0.0 else 0.0
    w = min(1.0, max(0.0, 1.0 - abs(vx) / blend_speed))
    low = min(1.0, max(-1.0, vy / AVS_SIGN_RAMP))
    high = min(1.0, max(-1.0, alpha / peak))
    return sx, w * low + (1.0 - w) * high


@leaf
def avs_forces(sx, sy, fz, mu_x, mu_y):
    """(Fx, Fy) from the slips: the slip vector normalised when longer than 1, the lateral part shaped by a
    square root (more force at small slips), then Fz mu_x sx and -Fz mu_y sign(sy) sqrt(|sy|)."""
    n = math.sqrt(sx * sx + sy * sy)
    if n > 1.0:
        sx, sy = sx / n, sy / n
    shaped = math.sqrt(abs(sy)) * (1.0 if sy > 0.0 else -1.0 if sy < 0.0 else 0.0)
    return fz * mu_x * sx, -fz * mu_y * shaped


@leaf
def avs_wheel(v, i, wheel_params, wheel_state, wheel_scratch, omega, t_drive, t_brake_max, rho, iw, h):
    """AVS-style wheel (docs/models.md): target slips from the torque and the slip angle, followed over
    avs_slip_time (state WS_SX, WS_SY), forces from them. The wheel rolls with the ground plus the slip it
    shows; a torque past what the grip can take spins it (the brake rule as ever). Returns (omega_next,
    T_brake applied)."""
    vx = wheel_scratch[v, i, W_VX]
    req, brake = chaos_request(t_drive, t_brake_max, rho, vx)
    fz = wheel_scratch[v, i, W_FZ]
    mu = wheel_scratch[v, i, W_MU] * wheel_params[v, i, WP_FRICTION_ON]
    mu_x, mu_y = mu * wheel_params[v, i, WP_DXF], mu * wheel_params[v, i, WP_DYF]
    tx, ty = avs_targets(req * rho, fz, rho, mu_x, wheel_scratch[v, i, W_ALPHA], vx, wheel_scratch[v, i, W_VY],
                         wheel_params[v, i, WP_AVS_PEAK], wheel_params[v, i, WP_AVS_BLEND])
    tau = wheel_params[v, i, WP_AVS_TAU]
    sx = avs_follow(wheel_state[v, i, WS_SX], tx, h, tau)
    sy = avs_follow(wheel_state[v, i, WS_SY], ty, h, tau)
    wheel_state[v, i, WS_SX] = sx
    wheel_state[v, i, WS_SY] = sy
    fx, fy = avs_forces(sx, sy, fz, mu_x, mu_y)
    grip = fz * rho * mu_x
    if grip > 0.0 and abs(req * rho) <= grip:
        v_ref = max(abs(vx), wheel_params[v, i, WP_VMIN])
        omega_next, t_brake = (vx + sx * AVS_KAPPA_FULL * v_ref) / rho, brake   # rolls, showing its slip
    else:
        omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
    write_request_forces(v, i, wheel_scratch, req, fy, fx, fy, 1.0)
    return omega_next, t_brake


@stage
def wheel_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, h):
    """Spin each wheel with its limited Fx, drive torque and the brake rule (W_OMEGA_NEXT, and the brake
    torque actually applied, W_T_BRAKE); with the implicit update the tire force becomes the one at the
    new speed (W_FX, W_FTX). A locked differential then shares one speed between its two wheels. Commits
    the wheel state: spin, spin angle, steering angle and the contact it touched (for nDot). h: substep (s)."""
    for i in range(NW):
        omega = wheel_state[v, i, WS_OMEGA]
        t_drive = wheel_scratch[v, i, W_T_DRIVE]
        t_brake_max = wheel_scratch[v, i, W_T_BRAKE_MAX]
        rho = wheel_scratch[v, i, W_RHO]
        fx = wheel_scratch[v, i, W_FX]
        iw = wheel_params[v, i, WP_IW]
        model = int(wheel_params[v, i, WP_MODEL])
        if model == MODEL_CHAOS and wheel_scratch[v, i, W_GROUNDED] > 0.0:
            omega_next, t_brake = chaos_wheel(v, i, wheel_params, wheel_scratch, omega, t_drive, t_brake_max, rho,
                                              iw, h)
        elif model == MODEL_AVS and wheel_scratch[v, i, W_GROUNDED] > 0.0:
            omega_next, t_brake = avs_wheel(v, i, wheel_params, wheel_state, wheel_scratch, omega, t_drive,
                                            t_brake_max, rho, iw, h)
        elif int(wheel_params[v, i, WP_SPIN]) == SPIN_IMPLICIT:
            k = tire_spin_stiffness(v, i, wheel_params, wheel_scratch)
            omega_next, t_brake, fx_end = wheel_spin_implicit(omega, t_drive, t_brake_max, rho, fx, k, iw, h)
            # the linearisation may not leave the friction budget: a force cut back to it is saturated
            # (no slope), and the explicit step with it is exact
            budget = wheel_scratch[v, i, W_MU] * wheel_scratch[v, i, W_FZ]
            fy = wheel_scratch[v, i, W_FY]
            fx_max = math.sqrt(max(0.0, budget * budget - fy * fy))
            if abs(fx_end) > fx_max:
                fx_end = fx_max if fx_end > 0.0 else -fx_max
                omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx_end, iw, h)
            wheel_scratch[v, i, W_FX] = fx_end
            set3w(wheel_scratch, v, i, W_FTX, add(scale(get3w(wheel_scratch, v, i, W_TX), fx_end),
                                                  scale(get3w(wheel_scratch, v, i, W_BX), fy)))
        else:
            omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
        wheel_scratch[v, i, W_T_BRAKE] = t_brake
        wheel_scratch[v, i, W_OMEGA_NEXT] = omega_next
    if vehicle_params[v, VP_DIRECT] < 0.5:
        lock_axles(v, vehicle_params, wheel_params, wheel_scratch)
    for i in range(NW):
        omega_next = wheel_scratch[v, i, W_OMEGA_NEXT]
        wheel_state[v, i, WS_OMEGA] = omega_next
        wheel_state[v, i, WS_STEER] = wheel_scratch[v, i, W_STEER]
        wheel_state[v, i, WS_ANGLE] = wrap_angle(wheel_state[v, i, WS_ANGLE] + omega_next * h)   # mod 2 pi
        wheel_state[v, i, WS_SHAPE] = wheel_scratch[v, i, W_SHAPE]
        wheel_state[v, i, WS_LRAW] = wheel_scratch[v, i, W_LRAW] if wheel_scratch[v, i, W_GROUNDED] > 0.0 \
            else wheel_params[v, i, WP_LMAX]
        set3w(wheel_state, v, i, WS_NX, get3w(wheel_scratch, v, i, W_NX))
