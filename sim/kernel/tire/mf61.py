"""The MF 6.1-style Magic Formula ("mf61", docs/models.md): mf96 plus camber and inflation pressure in the
pure-slip forces (the combined-slip weights are mf96.py's)."""
from __future__ import annotations

import math

from sim.kernel.jit import leaf
from sim.kernel.tire.limit import LOAD_FACTOR_MIN
from sim.kernel.tire.limit import LOAD_RANGE_MAX
from sim.kernel.tire.magic import MF_EPS
from sim.kernel.tire.magic import magic_formula

MF61_SLIDING_ALPHA = math.radians(15.0)   # rad: past this slip angle every road tire slides over its whole contact
#                                           patch (their lateral peaks lie at 3 - 10 deg), and a sliding patch's
#                                           force opposes its sliding (docs/physics.md §16)


@leaf
def mf61_pure(kappa, alpha, p, mu, fz, fz0, sg):
    """The pure-slip forces (Fx0, Fy0) in N of the MF 6.1-style model (docs/models.md): mf96 plus camber
    (sg = sin gamma, + the top leaning to the tire's left) and inflation pressure, our signs. p: the 46
    coefficients MF96_FIELDS + MF61_EXTRA in order."""
    dfz = (min(fz, LOAD_RANGE_MAX * fz0) - fz0) / fz0
    dpi = (p[44] - p[45]) / p[45]
    g2 = sg * sg
    cx = p[0]
    mux = max(LOAD_FACTOR_MIN * p[1], p[1] + p[2] * dfz) * (1.0 + p[26] * dpi + p[27] * dpi * dpi) * \
        max(0.0, 1.0 - p[21] * g2)
    dx = mux * mu * fz
    sign_k = 1.0 if kappa > 0.0 else -1.0 if kappa < 0.0 else 0.0
    ex = min(1.0, (p[3] + p[4] * dfz + p[22] * dfz * dfz) * (1.0 - p[23] * sign_k))
    kx = fz * (p[5] + p[6] * dfz) * math.exp(p[7] * dfz) * (1.0 + p[24] * dpi + p[25] * dpi * dpi)
    fx0 = magic_formula(kx / (cx * dx + MF_EPS), cx, dx, ex, kappa)
    cy = p[8]
    muy = max(LOAD_FACTOR_MIN * p[9], p[9] + p[10] * dfz) * (1.0 + p[39] * dpi + p[40] * dpi * dpi) * \
        max(0.0, 1.0 - p[28] * g2)
    dy = muy * mu * fz
    peak_load = max((p[14] + p[34] * g2) * (1.0 + p[38] * dpi), 1e-6) * fz0
    ky = p[13] * fz0 * (1.0 + p[37] * dpi) * max(0.0, 1.0 - p[32] * abs(sg)) * \
        math.sin(p[33] * math.atan(fz / peak_load))
    k_gamma = fz * (p[35] + p[36] * dfz) * (1.0 + p[41] * dpi)          # camber stiffness (N per rad)
    sv_gamma = fz * (p[42] + p[43] * dfz) * sg * mu                    # camber's vertical shift (N)
    sh = (k_gamma * sg - sv_gamma) / (ky + MF_EPS)                    # ... and horizontal shift (rad)
    alpha_y = alpha - sh                                              # our Fy = -F(alpha): the shift's sign
    sign_a = 1.0 if alpha_y > 0.0 else -1.0 if alpha_y < 0.0 else 0.0
    ey = min(1.0, (p[11] + p[12] * dfz) * (1.0 + p[31] * g2 - (p[29] + p[30] * sg) * sign_a))
    fy0 = -magic_formula(ky / (cy * dy + MF_EPS), cy, dy, ey, alpha_y) + sv_gamma
    if fy0 * alpha > 0.0 and abs(alpha) > MF61_SLIDING_ALPHA:      # a sliding tire's camber thrust is gone: its
        fy0 = 0.0                                                  # force never pushes the way it slides
    return fx0, fy0
