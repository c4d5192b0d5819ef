"""Force arrows at each contact, from the telemetry: the suspension force along -d, the longitudinal
force Fx t and the lateral force Fy b. The limited force is drawn solid; the raw force (before the
combined friction limit) as a translucent ghost over it, so the gap is the grip that is missing."""
from __future__ import annotations

import numpy as np

ARROW_COLORS = {"suspension": (0.35, 0.55, 1.0), "longitudinal": (0.30, 0.90, 0.35), "lateral": (1.0, 0.60, 0.15)}


KINDS = ("suspension", "longitudinal", "lateral")
FORCE_FLOOR = 20.0          # N: a smaller force is numerical dust (a coasting wheel's lateral flicker): not drawn
MIN_WIDTH_PX = 4.0          # a solid arrow's shaft is at least this wide on screen (a raw ghost RAW_WIDEN times it)
MIN_LENGTH_PX = 20.0        # and at least this long, head included, so its direction reads from the chase camera;
#                             a force shorter than that on screen is drawn that long but fainter (its share)
HEAD_LENGTH = 3.0           # the head: this many shaft widths long (at most HEAD_SHARE of the arrow)
HEAD_WIDTH = 2.6            # and this many shaft widths wide
HEAD_SHARE = 0.45
RAW_WIDEN = 1.8             # a raw ghost's shaft is this much wider than the solid arrow over it (0.09 / 0.05)


def arrow_matrices(starts: np.ndarray, vecs: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """(n, 4, 4) model matrices that stretch the unit cube from each of `starts` (n, 3) along `vecs` (n, 3),
    `widths` (n,) wide; every vec must be longer than ~0 (see arrow_matrix). One batch: numpy costs about a
    microsecond per call, so twenty arrows one by one cost more than a millisecond a frame."""
    length = np.sqrt((vecs * vecs).sum(axis=1))[:, None]
    x = vecs / length
    helper = np.where(np.abs(x[:, 2:3]) < 0.9, np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
    y = np.cross(helper, x)
    y /= np.sqrt((y * y).sum(axis=1))[:, None]
    z = np.cross(x, y)
    w = np.asarray(widths, float)[:, None]
    m = np.zeros((len(vecs), 4, 4))
    m[:, :3, 0], m[:, :3, 1], m[:, :3, 2] = x * length, y * w, z * w
    m[:, :3, 3] = starts + vecs / 2
    m[:, 3, 3] = 1.0
    return m


def arrow_matrix(start: np.ndarray, vec: np.ndarray, width: float) -> np.ndarray | None:
    """Model matrix that stretches the unit cube from `start` along `vec` (None when vec is ~0)."""
    vec = np.asarray(vec, float)
    if float(np.sqrt(vec @ vec)) < 1e-4:
        return None
    return arrow_matrices(np.asarray(start, float)[None], vec[None], np.array([width]))[0]


def force_arrows(tel, kinds: dict[str, bool], scale_m_per_kn: float, width_scale: float = 1.0):
    """[(model, colour, alpha)] for the enabled kinds, raw ghosts included when kinds['raw']; widths
    (0.05 m solid, 0.09 m ghost) times `width_scale`. In the order wheel, kind, solid before its ghost."""
    k = scale_m_per_kn / 1000.0
    t, b = np.asarray(tel.t, float), np.asarray(tel.b, float)              # (4, 3)
    fx, fx_raw = np.asarray(tel.Fx, float)[:, None], np.asarray(tel.Fx_raw, float)[:, None]
    fy, fy_raw = np.asarray(tel.Fy, float)[:, None], np.asarray(tel.Fy_raw, float)[:, None]
    vecs = np.zeros((4, len(KINDS), 2, 3))                                  # wheel, kind, (limited, raw)
    vecs[:, 0, 0] = np.asarray(tel.F_suspension, float) * k
    vecs[:, 1, 0], vecs[:, 1, 1] = t * fx * k, t * fx_raw * k
    vecs[:, 2, 0], vecs[:, 2, 1] = b * fy * k, b * fy_raw * k
    use = np.zeros((4, len(KINDS), 2), dtype=bool)
    use[:, :, 0] = [bool(kinds.get(kind)) for kind in KINDS]
    use[:, 1:, 1] = use[:, 1:, 0] & bool(kinds.get("raw"))                 # the suspension has no raw force
    use &= (np.asarray(tel.grounded, float) >= 0.5)[:, None, None]
    use &= np.sqrt((vecs * vecs).sum(axis=3)) >= max(FORCE_FLOOR * k, 1e-4)
    if not use.any():
        return []
    wheel, kind, raw = np.nonzero(use)                                      # in C order: wheel, kind, variant
    starts = np.asarray(tel.Q, float)[wheel]
    widths = np.where(raw == 1, 0.09, 0.05) * width_scale
    models = arrow_matrices(starts, vecs[wheel, kind, raw], widths)
    return [(m, ARROW_COLORS[KINDS[j]], 0.3 if r else 1.0) for m, j, r in zip(models, kind, raw)]


def on_screen_scale(scale_m_per_kn: float, distance: float, reference_kn: float,
                    min_share: float = 0.08) -> tuple[float, float]:
    """(m per kN, width factor) so that an arrow of `reference_kn` (a wheel's static load) is at least
    `min_share` of the camera distance long: from afar the arrows keep a readable size on screen."""
    floor = min_share * distance / max(reference_kn, 1e-3)
    if scale_m_per_kn >= floor:
        return scale_m_per_kn, 1.0
    return floor, floor / scale_m_per_kn


def legible(models: np.ndarray, ghost: np.ndarray, eye: np.ndarray,
            px_per_m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(shafts, heads, opacity): (n, 4, 4) model matrices of the unit cube (shaft) and of the unit pyramid
    (head: base at x = 0, tip at x = 1) for the arrows `models` (arrow_matrices: the cube stretched from
    the start along the force), each at least MIN_WIDTH_PX wide and MIN_LENGTH_PX long on screen, where
    `px_per_m` is the pixels a metre spans one metre from the eye; `ghost` (n,) bool marks the raw
    ghosts (RAW_WIDEN times as wide). The arrow keeps its start and its direction; one stretched to the
    minimum length gets the opacity (n,) its true length's share of it, so a small force stays small."""
    models = np.asarray(models, float)
    x = models[:, :3, 0]
    length = np.sqrt((x * x).sum(axis=1))
    direction = x / length[:, None]
    start = models[:, :3, 3] - x / 2
    centre = models[:, :3, 3]
    scale = px_per_m / np.maximum(np.sqrt(((centre - eye) ** 2).sum(axis=1)), 1e-3)     # px per m there
    width = np.sqrt((models[:, :3, 1] ** 2).sum(axis=1))
    min_width = MIN_WIDTH_PX * np.where(ghost, RAW_WIDEN, 1.0) / scale
    wider = np.maximum(1.0, min_width / width)
    width = width * wider
    opacity = np.minimum(1.0, length * scale / MIN_LENGTH_PX)
    length = np.maximum(length, MIN_LENGTH_PX / scale)
    solid_width = width / np.where(ghost, RAW_WIDEN, 1.0)
    head = np.minimum(HEAD_LENGTH * solid_width, HEAD_SHARE * length)
    shafts = models.copy()
    shafts[:, :3, 0] = direction * (length - head)[:, None]
    shafts[:, :3, 1] *= wider[:, None]
    shafts[:, :3, 2] *= wider[:, None]
    shafts[:, :3, 3] = start + direction * ((length - head) / 2)[:, None]
    heads = shafts.copy()
    heads[:, :3, 0] = direction * head[:, None]
    heads[:, :3, 1] *= (HEAD_WIDTH * solid_width / width)[:, None]
    heads[:, :3, 2] *= (HEAD_WIDTH * solid_width / width)[:, None]
    heads[:, :3, 3] = start + direction * (length - head)[:, None]
    return shafts, heads, opacity
