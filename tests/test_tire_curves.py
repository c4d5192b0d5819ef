"""Tire curves that could push the way the tire slides, closed by the model (issue 28): the Magic Formula's
combined-slip weights held at 0 or more, and an mf61 pressure held within PRESSURE_SPAN of its nominal one, where
every pressure factor stays positive over the coefficients' ranges."""
import dataclasses
import itertools
import math
import re

import numpy as np
import pytest
from bodies import HATCH

import sim
from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tire.mf96 import mf96_weights
from sim.model import tire_curves
from sim.model.checks import PRESSURE_SPAN
from sim.model.geometry import static_loads
from sim.model.params import Tire


def test_a_combined_weight_past_90_degrees_is_held_at_zero():
    """G_x_alpha = cos(rcx1 atan(B alpha)), B = rbx1 cos(atan(rbx2 kappa)). With rcx1 = 1.1 (the range's top),
    rbx1 12, rbx2 10, kappa 0.1: B = 12 cos(atan 1) = 8.48528; at alpha 88 deg (1.53589 rad) atan(13.0325) =
    1.49421 and 1.1 x 1.49421 = 1.64363 > pi / 2, where the cosine (-0.0728) would turn Fx against kappa:
    held at 0. At alpha 0.05 the weight is the cosine, cos(1.1 atan 0.424264) = 0.904166."""
    p = HATCH.front_tire
    arr = np.zeros(len(MF96_FIELDS))
    for name, value in dict(rbx1=12.0, rbx2=10.0, rcx1=1.1, rby1=10.0, rby2=8.0, rcy1=1.0).items():
        arr[MF96_FIELDS.index(name)] = value
    assert math.cos(1.1 * math.atan(8.48528 * math.radians(88.0))) == pytest.approx(-0.0728, abs=1e-3)
    assert mf96_weights(0.1, math.radians(88.0), arr)[0] == 0.0
    assert mf96_weights(0.1, 0.05, arr)[0] == pytest.approx(math.cos(1.1 * math.atan(0.424264)), abs=1e-6)
    assert mf96_weights(0.1, 0.05, arr)[0] == pytest.approx(0.904166, abs=1e-6)
    # the whole tire at the range's tops: a wheel spinning up (kappa > 0) at any slip angle never brakes the car
    tire = dataclasses.replace(p, model="mf96", rcx1=1.1, rcy1=1.1)
    for kappa, alpha in itertools.product((0.05, 0.3, 1.0), (60.0, 80.0, 88.0)):
        fx, _ = tire_curves.forces(tire, kappa, math.radians(alpha), 4000.0, 0.0)
        assert fx >= 0.0
    assert tire_curves.curve_fault(tire, 4000.0) is None


def test_every_pressure_factor_stays_positive_within_the_span():
    """MF 6.1 scales the slip stiffnesses and peaks by 1 + p1 dpi + p2 dpi^2 (and Ky, its peak load by 1 + p
    dpi). With |p| <= 1.5 (the declared ranges) and |dpi| <= 0.4 the least is 1 - 1.5 x 0.4 - 1.5 x 0.16 = 0.16
    (0.4 for the linear ones); at dpi = 4/3 (3.5 bar on 1.5) it is 1 - 2 - 2.67 < 0."""
    ranges = {(f.metadata["lo"], f.metadata["hi"]) for f in dataclasses.fields(Tire) if f.name.startswith("pp")}
    assert ranges == {(-1.5, 1.5)}
    lo, hi = -1.5, 1.5
    least = min(1 + p1 * d + p2 * d * d for p1, p2, d in itertools.product((lo, hi), (lo, hi),
                                                                           (-PRESSURE_SPAN, PRESSURE_SPAN)))
    assert least == pytest.approx(0.16)
    assert min(1 + p * d for p, d in itertools.product((lo, hi), (-PRESSURE_SPAN, PRESSURE_SPAN))) == \
        pytest.approx(0.4)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_worst_pressure_terms_at_the_span_oppose_the_slip(sign):
    """Every pressure term at the end of its range that shrinks the curves most, the pressure at the span's edge
    (dpi = +-0.4), on the hatchback's front axle: the curves still oppose the slip everywhere."""
    terms = {n: -1.5 * sign for n in ("ppx1", "ppx3", "ppy1", "ppy2", "ppy3", "ppy5")}
    terms.update({n: -1.5 for n in ("ppx2", "ppx4", "ppy4")})
    car = sim.with_value(HATCH, "front_tire.model", "mf61")
    nominal = 2.5e5                              # 1.5 and 3.5 bar, the range's ends, are 40 % below and above it
    tire = dataclasses.replace(car.front_tire, nominal_pressure=nominal,
                               pressure=nominal * (1.0 + sign * PRESSURE_SPAN), **terms)
    car = sim.validate(dataclasses.replace(car, front_tire=tire))
    assert tire_curves.curve_fault(tire, round(static_loads(car, 9.81)[0], 3)) is None


def test_a_pressure_far_from_its_nominal_one_is_refused_naming_the_file_key_value_and_interval(tmp_path):
    car = sim.with_value(HATCH, "front_tire.model", "mf61")
    nominal = car.front_tire.nominal_pressure
    with pytest.raises(sim.ConfigError, match=r"front_tire\.pressure = 350000 is not allowed; expected within 40% of "
                                               rf"front_tire\.nominal_pressure = {nominal:g} Pa"):
        sim.with_value(car, "front_tire.pressure", 3.5e5)
    path = tmp_path / "pumped.toml"
    sim.save_vehicle(car, path)
    text = path.read_text()
    head, front = text.split("\n[front_tire]\n")
    front, n = re.subn(r"\npressure = [0-9.e+]+", "\npressure = 350000.0", front, count=1)
    assert n == 1
    path.write_text(head + "\n[front_tire]\n" + front)
    with pytest.raises(sim.ConfigError) as err:
        sim.load_vehicle(path)
    message = str(err.value)
    assert str(path) in message or path.name in message
    lo, hi = (1 - PRESSURE_SPAN) * nominal, (1 + PRESSURE_SPAN) * nominal
    assert "front_tire.pressure = 350000" in message and f"[{lo:g}, {hi:g}]" in message
