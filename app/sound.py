"""Sound: the engine, the tires, thumps and wind, synthesised from the telemetry in small blocks.

The synthesis (`Synth`) is plain numpy and knows nothing of pygame: the tests read its buffers. `Audio`
feeds pygame-ce's mixer: after each frame it tops the channel's queue up with new blocks (a block is
23 ms), made from the state on show, so it never waits on the physics or the sound card. Without an audio
device (or under SDL_AUDIODRIVER=dummy) it stays silent and costs almost nothing.

What is heard:
- engine: the firing frequency rpm / 60 x cylinders / 2 (four strokes) and four harmonics; louder and
  harsher (more upper harmonics, some combustion noise) with load; the rev limiter chops it at 25 Hz;
- tires, per wheel: a squeal that rises as the tire's demand |F_raw| / (mu Fz) nears and passes its limit,
  a scrub (low noise) when a wheel is locked or spinning, nothing while it rolls freely;
- thumps: a short low knock when a bump stop is hit or a wheel's load jumps (a curb);
- wind: noise growing with the square of the speed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

import sim

RATE = 44100          # samples per second
BLOCK = 1024          # samples per block (23 ms)
NOISE_SECONDS = 2.0   # length of the looped, pre-filtered noise beds
SQUEAL_FROM = 0.8     # demand |F_raw| / (mu Fz) where the squeal starts (silent below)
SQUEAL_FULL = 1.1     # ... and where it is at full strength
LIMITER_HZ = 25.0     # the rev limiter's fuel cuts per second
THUMP_SECONDS = 0.18


@dataclass
class WheelSound:
    demand: float = 0.0     # |F_raw| / (mu Fz): the share of the grip the tire asks for (0 without load)
    slide: float = 0.0      # m/s: speed of the contact patch over the ground
    scrub: bool = False     # locked or spinning: the tread slides as a whole


@dataclass
class SoundState:
    rpm: float = 0.0
    load: float = 0.0       # 0..1: engine torque as a share of full throttle's
    cylinders: int = 4
    limiter: bool = False
    speed: float = 0.0      # m/s
    wheels: list[WheelSound] = field(default_factory=lambda: [WheelSound() for _ in range(4)])
    thumps: list[float] = field(default_factory=list)   # strengths 0..1 of knocks that start now


def _band_noise(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    """n samples of noise with its spectrum between lo and hi Hz, unit RMS, looping without a seam."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1.0 / RATE)
    spec[(f < lo) | (f > hi)] = 0.0
    out = np.fft.irfft(spec, n)
    return out / (np.sqrt(np.mean(out * out)) + 1e-12)


def squeal_level(demand: float, slide: float) -> float:
    """0..1: 0 below SQUEAL_FROM of the grip or with the patch hardly sliding; rises as the square to 1 at
    SQUEAL_FULL."""
    if demand <= SQUEAL_FROM or slide < 0.05:
        return 0.0
    x = min(1.0, (demand - SQUEAL_FROM) / (SQUEAL_FULL - SQUEAL_FROM))
    return x * x * min(1.0, slide / 0.5)


class Synth:
    def __init__(self, seed: int = 1):
        rng = np.random.default_rng(seed)
        n = int(NOISE_SECONDS * RATE)
        self.squeal_bed = _band_noise(rng, n, 700.0, 1500.0)
        self.scrub_bed = _band_noise(rng, n, 60.0, 600.0)
        self.wind_bed = _band_noise(rng, n, 30.0, 900.0)
        self.rumble_bed = _band_noise(rng, n, 200.0, 3000.0)
        self.offset = 0
        self.phase = 0.0                  # engine firing phase (cycles)
        self.squeal_phase = np.zeros(4)   # the squeal's tone, per wheel (cycles)
        self.limiter_phase = 0.0
        self.prev = SoundState()
        self.knocks: list[list[float]] = []   # [strength, seconds since it started]

    def _bed(self, bed: np.ndarray, n: int, shift: int = 0) -> np.ndarray:
        idx = (self.offset + shift + np.arange(n)) % len(bed)
        return bed[idx]

    def engine(self, n: int, rpm0: float, rpm1: float, load: float, cylinders: int, limiter: bool) -> np.ndarray:
        """n samples of the engine: the firing frequency glides from rpm0's to rpm1's over the block."""
        if rpm1 <= 1.0 and rpm0 <= 1.0:
            return np.zeros(n)
        f0 = max(rpm0, 0.0) / 60.0 * cylinders / 2.0
        f1 = max(rpm1, 0.0) / 60.0 * cylinders / 2.0
        freq = np.linspace(f0, f1, n, endpoint=False)
        phase = self.phase + np.cumsum(freq) / RATE
        self.phase = float(phase[-1] % 1.0)
        load = min(1.0, max(0.0, load))
        out = np.zeros(n)
        for k, amp in ((1, 1.0), (2, 0.5), (3, 0.18 + 0.35 * load), (4, 0.08 + 0.25 * load), (6, 0.12 * load)):
            out += amp * np.sin(2.0 * math.pi * k * phase)
        out += (0.08 + 0.25 * load) * self._bed(self.rumble_bed, n, 7919) * (0.5 + 0.5 * np.sin(2 * math.pi * phase))
        level = 0.22 + 0.25 * load
        if limiter:
            lp = self.limiter_phase + LIMITER_HZ * np.arange(1, n + 1) / RATE
            self.limiter_phase = float(lp[-1] % 1.0)
            out *= np.where(lp % 1.0 < 0.45, 0.15, 1.0)
        return level * out / 2.3

    def tire(self, n: int, i: int, w: WheelSound) -> np.ndarray:
        """n samples of wheel i's tire: exactly zero while it rolls freely."""
        out = np.zeros(n)
        level = squeal_level(w.demand, w.slide)
        if level > 0.0:
            pitch = 900.0 + 180.0 * i + 250.0 * min(1.0, w.slide / 8.0)
            ph = self.squeal_phase[i] + pitch * np.arange(1, n + 1) / RATE
            self.squeal_phase[i] = ph[-1] % 1.0
            out += level * (0.55 * np.sin(2 * math.pi * ph) + 0.45 * self._bed(self.squeal_bed, n, 3301 * i))
        if w.scrub and w.slide > 0.3:
            out += min(1.0, w.slide / 6.0) * 0.8 * self._bed(self.scrub_bed, n, 5003 * i)
        return 0.18 * out

    def thump(self, n: int, new: list[float]) -> np.ndarray:
        for s in new:
            self.knocks.append([min(1.0, s), 0.0])
        out = np.zeros(n)
        t = np.arange(n) / RATE
        for knock in self.knocks:
            tt = knock[1] + t
            out += knock[0] * np.sin(2 * math.pi * 55.0 * tt) * np.exp(-tt / 0.04) * (tt < THUMP_SECONDS)
            knock[1] += n / RATE
        self.knocks = [k for k in self.knocks if k[1] < THUMP_SECONDS]
        return 0.6 * out

    def wind(self, n: int, speed: float) -> np.ndarray:
        return 0.25 * min(1.0, (speed / 60.0) ** 2) * self._bed(self.wind_bed, n, 1237)

    def block(self, state: SoundState, n: int = BLOCK) -> np.ndarray:
        """The next n samples (float32 in -1..1) for `state`, continuing the last block."""
        prev, self.prev = self.prev, state
        out = self.engine(n, prev.rpm if prev.rpm > 0 else state.rpm, state.rpm, state.load, state.cylinders,
                          state.limiter)
        for i, w in enumerate(state.wheels):
            out = out + self.tire(n, i, w)
        out = out + self.thump(n, state.thumps) + self.wind(n, state.speed)
        self.offset = (self.offset + n) % len(self.wind_bed)
        return np.tanh(out).astype(np.float32)


def sound_state(s, controls=None, previous_loads: np.ndarray | None = None) -> tuple[SoundState, np.ndarray]:
    """What to play for vehicle 0 of Simulation `s` now, and its wheel loads (pass them back next time:
    a jump of a load over its static share is a knock)."""
    car, tel = s.vehicle, s.telemetry
    e = car.engine
    rpm = float(tel.rpm) if car.drive.mode == "engine" else 0.0
    t_full = float(np.interp(rpm, e.torque_rpm, e.torque_nm)) if rpm > 0 else 0.0
    load = float(tel.T_engine) / t_full if t_full > 0 else 0.0
    fz = np.asarray(tel.Fz, dtype=float)
    wheels = []
    for i in range(4):
        budget = float(tel.mu[i]) * fz[i]
        grounded = tel.grounded[i] > 0.5 and budget > 1.0
        demand = math.hypot(float(tel.Fx_raw[i]), float(tel.Fy_raw[i])) / budget if grounded else 0.0
        tread, ground = float(tel.rho[i]) * float(tel.omega[i]), float(tel.vx[i])
        slide = math.hypot(tread - ground, float(tel.vy[i])) if grounded else 0.0
        scrub = grounded and abs(ground) > 1.0 and (abs(tread) < 0.1 * abs(ground) or abs(tread) > 1.5 * abs(ground))
        wheels.append(WheelSound(demand, slide, scrub))
    static = sim.total_mass(car) * sim.GRAVITY / 4.0
    thumps = []
    if previous_loads is not None:
        jump = (fz - previous_loads) / static
        thumps = [float(min(1.0, j / 2.0)) for j in jump if j > 0.6]
    speed = float(np.linalg.norm(s.state.velocity))
    limiter = car.drive.mode == "engine" and rpm >= e.redline_rpm - 30.0 and \
        (controls is None or controls.throttle > 0.2)
    return SoundState(rpm, max(0.0, load), int(e.cylinders), limiter, speed, wheels, thumps), fz.copy()


class Audio:
    """pygame-ce's mixer fed with Synth blocks; `available` is False without an audio device."""

    def __init__(self, volume: float = 0.7, muted: bool = False):
        self.volume = volume
        self.muted = muted
        self.synth = Synth()
        self.loads: np.ndarray | None = None
        self.problem = ""
        self.channel = None
        try:
            import pygame
            if not pygame.mixer.get_init():
                pygame.mixer.pre_init(RATE, -16, 1, 512)
                pygame.mixer.init()
            self.pygame = pygame
            self.channel = pygame.mixer.Channel(0)
        except Exception as exc:                  # no device, no driver: silent, said once
            self.problem = f"no sound: {exc}"

    @property
    def available(self) -> bool:
        return self.channel is not None

    def update(self, s, controls=None, paused: bool = False) -> None:
        """Top the queue up (at most two blocks ahead) from the state on show; silence while paused."""
        if self.channel is None:
            return
        for _ in range(3):
            if self.channel.get_busy() and self.channel.get_queue() is not None:
                return
            state, self.loads = sound_state(s, controls, self.loads)
            if paused or self.muted:
                state = SoundState(cylinders=state.cylinders)
            samples = self.synth.block(state) * (0.0 if self.muted else self.volume)
            sound = self.pygame.mixer.Sound(buffer=(samples * 32000.0).astype(np.int16).tobytes())
            if self.channel.get_busy():
                self.channel.queue(sound)
            else:
                self.channel.play(sound)
