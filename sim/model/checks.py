"""Values checked against the parameter schema (sim/model/params.py): one value against its field's range
or choices (`check_value`), the relations between fields (`check_consistency`), a whole vehicle
(`validate`); and reading or changing one parameter by its dotted path ('front_suspension.k'). Every
refusal is a ConfigError naming where, the key, the value and what is allowed."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import fields
from typing import Any

from sim.model.files import ConfigError
from sim.model.files import show
from sim.model.geometry import hop_omega
from sim.model.geometry import hop_stiffness
from sim.model.params import GROUP_TYPES
from sim.model.params import Suspension
from sim.model.params import Vehicle


def describe_allowed(f: dataclasses.Field) -> str:
    m = f.metadata
    if m["kind"] == "num":
        return f"a number in [{m['lo']:g}, {m['hi']:g}] {m['unit']}"
    if m["kind"] == "text":
        return "one of " + ", ".join(repr(c) for c in m["choices"])
    extra = ", strictly increasing" if m["increasing"] else ""
    return (f"a list of {m['min_len']} to {m['max_len']} numbers, each in [{m['lo']:g}, {m['hi']:g}] "
            f"{m['unit']}{extra}")


def check_value(f: dataclasses.Field, value: Any, where: str, key: str) -> Any:
    """Return `value` converted to the field's type, or raise ConfigError naming where, key and value."""
    m = f.metadata
    bad = ConfigError(f"{where}: {key} = {show(value)} is not allowed; expected {describe_allowed(f)}")
    if m["kind"] == "num":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not finite_float(value):
            raise bad
        v = float(value)
        if v < m["lo"] or v > m["hi"]:
            raise bad
        return v
    if m["kind"] == "text":
        if not isinstance(value, str) or value not in m["choices"]:
            raise bad
        return value
    if not isinstance(value, (list, tuple)) or not (m["min_len"] <= len(value) <= m["max_len"]):
        raise bad
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not finite_float(v):
            raise bad
        if float(v) < m["lo"] or float(v) > m["hi"]:
            raise bad
        out.append(float(v))
    if m["increasing"] and any(b <= a for a, b in zip(out, out[1:])):
        raise bad
    return tuple(out)


def finite_float(value) -> bool:
    """True when `value` converts to a finite float (a 400-digit integer does not)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


# -: the mf61 tire's pressure may differ from its nominal pressure by at most this share. MF-Tyre fits its
# pressure terms about NOMPRES (a property file's PRESMIN and PRESMAX bound them); within 40 % every pressure
# factor (1 + p1 dpi + p2 dpi^2) stays at 0.16 or more over the coefficients' ranges (+-1.5), where further out
# random tires' stiffness and peak turned negative: curves pushing the way the tire slides (issue 28)
PRESSURE_SPAN = 0.4


# rad/s: the fastest wheel hop a wheel with its own mass may have, sqrt((k + anti_roll + tire_k) / m_u) (100 Hz;
# road cars hop at 10 - 20 Hz). Lighter wheels on stiffer springs and tires hopped far past what a substep resolves
# (omega h 3 - 5 at the app's 2 substeps) and blew up in random drives (issue 28); the rule leaves the wheels of
# any car, and m_u = 0 (the massless wheel)
HOP_MAX = 2.0 * math.pi * 100.0


def check_consistency(v: Vehicle, where: str) -> None:
    """Relations between fields that single ranges cannot express."""
    for axle in ("front", "rear"):
        s: Suspension = getattr(v, f"{axle}_suspension")
        if not (s.l_min < s.l_max):
            raise ConfigError(f"{where}: {axle}_suspension.l_min = {s.l_min:g} must be below "
                              f"{axle}_suspension.l_max = {s.l_max:g} m")
        if not (s.l_min < s.l0 <= s.l_max):
            raise ConfigError(f"{where}: {axle}_suspension.l0 = {s.l0:g} is not allowed; the rest length must lie "
                              f"in ({s.l_min:g}, {s.l_max:g}] m, between l_min and l_max")
    for axle in ("front", "rear"):
        s = getattr(v, f"{axle}_suspension")
        hop = hop_omega(s)
        if hop > HOP_MAX:
            least = hop_stiffness(s) / HOP_MAX ** 2
            raise ConfigError(
                f"{where}: {axle}_suspension.unsprung_mass = {s.unsprung_mass:g} is not allowed; expected 0 (a "
                f"massless wheel) or at least {least:.3g} kg: on its spring, bar and tire (k + anti_roll + tire_k = "
                f"{least * HOP_MAX ** 2:g} N/m) a lighter wheel hops above {HOP_MAX / (2 * math.pi):.0f} Hz "
                f"({hop / (2 * math.pi):.0f} Hz), faster than any car's and than the physics step follows")
    for axle in ("front", "rear"):
        t = getattr(v, f"{axle}_tire")
        if t.model == "mf61" and abs(t.pressure / t.nominal_pressure - 1.0) > PRESSURE_SPAN:
            raise ConfigError(
                f"{where}: {axle}_tire.pressure = {t.pressure:g} is not allowed; expected within "
                f"{PRESSURE_SPAN:.0%} of {axle}_tire.nominal_pressure = {t.nominal_pressure:g} Pa, "
                f"[{(1 - PRESSURE_SPAN) * t.nominal_pressure:g}, {(1 + PRESSURE_SPAN) * t.nominal_pressure:g}] "
                f"(the mf61 pressure terms are a fit about the nominal pressure)")
    check_inertia(v, where)
    if v.front_axle.x <= v.rear_axle.x:
        raise ConfigError(f"{where}: front_axle.x = {v.front_axle.x:g} must be ahead of "
                          f"rear_axle.x = {v.rear_axle.x:g} m")
    if not v.rear_axle.x < v.chassis.com_x < v.front_axle.x:
        raise ConfigError(f"{where}: chassis.com_x = {v.chassis.com_x:g} is not allowed; the centre of mass must "
                          f"lie between the axles ({v.rear_axle.x:g}, {v.front_axle.x:g}) m")
    if v.gearbox.shift_up_rpm > v.engine.redline_rpm:
        raise ConfigError(f"{where}: gearbox.shift_up_rpm = {v.gearbox.shift_up_rpm:g} is not allowed; expected "
                          f"at most engine.redline_rpm = {v.engine.redline_rpm:g} rpm (the engine cannot reach it)")
    if v.gearbox.shift_down_rpm >= v.gearbox.shift_up_rpm:
        raise ConfigError(f"{where}: gearbox.shift_down_rpm = {v.gearbox.shift_down_rpm:g} must be below "
                          f"gearbox.shift_up_rpm = {v.gearbox.shift_up_rpm:g} rpm")
    light_rpm = v.gearbox.shift_up_light * v.gearbox.shift_up_rpm
    if light_rpm <= v.gearbox.shift_down_rpm:
        raise ConfigError(f"{where}: gearbox.shift_up_light = {v.gearbox.shift_up_light:g} is not allowed; "
                          f"with the pedal lifted the upshift point {light_rpm:g} rpm must stay above "
                          f"gearbox.shift_down_rpm = {v.gearbox.shift_down_rpm:g} rpm")
    if v.engine.idle_rpm >= v.engine.redline_rpm:
        raise ConfigError(f"{where}: engine.idle_rpm = {v.engine.idle_rpm:g} must be below "
                          f"engine.redline_rpm = {v.engine.redline_rpm:g} rpm")
    if len(v.engine.torque_rpm) != len(v.engine.torque_nm):
        raise ConfigError(f"{where}: engine.torque_rpm has {len(v.engine.torque_rpm)} points but "
                          f"engine.torque_nm has {len(v.engine.torque_nm)}; they must match")


GYRATION_MIN = 0.02    # -: I >= this x m r^2 (r the body's half-diagonal across the axis): no point-mass body


def inertia_bounds(v: Vehicle) -> dict[str, tuple[float, float]]:
    """Per principal axis ('roll', 'pitch', 'yaw'): the moments of inertia (kg m^2) a body of this mass can have
    within its box (chassis length, width, height): at most m r^2 (all the mass at the box's edges, r its
    half-diagonal across the axis) and at least GYRATION_MIN m r^2."""
    ch = v.chassis
    half = (ch.length / 2.0, ch.width / 2.0, ch.height / 2.0)
    across = {"roll": half[1] ** 2 + half[2] ** 2, "pitch": half[0] ** 2 + half[2] ** 2,
              "yaw": half[0] ** 2 + half[1] ** 2}
    return {axis: (GYRATION_MIN * ch.mass * r2, ch.mass * r2) for axis, r2 in across.items()}


def check_inertia(v: Vehicle, where: str) -> None:
    """The principal moments must be a rigid body's (each at most the sum of the other two) and fit the body's
    mass and box (`inertia_bounds`)."""
    ch = v.chassis
    moments = {"roll": ch.inertia_roll, "pitch": ch.inertia_pitch, "yaw": ch.inertia_yaw}
    for axis, (lo, hi) in inertia_bounds(v).items():
        if not lo <= moments[axis] <= hi:
            raise ConfigError(f"{where}: chassis.inertia_{axis} = {moments[axis]:g} is not allowed; a "
                              f"{ch.mass:g} kg body of {ch.length:g} x {ch.width:g} x {ch.height:g} m has a moment "
                              f"in [{lo:.4g}, {hi:.4g}] kg m^2 about that axis")
    for axis, value in moments.items():
        others = sum(m for a, m in moments.items() if a != axis)
        if value > others:
            raise ConfigError(f"{where}: chassis.inertia_{axis} = {value:g} is not allowed; a rigid body's "
                              f"principal moment is at most the sum of the other two ({others:g} kg m^2)")


def validate(v: Vehicle, where: str = "vehicle") -> Vehicle:
    """Check every field of `v` against its range; raise ConfigError with the first problem."""
    for gname, gtype in GROUP_TYPES.items():
        group = getattr(v, gname)
        for f in fields(gtype):
            check_value(f, getattr(group, f.name), where, f"{gname}.{f.name}")
    check_consistency(v, where)
    return v


def field_info(path: str) -> dataclasses.Field:
    """The dataclass field for a dotted path such as 'front_suspension.k' (ConfigError naming the groups
    or the group's parameters when there is none)."""
    gname, _, fname = str(path).partition(".")
    if gname not in GROUP_TYPES:
        raise ConfigError(f"{path!r} is not a parameter; expected <group>.<name> with a group from "
                          f"{', '.join(GROUP_TYPES)}")
    for f in fields(GROUP_TYPES[gname]):
        if f.name == fname:
            return f
    raise ConfigError(f"{path!r} is not a parameter; {gname} has "
                      f"{', '.join(f.name for f in fields(GROUP_TYPES[gname]))}")


def get_value(v: Vehicle, path: str) -> Any:
    """The value of one parameter (ConfigError for a path that names none)."""
    field_info(path)
    gname, _, fname = path.partition(".")
    return getattr(getattr(v, gname), fname)


def with_value(v: Vehicle, path: str, value: Any) -> Vehicle:
    """A copy of `v` with one field changed, checked against its range (ConfigError if not allowed)."""
    f = field_info(path)
    value = check_value(f, value, v.name, path)
    gname, _, fname = path.partition(".")
    new = dataclasses.replace(v, **{gname: dataclasses.replace(getattr(v, gname), **{fname: value})})
    check_consistency(new, v.name)
    return new


def apply_sets(car: Vehicle, sets: list[str]) -> Vehicle:
    """A copy of `car` with the command line's `path=value` changes (a number where the value reads as one)."""
    for item in sets:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is not allowed; expected path=value, e.g. front_tire.grip=1.1")
        path, text = item.split("=", 1)
        try:
            value: object = float(text)
        except ValueError:
            value = text
        car = with_value(car, path.strip(), value)
    return car

