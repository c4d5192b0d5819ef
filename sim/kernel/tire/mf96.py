"""The 1996-style Magic Formula ("mf96", docs/models.md): pure slip with load dependence and the family's
combined-slip weights (no friction-circle cut). mf61.py extends its pure slip with camber and pressure;
mf_combined.py puts the two together into forces and slopes for the tire stage."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.tire.limit import LOAD_FACTOR_MIN
from sim.kernel.tire.limit import LOAD_RANGE_MAX
from sim.kernel.tire.magic import MF_EPS
from sim.kernel.tire.magic import magic_formula


@leaf
def mf96_coefficients(p, mu, fz, fz0):
    """The 1996-style Magic Formula's (Bx, Cx, Dx, Ex, By, Cy, Dy, Ey) at load fz (docs/models.md). p: the
    MF96_FIELDS values in order; mu scales the peaks only (a tire file's LMUX, LMUY); dfz = (Fz - Fz0) / Fz0
    is not extrapolated past LOAD_RANGE_MAX Fz0 (FZMAX). B = K / (C D): the slip stiffnesses
    Kx = Fz (pkx1 + pkx2 dfz) exp(pkx3 dfz) and Ky = pky1 Fz0 sin(2 atan(Fz / (pky2 Fz0)))."""
    dfz = (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0
    cx = p[0]
    dx = max(LOAD_FACTOR_MIN * p[1], p[1] + p[2] * dfz) * mu * fz
    ex = min(1.0, p[3] + p[4] * dfz)
    kx = fz * (p[5] + p[6] * dfz) * math.exp(p[7] * dfz)
    cy = p[8]
    dy = max(LOAD_FACTOR_MIN * p[9], p[9] + p[10] * dfz) * mu * fz
    ey = min(1.0, p[11] + p[12] * dfz)
    ky = p[13] * fz0 * math.sin(2.0 * math.atan(fz / (p[14] * fz0)))
    return kx / (cx * dx + MF_EPS), cx, dx, ex, ky / (cy * dy + MF_EPS), cy, dy, ey


@leaf
def mf96_pure(kappa, alpha, p, mu, fz, fz0):
    """The pure-slip forces (Fx0, Fy0) in N of the 1996-style Magic Formula, our signs (Fy0 < 0 for
    alpha > 0)."""
    bx, cx, dx, ex, by, cy, dy, ey = mf96_coefficients(p, mu, fz, fz0)
    return magic_formula(bx, cx, dx, ex, kappa), -magic_formula(by, cy, dy, ey, alpha)


@leaf
def mf96_weights(kappa, alpha, p):
    """The combined-slip weights (G_x_alpha, G_y_kappa) of the 1996-style Magic Formula (no shifts):
    G_x_alpha = cos(rcx1 atan(B alpha)), B = rbx1 cos(atan(rbx2 kappa)), and
    G_y_kappa = cos(rcy1 atan(B kappa)), B = rby1 cos(atan(rby2 alpha)); 1 at pure slip. Each is held at 0 or
    more, as Pacejka's MF 6.1 writes it (Tire and Vehicle Dynamics, 3rd ed., eq. 4.E56 and 4.E64: G > 0): a
    shape rcx1 or rcy1 above 1 (the TNO sets' 1.02-1.12) takes the cosine past 90 deg near 90 deg of the other
    slip, where the weight would turn the force the way the tire slides."""
    bxa = p[15] * math.cos(math.atan(p[16] * kappa))
    byk = p[18] * math.cos(math.atan(p[19] * alpha))
    return (max(0.0, math.cos(p[17] * math.atan(bxa * alpha))),
            max(0.0, math.cos(p[20] * math.atan(byk * kappa))))


