"""Grip diagnosis on constructed telemetry, and the Magic Formula's peak."""
import math

import numpy as np
import pytest

import sim
from sim.diagnosis import COMBINED
from sim.diagnosis import GRIP
from sim.diagnosis import LOCKED
from sim.diagnosis import LOW
from sim.diagnosis import NO_LOAD
from sim.diagnosis import OVERBRAKED
from sim.diagnosis import SATURATED
from sim.diagnosis import SLIDING
from sim.diagnosis import SPINNING
from sim.diagnosis import GripMonitor
from sim.diagnosis import classify
from sim.diagnosis import diagnose
from sim.diagnosis import magic_peak
from sim.model.geometry import static_loads


def tel(**kw):
    base = dict(grounded=np.ones(4), Fz=np.full(4, 3000.0), mu=np.ones(4), grip_scale=np.ones(4),
                kappa=np.zeros(4), alpha=np.zeros(4), Fx_raw=np.full(4, 1500.0), Fy_raw=np.zeros(4))
    base.update(kw)
    return base


def states(car, t):
    return classify(car, t["grounded"], t["Fz"], t["mu"], t["grip_scale"], t["kappa"], t["alpha"],
                    t["Fx_raw"], t["Fy_raw"])


def test_airborne_is_no_load_scale_below_one_is_saturated_small_slip_is_low_use():
    car = sim.load_vehicle("hatchback")
    t = tel(grounded=np.array([0.0, 1, 1, 1]), grip_scale=np.array([1.0, 0.8, 1, 1]),
            Fx_raw=np.array([0.0, 5000.0, 100.0, 1500.0]), kappa=np.array([0, 0.3, 0.003, 0.04]))
    assert list(states(car, t)) == [NO_LOAD, SATURATED, LOW, GRIP]


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
    assert not m.update(0.1, car, view(Fx_raw=np.array([100.0, 1500, 1500, 1500])))    # grip -> low use
    assert m.update(0.2, car, view(grounded=np.array([1.0, 1, 0, 1])))                  # RL lifts: pause
    assert [(e.wheel, e.after) for e in m.events] == [(0, LOW), (0, GRIP), (2, NO_LOAD)]
    assert "RL" in m.events[-1].text() and "no load" in m.events[-1].text()


class View:
    def __init__(self, **kw):
        for k, v in tel(**kw).items():
            setattr(self, k, v)


def test_the_cause_of_a_saturation_is_named_from_the_slips_and_wheel_speeds():
    """Each wheel is put just past one of the tire's own peaks (from its Magic Formula), with the wheel
    speed that goes with that slip: tread speed = rho omega = vx (1 + kappa)."""
    car = sim.load_vehicle("hatchback")
    ft, rt = car.front_tire, car.rear_tire
    k_peak = magic_peak(ft.bx, ft.cx, ft.ex)
    a_peak = magic_peak(rt.by, rt.cy, rt.ey)
    rho = np.full(4, 0.3)
    vx = np.array([20.0, 5.0, 20.0, 20.0])
    kappa = np.array([-1.0, 3 * k_peak, -2 * k_peak, 0.0])               # locked, spinning, overbraked, -
    alpha = np.array([0.0, 0.0, 0.0, 1.5 * a_peak])                       # RR: sliding sideways
    view = View(kappa=kappa, alpha=alpha, vx=vx, rho=rho, omega=vx * (1 + kappa) / rho,
                Fx_raw=np.array([-3500.0, 3500, -3500, 0]), Fy_raw=np.array([0, 0, 0, 3400.0]))
    d = diagnose(car, view)
    assert [w.state for w in d] == [SATURATED] * 4
    assert [w.cause for w in d] == [LOCKED, SPINNING, OVERBRAKED, SLIDING]
    assert "20.0 m/s" in d[0].reason and "deg" in d[3].reason


def test_both_slips_below_their_peaks_but_cut_by_the_limit_is_the_combined_limit():
    car = sim.load_vehicle("hatchback")
    ft = car.front_tire
    k_peak = magic_peak(ft.bx, ft.cx, ft.ex)
    a_peak = magic_peak(ft.by, ft.cy, ft.ey)
    view = View(kappa=np.array([0.7 * k_peak, 0, 0, 0]), alpha=np.array([0.7 * a_peak, 0, 0, 0]),
                grip_scale=np.array([0.8, 1, 1, 1]), vx=np.full(4, 20.0), rho=np.full(4, 0.3),
                omega=np.full(4, 20.0 / 0.3) * (1 + np.array([0.7 * k_peak, 0, 0, 0])))
    w = diagnose(car, view)[0]
    assert (w.state, w.cause) == (SATURATED, COMBINED) and "80 %" in w.reason


def test_a_parked_or_free_rolling_wheel_is_low_use_not_a_warning():
    car = sim.load_vehicle("hatchback")
    parked = View(Fx_raw=np.zeros(4), vx=np.zeros(4), omega=np.zeros(4), rho=np.full(4, 0.3))
    rolling = View(Fx_raw=np.full(4, 50.0), vx=np.full(4, 15.0), omega=np.full(4, 50.0), rho=np.full(4, 0.3))
    assert all(w.state == LOW and w.reason.startswith("standing") for w in diagnose(car, parked))
    assert all(w.state == LOW and w.reason.startswith("rolling") for w in diagnose(car, rolling))


def test_the_pause_names_the_wheel_and_the_cause():
    car = sim.load_vehicle("hatchback")
    rt = car.rear_tire
    a_peak = magic_peak(rt.by, rt.cy, rt.ey)
    m = GripMonitor(pause_on_loss=True)
    assert not m.update(1.0, car, View())
    assert m.update(1.5, car, View(alpha=np.array([0, 0, 0, 2 * a_peak]), Fy_raw=np.array([0, 0, 0, 3300.0])))
    assert m.pause_event.wheel == 3 and m.pause_event.cause == SLIDING
    assert m.pause_event.headline().startswith("RR saturated (sliding sideways) at 1.500 s")
    m.forget_after(1.2)                                # a rewind to 1.2 s that drives on
    assert m.events == [] and m.pause_event is None
