"""A driver model that laps a circuit at the car's limit (issue 31 item 4; docs/driver.md): the
minimum-curvature racing line and the limit speed along it (sim/lab/racing_line.py), tracked in closed
loop, and a grip scale per stretch of the line that it learns lap by lap.

Steering (a road-wheel angle, Controls(steer_angle=...)): the line's curvature `ff_time` ahead turned into an
angle by the single-track model's steady state, delta = (L + K v^2) kappa (K the understeer coefficient,
sim/model/handling.py), plus the Stanley controller's terms (Hoffmann, Thrun et al. 2007): the line's heading
less the direction of travel and atan(k_lat e / v) of the lateral error e, less the body slip angle (the
wheels are aimed from the direction of travel: a car that yaws out is counter-steered), less an integral of
the lateral error that takes up the understeer the linear model does not know of near the limit.
Gears: the one with the most wheel torque at the present speed below the shift-up speed.

Pedals: the target is the limit speed `preview` seconds ahead. The brake gets the deceleration the profile
asks for as a share of the brakes' torque (feedforward) plus a proportional term past `band` m/s too fast;
the throttle a PI on the speed error, fed in as the cornering eases: at most `feed` + sqrt(1 - (a_y /
a_y,max)^2) (a_y = v x yaw rate). ABS, traction and stability control on (`esp`).

Learning (a valid lap slower than the car's best goes back to that lap's scales, every step halved): the line
is cut into BIN metre stretches, and the runs of stretches curving more than CORNER
are its bends, each with a scale on the whole g-g ellipse (1 at first; the straights keep 1). In every lap
the driver keeps each stretch's largest slide to the outside of the bend (its lateral error off the line)
and whether all four wheels left the road. After the lap, a bend where it slid wider than `slide` metres
(or left the road in it or AFTER metres after it) loses `down` of its scale, any other bend gains `up`; a
bend whose scale turns back halves its steps from then on (a bisection of its limit). The limit speed is
then made again. Every quantity is an array over the cars, so one call drives a batch and each car learns
its own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.controls import NO_GEAR
from sim.controls import Controls
from sim.lab.driver import Observation
from sim.lab.racing_line import Envelope
from sim.lab.racing_line import limit_speed
from sim.model.handling import understeer_coefficient
from sim.model.params import Vehicle
from sim.model.track import Track
from sim.simulation import Simulation

BIN = 10.0             # m of racing line per learnt grip scale
AFTER = 30.0           # m after a bend in which leaving the road counts against the bend
CORNER = 1.0 / 400.0   # 1/m: a stretch with a curvature above this is a bend (its scale may rise)


def corners(bend: np.ndarray) -> np.ndarray:
    """Each stretch's bend: contiguous runs of True in `bend` (bins round a closed lap) numbered 0, 1, ...
    from the first that starts after a False; -1 on the others."""
    out = np.full(len(bend), -1)
    if not bend.any():
        return out
    if bend.all():
        return np.zeros(len(bend), dtype=int)
    first = int(np.flatnonzero(~bend)[0])
    label = -1
    for k in range(len(bend)):
        i = (first + k) % len(bend)
        if bend[i] and not bend[i - 1]:
            label += 1
        if bend[i]:
            out[i] = label
    return out


@dataclass
class LapDriver:
    """Drives each car of a Simulation round `line` (a racing line, sim/lab/racing_line.py)."""
    line: Track
    cars: list[Vehicle]
    env: Envelope
    ff_time: float = 0.1            # s ahead the line's curvature is read for the feedforward
    k_lat: float = 1.0              # 1/s: Stanley's gain on the lateral error
    k_int: float = 0.01             # rad per m s of lateral error
    preview: float = 0.25           # s ahead the target speed is read
    kp: float = 0.6                 # throttle per m/s
    ki: float = 0.6                 # throttle per m/s s
    kb: float = 0.3                 # brake per m/s too fast
    slide: float = 1.5              # m to the outside of the line that counts as sliding wide
    up: float = 0.03
    down: float = 0.08
    esp: bool = True
    feed: float = 0.6               # throttle allowed at the lateral limit (module docstring)
    band: float = 1.0               # m/s too fast before the brake comes on beyond its feedforward
    stations: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        n = len(self.cars)
        self.n = n
        self.wheelbase = np.array([c.wheelbase for c in self.cars])
        self.lock = np.array([math.radians(c.steering.max_angle_deg) for c in self.cars])
        self.k_us = np.array([understeer_coefficient(c) for c in self.cars])
        self.brake_decel = np.array([2.0 * (c.brakes.max_torque_front + c.brakes.max_torque_rear)
                                     / (c.rear_tire.radius * c.chassis.mass) for c in self.cars])
        self.bins = max(1, int(round(self.line.length / BIN)))
        self.scale = np.ones((n, self.bins))
        self.bin_of_station = np.minimum((self.line.s / self.line.length * self.bins).astype(int), self.bins - 1)
        kappa = np.abs(self.line.curvature)
        self.corner = np.zeros(self.bins, dtype=bool)
        np.maximum.at(self.corner, self.bin_of_station, kappa > CORNER)
        self.segment = corners(self.corner)               # each stretch's bend (0, 1, ...; -1 on a straight)
        self.n_segments = int(self.segment.max()) + 1
        self.sign = np.zeros(self.bins)
        np.add.at(self.sign, self.bin_of_station, self.line.curvature)
        self.sign = np.sign(self.sign)
        self.step = np.ones((n, max(1, self.n_segments)))     # each bend's step, halved when it turns back
        self.last_move = np.zeros((n, max(1, self.n_segments)), dtype=int)
        self.profile = limit_speed(self.line, self.env, self.scale[:, self.bin_of_station])
        self.integral = np.zeros(n)
        self.throttle_i = np.zeros(n)
        engines = [(i, c) for i, c in enumerate(self.cars) if c.drive.mode == "engine"]
        self.engine_cars = engines or None
        self.gear_now = np.zeros(n)
        self.lateral = np.zeros(n)                    # the last step's lateral offset from the line (m, + left)
        self.best_time = np.full(n, math.inf)          # s: the fastest valid lap so far
        self.best_scale = self.scale.copy()             # the scales it was driven with
        self.wide = np.zeros((n, self.bins))        # this lap's largest slide to the outside per stretch (m)
        self.off = np.zeros((n, self.bins), dtype=bool)     # this lap left the road in the stretch

    def reset_lap(self, which: np.ndarray) -> None:
        """Start the per-lap records of the cars `which` afresh."""
        self.wide[which] = 0.0
        self.off[which] = False

    def target(self, s: np.ndarray) -> np.ndarray:
        """The limit speed (m/s) of each car at its own station s (N,) of the line."""
        f = np.mod(s, self.line.length) / self.line.ds
        i = np.floor(f).astype(int) % len(self.line.s)
        j = (i + 1) % len(self.line.s)
        w = f - np.floor(f)
        rows = np.arange(self.n)
        return self.profile[rows, i] + w * (self.profile[rows, j] - self.profile[rows, i])

    def observe(self, sim: Simulation) -> tuple[Observation, np.ndarray, np.ndarray]:
        obs = Observation.of(sim)
        s, lat = np.empty(self.n), np.empty(self.n)
        for i in range(self.n):                # one car at a time: the same floats alone or in a batch
            hint = None if self.stations is None else float(self.stations[i])
            if hint is None:
                s[i], lat[i], _ = self.line.project(obs.position[i])
            else:
                s[i], lat[i], _ = self.line.follow(float(obs.position[i, 0]), float(obs.position[i, 1]), hint)
        self.stations = s
        self.lateral = lat
        return obs, s, lat

    def controls(self, sim: Simulation) -> Controls:
        obs, s, lat = self.observe(sim)
        dt = sim.dt
        v = np.maximum(obs.speed, 0.0)
        # steering: the line's curvature a little ahead through the single-track model (feedforward), its
        # heading error from the direction of travel and the lateral error (Stanley), the body slip against
        delta = self.steering(obs, s, lat, v, dt)
        # pedals: the limit speed `preview` s ahead (no lift when running wide: at the limit a lift in a bend
        # turns a slide into a spin)
        b = self.bin_of(s)
        rows = np.arange(self.n)
        outside = -lat * self.sign[b]
        target = self.target(s + self.preview * v)
        error = target - v
        slope = (self.target(s + self.preview * v + 2.0) - target) / 2.0        # dv/ds of the profile
        decel = np.maximum(-slope * target, 0.0)                                  # m/s^2 it asks for
        brake = np.clip(np.where(decel > 0.5, decel / self.brake_decel, 0.0) + self.kb * (-error - self.band), 0.0, 1.0)
        brake = np.where(error > 0.5, 0.0, brake)
        self.throttle_i = np.clip(self.throttle_i + self.ki * error * dt, 0.0, 1.0)
        throttle = np.clip(self.kp * error + self.throttle_i, 0.0, 1.0)
        throttle = np.where(brake > 0.0, 0.0, throttle)
        # the throttle fed in as the cornering eases (the ellipse's share left for traction): no more than
        # `feed` + sqrt(1 - (a_y / a_y,max)^2), a_y = v x yaw rate, a_y,max this stretch's learnt limit
        ay_max = self.env.lateral * self.scale[rows, b]
        share = np.clip(np.abs(v * obs.yaw_rate) / np.maximum(ay_max, 1e-6), 0.0, 1.0)
        throttle = np.minimum(throttle, np.clip(self.feed + np.sqrt(1.0 - share * share), 0.0, 1.0))
        self.throttle_i = np.where(brake > 0.0, 0.0, self.throttle_i)
        # what the lap teaches: the slide to the outside of each stretch's bend
        self.wide[rows, b] = np.maximum(self.wide[rows, b], outside)
        return Controls(throttle=throttle, brake=brake, steer=0.0, steer_angle=delta, abs=True, tc=True, esp=self.esp,
                        gear=self.gears(v))

    def steering(self, obs: Observation, s, lat, v, dt) -> np.ndarray:
        """The road-wheel angle (rad): delta = (L + K v^2) kappa_line(s + v t_ff) + (psi_line - course)
        - atan(k_lat lat / (v + 1)) - beta - k_int (integral of lat), within the lock."""
        kappa = self.line.at(s + self.ff_time * v, "curvature")
        psi = np.mod(self.line.at(s, "heading") - obs.course + math.pi, 2.0 * math.pi) - math.pi
        beta = np.mod(obs.heading - obs.course + math.pi, 2.0 * math.pi) - math.pi
        self.integral = np.clip(self.integral + lat * dt, -5.0, 5.0)
        delta = np.arctan((self.wheelbase + self.k_us * v * v) * kappa) + psi \
            - np.arctan(self.k_lat * lat / (v + 1.0)) - beta - self.k_int * self.integral
        return np.clip(delta, -self.lock, self.lock)

    def gears(self, v: np.ndarray):
        """The gear of each car with an engine that gives the most wheel torque at speed v with the engine
        below 95 % of its shift-up speed (a gear a step, kept unless another gives 3 % more); None for direct drives."""
        if self.engine_cars is None:
            return None
        out = np.full(self.n, float(NO_GEAR))
        for i, car in self.engine_cars:
            e, g = car.engine, car.gearbox
            rpm = v[i] / car.rear_tire.radius * np.array(g.ratios) * g.final_drive * 60.0 / (2.0 * math.pi)
            ok = rpm <= 0.95 * g.shift_up_rpm            # clear of the automatic's own upshift
            pull = np.where(ok, np.interp(np.maximum(rpm, e.idle_rpm), e.torque_rpm, e.torque_nm) * np.array(g.ratios),
                            -1.0)
            best = int(np.argmax(pull))
            now = int(self.gear_now[i]) - 1
            # a downshift only with room to rev (a shift takes the drive away for a moment: without the room
            # the car would fall back below the speed of the shift and shift again)
            room = best > now or rpm[best] <= 0.85 * g.shift_up_rpm
            if now < 0 or not ok[now] or (pull[best] > 1.03 * pull[now] and room):
                self.gear_now[i] = best + 1
            out[i] = self.gear_now[i]
        return out

    def bin_of(self, s: np.ndarray) -> np.ndarray:
        return np.minimum((np.mod(s, self.line.length) / self.line.length * self.bins).astype(int), self.bins - 1)

    def left_road(self, which: np.ndarray) -> None:
        """All four wheels of the cars `which` are off the road at their present stations."""
        if self.stations is not None and which.any():
            rows = np.flatnonzero(which)
            self.off[rows, self.bin_of(self.stations[rows])] = True

    def learn(self, which: np.ndarray, times: np.ndarray | None = None) -> None:
        """A lap of the cars `which` ended: scale each bend down where it slid wide or left the road, up where it
        did not; the limit speed made again. `times` (s, per car; nan for the out lap or a lap that did not count,
        which learn as above): a valid lap no faster than the car's best goes back to the best lap's scales, every
        bend's step halved, and learns nothing from its own slides (a search that keeps what made the lap
        faster)."""
        after = int(round(AFTER / BIN))
        for i in np.flatnonzero(which):
            t = math.nan if times is None else float(times[i])
            if math.isfinite(t) and t < self.best_time[i]:
                self.best_time[i], self.best_scale[i] = t, self.scale[i]
            elif math.isfinite(t):                       # a valid lap no faster than the best
                self.scale[i] = self.best_scale[i]
                self.step[i] *= 0.5
                continue
            for j in range(self.n_segments):
                mine = self.segment == j
                exit_ = mine.copy()
                for k in range(1, after + 1):
                    exit_ |= np.roll(mine, k)
                bad = bool(np.any(self.wide[i, mine] > self.slide) or np.any(self.off[i, exit_]))
                good = not bad
                move = -1 if bad else (1 if good else 0)
                if move == 0:
                    continue
                if move == -self.last_move[i, j]:
                    self.step[i, j] *= 0.5                   # a bisection of the bend's limit
                factor = 1.0 - self.down * self.step[i, j] if bad else 1.0 + self.up * self.step[i, j]
                self.scale[i, mine] = np.clip(self.scale[i, mine] * factor, 0.6, 1.4)
                self.last_move[i, j] = move
        if which.any():
            rows = np.flatnonzero(which)
            sub = Envelope(*(getattr(self.env, f)[rows] for f in Envelope.__dataclass_fields__))
            self.profile[rows] = limit_speed(self.line, sub, self.scale[rows][:, self.bin_of_station])
        self.reset_lap(which)
