"""The Magic Formula family with four coefficients a direction ("magic": D sin(C atan(B s - E (B s -
atan(B s))))) and FGear's curve without E ("simple"); the curve-shaped raw forces of the linear, magic and
simple families as functions of slip (diagnosis, tests); and the four wheels' curves at once (sim/kernel/lanes.py)."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.lanes import magic_formula_lanes
from sim.kernel.tables import NW
from sim.kernel.tables import W_ALPHA
from sim.kernel.tables import W_KAPPA
from sim.kernel.tables import W_MF_DX
from sim.kernel.tables import W_MF_DY
from sim.kernel.tables import W_MF_EX
from sim.kernel.tables import W_MF_EY
from sim.kernel.tables import W_MF_FX
from sim.kernel.tables import W_MF_FY
from sim.kernel.tables import W_MF_SLOPE
from sim.kernel.tables import W_MF_SLOPE_Y
from sim.kernel.tables import WP_BX
from sim.kernel.tables import WP_BY
from sim.kernel.tables import WP_CX
from sim.kernel.tables import WP_CY
from sim.kernel.tables import WP_DXF
from sim.kernel.tables import WP_DYF
from sim.kernel.tables import WP_EX
from sim.kernel.tables import WP_EY
from sim.kernel.tables import WS_FY_LAG
from sim.kernel.tire import MODEL_MAGIC
from sim.kernel.tire import MODEL_SIMPLE
from sim.kernel.tire.limit import lagged
from sim.kernel.tire.limit import limited_forces
from sim.kernel.tire.linear import linear_lateral
from sim.kernel.tire.linear import linear_longitudinal

MF_EPS = 1e-9              # N: keeps B = K / (C D) finite at zero load (K and D vanish together)


@leaf
def magic_formula(b, c, d, e, s):
    """D sin(C atan(B s - E (B s - atan(B s))))."""
    bs = b * s
    return d * math.sin(c * math.atan(bs - e * (bs - math.atan(bs))))


@leaf
def magic_formula_and_slope(b, c, d, e, s):
    """The Magic Formula and its derivative d/ds, sharing the arc tangents:
    D sin(C atan(phi)) and D cos(C atan(phi)) C / (1 + phi^2) dphi/ds, with phi = B s - E (B s - atan(B s))
    and dphi/ds = B (1 - E + E / (1 + (B s)^2))."""
    bs = b * s
    phi = bs - e * (bs - math.atan(bs))
    angle = c * math.atan(phi)
    return d * math.sin(angle), d * math.cos(angle) * c / (1.0 + phi * phi) * b * (1.0 - e + e / (1.0 + bs * bs))


@leaf
def magic_formula_slope(b, c, d, e, s):
    """d/ds of D sin(C atan(B s - E (B s - atan(B s))))."""
    return magic_formula_and_slope(b, c, d, e, s)[1]


@leaf
def longitudinal_force(model, kappa, ck, bx, cx, dx, ex, mu, fz):
    """(FxRaw (N), dFxRaw/dkappa (N per unit slip)) at kappa: (Ck kappa, Ck) for the linear model, the
    Magic Formula with peak dx mu Fz and its slope (E = 0 for FGear's simple curve)."""
    if model == MODEL_MAGIC:
        return magic_formula_and_slope(bx, cx, dx * mu * fz, ex, kappa)
    if model == MODEL_SIMPLE:
        return magic_formula_and_slope(bx, cx, dx * mu * fz, 0.0, kappa)
    return linear_longitudinal(ck, kappa)


@leaf
def lateral_force(model, alpha, ca, by, cy, dy, ey, mu, fz):
    """FyRaw (N) at slip angle alpha (rad): -Ca alpha, or the Magic Formula with peak dy mu Fz, negated
    (E = 0 for FGear's simple curve)."""
    if model == MODEL_MAGIC:
        return -magic_formula(by, cy, dy * mu * fz, ey, alpha)
    if model == MODEL_SIMPLE:
        return -magic_formula(by, cy, dy * mu * fz, 0.0, alpha)
    return linear_lateral(ca, alpha)


@leaf
def raw_force(model, kappa, alpha, ck, ca, bx, cx, dx, ex, by, cy, dy, ey, mu, fz):
    """(FxRaw, FyRaw) in N. Linear: (Ck kappa, -Ca alpha). Magic: D scaled by mu Fz, lateral negated."""
    return (longitudinal_force(model, kappa, ck, bx, cx, dx, ex, mu, fz)[0],
            lateral_force(model, alpha, ca, by, cy, dy, ey, mu, fz))


@leaf
def curve_inputs(model, lateral_model, wheel_params, v, i, mu, fz):
    """(D, E) of the wheel's longitudinal and lateral Magic Formula curves this substep, D = 0 for a curve
    that is not one (linear, the force-request wheels' longitudinal, mf96 and mf61, which have their own)."""
    dx, ex, dy, ey = 0.0, 0.0, 0.0, 0.0
    if model == MODEL_MAGIC or model == MODEL_SIMPLE:
        dx = wheel_params[v, i, WP_DXF] * mu * fz
        ex = wheel_params[v, i, WP_EX] if model == MODEL_MAGIC else 0.0
    if lateral_model == MODEL_MAGIC or lateral_model == MODEL_SIMPLE:
        dy = wheel_params[v, i, WP_DYF] * mu * fz
        ey = wheel_params[v, i, WP_EY] if lateral_model == MODEL_MAGIC else 0.0
    return dx, ex, dy, ey


@leaf
def curves_of_all_wheels(v, wheel_params, wheel_scratch):
    """The four wheels' longitudinal and lateral Magic Formula curves at once (sim/kernel/lanes.py): the forces
    and the longitudinal slope into W_MF_FX, W_MF_SLOPE and W_MF_FY (the lateral D sin(...), before its
    sign). Each lane is the scalar formula's arithmetic; its B and C are the packed ones, D and E those of
    this substep (W_MF_*), s the wheel's kappa or alpha."""
    sc, wp = wheel_scratch, wheel_params
    b = (wp[v, 0, WP_BX], wp[v, 1, WP_BX], wp[v, 2, WP_BX], wp[v, 3, WP_BX],
         wp[v, 0, WP_BY], wp[v, 1, WP_BY], wp[v, 2, WP_BY], wp[v, 3, WP_BY])
    c = (wp[v, 0, WP_CX], wp[v, 1, WP_CX], wp[v, 2, WP_CX], wp[v, 3, WP_CX],
         wp[v, 0, WP_CY], wp[v, 1, WP_CY], wp[v, 2, WP_CY], wp[v, 3, WP_CY])
    d = (sc[v, 0, W_MF_DX], sc[v, 1, W_MF_DX], sc[v, 2, W_MF_DX], sc[v, 3, W_MF_DX],
         sc[v, 0, W_MF_DY], sc[v, 1, W_MF_DY], sc[v, 2, W_MF_DY], sc[v, 3, W_MF_DY])
    e = (sc[v, 0, W_MF_EX], sc[v, 1, W_MF_EX], sc[v, 2, W_MF_EX], sc[v, 3, W_MF_EX],
         sc[v, 0, W_MF_EY], sc[v, 1, W_MF_EY], sc[v, 2, W_MF_EY], sc[v, 3, W_MF_EY])
    s_ = (sc[v, 0, W_KAPPA], sc[v, 1, W_KAPPA], sc[v, 2, W_KAPPA], sc[v, 3, W_KAPPA],
          sc[v, 0, W_ALPHA], sc[v, 1, W_ALPHA], sc[v, 2, W_ALPHA], sc[v, 3, W_ALPHA])
    force, slope = magic_formula_lanes(b, c, d, e, s_)
    for i in range(NW):
        sc[v, i, W_MF_FX] = force[i]
        sc[v, i, W_MF_SLOPE] = slope[i]
        sc[v, i, W_MF_FY] = force[NW + i]
        sc[v, i, W_MF_SLOPE_Y] = slope[NW + i]

@leaf
def magic_tire(model, v, i, wheel_params, wheel_state, wheel_scratch, kappa, alpha, mu, fz, keep, sg):
    """The family's forces in the tire stage's form (stage.py): the curves the stage worked out for the four
    wheels at once (`curves_of_all_wheels`: W_MF_FX, W_MF_SLOPE, W_MF_FY, W_MF_SLOPE_Y), the lateral lagged by
    the relaxation length, limited together onto mu Fz."""
    fy_raw = lagged(-wheel_scratch[v, i, W_MF_FY], wheel_state[v, i, WS_FY_LAG], keep)   # -D sin(C atan(...))
    return limited_forces(v, i, wheel_params, wheel_scratch, wheel_scratch[v, i, W_MF_FX], fy_raw,
                          wheel_scratch[v, i, W_MF_SLOPE], wheel_scratch[v, i, W_MF_SLOPE_Y], mu, fz, keep)
