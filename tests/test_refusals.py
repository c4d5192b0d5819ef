"""What the Tuning panel says when it refuses an edit (issue 32 item 5): the edited parameter first, then the part
that limits it, in plain words, the advisor's formula kept for the tooltip; a refusal goes once it no longer
applies; a saved preset is no longer "(edited)"."""
import math

from bodies import lift_pressure_rule
from bodies import pressed

import sim
from app.session import Session
from sim import advisor
from ui.refusal import plain_name
from ui.refusal import refusal
from ui.tuning import Tuning


def let_down() -> sim.Vehicle:
    """pressed() (tests/bodies.py: mf61 front tires at 3.5 bar against a 1.5 bar nominal, past the pressure rule)
    let down to 1.5 bar, with the slip stiffness's pressure terms at ppx1 = -1.5: stable at 1.5 bar; back at
    3.5 bar, 1 - 1.5 dpi (dpi = 4/3) < 0: the longitudinal slip stiffness turns negative and a locked wheel is
    pushed the way it slides."""
    return sim.with_value(sim.with_value(pressed(), "front_tire.ppx1", -1.5), "front_tire.pressure", 1.5e5)


def make(car=let_down):
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=8, vehicle_name="hatchback")
    t = Tuning(s)
    if car is not None:
        t._use(car())
    return s, t


def test_a_refusal_names_the_edited_parameter_then_the_limiting_part_with_the_formula_kept_apart(monkeypatch):
    """Raising the pressure is refused because of another parameter (ppx1): the message starts with the edit,
    then names the part and ppx1 in words, with the fix; the formula is only in the details (the tooltip)."""
    lift_pressure_rule(monkeypatch)
    s, t = make()
    before = t.params
    why = t.apply("front_tire.pressure", 3.5e5)
    assert t.params is before
    assert why == ("front_tire.pressure = 350000 Pa would make the front tires push the way they slide, adding "
                   "energy to the car. Limiting part: the front tire's force curves, set by front_tire.ppx1 "
                   "(longitudinal slip stiffness per unit dpi). No number of substeps fixes this: choose another "
                   "value or change front_tire.ppx1.")
    assert "lambda" not in why and "kappa" not in why
    detail = t.details["front_tire.pressure"]
    assert detail.startswith("front_tire.ppx1: front tire curves opposing the slip") and "kappa = " in detail


def test_a_refusal_a_step_fixes_names_the_edit_the_part_and_the_substeps():
    """The walk's case (an advisor of the time refused front_suspension.c naming rear_tire.v_min with its lambda
    formula), on a report made by hand: a part the step limits, 4 times too fast at h = dt / 2."""
    dt = 1 / 240
    h_max = dt / 2 / 3.2                                   # 3.2 half-steps: 7 substeps (the fewest with h <= h_max)
    item = advisor.Item("tires near rest (dampers dF/dslip / vMin)", "rear_tire.v_min", 0.31, h_max,
                        "h^2 lambda_K + 2 h lambda_C < 4 with lambda_K = 0 1/s^2, lambda_C = 4.1e+03 1/s")
    r = advisor.Report(dt, 2, (item,))
    assert r.substeps_needed == math.ceil(2 * 3.2) == 7
    why = refusal("front_suspension.c", 20000.0, r)
    assert why == ("front_suspension.c = 20000 N s/m would make the tires near a standstill react faster than the "
                   "physics step can follow. Limiting part: the tires near rest, set by rear_tire.v_min (slip "
                   "denominator floor vMin). 7 substeps would run it (the button below), or choose another value.")


def test_plain_names_skip_a_model_tag():
    assert plain_name("mf61: longitudinal slip stiffness per unit dpi") == "longitudinal slip stiffness per unit dpi"
    assert plain_name("damping coefficient; rebound: c_rebound") == "damping coefficient"
    assert plain_name("suspension model: reference (seed 000)") == "suspension model"


def test_a_refusal_goes_once_an_accepted_edit_answers_it_and_stays_while_it_applies(monkeypatch):
    lift_pressure_rule(monkeypatch)
    s, t = make()
    assert t.apply("front_tire.pressure", 3.5e5)                 # refused for ppx1
    assert t.apply("front_tire.nominal_pressure", 4.0e5)         # out of its range: refused on its own
    assert t.apply("chassis.mass", 1250.0) is None               # accepted, but answers neither
    assert set(t.errors) == {"front_tire.pressure", "front_tire.nominal_pressure"}
    assert t.apply("front_tire.ppx1", 0.0) is None               # the limiting part, as the refusal advised
    assert set(t.errors) == {"front_tire.nominal_pressure"}      # 3.5 bar would now be accepted: gone
    assert "front_tire.pressure" not in t.details and t.params.front_tire.pressure == 1.5e5   # nothing applied
    assert t.apply("front_tire.nominal_pressure", 2.0e5) is None   # the field edited to an accepted value
    assert t.errors == {} and t.refused == {}


def test_after_a_save_the_preset_is_the_saved_file_not_edited(tmp_path):
    s, t = make(None)
    assert t.preset_label() == "hatchback"
    assert t.apply("front_tire.grip", 0.9) is None
    assert t.preset_label() == "hatchback (edited)" and t.edited()
    path = tmp_path / "mine.toml"
    assert t.save(str(path))
    assert t.preset_label() == "mine.toml" and not t.edited()
    assert t.apply("front_tire.grip", 0.95) is None
    assert t.preset_label() == "mine.toml (edited)"
