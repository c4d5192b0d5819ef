"""Force arrows at each contact, from the telemetry: the suspension force along -d, the longitudinal
force Fx t and the lateral force Fy b. The limited force is drawn solid; the raw force (before the
combined friction limit) as a translucent ghost over it, so the gap is the grip that is missing."""
from __future__ import annotations

import numpy as np

ARROW_COLORS = {"suspension": (0.35, 0.55, 1.0), "longitudinal": (0.30, 0.90, 0.35), "lateral": (1.0, 0.60, 0.15)}


def arrow_matrix(start: np.ndarray, vec: np.ndarray, width: float) -> np.ndarray | None:
    """Model matrix that stretches the unit cube from `start` along `vec` (None when vec is ~0)."""
    length = float(np.linalg.norm(vec))
    if length < 1e-4:
        return None
    x = vec / length
    helper = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    y = np.cross(helper, x)
    y /= np.linalg.norm(y)
    z = np.cross(x, y)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x * length, y * width, z * width
    m[:3, 3] = start + vec / 2
    return m


def force_arrows(tel, kinds: dict[str, bool], scale_m_per_kn: float, width_scale: float = 1.0):
    """[(model, colour, alpha)] for the enabled kinds, raw ghosts included when kinds['raw']; widths
    (0.05 m solid, 0.09 m ghost) times `width_scale`."""
    out = []
    k = scale_m_per_kn / 1000.0
    for i in range(4):
        if tel.grounded[i] < 0.5:
            continue
        q = np.asarray(tel.Q[i], float)
        t = np.asarray(tel.t[i], float)
        b = np.asarray(tel.b[i], float)
        items = []
        if kinds.get("suspension"):
            items.append(("suspension", np.asarray(tel.F_suspension[i]) * k, None))
        if kinds.get("longitudinal"):
            items.append(("longitudinal", t * tel.Fx[i] * k, t * tel.Fx_raw[i] * k))
        if kinds.get("lateral"):
            items.append(("lateral", b * tel.Fy[i] * k, b * tel.Fy_raw[i] * k))
        for kind, limited, raw in items:
            m = arrow_matrix(q, limited, 0.05 * width_scale)
            if m is not None:
                out.append((m, ARROW_COLORS[kind], 1.0))
            if raw is not None and kinds.get("raw"):
                g = arrow_matrix(q, raw, 0.09 * width_scale)
                if g is not None:
                    out.append((g, ARROW_COLORS[kind], 0.3))
    return out


def on_screen_scale(scale_m_per_kn: float, distance: float, reference_kn: float,
                    min_share: float = 0.08) -> tuple[float, float]:
    """(m per kN, width factor) so that an arrow of `reference_kn` (a wheel's static load) is at least
    `min_share` of the camera distance long: from afar the arrows keep a readable size on screen."""
    floor = min_share * distance / max(reference_kn, 1e-3)
    if scale_m_per_kn >= floor:
        return scale_m_per_kn, 1.0
    return floor, floor / scale_m_per_kn
