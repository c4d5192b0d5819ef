"""Unreal Chaos's wheel ("chaos", docs/models.md): the longitudinal force is a request from the wheel's torque,
(T_drive - T_brake) / rho, scaled back with the lateral force onto the grip; the wheel rolls with the ground
while the grip holds. Its forces in the tire stage (the lateral only) and its wheel update."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.spin import wheel_spin
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_FX_RAW
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_FY_RAW
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_GRIP_SCALE
from sim.kernel.tables import W_MF_FY
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_TX
from sim.kernel.tables import W_VX
from sim.kernel.tables import WP_CA
from sim.kernel.tables import WP_CHAOS_CURVE
from sim.kernel.tables import WP_FRICTION_ON
from sim.kernel.tables import WP_FZ_STATIC
from sim.kernel.tables import WP_LOAD_RATIO
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tire import MODEL_CHAOS
from sim.kernel.tire import MODEL_MAGIC
from sim.kernel.tire.limit import lagged
from sim.kernel.tire.linear import linear_lateral
from sim.kernel.vec import add
from sim.kernel.vec import get3w
from sim.kernel.vec import scale
from sim.kernel.vec import set3w

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
    if s >= 1.0 and abs(vx) > CHAOS_ROLLING_SPEED:                     # grips: rolls with the ground
        omega_next, t_brake = ground_turned(omega, vx / rho, budget * rho, t_drive, t_brake_max, iw, h), brake
    else:
        omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
    write_request_forces(v, i, wheel_scratch, req, fy_raw, fx, fy, s)
    return omega_next, t_brake


@leaf
def ground_turned(omega, rolling, grip_torque, t_drive, t_brake_max, iw, h):
    """A wheel that rolls with the ground (the Chaos and AVS families) toward `rolling` (rad/s), turned by the
    ground at most as fast as its grip and the torques on it can, (grip_torque + |T_drive| + T_brake) h / Iw a
    substep (docs/models.md). Taken at once, a wheel set down still at speed or on a tumbling body took its spin
    from nowhere, and the spin ledger turned the body with it."""
    reach = (grip_torque + abs(t_drive) + t_brake_max) * h / iw
    return omega + max(-reach, min(reach, rolling - omega))


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

@leaf
def lateral_model_of(model, wheel_params, v, i):
    """The model of the wheel's lateral curve: its own, or the Magic Formula's for a chaos tire on the curve."""
    return MODEL_MAGIC if model == MODEL_CHAOS and wheel_params[v, i, WP_CHAOS_CURVE] > 0.5 else model


@leaf
def chaos_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The family's forces in the tire stage's form (stage.py): the lateral only, -Ca alpha or the Magic
    Formula curve (`tire.chaos_lateral`), lagged by the relaxation length; the longitudinal comes from the
    wheel's torque in the wheel stage (`chaos_wheel`), which also applies the combined limit."""
    if lateral_model_of(model, wheel_params, v, i) == MODEL_MAGIC:
        fy_raw = -wheel_scratch[v, i, W_MF_FY]
    else:
        fy_raw = linear_lateral(wheel_params[v, i, WP_CA], alpha)
    fy_raw = lagged(fy_raw, wheel_state[v, i, WS_FY_LAG], keep)
    return 0.0, fy_raw, 0.0, fy_raw, 1.0, 0.0, 0.0, 0.0, 1.0
