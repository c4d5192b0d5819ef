"""Tire smoke: puffs left in the air by a sliding contact patch, at a rate set by the power the sliding
turns into heat, drifting up, spreading and fading.

A wheel smokes while skids.sliding() says it slides (its patch slides over the ground faster than
skids.SLIDE_MIN while locked, spinning or past its grip) and then emits |F . v_slip| / PUFF_ENERGY puffs
a second: F = Fx t + Fy b the tire force, v_slip = (vx - rho omega) t + vy b the patch's sliding velocity
over the ground (docs/physics.md §13), so the product is the friction power (W). The puffs live in a pool
of POOL slots (numpy arrays, the oldest overwritten when it is full); they age in simulated time, so a
paused or slowed drive holds or slows its smoke, and a rewind clears it. Each frame they are drawn as
camera-facing soft discs in one call (render.decals).
"""
from __future__ import annotations

import numpy as np

from render import decals
from render.skids import SLIDING_CHANNELS
from render.skids import sliding

POOL = 192                 # puffs at most (a fixed-size pool: the oldest is reused first)
PUFF_ENERGY = 900.0        # J of sliding work per puff (a locked wheel at 50 km/h, 3.5 kN: about 50 puffs/s)
MAX_RATE = 90.0            # puffs/s per wheel at most
LIFE = (1.0, 1.8)          # s: a puff's life, drawn uniformly
SIZE = (0.2, 0.45)         # m: radius at birth and growth per second
RISE = 0.35                # m/s: the warm smoke's drift upwards
DRAG = 1.5                 # 1/s: the air takes the puff's own velocity away at this rate
CARRY = 0.3                # share of the patch's velocity over the ground a puff starts with
ALPHA = 0.42               # opacity of a fresh puff
ABOVE = 0.9                # a puff's centre stays this many radii above the ground it rose from (no disc cut by it)
NEAR = (2.5, 5.0)          # m from the eye: a puff nearer than the first is not drawn, faded in up to the second
SCREEN_SHARE = 0.15        # the puffs' quads cover at most this share of the view (the smallest on screen kept)
COLOR = (0.86, 0.86, 0.88)
CHANNELS = SLIDING_CHANNELS + ("Fx", "Fy")


def sliding_power(c: dict, i: int) -> float:
    """W: |F . v_slip| of wheel i from the telemetry channels `c` (CHANNELS, as lists)."""
    slip_x = float(c["vx"][i]) - float(c["rho"][i]) * float(c["omega"][i])
    return abs(float(c["Fx"][i]) * slip_x + float(c["Fy"][i]) * float(c["vy"][i]))


def emission_rates(c: dict) -> np.ndarray:
    """(4,) puffs/s per wheel: the sliding power over PUFF_ENERGY (at most MAX_RATE), 0 when it does not
    slide."""
    return np.array([min(MAX_RATE, sliding_power(c, i) / PUFF_ENERGY) if sliding(None, i, c) > 0.0 else 0.0
                     for i in range(4)])


class Smoke:
    def __init__(self, seed: int = 3):
        self.rng = np.random.default_rng(seed)
        self.pos = np.zeros((POOL, 3))
        self.vel = np.zeros((POOL, 3))
        self.age = np.zeros(POOL)
        self.life = np.ones(POOL)
        self.floor = np.zeros(POOL)        # m: height of the ground each puff rose from
        self.alive = np.zeros(POOL, dtype=bool)
        self.head = 0                      # the next slot to fill (the oldest when the pool is full)
        self.owed = np.zeros(4)            # puffs per wheel owed by fractions of earlier frames
        self.time: float | None = None     # the simulated time of the last update

    def clear(self) -> None:
        self.alive[:] = False
        self.owed[:] = 0.0

    @property
    def count(self) -> int:
        return int(self.alive.sum())

    def update(self, t: float, tel) -> None:
        """Advance to simulated time `t` and emit what the car's telemetry `tel` slides out meanwhile."""
        dt = 0.0 if self.time is None else t - self.time
        self.time = t
        if dt < 0.0 or dt > 0.5:           # a rewind or a jump: the smoke belonged to another moment
            self.clear()
            return
        if dt == 0.0:
            return
        if self.alive.any():
            self.age += dt
            self.alive &= self.age < self.life
            self.vel *= np.exp(-DRAG * dt)
            self.pos += self.vel * dt
            self.pos[:, 2] = np.maximum(self.pos[:, 2] + RISE * dt, self.floor + ABOVE * (SIZE[0] + SIZE[1] * self.age))
        c = dict(zip(CHANNELS, tel.wheel_lists(CHANNELS)))
        rates = emission_rates(c)
        if not rates.any():
            self.owed[:] = 0.0
            return
        self.owed += rates * dt
        q = t_dir = b_dir = None
        for i in np.nonzero(self.owed >= 1.0)[0]:
            k = int(self.owed[i])
            self.owed[i] -= k
            if q is None:
                q, t_dir, b_dir = (np.asarray(a, float) for a in (tel.Q, tel.t, tel.b))
            patch = float(c["vx"][i]) * t_dir[i] + float(c["vy"][i]) * b_dir[i]     # m/s over the ground
            # spread along the stretch the patch covered this frame, and a little around it
            back = self.rng.random((k, 1)) * dt
            start = q[i] - patch * back + self.rng.normal(0.0, 0.06, (k, 3))
            start[:, 2] = q[i, 2] + ABOVE * SIZE[0]
            vel = CARRY * patch + self.rng.normal(0.0, 0.35, (k, 3))
            self.spawn(start, vel, self.rng.uniform(*LIFE, k), q[i, 2])

    def spawn(self, pos: np.ndarray, vel: np.ndarray, life: np.ndarray, floor: float) -> None:
        """Puffs into the pool's next slots (the oldest first when it is full); never more than POOL."""
        k = min(len(pos), POOL)
        slots = (self.head + np.arange(k)) % POOL
        self.pos[slots], self.vel[slots], self.life[slots] = pos[-k:], vel[-k:], life[-k:]
        self.floor[slots] = floor
        self.age[slots] = 0.0
        self.alive[slots] = True
        self.head = int((self.head + k) % POOL)

    def rows(self, eye: np.ndarray, right: np.ndarray, up: np.ndarray, px_per_m: float, budget: float) -> np.ndarray:
        """Instance rows (render.decals) of the living puffs, facing the camera at `eye` (`right`, `up`: its
        unit axes; `px_per_m`: pixels a metre spans one metre away). A software renderer pays for every
        pixel a puff covers: puffs nearer the eye than NEAR[0] are left out and faded in up to NEAR[1], and
        of the rest the smallest on screen are kept while their quads cover at most `budget` pixels."""
        if not self.alive.any():
            return np.empty((0, decals.INSTANCE_FLOATS), dtype="f4")
        near = np.sqrt(((self.pos - eye) ** 2).sum(axis=1))
        idx = np.nonzero(self.alive & (near > NEAR[0]))[0]
        if not len(idx):
            return np.empty((0, decals.INSTANCE_FLOATS), dtype="f4")
        age, life = self.age[idx], self.life[idx]
        radius = SIZE[0] + SIZE[1] * age
        area = (2.0 * radius * px_per_m / near[idx]) ** 2                  # px of each quad
        order = np.argsort(area)
        keep = order[np.cumsum(area[order]) <= budget]
        idx, age, life, radius = idx[keep], age[keep], life[keep], radius[keep, None]
        fade = (1.0 - age / life) ** 2 * np.minimum(1.0, age / 0.1 + 0.3) * np.clip(
            (near[idx] - NEAR[0]) / (NEAR[1] - NEAR[0]), 0.0, 1.0)
        rgba = np.empty((len(idx), 4))
        rgba[:, :3] = COLOR
        rgba[:, 3] = ALPHA * fade
        return decals.rows(self.pos[idx], radius * right, radius * up, rgba)
