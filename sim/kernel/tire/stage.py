"""The tire stage (docs/physics.md §8): each wheel's contact velocity, its slips, its family's forces, the
relaxation lag and rolling resistance, in passes: each wheel's contact velocity; the four slip angles at
once; each wheel's slip ratio and the peak and shape of its Magic Formula curves; the four wheels' curves at
once (sim/kernel/lanes.py); each wheel's forces.

Every family answers one call with one signature (the files beside this one):

    <family>_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg)
        -> (Fx_raw, Fy_raw, Fx, Fy, grip scale, dFx/dkappa, k_y factor, k_y num, k_y den)

kappa, alpha: the slips; mu: surface x grip (x the load factor for the curve families); fz (N); keep: the
share of the last lateral force the relaxation length keeps this substep; sg: sin of the camber. The lateral
damping the body's implicit update uses is k_y = factor x max(0, num / den), divided for the four wheels at
once at the end."""
from __future__ import annotations

from sim.kernel.aero import rolling_resistance
from sim.kernel.contact import rolling_arm
from sim.kernel.jit import stage
from sim.kernel.lanes import div4
from sim.kernel.linkage import path_velocity
from sim.kernel.tables import NW
from sim.kernel.tables import W_ALPHA
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_CX
from sim.kernel.tables import W_DFX
from sim.kernel.tables import W_FROM_SLIP
from sim.kernel.tables import W_FRX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_FX_RAW
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_FY_RAW
from sim.kernel.tables import W_FZ
from sim.kernel.tables import W_GRIP_SCALE
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_INV_V
from sim.kernel.tables import W_KAPPA
from sim.kernel.tables import W_KY
from sim.kernel.tables import W_KY_DEN
from sim.kernel.tables import W_KY_NUM
from sim.kernel.tables import W_MF_DX
from sim.kernel.tables import W_MF_DY
from sim.kernel.tables import W_MF_EX
from sim.kernel.tables import W_MF_EY
from sim.kernel.tables import W_MU
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_OMEGA
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_RHO
from sim.kernel.tables import W_ROLL_SURF
from sim.kernel.tables import W_TX
from sim.kernel.tables import W_UX
from sim.kernel.tables import W_VGX
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.tables import WP_FRICTION_ON
from sim.kernel.tables import WP_FZ0
from sim.kernel.tables import WP_LOAD_SENS
from sim.kernel.tables import WP_MODEL
from sim.kernel.tables import WP_R
from sim.kernel.tables import WP_RELAX
from sim.kernel.tables import WP_RELAX_VX
from sim.kernel.tables import WP_ROLL
from sim.kernel.tables import WP_ROLLING_ON
from sim.kernel.tables import WP_SLIP_FORM
from sim.kernel.tables import WP_VMIN
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tables import WS_OMEGA
from sim.kernel.tables import WS_SX
from sim.kernel.tables import WS_SY
from sim.kernel.tire import MODEL_AVS
from sim.kernel.tire import MODEL_CHAOS
from sim.kernel.tire import MODEL_MAGIC
from sim.kernel.tire import MODEL_MF61
from sim.kernel.tire import MODEL_MF96
from sim.kernel.tire import MODEL_SIMPLE
from sim.kernel.tire.avs import avs_tire
from sim.kernel.tire.chaos import chaos_tire
from sim.kernel.tire.chaos import lateral_model_of
from sim.kernel.tire.limit import load_factor
from sim.kernel.tire.limit import relax_keep
from sim.kernel.tire.limit import unwound
from sim.kernel.tire.linear import linear_tire
from sim.kernel.tire.magic import curve_inputs
from sim.kernel.tire.magic import curves_of_all_wheels
from sim.kernel.tire.magic import magic_tire
from sim.kernel.tire.mf_combined import mf_tire
from sim.kernel.tire.slip import SLIP_FGEAR
from sim.kernel.tire.slip import fgear_slip_rate
from sim.kernel.tire.slip import slip_angles
from sim.kernel.tire.slip import slip_fgear
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import scale
from sim.kernel.vec import set3w
from sim.kernel.vec import sub


@stage
def tire_stage(v, wheel_params, body, wheel_state, wheel_scratch, h):
    """Contact velocity, slip, raw tire force, combined limit and rolling resistance for each wheel.

    body: the frozen (pos, q, vel, w). Reads the contact columns, W_FZ and W_MU; writes the slip and
    force columns (an airborne wheel gets zero slip and force). With a relaxation length the raw lateral
    force lags its steady value (WS_FY_LAG); h: substep (s). In passes: each wheel's contact velocity; the
    four slip angles at once; each wheel's slip ratio and the peak and shape of its curves; the four wheels'
    Magic Formula curves at once (sim/kernel/lanes.py); each wheel's forces."""
    pos, q, vel, w = body
    for i in range(NW):
        omega = wheel_state[v, i, WS_OMEGA]
        wheel_scratch[v, i, W_OMEGA] = omega
        wheel_scratch[v, i, W_MF_DX] = 0.0
        wheel_scratch[v, i, W_MF_EX] = 0.0
        wheel_scratch[v, i, W_MF_DY] = 0.0
        wheel_scratch[v, i, W_MF_EY] = 0.0
        wheel_scratch[v, i, W_KY] = 0.0                               # the factor of W_KY_NUM / W_KY_DEN
        wheel_scratch[v, i, W_KY_NUM] = 0.0
        wheel_scratch[v, i, W_KY_DEN] = 1.0
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            wheel_scratch[v, i, W_VX] = 0.0
            wheel_scratch[v, i, W_INV_V] = 1.0 / max(0.0, wheel_params[v, i, WP_VMIN])   # (vx = 0)
            wheel_scratch[v, i, W_VY] = 0.0
            wheel_scratch[v, i, W_KAPPA] = 0.0
            wheel_scratch[v, i, W_ALPHA] = 0.0
            wheel_scratch[v, i, W_FX_RAW] = 0.0
            wheel_scratch[v, i, W_FY_RAW] = 0.0
            wheel_scratch[v, i, W_FX] = 0.0
            wheel_scratch[v, i, W_FY] = 0.0
            wheel_scratch[v, i, W_GRIP_SCALE] = 1.0
            wheel_scratch[v, i, W_DFX] = 0.0
            wheel_state[v, i, WS_FY_LAG] = 0.0
            wheel_state[v, i, WS_SX] = 0.0                              # avs: the slips are the contact's
            wheel_state[v, i, WS_SY] = 0.0
            wheel_scratch[v, i, W_RHO] = wheel_params[v, i, WP_R]
            set3w(wheel_scratch, v, i, W_FTX, (0.0, 0.0, 0.0))
            set3w(wheel_scratch, v, i, W_FRX, (0.0, 0.0, 0.0))
            continue
        qc = get3w(wheel_scratch, v, i, W_QX)
        c = get3w(wheel_scratch, v, i, W_CX)
        u = get3w(wheel_scratch, v, i, W_UX)
        tt = get3w(wheel_scratch, v, i, W_TX)
        bb = get3w(wheel_scratch, v, i, W_BX)
        # body velocity at Q minus ground velocity at Q, on t and b
        v_rel = sub(add(vel, cross(w, sub(qc, pos))), get3w(wheel_scratch, v, i, W_VGX))
        v_rel = add(v_rel, path_velocity(v, i, wheel_params, wheel_state, wheel_scratch, q))   # the path (§7.1)
        vx = dot(v_rel, tt)
        vy = dot(v_rel, bb)
        rho = rolling_arm(u, qc, c, tt)                                    # rho = -dot(u x (Q - C), t)
        wheel_scratch[v, i, W_VX] = vx
        wheel_scratch[v, i, W_VY] = vy
        wheel_scratch[v, i, W_RHO] = rho
    alphas = slip_angles(v, wheel_params, wheel_scratch)                 # atan2(vy, max(|vx|, vMin)), four at once
    for i in range(NW):
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            continue
        vx, vy, rho = wheel_scratch[v, i, W_VX], wheel_scratch[v, i, W_VY], wheel_scratch[v, i, W_RHO]
        omega = wheel_scratch[v, i, W_OMEGA]
        inv_v = 1.0 / max(abs(vx), wheel_params[v, i, WP_VMIN])
        wheel_scratch[v, i, W_INV_V] = inv_v
        if wheel_params[v, i, WP_SLIP_FORM] == SLIP_FGEAR:
            kappa, alpha = slip_fgear(rho, omega, vx, vy, wheel_params[v, i, WP_VMIN])
            # the spin stiffness with FGear's own dkappa/domega: rho / (|vx| + vMin), none where the slip is clipped
            # (max(|vx|, vMin) overstated it, and past the clip the force does not answer the spin at all: the
            # implicit wheel update overshot, a light wheel's slip flipped every substep and the tire made energy)
            wheel_scratch[v, i, W_INV_V] = fgear_slip_rate(rho, omega, vx, wheel_params[v, i, WP_VMIN])
        else:
            kappa, alpha = (rho * omega - vx) * inv_v, alphas[i]          # slip_ratio, with vMin
        wheel_scratch[v, i, W_KAPPA] = kappa
        wheel_scratch[v, i, W_ALPHA] = alpha
        model = int(wheel_params[v, i, WP_MODEL])
        if model != MODEL_MF96 and model != MODEL_MF61:   # (those two have their own load dependence)
            fz = wheel_scratch[v, i, W_FZ]
            mu = wheel_scratch[v, i, W_MU] * load_factor(wheel_params[v, i, WP_LOAD_SENS], wheel_params[v, i, WP_FZ0],
                                                         fz)
            wheel_scratch[v, i, W_MU] = mu                                  # surface x grip x load factor
            dx, ex, dy, ey = curve_inputs(model, lateral_model_of(model, wheel_params, v, i), wheel_params, v, i, mu,
                                          fz)
            wheel_scratch[v, i, W_MF_DX] = dx
            wheel_scratch[v, i, W_MF_EX] = ex
            wheel_scratch[v, i, W_MF_DY] = dy
            wheel_scratch[v, i, W_MF_EY] = ey
    curves_of_all_wheels(v, wheel_params, wheel_scratch)                 # D sin(C atan(...)), eight at once
    for i in range(NW):
        if wheel_scratch[v, i, W_GROUNDED] == 0.0:
            continue
        tt = get3w(wheel_scratch, v, i, W_TX)
        bb = get3w(wheel_scratch, v, i, W_BX)
        u = get3w(wheel_scratch, v, i, W_UX)
        vx = wheel_scratch[v, i, W_VX]
        kappa = wheel_scratch[v, i, W_KAPPA]
        alpha = wheel_scratch[v, i, W_ALPHA]
        fz = wheel_scratch[v, i, W_FZ]
        mu = wheel_scratch[v, i, W_MU]
        model = int(wheel_params[v, i, WP_MODEL])
        wheel_scratch[v, i, W_FROM_SLIP] = 0.0 if model == MODEL_CHAOS or model == MODEL_AVS else 1.0
        unwound(v, i, wheel_params, wheel_state, wheel_scratch[v, i, W_VY], fz, h)
        keep = relax_keep(wheel_params[v, i, WP_RELAX], vx, wheel_scratch[v, i, W_VY], wheel_params[v, i, WP_VMIN],
                          h, wheel_params[v, i, WP_RELAX_VX] != 0.0, wheel_state[v, i, WS_FY_LAG])
        sg = -dot(u, get3w(wheel_scratch, v, i, W_NX))                  # sin(camber): + the top leans to b
        if model == MODEL_MF96 or model == MODEL_MF61:
            forces = mf_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg)
        elif model == MODEL_MAGIC or model == MODEL_SIMPLE:
            forces = magic_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep,
                                sg)
        elif model == MODEL_CHAOS:
            forces = chaos_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep,
                                sg)
        elif model == MODEL_AVS:
            forces = avs_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg)
        else:
            forces = linear_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep,
                                 sg)
        fx_raw, fy_raw, fx, fy, grip_scale, dfx, ky, ky_num, ky_den = forces
        wheel_scratch[v, i, W_DFX] = dfx
        wheel_scratch[v, i, W_KY] = ky
        wheel_scratch[v, i, W_KY_NUM] = ky_num
        wheel_scratch[v, i, W_KY_DEN] = ky_den
        wheel_scratch[v, i, W_FX_RAW] = fx_raw
        wheel_scratch[v, i, W_FY_RAW] = fy_raw
        wheel_state[v, i, WS_FY_LAG] = fy_raw
        if wheel_params[v, i, WP_FRICTION_ON] == 0.0:       # kill switch: the raw forces stay on show
            fx, fy = 0.0, 0.0
            wheel_scratch[v, i, W_DFX] = 0.0
            wheel_scratch[v, i, W_KY] = 0.0
            wheel_scratch[v, i, W_KY_NUM] = 0.0
            wheel_scratch[v, i, W_KY_DEN] = 1.0
        wheel_scratch[v, i, W_FX] = fx
        wheel_scratch[v, i, W_FY] = fy
        wheel_scratch[v, i, W_GRIP_SCALE] = grip_scale
        set3w(wheel_scratch, v, i, W_FTX, add(scale(tt, fx), scale(bb, fy)))   # Fx t + Fy b
        c_rr = (wheel_params[v, i, WP_ROLL] + wheel_scratch[v, i, W_ROLL_SURF]) * wheel_params[v, i, WP_ROLLING_ON]
        set3w(wheel_scratch, v, i, W_FRX, rolling_resistance(c_rr, fz, vx, tt))
    # k_y = factor x max(0, num / den), the four wheels' divisions at once (an airborne or excluded wheel: 0 x 0)
    k = div4((wheel_scratch[v, 0, W_KY_NUM], wheel_scratch[v, 1, W_KY_NUM], wheel_scratch[v, 2, W_KY_NUM],
              wheel_scratch[v, 3, W_KY_NUM]),
             (wheel_scratch[v, 0, W_KY_DEN], wheel_scratch[v, 1, W_KY_DEN], wheel_scratch[v, 2, W_KY_DEN],
              wheel_scratch[v, 3, W_KY_DEN]))
    wheel_scratch[v, 0, W_KY] = wheel_scratch[v, 0, W_KY] * max(0.0, k[0])
    wheel_scratch[v, 1, W_KY] = wheel_scratch[v, 1, W_KY] * max(0.0, k[1])
    wheel_scratch[v, 2, W_KY] = wheel_scratch[v, 2, W_KY] * max(0.0, k[2])
    wheel_scratch[v, 3, W_KY] = wheel_scratch[v, 3, W_KY] * max(0.0, k[3])
