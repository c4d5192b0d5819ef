"""The model lab's tire families (issue 14; docs/models.md): each family's own formulas at hand-computed
points, and the invariants every model keeps (no force without load, no NaN, a car on it stops and
corners as physics allows)."""
import math

import numpy as np
import pytest
from bodies import massless

import sim
from sim.diagnosis import peak_slips
from sim.diagnosis import tire_curve
from sim.kernel.tables import MF96_FIELDS
from sim.kernel.tire import MODEL_SIMPLE
from sim.kernel.tire.magic import lateral_force
from sim.kernel.tire.magic import longitudinal_force
from sim.kernel.tire.mf96 import mf96_pure
from sim.kernel.tire.mf96 import mf96_weights
from sim.lab import drives as M

# a 1996-style set with every load term non-zero (not a real tire: chosen so the numbers are easy)
P = dict(pcx1=1.6, pdx1=1.0, pdx2=-0.1, pex1=0.2, pex2=0.1, pkx1=20.0, pkx2=5.0, pkx3=-0.5,
         pcy1=1.4, pdy1=0.9, pdy2=-0.1, pey1=-0.5, pey2=-0.2, pky1=20.0, pky2=2.0,
         rbx1=12.0, rbx2=10.0, rcx1=1.0, rby1=10.0, rby2=8.0, rcy1=1.05)
ARR = np.array([P[n] for n in MF96_FIELDS])


def with_model(car, model):
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.model", model)
    return car


def test_the_simple_curve_is_load_proportional_sine_arctangent():
    """FGear's Simple: F = D mu Fz sin(C atan(B s)). B 10, C 1.9, D 1, mu 1, Fz 4000 N, kappa 0.05:
    atan(0.5) = 0.463648, x 1.9 = 0.880930, sin = 0.771331, x 4000 = 3085.33 N. Its E is ignored (the
    magic model with the same factors differs), and twice the load gives twice the force."""
    fx, slope = longitudinal_force(MODEL_SIMPLE, 0.05, 0.0, 10.0, 1.9, 1.0, 0.7, 1.0, 4000.0)
    assert fx == pytest.approx(3085.33, abs=0.01)
    assert longitudinal_force(MODEL_SIMPLE, 0.05, 0.0, 10.0, 1.9, 1.0, 0.7, 1.0, 8000.0)[0] == pytest.approx(2 * fx)
    # slope: D C B cos(C atan(B s)) / (1 + (B s)^2) = 4000 x 1.9 x 10 x cos(0.880930) / 1.25 = 38776 N
    assert slope == pytest.approx(4000 * 1.9 * 10 * math.cos(0.880930) / 1.25, rel=1e-5)
    assert lateral_force(MODEL_SIMPLE, 0.05, 0.0, 10.0, 1.9, 1.0, 0.7, 1.0, 4000.0) == pytest.approx(-3085.33, abs=0.01)


def test_an_mf96_point_at_twice_the_nominal_load():
    """Fz 6000 N on Fz0 3000 N: dfz = 1. Longitudinal: Dx = (1.0 - 0.1) 6000 = 5400 N, Ex = 0.2 + 0.1 = 0.3,
    Kx = 6000 (20 + 5) exp(-0.5) = 90979.6 N, Bx = Kx / (1.6 Dx) = 10.5300; at kappa 0.1: B kappa = 1.05300,
    phi = 1.05300 - 0.3 (1.05300 - atan 1.05300) = 0.980466, Fx = 5400 sin(1.6 atan 0.980466) = 5108.73 N.
    Lateral: Dy = (0.9 - 0.1) 6000 = 4800 N, Ey = -0.7, Ky = 20 x 3000 x sin(2 atan(6000 / 6000)) = 60000
    N/rad, By = 60000 / (1.4 x 4800) = 8.92857; at alpha 0.05: B alpha = 0.446429, phi = 0.465013,
    Fy = -4800 sin(1.4 atan 0.465013) = -2747.31 N (our sign: a positive slip angle pushes to -y)."""
    fx, fy = mf96_pure(0.1, 0.05, ARR, 1.0, 6000.0, 3000.0)
    assert fx == pytest.approx(5108.73, abs=0.01)
    assert fy == pytest.approx(-2747.31, abs=0.01)
    # the load sensitivity: at the nominal load the peak is pdx1 mu Fz; at twice it only 0.9 of twice that
    peak = lambda fz: max(mf96_pure(k, 0.0, ARR, 1.0, fz, 3000.0)[0] for k in np.linspace(0, 1, 2001))  # noqa: E731
    assert peak(3000.0) == pytest.approx(3000.0, rel=1e-4)
    assert peak(6000.0) == pytest.approx(5400.0, rel=1e-4)
    assert mf96_pure(0.1, 0.05, ARR, 0.5, 6000.0, 3000.0)[1] != pytest.approx(0.5 * fy)   # mu scales D, not Ky


def test_mf96_combined_slip_weights():
    """G_x_alpha = cos(rcx1 atan(B alpha)), B = rbx1 cos(atan(rbx2 kappa)): kappa 0.1, alpha 0.05:
    B = 12 cos(atan 1) = 8.48528, G = cos(atan 0.424264) = 0.920575. G_y_kappa: B = 10 cos(atan 0.4) =
    9.28477, G = cos(1.05 atan 0.928477) = 0.706863. Pure slip is not weighted."""
    gx, gy = mf96_weights(0.1, 0.05, ARR)
    assert gx == pytest.approx(0.920575, abs=1e-6)
    assert gy == pytest.approx(0.706863, abs=1e-6)
    assert mf96_weights(0.3, 0.0, ARR)[0] == 1.0 and mf96_weights(0.0, 0.2, ARR)[1] == 1.0


@pytest.mark.parametrize("model", ["simple", "mf96"])
def test_no_force_at_zero_load_and_no_nan(model):
    car = with_model(sim.load_vehicle("hatchback"), model)
    tire = car.front_tire
    for lateral in (False, True):
        assert np.all(tire_curve(tire, 1.0, 0.0, np.linspace(-1, 1, 21), lateral) == 0.0)
        curve = tire_curve(tire, 1.0, 3000.0, np.linspace(-1, 1, 21), lateral)
        assert np.all(np.isfinite(curve)) and np.abs(curve).max() > 1000.0
    k, a = peak_slips(tire, 3000.0, 3000.0)
    assert 0.02 < k < 0.5 and math.radians(2) < a < math.radians(20)


@pytest.mark.parametrize("model", ["simple", "mf96"])
def test_a_car_on_each_family_stops_near_v2_over_2_mu_g(model):
    """A straight stop with ABS from 100 km/h takes at least v^2 / (2 mu_peak g) and, with ABS holding the
    wheels near their peak, not much more; the car settles onto its static loads."""
    car = with_model(sim.load_vehicle("hatchback"), model)
    r = M.braking(car)
    ideal = r.value("ideal distance v^2 / (2 mu g)")
    assert 0.95 * ideal < r.value("stopping distance") < 1.12 * ideal
    assert M.settle(car).passed


def test_a_vehicle_file_from_before_the_mf96_model_still_loads(tmp_path):
    """A saved tuning written before the mf96 coefficients existed loads (with their defaults, unused by
    its magic tires); a file missing any older key is still refused by name."""
    import re
    text = (sim.model.vehicle_toml.PRESET_DIR / "hatchback.toml").read_text()
    old = "\n".join(ln for ln in text.split("\n") if not re.match(r"^(p[cdekh][xy]\d|r[bc][xy]\d) =", ln))
    assert "pkx1" not in old
    (tmp_path / "old.toml").write_text(old)
    car = sim.load_vehicle(tmp_path / "old.toml")
    assert car.front_tire.model == "magic" and car.front_tire.pkx1 == sim.model.params.Tire().pkx1
    (tmp_path / "broken.toml").write_text(old.replace("\nbx = ", "\n# bx = ", 1))
    with pytest.raises(sim.ConfigError, match=r"\[front_tire\] is missing bx"):
        sim.load_vehicle(tmp_path / "broken.toml")


def test_the_fgear_spring_with_preload_and_asymmetric_damping():
    """Fs = preload + k x + c xdot, c = c_bump compressing and c_rebound extending: k 30000 N/m, preload
    2000 N, x 0.05 m: 2000 + 1500 = 3500 N; at xdot +0.1 m/s with c_bump 3000: + 300 = 3800 N; at
    xdot -0.1 m/s with c_rebound 5000: - 500 = 3000 N. Past l_min by 0.01 m the 10 k bump stop adds
    3000 N, and the travel limit's damping (stop_c 20000) another 2000 N while compressing at 0.1 m/s.
    Fz = Fs a (a = 0.8 here)."""
    from sim.kernel.suspension import fgear_force
    stop_k = 300000.0                                            # 10 k
    assert fgear_force(30000.0, 2000.0, 3000.0, 5000.0, 0.0, 0.05, 0.1, 0.15, 0.2, 1.0, 0.0, stop_k) == (3800.0, 3800.0)
    assert fgear_force(30000.0, 2000.0, 3000.0, 5000.0, 0.0, 0.05, -0.1, 0.15, 0.2, 1.0, 0.0, stop_k)[0] == 3000.0
    fs, fz = fgear_force(30000.0, 2000.0, 3000.0, 5000.0, 20000.0, 0.05, 0.1, 0.15, 0.14, 0.8, 0.0, stop_k)
    assert fs == pytest.approx(3800.0 + 3000.0 + 2000.0) and fz == pytest.approx(0.8 * fs)
    assert fgear_force(30000.0, 0.0, 3000.0, 5000.0, 0.0, 0.0, -10.0, 0.15, 0.2, 1.0, 0.0, stop_k)[0] == 0.0


def test_a_preloaded_fgear_suspension_sags_less_by_preload_over_k():
    """At rest each corner carries its static share F: the reference compresses F / k, the preloaded
    spring (F - preload) / k; the loads stay M g b / L / 2. A stiffer rebound damping leaves a drop's
    compression alone and settles it sooner (massless wheels: a wheel's own mass rebounds on its tire)."""
    car = massless(sim.load_vehicle("hatchback"))
    fg = car
    for axle in ("front_suspension", "rear_suspension"):
        fg = sim.with_value(fg, f"{axle}.model", "fgear")
        fg = sim.with_value(fg, f"{axle}.preload", 1000.0)
        fg = sim.with_value(fg, f"{axle}.c_rebound", getattr(car, axle).c)
    ref, pre = M.settle(car), M.settle(fg)
    assert pre.passed
    k = car.front_suspension.k
    assert ref.value("sag front") - pre.value("sag front") == pytest.approx(1000.0 / k * 1000.0, rel=0.01)
    soft = M.drop(fg)
    stiff = fg
    for axle in ("front_suspension", "rear_suspension"):
        stiff = sim.with_value(stiff, f"{axle}.c_rebound", 3.0 * getattr(car, axle).c)
    hard = M.drop(stiff)
    # the landing compresses at the same bump damping; only the way back up is damped harder
    assert hard.value("undershoot below rest") == pytest.approx(soft.value("undershoot below rest"), rel=1e-3)
    assert hard.value("settling time (2 mm)") < soft.value("settling time (2 mm)")


def test_a_family_is_a_variant_of_the_same_car_and_unknown_ones_are_named(capsys):
    from sim.lab import families as models
    car = sim.load_vehicle("hatchback")
    fg = models.variant(car, "fgear")
    for axle in ("front", "rear"):
        sus, tire = getattr(fg, f"{axle}_suspension"), getattr(fg, f"{axle}_tire")
        assert (sus.model, sus.travel_limit, tire.model) == ("fgear", "on", "simple")
        assert sus.c_rebound == 1.5 * getattr(car, f"{axle}_suspension").c
    assert (fg.chassis, fg.brakes, fg.engine, fg.front_axle) == (car.chassis, car.brakes, car.engine, car.front_axle)
    assert models.variant(car, "reference") == car
    with pytest.raises(sim.ConfigError, match="not built yet"):
        models.variant(car, "avs-solid")
    from sim.lab.cli import compare_command
    assert compare_command(["--models", "reference,nonsense"]) == 2
    assert "'nonsense' is not known" in capsys.readouterr().err
    text = models.table({"reference": {name: 1.0 for name, _, _ in models.COLUMNS}})
    assert text.count("\n") == 2 and "| reference |" in text


def test_the_fixed_state_reads_each_family_own_curve():
    """Fx at kappa 0.1 at the static front load: the magic curve D mu Fz sin(C atan(B k - E (B k - atan B k)))
    with the hatchback's B 12.54, C 1.5175, E -0.165, mu 1.063 x load factor."""
    from sim.kernel.tire.limit import load_factor
    from sim.lab import families as models
    from sim.model.geometry import tire_loads
    car = sim.load_vehicle("hatchback")
    t = car.front_tire
    fz = float(tire_loads(car)[0])
    mu = t.grip * load_factor(t.load_sensitivity, t.nominal_load, fz)
    bk = t.bx * 0.1
    expected = t.dx * mu * fz * math.sin(t.cx * math.atan(bk - t.ex * (bk - math.atan(bk))))
    assert models.fixed_state(car)["Fx at kappa 0.1"] == pytest.approx(expected, rel=1e-9)


def test_the_relaxation_lag_is_the_exact_first_order_response():
    """tau dFy/dt + Fy = Fy_steady with tau = lambda / max(|vx|, v_min) (seed 001, relaxation_speed = "vx"):
    from 0 toward a steady 1000 N at 20 m/s with lambda 0.5 m (tau 25 ms), n substeps of 1/480 s keep
    exp(-n h / tau) of the gap; after one tau of time (the car has rolled lambda) the force is
    1000 (1 - 1/e) = 632.1 N. The default rolls lambda off at the contact's speed sqrt(vx^2 + vy^2): the same
    going straight, and sliding sideways at 5 m/s with vx = 0, tau = lambda / 5 m/s, not lambda / v_min; so does
    the literal form while its held force pushes the way the patch slides (the last argument, Fy held)."""
    from sim.kernel.tire.limit import relax_keep
    h, n = 1.0 / 480.0, 12                                        # 12 substeps = 25 ms = tau
    for along_vx in (True, False):
        fy = 0.0
        for _ in range(n):
            fy = 1000.0 + (fy - 1000.0) * relax_keep(0.5, 20.0, 0.0, 1.0, h, along_vx, fy)
        assert fy == pytest.approx(1000.0 * (1.0 - math.exp(-1.0)), rel=1e-12)
    assert relax_keep(0.0, 20.0, 0.0, 1.0, h, True, 0.0) == 0.0        # off: the steady force at once
    assert relax_keep(0.5, 0.0, 0.0, 1.0, h, True, 0.0) == pytest.approx(math.exp(-h / 0.5))   # standing
    assert relax_keep(0.5, 0.0, 5.0, 1.0, h, True, -300.0) == pytest.approx(math.exp(-h / 0.5))   # literal: sideways
    assert relax_keep(0.5, 0.0, 5.0, 1.0, h, True, 300.0) == pytest.approx(math.exp(-h * 5.0 / 0.5))   # pushing along
    assert relax_keep(0.5, 0.0, 5.0, 1.0, h, False, 0.0) == pytest.approx(math.exp(-h * 5.0 / 0.5))
    assert relax_keep(0.5, 3.0, 4.0, 1.0, h, False, 0.0) == pytest.approx(math.exp(-h * 5.0 / 0.5))   # 3-4-5


def test_relaxation_on_the_front_slows_the_step_steer_and_on_the_rear_quickens_it():
    """Step steer at 20 m/s with 0.5 m of relaxation: on the front tires the turning force comes later, so
    the yaw rate needs longer to build up; on the rear tires the force that resists the yawing comes later,
    so the car turns in sooner and overshoots more (less yaw damping). The steady yaw-rate gain is the same
    within 0.2 % either way: the lag changes how fast, not where to. The hatchback's bump steer is off: its
    roll understeer, which builds with the roll, shortens the response time on its own and hides most of the
    front lag (0.008 s instead of over 0.02 s)."""
    car = sim.load_vehicle("hatchback")
    for axle in ("front", "rear"):
        car = sim.with_value(car, f"{axle}_suspension.bump_steer", 0.0)
    relaxed = lambda axle: sim.with_value(car, f"{axle}.relaxation_length", 0.5)  # noqa: E731
    base, front, rear = M.step_steer(car), M.step_steer(relaxed("front_tire")), M.step_steer(relaxed("rear_tire"))
    for r in (front, rear):
        assert r.value("yaw-rate gain") == pytest.approx(base.value("yaw-rate gain"), rel=0.002)
    assert front.value("response time") > base.value("response time") + 0.02
    assert rear.value("response time") < base.value("response time") - 0.02
    assert rear.value("yaw-rate overshoot") > base.value("yaw-rate overshoot")


def test_kill_switches_turn_parts_off_for_any_model_and_back_on():
    """Each switch removes exactly its part: without friction a car at 20 m/s at full brake and full lock
    neither brakes nor turns (the tires still carry their load; with friction, after the same second it
    is down to 11 m/s and turning at 0.22 rad/s); without aero and rolling resistance a coasting car keeps
    its speed (nothing else drags it on flat ground: v stays within 0.01 %); without suspension the body
    sits on its hull; back on, the parameters are as they were."""
    for model in ("magic", "mf96"):
        car = sim.load_vehicle("hatchback")
        for axle in ("front_tire", "rear_tire"):
            car = sim.with_value(car, f"{axle}.model", model)
        s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=20.0, gear=0)
        s.set_switches(friction=False)
        for _ in range(240):
            s.step(sim.Controls(brake=1.0, steer=1.0, gear=0))
        assert float(np.linalg.norm(s.state.velocity[:2])) > 19.0
        # (what turns it a little is the steered front wheels' rolling resistance, which points along them)
        assert abs(float(s.state.angular_velocity[2])) < 0.03 and np.all(s.telemetry.Fz > 1000.0)
        assert not s.switches()["friction"] and s.switches()["aero"]
        assert not s.switched_on("friction") and s.switched_on("aero")
        s.set_switches(friction=True, aero=False, rolling=False)
        s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=20.0, gear=0)
        for _ in range(240):
            s.step(sim.Controls(gear=0))
        v0 = float(np.linalg.norm(s.state.velocity))
        for _ in range(480):
            s.step(sim.Controls(gear=0))
        assert float(np.linalg.norm(s.state.velocity)) == pytest.approx(v0, rel=1e-4)
    s.set_switches(suspension=False)
    for _ in range(480):
        s.step(sim.Controls(gear=0))
    assert float(s.telemetry.hull_contacts) > 0 and np.all(s.telemetry.Fz == 0.0)
    s.set_switches(suspension=True, aero=True, rolling=True)
    assert all(s.switches().values())
    with pytest.raises(ValueError, match="'wings' is not known"):
        s.set_switches(wings=False)


def test_an_mf61_point_with_camber_and_pressure():
    """The mf96 set above plus pdy3 0.5, pky3 0.3, pky6 1.0, pvy3 0.2, ppy1 -0.5, ppy3 -0.2, ppy4 0.1, ppx1 0.2,
    ppx3 -0.1, at the nominal load (dfz = 0), 10 % over the nominal pressure (dpi = 0.1) and 0.05 rad of
    camber (sin g = 0.0499792, the top leaning to the tire's left):
    mu_y = 0.9 (1 - 0.02 + 0.001)(1 - 0.5 g^2) = 0.881797, Dy = 2645.39 N;
    Ky = 20 x 3000 (1 - 0.05)(1 - 0.3 |g|) sin(2 atan(0.5)) = 44916.3 N/rad;
    camber: K_g g = 3000 x 1.0 x g = 149.94 N, Sv_g = 3000 x 0.2 x g = 29.99 N, shift (149.94 - 29.99) / Ky
    = 0.0026705 rad, so at alpha 0.05 the curve sees 0.0473295: B alpha = 0.574003, phi = 0.600467,
    Fy = -2645.39 sin(1.4 atan 0.600467) + 29.99 = -1786.85 N. At alpha 0 the camber thrust is 149.88 N,
    toward the lean. Longitudinal: mu_x = 1.0 (1 - 0.01) = 0.99, Kx = 3000 x 20 x 1.02 = 61200, Bx = 12.8788,
    at kappa 0.1: phi = 1.212417, Fx = 2970 sin(1.6 atan 1.212417) = 2931.59 N."""
    from sim.kernel.tables import MF61_EXTRA
    from sim.kernel.tire.mf61 import mf61_pure
    extra = dict(pdx3=0.0, pex3=0.0, pex4=0.0, ppx1=0.2, ppx2=0.0, ppx3=-0.1, ppx4=0.0, pdy3=0.5, pey3=0.0,
                 pey4=0.0, pey5=0.0, pky3=0.3, pky4=2.0, pky5=0.0, pky6=1.0, pky7=0.0, ppy1=-0.5, ppy2=0.0,
                 ppy3=-0.2, ppy4=0.1, ppy5=0.0, pvy3=0.2, pvy4=0.0, pressure=242000.0, nominal_pressure=220000.0)
    p = np.concatenate([ARR, [extra[n] for n in MF61_EXTRA]])
    g = math.sin(0.05)
    fx, fy = mf61_pure(0.1, 0.05, p, 1.0, 3000.0, 3000.0, g)
    assert fy == pytest.approx(-1786.85, abs=0.01)
    assert fx == pytest.approx(2931.59, abs=0.01)
    thrust = mf61_pure(0.0, 0.0, p, 1.0, 3000.0, 3000.0, g)[1]
    assert thrust == pytest.approx(149.88, abs=0.01)
    assert mf61_pure(0.0, 0.0, p, 1.0, 3000.0, 3000.0, -g)[1] == pytest.approx(-thrust)   # leaning right: right
    # with no camber and the nominal pressure it is the 1996 form exactly
    neutral = np.concatenate([ARR, [0.0] * 12 + [2.0] + [0.0] * 10 + [220000.0, 220000.0]])
    assert mf61_pure(0.1, 0.05, neutral, 1.0, 6000.0, 3000.0, 0.0) == mf96_pure(0.1, 0.05, ARR, 1.0, 6000.0, 3000.0)


FAMILY_NAMES = ["reference", "simple", "mf96", "mf61", "fgear", "chaos", "avs"]


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_every_family_closes_total_angular_momentum_in_flight(family):
    """In the air, whatever the inputs, the body's, wheels' and engine's angular momentum adds up to what it
    was (a drift under 1e-9 of it per second): no family's parts make or lose spin. (Massless wheels: with the
    wheels' own mass the ledger's H_total does not close in flight, 1.9 % in 2 s; docs/physics.md §7.2.)"""
    from sim.lab import families as models
    from sim.model.world import Surface
    from sim.model.world import World
    car = massless(models.variant(sim.load_vehicle("hatchback"), family))
    s = sim.Simulation(car, World("void", [Surface("asphalt", 1.0)]), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, 100.0), speed=25.0)
    s.state.angular_velocity[:] = (0.4, -0.7, 1.1)
    s.step(sim.Controls())
    h0 = s.telemetry.H_total.copy()
    t = np.arange(480) / 240.0
    s.run(np.column_stack([np.where(np.sin(3 * t) > 0, 1.0, -0.6), (np.sin(5 * t) > 0.6).astype(float),
                           np.sin(2 * t), (np.sin(1.3 * t) > 0.8).astype(float)]))
    assert np.linalg.norm(s.telemetry.H_total - h0) / np.linalg.norm(h0) / 2.0 < 1e-9


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_every_family_gives_the_same_physics_at_any_frame_rate_and_never_a_negative_load(family):
    """The same inputs at 30 and 144 frames a second end in bit-identical states (the fixed step), and on
    the proving ground's bumps and curbs no wheel's load is ever negative; an airborne wheel has none."""
    import math as m

    from app.session import Session
    from sim.lab import families as models
    car = models.variant(sim.load_vehicle("hatchback"), family)
    rng = np.random.default_rng(5)
    n = 480
    trace = np.column_stack([np.clip(rng.normal(0.7, 0.3, n), -1, 1), np.clip(rng.normal(0.0, 0.3, n), 0, 1),
                             np.sin(np.arange(n) / 40.0), np.zeros(n)])
    hashes = []
    for fps in (30, 144):
        session = Session(car, sim.load_world("proving_ground"), dt=1 / 240, substeps=2)
        session.place((25.0, 6.0, sim.rest_com_height(car)), m.pi / 2)      # toward the curbs
        k, loads = 0, []
        while k < n:
            def controls(dt):
                nonlocal k
                row = trace[min(k, n - 1)]
                k += 1
                return sim.Controls(*row)
            session.frame(1.0 / fps, controls)
            tel = session.sim.telemetry
            loads.append(np.asarray(tel.Fz, dtype=float).copy())
            assert np.all(np.asarray(tel.Fz)[np.asarray(tel.grounded) < 0.5] == 0.0)
        hashes.append((session.sim.steps, session.sim.state_hash()) if session.sim.steps == n else None)
        assert min(float(np.min(x)) for x in loads) >= 0.0
    assert hashes[0] is not None and hashes[0] == hashes[1]


def test_the_chaos_wheel_requests_torque_over_radius_and_scales_back_onto_the_blended_load():
    """Request (T_drive - T_brake) / rho: 300 N m on 0.3 m is 1000 N; braking 900 N m while rolling forward
    -3000 N; all but still, the brake only holds against the drive (no force of its own). With the lateral
    -ca alpha = -4000 N and the request 3000 N against mu Fz_tire = 1.0 x (0.5 x 2000 + 0.5 x 4000) = 3000 N
    (load_ratio 0.5, load 2000 N, static 4000 N), both are scaled by 3000 / 5000 = 0.6: 1800 N and -2400 N,
    and the wheel, cut back, spins up by h (T - rho Fx) / Iw instead of rolling with the ground (which turns it
    toward the ground's speed at most as fast as the grip and the torques can)."""
    from sim.kernel import tables as T
    from sim.kernel.tire.chaos import chaos_request
    from sim.kernel.tire.chaos import chaos_wheel
    assert chaos_request(300.0, 0.0, 0.3, 10.0) == (pytest.approx(1000.0), 0.0)
    assert chaos_request(0.0, 900.0, 0.3, 10.0)[0] == pytest.approx(-3000.0)
    assert chaos_request(100.0, 900.0, 0.3, 0.0)[0] == 0.0
    wp = np.zeros((1, 4, T.WP_N))
    ws = np.zeros((1, 4, T.W_N))
    wp[0, 0, T.WP_LOAD_RATIO], wp[0, 0, T.WP_FZ_STATIC], wp[0, 0, T.WP_FRICTION_ON] = 0.5, 4000.0, 1.0
    ws[0, 0, T.W_VX], ws[0, 0, T.W_FY_RAW], ws[0, 0, T.W_FZ], ws[0, 0, T.W_MU] = 10.0, -4000.0, 2000.0, 1.0
    ws[0, 0, T.W_TX], ws[0, 0, T.W_BY] = 1.0, 1.0
    h, iw, omega = 1 / 480, 1.2, 10.0 / 0.3
    omega_next, t_brake = chaos_wheel(0, 0, wp, ws, omega, 900.0, 0.0, 0.3, iw, h)
    assert ws[0, 0, T.W_FX] == pytest.approx(1800.0) and ws[0, 0, T.W_FY] == pytest.approx(-2400.0)
    assert ws[0, 0, T.W_GRIP_SCALE] == pytest.approx(0.6)
    assert omega_next == pytest.approx(omega + h * (900.0 - 0.3 * 1800.0) / iw)
    ws[0, 0, T.W_FY_RAW] = -1000.0                               # within the budget: it rolls with the ground,
    omega_next, _ = chaos_wheel(0, 0, wp, ws, omega + 1.5, 300.0, 0.0, 0.3, iw, h)   # turned by the ground at most
    assert omega_next == pytest.approx(10.0 / 0.3) and ws[0, 0, T.W_FX] == pytest.approx(1000.0)
    # (mu Fz_tire rho + |T|) h / Iw = (3000 x 0.3 + 300) / 480 / 1.2 = 2.0833 rad/s a substep: 3 rad/s off takes two
    omega_next, _ = chaos_wheel(0, 0, wp, ws, omega + 3.0, 300.0, 0.0, 0.3, iw, h)
    assert omega_next == pytest.approx(omega + 3.0 - 1200.0 / 480.0 / 1.2)


def test_a_chaos_car_brakes_at_the_peak_and_coasts_without_its_wheels_inertia():
    """The family's two signatures: its friction is the peak's even when sliding, so a locked stop without
    ABS takes v^2 / (2 mu g) (within 1 %); and its longitudinal force is the torque over the radius with the
    wheel rolling by kinematics, so coasting it decelerates by F / m, not F / (m + sum Iw / r^2): 4.4 %
    more than the reference's coast-down figure for the hatchback."""
    from sim.lab import families as models
    car = models.variant(sim.load_vehicle("hatchback"), "chaos")
    r = M.braking(car, abs_on=False)
    assert r.value("time with a wheel locked") > 1.0
    assert r.value("stopping distance") == pytest.approx(r.value("ideal distance v^2 / (2 mu g)"), rel=0.01)
    coast = M.coast_down(car)
    inertia = sum(t.wheel_inertia / t.radius ** 2 for t in (car.front_tire,) * 2 + (car.rear_tire,) * 2)
    ratio = (car.chassis.mass + inertia) / car.chassis.mass
    assert coast.value("deceleration at 25 m/s") / coast.value("expected") == pytest.approx(ratio, rel=0.01)


def test_the_avs_slips_follow_their_targets_over_time_and_shape_the_forces():
    """AVS-style: a slip steps toward its target by min(1, h / tau) of the gap each substep: from 0 toward
    1 with h / tau = 0.1, after 10 substeps 1 - 0.9^10 = 0.651322. Targets: longitudinal T / (Fz rho mu_x)
    = 450 / (3000 x 0.3 x 1.0) = 0.5; lateral at speed alpha / peak = 0.07 / 0.14 = 0.5, at rest the sign
    of the sideways speed (0.02 m/s over the 0.05 m/s ramp: 0.4), halfway at half the blend speed. Forces:
    (0.5, 0.5) is inside the unit circle, so Fx = 3000 x 1.0 x 0.5 = 1500 N and Fy = -3000 x 0.9 x sqrt(0.5)
    = -1909.19 N; (0.8, 0.8) is normalised to (0.707107, 0.707107) first: 2121.32 and
    -3000 x 0.9 x sqrt(0.707107) = -2270.42 N."""
    from sim.kernel.tire.avs import avs_follow
    from sim.kernel.tire.avs import avs_forces
    from sim.kernel.tire.avs import avs_targets
    s = 0.0
    for _ in range(10):
        s = avs_follow(s, 1.0, 0.005, 0.05)
    assert s == pytest.approx(1.0 - 0.9 ** 10, abs=1e-12)
    assert avs_follow(0.2, 1.0, 0.1, 0.05) == 1.0                    # a substep longer than tau lands on it
    sx, sy = avs_targets(450.0, 3000.0, 0.3, 1.0, 0.07, 20.0, 0.5, 0.14, 3.0)
    assert (sx, sy) == (pytest.approx(0.5), pytest.approx(0.5))
    assert avs_targets(0.0, 3000.0, 0.3, 1.0, 0.07, 0.0, 0.02, 0.14, 3.0)[1] == pytest.approx(0.4)
    assert avs_targets(0.0, 3000.0, 0.3, 1.0, 0.07, 1.5, 0.02, 0.14, 3.0)[1] == pytest.approx(0.5 * 0.4 + 0.5 * 0.5)
    fx, fy = avs_forces(0.5, 0.5, 3000.0, 1.0, 0.9)
    assert fx == pytest.approx(1500.0) and fy == pytest.approx(-1909.19, abs=0.01)
    fx, fy = avs_forces(0.8, 0.8, 3000.0, 1.0, 0.9)
    assert fx == pytest.approx(2121.32, abs=0.01) and fy == pytest.approx(-2270.42, abs=0.01)
    assert avs_forces(0.3, -0.2, 0.0, 1.0, 0.9) == (0.0, 0.0)       # no load, no force


def test_the_avs_suspension_converts_its_units_and_supports_past_full_compression():
    """AVS gives its spring in N/mm, damping in N s/mm and travel in cm: 35 N/mm is k = 35000 N/m, 2.5 N s/mm
    is c = 2500 N s/m, 25 cm of travel from l0 = 0.40 m puts full compression at l_min = 0.15 m, and its
    over-compression support of 350 N/mm pushes 3500 N per cm past it. At rest each corner sags F / k."""
    from sim.kernel import tables as T
    from sim.model.pack import pack_vehicle
    car = sim.load_vehicle("hatchback")
    for axle in ("front_suspension", "rear_suspension"):
        car = sim.with_value(car, f"{axle}.model", "avs")
    row, wheels, hull = np.zeros(T.VP_N), np.zeros((4, T.WP_N)), np.zeros((14, 3))
    pack_vehicle(car, row, wheels, hull, hull_friction_limit=sim.advisor.hull_friction_limit(car),
                 hull_normal_lambda=sim.advisor.hull_normal_mode(car)[0],
                 suspension_modes=sim.advisor.suspension_modes(car, 9.81), gravity=9.81)
    sus = car.front_suspension
    assert wheels[0, T.WP_K] == 35000.0 and wheels[0, T.WP_C] == 2500.0 and wheels[0, T.WP_C_REBOUND] == 2500.0
    assert wheels[0, T.WP_LMIN] == pytest.approx(min(sus.l0, sus.l_max) - 0.25)
    assert wheels[0, T.WP_STOP_K] == 350000.0
    r = M.settle(car)
    assert r.passed
    share = car.chassis.mass * sim.GRAVITY * (car.chassis.com_x - car.rear_axle.x) / car.wheelbase / 2
    assert r.value("sag front") == pytest.approx(share / 35000.0 * 1000.0, rel=0.02)


def test_fgear_slips_start_from_the_speed_difference_and_are_clipped_at_low_speed():
    """kappa = (rho omega - vx) / (|vx| + eps), alpha = atan(vy / (|vx| + eps)): rho 0.3 m, omega 40 rad/s,
    vx 10 m/s, vy 1 m/s, eps 1 m/s -> (12 - 10) / 11 = 0.181818 and atan(1 / 11) = 0.090660 rad; at 0.1 m/s
    with omega 10 and vy 2 they would be 2.64 and 1.07 rad: clipped to 1 and 45 degrees."""
    from sim.kernel.tire.slip import slip_fgear
    k, a = slip_fgear(0.3, 40.0, 10.0, 1.0, 1.0)
    assert k == pytest.approx(2.0 / 11.0) and a == pytest.approx(math.atan(1.0 / 11.0))
    assert slip_fgear(0.3, 10.0, 0.1, 2.0, 1.0) == (1.0, pytest.approx(math.pi / 4))
    assert slip_fgear(0.3, 0.0, 0.1, -2.0, 1.0) == (pytest.approx(-0.1 / 1.1), pytest.approx(-math.pi / 4))


@pytest.mark.slow
def test_the_chaos_wheel_on_a_lateral_curve_corners_like_the_reference():
    """Chaos offers a cornering stiffness or a lateral slip curve. On the presets' Magic Formula lateral
    curve the torque-request wheel reaches the reference's circle limit within 1.5 %: its lower limit with
    the stiffness (0.66 g) comes from that linear lateral law, not from the torque request."""
    from sim.lab import families as models
    car = sim.load_vehicle("hatchback")
    chaos = models.variant(car, "chaos")
    for axle in ("front_tire", "rear_tire"):
        chaos = sim.with_value(chaos, f"{axle}.chaos_lateral", "curve")
    assert M.constant_radius(chaos).value("lateral limit") == pytest.approx(
        M.constant_radius(car).value("lateral limit"), rel=0.015)


def test_the_one_go_reads_give_the_named_views_numbers():
    """`telemetry.wheel_lists` and `state.body_list` (what the app reads every step) hold exactly what
    the named views hold, for each vehicle of a batch."""
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2, n_vehicles=3)
    s.reset(position=np.array([[0.0, 4.0 * k, sim.rest_com_height(car)] for k in range(3)]), speed=10.0)
    for _ in range(60):
        s.step(sim.Controls(throttle=np.array([0.2, 0.5, 0.8]), steer=np.array([-0.3, 0.0, 0.4])))
    names = ("Fz", "kappa", "alpha", "grounded", "steer", "omega")
    for v in range(3):
        lists = s.telemetry.wheel_lists(names, v)
        for name, values in zip(names, lists):
            assert values == getattr(s.telemetry, name)[v].tolist()
        st = s.state
        assert s.state.body_list(v) == [*st.position[v], *st.orientation[v], *st.velocity[v],
                                        *st.angular_velocity[v]]


def test_the_implicit_wheel_update_takes_fgears_own_slip_slope():
    """The implicit wheel update linearises the tire force in the spin, dFx/domega = dFx/dkappa dkappa/domega. With
    FGear's slip, kappa = (rho omega - vx) / (|vx| + vMin) clipped to +-1, dkappa/domega is rho / (|vx| + vMin)
    inside the clip and 0 past it (a difference quotient of slip_fgear says so), not rho / max(|vx|, vMin): a
    random set's 0.1 kg m^2 wheel on FGear slips overshot every substep and its tires made energy (4 of 16 drives
    at 1 substep; none now)."""
    from sim.kernel.tire.slip import fgear_slip_rate
    from sim.kernel.tire.slip import slip_fgear
    rho, vx, eps, d = 0.3, 2.0, 0.5, 1e-6
    for omega, rate in ((10.0, 1.0 / 2.5), (20.0, 0.0), (-3.0, 0.0), (7.0, 0.4)):   # |0.3 omega - 2| < 2.5 inside
        quotient = (slip_fgear(rho, omega + d, vx, 0.0, eps)[0] - slip_fgear(rho, omega, vx, 0.0, eps)[0]) / (rho * d)
        assert fgear_slip_rate(rho, omega, vx, eps) == pytest.approx(rate, abs=1e-12)
        assert quotient == pytest.approx(rate, abs=1e-6)
