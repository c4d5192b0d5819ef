"""AVS's ray wheel ("avs", docs/models.md): target slips from the torque and the slip angle, followed over
avs_slip_time, and forces from them. Its forces in the tire stage (the lateral only) and its wheel update."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.spin import wheel_spin
from sim.kernel.tables import W_ALPHA
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_AVS_BLEND
from sim.kernel.tables import WP_AVS_PEAK
from sim.kernel.tables import WP_AVS_TAU
from sim.kernel.tables import WP_CA
from sim.kernel.tables import WP_DXF
from sim.kernel.tables import WP_DYF
from sim.kernel.tables import WP_FRICTION_ON
from sim.kernel.tables import WP_VMIN
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tables import WS_SX
from sim.kernel.tables import WS_SY
from sim.kernel.tire.chaos import chaos_request
from sim.kernel.tire.chaos import ground_turned
from sim.kernel.tire.chaos import write_request_forces
from sim.kernel.tire.limit import lagged
from sim.kernel.tire.linear import linear_lateral

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
    sy = wheel_state[v, i, WS_SY]
    # a lateral slip held from a slide the other way pushes the way the patch now slides (its force -sign(sy)):
    # the carcass unwinds with the slide, so it takes its target (which opposes the slide) at once
    sy = ty if sy * wheel_scratch[v, i, W_VY] < 0.0 else avs_follow(sy, ty, h, tau)
    wheel_state[v, i, WS_SX] = sx
    wheel_state[v, i, WS_SY] = sy
    fx, fy = avs_forces(sx, sy, fz, mu_x, mu_y)
    grip = fz * rho * mu_x
    if grip > 0.0 and abs(req * rho) <= grip:
        v_ref = max(abs(vx), wheel_params[v, i, WP_VMIN])
        rolling = (vx + sx * AVS_KAPPA_FULL * v_ref) / rho                  # rolls, showing its slip
        omega_next, t_brake = ground_turned(omega, rolling, grip, t_drive, t_brake_max, iw, h), brake
    else:
        omega_next, t_brake = wheel_spin(omega, t_drive, t_brake_max, rho, fx, iw, h)
    write_request_forces(v, i, wheel_scratch, req, fy, fx, fy, 1.0)
    return omega_next, t_brake

@leaf
def avs_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The family's forces in the tire stage's form (stage.py): the lateral -Ca alpha lagged by the
    relaxation length, for the wheel stage to start from; the wheel stage's `avs_wheel` makes both forces."""
    fy_raw = lagged(linear_lateral(wheel_params[v, i, WP_CA], alpha), wheel_state[v, i, WS_FY_LAG], keep)
    return 0.0, fy_raw, 0.0, fy_raw, 1.0, 0.0, 0.0, 0.0, 1.0
