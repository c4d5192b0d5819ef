"""Grip diagnosis on constructed telemetry, and the Magic Formula's peak."""
import math

import numpy as np
import pytest

import sim
from sim.diagnosis import GRIP, NO_LOAD, SATURATED, WEAK, GripMonitor, classify, magic_peak, static_loads


def tel(**kw):
    base = dict(grounded=np.ones(4), Fz=np.full(4, 3000.0), mu=np.ones(4), grip_scale=np.ones(4),
                kappa=np.zeros(4), alpha=np.zeros(4), Fx_raw=np.full(4, 1500.0), Fy_raw=np.zeros(4))
    base.update(kw)
    return base


def states(car, t):
    return classify(car, t["grounded"], t["Fz"], t["mu"], t["grip_scale"], t["kappa"], t["alpha"],
                    t["Fx_raw"], t["Fy_raw"])


def test_airborne_is_no_load_scale_below_one_is_saturated_small_slip_is_weak():
    car = sim.load_vehicle("hatchback")
    t = tel(grounded=np.array([0.0, 1, 1, 1]), grip_scale=np.array([1.0, 0.8, 1, 1]),
            Fx_raw=np.array([0.0, 5000.0, 100.0, 1500.0]), kappa=np.array([0, 0.3, 0.003, 0.04]))
    assert list(states(car, t)) == [NO_LOAD, SATURATED, WEAK, GRIP]


def test_a_sliver_of_load_is_no_load_and_past_the_peak_is_saturated():
    car = sim.load_vehicle("hatchback")
    peak = magic_peak(car.front_tire.bx, car.front_tire.cx, car.front_tire.ex)
    t = tel(Fz=np.array([0.01 * static_loads(car)[0], 3000, 3000, 3000]),
            kappa=np.array([0.0, 1.5 * peak, 0.5 * peak, 0.0]))
    s = states(car, t)
    assert s[0] == NO_LOAD and s[1] == SATURATED and s[2] == GRIP


def test_magic_formula_peak_is_where_the_curve_tops():
    b, c, e = 8.0, 1.6, 0.2
    s_peak = magic_peak(b, c, e)
    mf = lambda s: math.sin(c * math.atan(b * s - e * (b * s - math.atan(b * s))))  # noqa: E731
    assert mf(s_peak) == pytest.approx(1.0, abs=1e-12)
    assert mf(s_peak * 0.9) < 1.0 and mf(s_peak * 1.1) < 1.0
    assert magic_peak(8.0, 0.9, 0.0) == math.inf


def test_linear_tire_peaks_where_its_raw_force_reaches_the_budget():
    car = sim.with_value(sim.load_vehicle("hatchback"), "front_tire.model", "linear")
    ck = car.front_tire.ck
    just_below = tel(kappa=np.array([0.99 * 3000 / ck, 0, 0, 0]), Fx_raw=np.array([0.99 * 3000, 1500, 1500, 1500]))
    just_above = tel(kappa=np.array([1.01 * 3000 / ck, 0, 0, 0]), Fx_raw=np.array([1.01 * 3000, 1500, 1500, 1500]))
    assert states(car, just_below)[0] == GRIP and states(car, just_above)[0] == SATURATED


def test_monitor_logs_changes_and_pauses_on_the_first_loss():
    car = sim.load_vehicle("hatchback")

    class T:
        pass

    def view(**kw):
        o = T()
        for k, v in tel(**kw).items():
            setattr(o, k, v)
        return o
    m = GripMonitor(pause_on_loss=True)
    assert not m.update(0.0, car, view())
    assert not m.update(0.1, car, view(Fx_raw=np.array([100.0, 1500, 1500, 1500])))    # grip -> weak
    assert m.update(0.2, car, view(grounded=np.array([1.0, 1, 0, 1])))                  # RL lifts: pause
    assert [(e.wheel, e.after) for e in m.events] == [(0, WEAK), (0, GRIP), (2, NO_LOAD)]
    assert "RL" in m.events[-1].text() and "no load" in m.events[-1].text()
