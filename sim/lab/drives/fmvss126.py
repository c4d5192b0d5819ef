"""FMVSS 126 / UN R140's test of stability control: the slowly increasing steer finds the road-wheel angle A that
gives 0.3 g at 80 km/h, and the sine with dwell is driven at 1.5 A, 2 A, ... 6.5 A (or to 270 deg of handwheel,
whichever is less), each amplitude a car of its own in one batch. A car that understeers needs a larger angle
before its rear lets go, which is why the rules scale the amplitude by A and drive it up to 6.5 A."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.kernel.units import GRAVITY as G
from sim.lab.driver import Driver
from sim.lab.driver import Observation
from sim.lab.driver import OpenLoop
from sim.lab.driver import SpeedPI
from sim.lab.drives.batch import Batch
from sim.lab.drives.batch import batched
from sim.lab.drives.batch import steps_of
from sim.lab.drives.common import DT
from sim.lab.drives.common import front_angles
from sim.lab.drives.common import gear_for
from sim.lab.drives.results import Figure
from sim.lab.drives.results import Result
from sim.model.params import Vehicle
from sim.model.world import World

MULTIPLES = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5)   # of A: the rules' amplitude series
HANDWHEEL_RATIO = 16.0        # -: a road car's steering ratio, to turn the rules' handwheel angles into road-wheel ones
SIS_RATE = math.radians(13.5) / HANDWHEEL_RATIO    # rad/s: the slowly increasing steer's 13.5 deg/s of handwheel
MOST = math.radians(270.0) / HANDWHEEL_RATIO       # rad: the largest amplitude, 270 deg of handwheel
SIS_G = 0.3                   # g: A is the road-wheel angle that gives this lateral acceleration
FREQUENCY, DWELL = 0.7, 0.5   # Hz, s: the sine and the hold at its second peak


def dwell_shape(x: float) -> float:
    """The sine with dwell's steering, -1..1, x (s) after it starts: a 0.7 Hz sine to the left, to the right,
    held 0.5 s at the right peak, back to 0 (and 0 before and after)."""
    period = 1.0 / FREQUENCY
    if x < 0.0:
        return 0.0
    if x < 0.75 * period:
        return math.sin(2.0 * math.pi * FREQUENCY * x)
    if x < 0.75 * period + DWELL:
        return -1.0
    x -= DWELL
    return math.sin(2.0 * math.pi * FREQUENCY * x) if x < period else 0.0


@dataclass
class DwellSteer:
    """Each car's own amplitude (N,) times the dwell shape from `at` (s): road-wheel angles (rad) or, with
    road_wheel False, steering inputs."""
    amplitudes: np.ndarray
    at: float
    road_wheel: bool = True

    def __call__(self, obs: Observation) -> np.ndarray:
        return self.amplitudes * dwell_shape(obs.time - self.at)


def turning_g(log) -> np.ndarray:
    """The lateral acceleration of a quasi-steady turn, speed x yaw rate (g), of each logged step: the slow ramp's
    (smooth where the log's differenced a_lat is not)."""
    return log.column("speed") * log.column("yaw_rate") / G


@batched
def slowly_increasing_steer(cars: list[Vehicle], speed_kmh: float = 80.0) -> list[Result]:
    """The rules' slowly increasing steer: at `speed_kmh`, held by the throttle, the road-wheel angle rises at
    SIS_RATE (13.5 deg/s of handwheel) to the left until the car turns at 0.35 g. Figure: A, the road-wheel angle
    at which the lateral acceleration first reaches 0.3 g (nan when it never does within MOST)."""
    v = speed_kmh / 3.6
    seconds = 1.0 + MOST / SIS_RATE
    b = Batch(cars, World.flat(), speed=v, gears=[gear_for(c, v) for c in cars], steps=steps_of(seconds))
    steer = OpenLoop(lambda t: SIS_RATE * max(0.0, t - 1.0), road_wheel=True)
    b.drive(Driver(steer, SpeedPI(v)), seconds,
            until=lambda s: np.abs(b.speed() * np.reshape(s.state.angular_velocity, (-1, 3))[:, 2]) > 0.35 * G)
    out = []
    for car, log in zip(cars, b.logs()):
        g, angle = np.abs(turning_g(log)), front_angles(log)
        k = np.flatnonzero(g >= SIS_G)
        a = math.nan
        if k.size and k[0] > 0:                              # interpolated between the steps either side
            i = k[0]
            a = float(angle[i - 1] + (SIS_G - g[i - 1]) / (g[i] - g[i - 1]) * (angle[i] - angle[i - 1]))
        out.append(Result("slowly-increasing-steer", car.name,
                          [Figure("A: road-wheel angle at 0.3 g", math.degrees(a), "deg")], log))
    return out


def amplitudes(car: Vehicle, a: float, multiples=MULTIPLES) -> list[float]:
    """The series' road-wheel amplitudes (rad) for a car whose A is `a` (rad): multiples of A up to MOST and the
    car's own largest angle; the last is the cap itself when a multiple would pass it (the rules' 270 deg)."""
    cap = min(MOST, math.radians(car.steering.max_angle_deg))
    out = [m * a for m in multiples if m * a < cap]
    if len(out) < len(multiples):
        out.append(cap)
    return out


@batched
def sine_with_dwell(cars: list[Vehicle], speed_kmh: float = 80.0, amplitude: float | None = None, at: float = 2.0,
                    esp: bool = True, multiples=MULTIPLES) -> list[Result]:
    """The sine with dwell of FMVSS 126 / UN R140 (electronic stability control): from `speed_kmh`, the road-wheel
    angle follows a 0.7 Hz sine to the left, right, holds 0.5 s at the right peak, and returns; the throttle is
    released at the start. Driven at every amplitude of the series (`multiples` of each car's A, from the slowly
    increasing steer, up to 270 deg of handwheel), or with `amplitude` once at that steering input (-1..1).
    Figures, the worst over the series: the yaw rate 1.0 s and 1.75 s after the steering completes, as a share
    of its peak in the opposite direction (the rules ask at most 35 % and 20 %: the car stops turning), and the
    lateral displacement 1.07 s after the steering starts at the amplitudes from 5 A (at least 1.83 m: it still
    responds). `esp`: stability control on (the rules test it on; the suite's sine-with-dwell-no-esp drives the
    same inputs with it off, to show the car spin: its yaw-rate figures are expected to miss their limits, and
    the Result says whether they did). The log is the run with the largest yaw-rate share."""
    v = speed_kmh / 3.6
    if amplitude is None:
        angle = [math.radians(r.value("A: road-wheel angle at 0.3 g")) for r in slowly_increasing_steer(cars,
                                                                                                        speed_kmh)]
        series = [amplitudes(car, a, multiples) if math.isfinite(a) else [MOST] for car, a in zip(cars, angle)]
    else:
        angle, series = [math.nan] * len(cars), [[amplitude] for _ in cars]
    runs = [(i, x) for i, amps in enumerate(series) for x in amps]
    drivers = [cars[i] for i, _ in runs]
    b = Batch(drivers, World.flat(), speed=v, gears=[gear_for(c, v) for c in drivers],
              steps=steps_of(at + 1.0 / FREQUENCY + DWELL + 3.0))
    b.drive(Driver(OpenLoop(lambda t: 0.0), SpeedPI(v, kp=0.8, ki=0.4)), at)
    y0 = b.position()[:, 1]
    steer = DwellSteer(np.array([x for _, x in runs]), at, road_wheel=amplitude is None)
    b.drive(Driver(steer, None, throttle=0.0, esp=esp), 1.0 / FREQUENCY + DWELL + 3.0)
    end = at + 1.0 / FREQUENCY + DWELL                          # completion of steer
    logs = b.logs()
    judged = [judge(log, at, end, y0[k]) for k, log in enumerate(logs)]
    out = []
    for i, car in enumerate(cars):
        mine = [k for k, (j, _) in enumerate(runs) if j == i]
        worst = max(mine, key=lambda k: judged[k][0] if math.isfinite(judged[k][0]) else -math.inf)
        late = [k for k in mine if amplitude is not None or runs[k][1] >= 5.0 * angle[i] - 1e-12 or
                runs[k][1] == runs[mine[-1]][1]]
        spin = not esp
        first = next((runs[k][1] for k in mine if judged[k][0] > 35.0), math.nan)
        figs = [Figure("yaw rate 1.0 s after the steering, share of its peak", judged[worst][0], "%", None, 35.0,
                       "FMVSS 126: <= 35 %", expect_miss=spin),
                Figure("yaw rate 1.75 s after, share of its peak", max(judged[k][1] for k in mine), "%", None, 20.0,
                       "FMVSS 126: <= 20 %", expect_miss=spin),
                Figure("lateral displacement 1.07 s after the start", min(judged[k][2] for k in late), "m", 1.83,
                       None, "FMVSS 126: >= 1.83 m, from 5 A"),
                Figure("peak yaw rate", max(judged[k][3] for k in mine), "deg/s")]
        if amplitude is None:
            figs += [Figure("A: road-wheel angle at 0.3 g", math.degrees(angle[i]), "deg"),
                     Figure("largest amplitude", math.degrees(runs[mine[-1]][1]), "deg"),
                     Figure("smallest amplitude past 35 % (spins)", math.degrees(first), "deg")]
        esp_log = logs[worst].column("esp_cut")
        figs.append(Figure("time stability control acted", float(np.sum(esp_log < 1.0) * DT), "s"))
        out.append(Result("sine-with-dwell", car.name, figs, logs[worst]) if esp else
                   Result("sine-with-dwell-no-esp", car.name, figs, logs[worst],
                          expected="spins without stability control"))
    return out


def judge(log, at: float, end: float, y0: float) -> tuple[float, float, float, float]:
    """One run's (yaw rate 1.0 s and 1.75 s after the steering as % of the right turn's peak, lateral displacement
    1.07 s after the start (m), the peak yaw rate (deg/s))."""
    t, r, y = log.column("time"), log.column("yaw_rate"), log.column("y")
    second = (t > at + 0.25 / FREQUENCY) & (t <= end)
    peak = float(np.min(r[second])) if second.any() else math.nan   # the right turn's peak (negative)

    def share(when: float) -> float:
        return 100.0 * float(np.interp(when, t, r)) / peak if peak else math.nan
    return share(end + 1.0), share(end + 1.75), abs(float(np.interp(at + 1.07, t, y)) - y0), math.degrees(abs(peak))
