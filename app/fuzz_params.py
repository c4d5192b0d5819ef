"""Random in-range parameter sets against the loader, the stability advisor and the watchdog
(`python -m app.fuzz params`).

Every numeric parameter is drawn uniformly in its declared range and every choice at random (tire
families, drive modes, suspension models), the cross-field rules respected. Each set is then judged
by the rules (sim.validate) and by the advisor (sim.advisor.check, at this world's grip and gravity),
and every set the rules accept is driven for `seconds` of aggressive random driving on each world,
the advisor's refusals too (check_stability=False): that is how the advisor's refusals are checked
(a refusal is right when the set blows up) as well as its acceptances (an accepted set must not).
A set blows up when the watchdog flags it (non-finite numbers, speeds or spins no car reaches, a body
sunk in the ground, energy from nowhere).
"""
from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass
from dataclasses import field

import numpy as np

import sim
from app.session import ground_height
from sim.model import params as P
from sim.model.checks import HOP_MAX
from sim.model.checks import PRESSURE_SPAN
from sim.model.checks import check_inertia
from sim.model.geometry import hop_omega
from sim.model.geometry import hop_stiffness
from sim.model.geometry import static_loads
from sim.model.tire_curves import fault_at

DT = 1.0 / 240.0
WORLDS = ("proving_ground", "flat")
CHUNK = 24                  # steps per run() call (the watchdog checks at least every WATCH_EVERY)
UNTESTED_LOAD_SHARE = 0.1   # a refused axle whose wheels carried a load less of the run than this was not tested
SPAWN_SPEED = 25.0          # m/s: `--spawn-speed`'s suggestion: cars start moving at a random speed up to this, so
#                             that the tires of a car whose engine cannot move it (a heavy body, a weak engine) slide


@dataclass
class WorldCounts:
    """One world's tally. `refused` maps the advisor's reason (the part and its parameter) to
    [sets refused, of which blew up when run anyway]."""
    world: str
    substeps: int
    sets: int = 0
    refused_by_rules: int = 0
    accepted: int = 0
    accepted_blew_up: int = 0
    refused_by_advisor: int = 0
    refused_blew_up: int = 0
    refused_untested: int = 0       # refused, did not blow up, and the run never tried the refused part: its wheels
    #                                 never carried the car, or (tire curves) never slid where the curve fails
    refused: dict[str, list[int]] = field(default_factory=dict)
    blow_ups: list[str] = field(default_factory=list)     # what the watchdog said of accepted sets

    def line(self) -> str:
        tested = self.refused_by_advisor - self.refused_untested
        right = f"{self.refused_blew_up / tested:.0%}" if tested else "-"
        return (f"{self.world} at {self.substeps} substeps: {self.sets} sets; refused by the rules "
                f"{self.refused_by_rules}, refused by the advisor {self.refused_by_advisor} (of which "
                f"{self.refused_blew_up} blew up when run anyway and {self.refused_untested} were not tested: the "
                f"run never took the refused part where it fails; {right} of the tested right), accepted "
                f"{self.accepted} (of which {self.accepted_blew_up} blew up)")


def random_vehicle(rng: np.random.Generator) -> sim.Vehicle:
    """Every numeric parameter drawn uniformly in its declared range and every choice at random, the body's
    mass, box and moments drawn again until they are a rigid body's (checks.py check_inertia), then the
    pairs that cross-field rules order put in order (l_min < l0 <= l_max, rear axle < centre of mass <
    front axle, idle < redline, shift down < shift up <= redline, an mf61 pressure within PRESSURE_SPAN of its
    nominal one, a wheel hop at most HOP_MAX), so that what is tested is the
    stability advisor, not the rules (curves and the name kept)."""
    groups = {}
    base = sim.Vehicle()
    meta = {}
    for gname, gtype in P.GROUP_TYPES.items():
        values = {}
        for f in dataclasses.fields(gtype):
            m = f.metadata
            meta[(gname, f.name)] = m
            if m["kind"] == "num":
                values[f.name] = float(rng.uniform(m["lo"], m["hi"]))
            elif m["kind"] == "text":
                values[f.name] = str(rng.choice(m["choices"]))
        groups[gname] = dataclasses.replace(getattr(base, gname), **values)

    def ordered(group: str, names: tuple[str, ...]) -> dict[str, float]:
        lo = max(meta[(group, n)]["lo"] for n in names)
        hi = min(meta[(group, n)]["hi"] for n in names)
        return dict(zip(names, (float(v) for v in sorted(rng.uniform(lo, hi, len(names))))))

    body = ("mass", "length", "width", "height", "inertia_roll", "inertia_pitch", "inertia_yaw")
    for _ in range(10000):          # the body drawn again until its moments are a rigid body's of its mass and box
        try:
            check_inertia(dataclasses.replace(base, chassis=groups["chassis"]), "random")
            break
        except sim.ConfigError:
            groups["chassis"] = dataclasses.replace(groups["chassis"], **{
                n: float(rng.uniform(meta[("chassis", n)]["lo"], meta[("chassis", n)]["hi"])) for n in body})
    for axle in ("front_suspension", "rear_suspension"):
        groups[axle] = dataclasses.replace(groups[axle], **ordered(axle, ("l_min", "l0", "l_max")))
    lo = max(meta[("front_axle", "x")]["lo"], meta[("rear_axle", "x")]["lo"])
    hi = min(meta[("front_axle", "x")]["hi"], meta[("rear_axle", "x")]["hi"])
    rear, front = sorted(rng.uniform(lo, hi, 2))
    groups["front_axle"] = dataclasses.replace(groups["front_axle"], x=float(front))
    groups["rear_axle"] = dataclasses.replace(groups["rear_axle"], x=float(rear))
    c_lo, c_hi = meta[("chassis", "com_x")]["lo"], meta[("chassis", "com_x")]["hi"]
    c_lo, c_hi = (max(rear, c_lo), min(front, c_hi)) if max(rear, c_lo) < min(front, c_hi) else (c_lo, c_hi)
    groups["chassis"] = dataclasses.replace(groups["chassis"], com_x=float(rng.uniform(c_lo, c_hi)))
    e = meta[("engine", "idle_rpm")], meta[("engine", "redline_rpm")]
    idle, redline = sorted(rng.uniform(max(e[0]["lo"], e[1]["lo"]), min(e[0]["hi"], e[1]["hi"]), 2))
    g_lo = meta[("gearbox", "shift_up_rpm")]["lo"]
    down, up = sorted(rng.uniform(0.0, redline, 2))
    light = groups["gearbox"].shift_up_light
    up = max(up, g_lo)
    if light * up <= down:
        down = float(rng.uniform(0.0, light * up))
    for axle in ("front_suspension", "rear_suspension"):   # a wheel heavy enough to hop below HOP_MAX, keeping
        sus, m = groups[axle], meta[(axle, "unsprung_mass")]    # its uniform draw's place in the range above it
        least = min(m["hi"], hop_stiffness(sus) / HOP_MAX ** 2)
        if hop_omega(sus) > HOP_MAX:
            groups[axle] = dataclasses.replace(sus, unsprung_mass=least + (sus.unsprung_mass - m["lo"])
                                               / (m["hi"] - m["lo"]) * (m["hi"] - least))
    for axle in ("front_tire", "rear_tire"):      # the pressure moved into the band about the nominal one the
        t, m = groups[axle], meta[(axle, "pressure")]     # rule allows, keeping its uniform draw's place in it
        lo = max(m["lo"], (1.0 - PRESSURE_SPAN) * t.nominal_pressure)
        hi = min(m["hi"], (1.0 + PRESSURE_SPAN) * t.nominal_pressure)
        groups[axle] = dataclasses.replace(t, pressure=lo + (t.pressure - m["lo"]) / (m["hi"] - m["lo"]) * (hi - lo))
    groups["engine"] = dataclasses.replace(groups["engine"], idle_rpm=float(idle), redline_rpm=float(redline))
    groups["gearbox"] = dataclasses.replace(groups["gearbox"], shift_down_rpm=float(down), shift_up_rpm=float(up))
    return dataclasses.replace(base, name="random", **groups)


def driving(rng: np.random.Generator, steps: int, n: int) -> np.ndarray:
    """Aggressive random driving (steps, n, 9): pedals, steering and handbrake jumping every 0.25-1 s, shift
    requests now and then, aids at random."""
    out = np.zeros((steps, n, 9))
    out[..., 6] = sim.NO_GEAR
    for v in range(n):
        k = 0
        while k < steps:
            length = int(rng.uniform(0.25, 1.0) / DT)
            out[k:k + length, v, 0] = rng.choice([0.0, 0.5, 1.0, 1.0])
            out[k:k + length, v, 1] = rng.choice([0.0, 0.0, 0.5, 1.0])
            out[k:k + length, v, 2] = rng.uniform(-1.0, 1.0)
            out[k:k + length, v, 3] = rng.choice([0.0, 0.0, 0.0, 1.0])
            out[k, v, 5] = rng.choice([0, 0, 0, 1, -1])
            out[k:k + length, v, 7] = rng.choice([0.0, 1.0])
            out[k:k + length, v, 8] = rng.choice([0.0, 1.0])
            k += length
    return out


def drive(cars: list[sim.Vehicle], world: sim.World, substeps: int, seconds: float,
          rng: np.random.Generator, batch: int = 250, spawn_speed: float = 0.0,
          loaded: list[np.ndarray] | None = None, probes: list | None = None,
          reached: list[bool] | None = None) -> list[str]:
    """Drive every car (unchecked) for `seconds` from a random spot and heading, at rest or (spawn_speed > 0)
    moving at a random speed up to spawn_speed (m/s); what the watchdog said of each ("" when it stayed
    physical). `loaded`, when given, gets each car's share of the run that each wheel carried a load (4,);
    `reached`, with `probes` (per car a CurveProbe or None), whether the run took the probed tire where its
    curve pushes the way it slides."""
    health: list[str] = []
    steps = int(round(seconds / DT))
    for start in range(0, len(cars), batch):
        group = cars[start:start + batch]
        s = sim.Simulation(group, world, dt=DT, substeps=substeps, n_vehicles=len(group), watchdog="flag",
                           check_stability=False)
        span = world_span(world)
        xy = rng.uniform(span[0], span[1], (len(group), 2))
        yaw = rng.uniform(0, 2 * np.pi, len(group))
        z = [sim.spawn_height(car, x, y, a, lambda px, py: ground_height(world, px, py))
             for (x, y), a, car in zip(xy, yaw, group)]
        speed = rng.uniform(0.0, spawn_speed, len(group)) if spawn_speed > 0.0 else 0.0
        s.reset(position=np.column_stack([xy, z]), yaw=yaw, speed=speed)
        trace = driving(rng, steps, len(group))
        carried = np.zeros((len(group), 4))
        shifting = Shifter(group)
        mine = (probes or [None] * len(cars))[start:start + batch]
        hit = [False] * len(group)
        for k in range(0, steps, CHUNK):
            s.run(shifting.rows(trace[k:k + CHUNK], s))
            carried += np.reshape(s.telemetry.Fz, (len(group), 4)) > 0.0
            for j, probe in enumerate(mine):
                hit[j] = hit[j] or (probe is not None and probe.reached(s.telemetry, j))
        if loaded is not None:
            loaded += list(carried / len(range(0, steps, CHUNK)))
        if reached is not None:
            reached += hit
        health += [f"{h} ({why})" if h and why else h for h, why in zip(s.health, s.watcher.sources)]
    return health


@dataclass
class CurveProbe:
    """A refused tire's axle watched during the run: `reached` when one of its wheels, loaded and sliding at
    least SLIDING m/s, is where the tire's force pushes the way it slides (tire_curves.fault_at at the
    wheel's slip, load and camber): only then did the run try what the advisor refused it for."""
    wheels: tuple[int, int]
    tire: P.Tire
    static_load: float
    SLIDING = 0.5

    def reached(self, tel, j: int) -> bool:
        for w in self.wheels:
            i = 4 * j + w if np.ndim(tel.Fz) == 1 else (j, w)
            fz, vx, vy = float(tel.Fz[i]), float(tel.vx[i]), float(tel.vy[i])
            slide = math.hypot(float(tel.omega[i]) * float(tel.r_eff[i]) - vx, vy)
            if fz > 0.0 and slide >= self.SLIDING and fault_at(
                    self.tire, float(np.clip(tel.kappa[i], -6.0, 6.0)), float(tel.alpha[i]), fz,
                    float(tel.camber[i]), self.static_load) is not None:
                return True
        return False


def curve_probe(car: sim.Vehicle, verdict: str, gravity: float) -> CurveProbe | None:
    """The probe for a set refused for its tire curves (None for any other reason)."""
    if "tire curves opposing the slip" not in verdict:
        return None
    axle = verdict.split("_", 1)[0]
    load = static_loads(car, gravity)[0 if axle == "front" else 2]
    return CurveProbe((0, 1) if axle == "front" else (2, 3), getattr(car, f"{axle}_tire"), load)


class Shifter:
    """The random driver's hand on a manual gearbox: its random shift requests are kept, but it shifts up near
    the redline, down near idle, and out of neutral into first with the pedal down, as a driver would (a
    random walk through the gears leaves most heavy cars in a gear they cannot pull away in, so that their
    tires are never tried). Automatic gearboxes are left to themselves."""

    def __init__(self, cars: list[sim.Vehicle]):
        self.manual = np.array([car.gearbox.mode == "manual" for car in cars])
        self.top = np.array([len(car.gearbox.ratios) for car in cars])
        self.redline = np.array([car.engine.redline_rpm for car in cars])
        self.idle = np.array([car.engine.idle_rpm for car in cars])

    def rows(self, chunk: np.ndarray, s: sim.Simulation) -> np.ndarray:
        """The chunk's controls with the first step's shift request set from the gear and the engine's speed
        the chunk starts at."""
        gear, rpm = s.state.gear, s.state.engine_rpm
        want = np.where((gear == 0) & (chunk[0, :, 0] > 0.0), 1.0, chunk[0, :, 5])
        want = np.where((gear >= 1) & (gear < self.top) & (rpm > 0.9 * self.redline), 1.0, want)
        want = np.where((gear > 1) & (rpm < 1.2 * self.idle), -1.0, want)
        out = chunk.copy()
        out[0, :, 5] = np.where(self.manual, want, chunk[0, :, 5])
        return out


def world_span(world: sim.World) -> tuple[float, float]:
    """Where cars are spawned (x and y both in this range, m)."""
    return (-40.0, 100.0) if world.heightfields or world.boxes else (-50.0, 50.0)


def fuzz_params(n: int, seed: int, seconds: float = 10.0, substeps: int = sim.DEFAULT_SUBSTEPS, worlds=WORLDS,
                run_refused: bool = True, verbose: bool = False, spawn_speed: float = 0.0) -> list[WorldCounts]:
    """Draw n sets and judge and drive them on each world; a WorldCounts per world."""
    rng = np.random.default_rng(seed)
    cars = [random_vehicle(rng) for _ in range(n)]
    out = []
    for wname in worlds:
        world = sim.load_world(wname) if isinstance(wname, str) else wname
        counts = WorldCounts(str(wname if isinstance(wname, str) else "world"), substeps, sets=n)
        mu = max([sf.mu for sf in world.surfaces] + [1e-9])
        runs, verdicts = [], []
        for car in cars:
            try:
                sim.validate(car, "random")
            except sim.ConfigError:
                counts.refused_by_rules += 1
                continue
            try:
                sim.advisor.check(car, DT, substeps, surface_mu=mu, gravity=world.gravity)
                verdicts.append("")
            except sim.ConfigError as exc:
                verdicts.append(reason_of(str(exc)))
            runs.append(car)
        chosen = [k for k, v in enumerate(verdicts) if run_refused or not v]
        loaded: list[np.ndarray] = []
        reached: list[bool] = []
        probes = [curve_probe(runs[k], verdicts[k], world.gravity) for k in chosen]
        health = drive([runs[k] for k in chosen], world, substeps, seconds, rng, spawn_speed=spawn_speed,
                       loaded=loaded, probes=probes, reached=reached)
        said, carried = dict(zip(chosen, health)), dict(zip(chosen, loaded))
        tried = {k: probe is None or hit for k, probe, hit in zip(chosen, probes, reached)}
        for k, verdict in enumerate(verdicts):
            blew = bool(said.get(k, ""))
            if verdict:
                axle = {"front": slice(0, 2), "rear": slice(2, 4)}.get(verdict.split("_", 1)[0], slice(0, 4))
                untested = not blew and (max(carried.get(k, np.ones(4))[axle]) < UNTESTED_LOAD_SHARE
                                         or not tried.get(k, True))
                counts.refused_by_advisor += 1
                counts.refused_blew_up += blew
                counts.refused_untested += untested
                row = counts.refused.setdefault(verdict, [0, 0, 0])
                row[0] += 1
                row[1] += blew
                row[2] += untested
            else:
                counts.accepted += 1
                counts.accepted_blew_up += blew
                if blew:
                    counts.blow_ups.append(said[k])
                    if verbose:
                        print(f"accepted set blew up on {counts.world}: {said[k]}")
        out.append(counts)
    return out


def reason_of(message: str) -> str:
    """The advisor's reason in a refusal message: the parameter and the part ('front_suspension.k: springs
    cannot hold the car')."""
    body = message.split(": ", 1)[1] if ": " in message else message
    parts = body.split(": ")
    return ": ".join(parts[:2]).split(" (")[0]


def report_lines(results: list[WorldCounts], top: int = 12) -> list[str]:
    lines = []
    for c in results:
        lines.append(c.line())
        for reason, (k, blew, untested) in sorted(c.refused.items(), key=lambda kv: -kv[1][0])[:top]:
            lines.append(f"    refused {k:5d}, blew up {blew:5d}, not tested {untested:3d}: {reason}")
        for what, k in Counter(h.split(":")[0][:90] for h in c.blow_ups).most_common(top):
            lines.append(f"    accepted but blew up {k:4d}: {what}")
    return lines
