"""Every worked number of spec 000, computed by the same stage functions the simulation runs."""
import math

import pytest

from sim.kernel.body import integrate_body
from sim.kernel.contact import contact_point
from sim.kernel.contact import rolling_arm
from sim.kernel.contact import support_radius
from sim.kernel.contact import suspension_length
from sim.kernel.contact import tire_frame
from sim.kernel.query import QUERY_DISC
from sim.kernel.query import QUERY_SPHERE
from sim.kernel.spin import wheel_spin
from sim.kernel.suspension import compression
from sim.kernel.suspension import compression_rate
from sim.kernel.suspension import suspension_force
from sim.kernel.tire import MODEL_LINEAR
from sim.kernel.tire.limit import combined_limit
from sim.kernel.tire.magic import raw_force
from sim.kernel.tire.slip import slip

UP = (0.0, 0.0, 1.0)
DOWN = (0.0, 0.0, -1.0)


def linear_tire(kappa, alpha, ck=10000.0, ca=10000.0, mu=1.0, fz=2000.0):
    return raw_force(MODEL_LINEAR, kappa, alpha, ck, ca, 0, 0, 0, 0, 0, 0, 0, 0, mu, fz)


def test_slope_geometry_l_is_half_a_metre():
    # s = 0.8, r = 0.24, a = 0.8: l = s - r/a = 0.8 - 0.3 = 0.5 m
    grounded, l_raw, l = suspension_length(0.8, 1.0 / 0.8, 0.24, 0.0, 1.0)
    assert grounded
    assert l_raw == pytest.approx(0.5, abs=1e-15)
    assert l == pytest.approx(0.5, abs=1e-15)


def test_flat_case_gives_2400_newtons():
    # s = 0.8, r = 0.3, l0 = 0.6 -> x = 0.1; k = 20000, c = 2000, vn = -0.2 -> xdot = 0.2, Fs = Fz = 2400
    grounded, l_raw, l = suspension_length(0.8, 1.0, 0.3, 0.0, 1.0)
    x = compression(0.6, l)
    assert x == pytest.approx(0.1, abs=1e-12)
    c_pt, q_pt = (0.0, 0.0, 0.3), (0.0, 0.0, 0.0)
    xdot = compression_rate(1.0, -0.2, 0.0, (0.0, 0.0, 0.0), c_pt, q_pt)
    assert xdot == pytest.approx(0.2, abs=1e-15)
    fs, fz = suspension_force(20000.0, 2000.0, x, xdot, 0.0, l_raw, 1.0, 0.0)
    assert fs == pytest.approx(2400.0, abs=1e-9)
    assert fz == pytest.approx(2400.0, abs=1e-9)


def test_slope_case_without_damping():
    # the slope example: l = 0.5 (s = 0.8, r = 0.24, a = 0.8), l0 = 0.6, k = 20000, c = 0
    # -> Fs = 2000 N along -d and Fz = Fs a = 1600 N
    _, l_raw, l = suspension_length(0.8, 1.0 / 0.8, 0.24, 0.0, 1.0)
    fs, fz = suspension_force(20000.0, 0.0, compression(0.6, l), 0.0, 0.0, l_raw, 0.8, 0.0)
    assert fs == pytest.approx(2000.0, abs=1e-9)
    assert fz == pytest.approx(1600.0, abs=1e-9)


def test_bump_stop_is_ten_times_k_below_l_min():
    # l_raw 0.01 m below l_min: extra 10 k * 0.01 on top of k x
    fs, _ = suspension_force(20000.0, 0.0, 0.3, 0.0, 0.1, 0.09, 1.0, 0.0)
    assert fs == pytest.approx(20000.0 * 0.3 + 10 * 20000.0 * 0.01, abs=1e-9)


def test_airborne_beyond_l_max():
    grounded, _, _ = suspension_length(1.6, 1.0, 0.3, 0.1, 1.0)   # l_raw = 1.3 > 1.0
    assert not grounded


def test_slip_and_combined_limit():
    # vx = 5, r omega = 6 -> kappa = 0.2; vy = 5 tan(0.1) -> alpha = 0.1
    kappa, alpha = slip(0.3, 20.0, 5.0, 5.0 * math.tan(0.1), 1.0)
    assert kappa == pytest.approx(0.2, abs=1e-12)
    assert alpha == pytest.approx(0.1, abs=1e-12)
    fx_raw, fy_raw = linear_tire(kappa, alpha)
    assert (fx_raw, fy_raw) == (pytest.approx(2000.0, abs=1e-8), pytest.approx(-1000.0, abs=1e-8))
    fx, fy, scale = combined_limit(fx_raw, fy_raw, 1.0, 2000.0)
    assert fx == pytest.approx(1788.85, abs=0.005)
    assert fy == pytest.approx(-894.43, abs=0.005)
    # the resultant sits exactly on the friction circle; clamping each axis to 2000 would not
    assert math.hypot(fx, fy) == pytest.approx(2000.0, rel=1e-12)
    assert scale == pytest.approx(2000.0 / math.hypot(2000.0, 1000.0), rel=1e-12)


def test_zero_load_gives_zero_force_and_zero_raw_gives_unit_scale():
    fx, fy, scale = combined_limit(500.0, -300.0, 1.0, 0.0)
    assert (fx, fy) == (0.0, 0.0)
    assert combined_limit(0.0, 0.0, 1.0, 1000.0) == (0.0, 0.0, 1.0)


def test_slip_uses_v_min_at_rest():
    kappa, alpha = slip(0.3, 1.0, 0.0, 0.5, 1.0)
    assert kappa == pytest.approx(0.3)          # (0.3 * 1 - 0) / max(0, 1)
    assert alpha == pytest.approx(math.atan2(0.5, 1.0))


@pytest.mark.parametrize("omega, t_drive, t_brake, expected", [
    (1.0, 0.0, 20.0, 0.0),     # omega 1 -> 0: stops exactly, does not reverse
    (-1.0, 0.0, 20.0, 0.0),    # -1 -> 0
    (0.0, 30.0, 20.0, 1.0),    # from rest, drive 30 against brake 20 -> +1
])
def test_brake_rule(omega, t_drive, t_brake, expected):
    omega_next, t_actual = wheel_spin(omega, t_drive, t_brake, 0.3, 0.0, 1.0, 0.1)
    assert omega_next == pytest.approx(expected, abs=1e-12)
    # back-computed brake torque: omega* - omegaNext over dt, at most Tb
    omega_star = omega + 0.1 * t_drive / 1.0
    assert t_actual == pytest.approx((omega_star - omega_next) / 0.1, abs=1e-9)
    assert abs(t_actual) <= t_brake + 1e-9


def test_brake_that_stops_early_reports_less_than_its_maximum():
    _, t_actual = wheel_spin(1.0, 0.0, 20.0, 0.3, 0.0, 1.0, 0.1)
    assert t_actual == pytest.approx(10.0)      # only 10 N m were needed to stop 1 rad/s in 0.1 s


def test_single_wheel_chain():
    # s = 0.8, r = 0.3, l0 = 0.6, k = 20000, vertical suspension, xdot = 0 -> Fz = 2000
    _, l_raw, l = suspension_length(0.8, 1.0, 0.3, 0.0, 1.0)
    fs, fz = suspension_force(20000.0, 0.0, compression(0.6, l), 0.0, 0.0, l_raw, 1.0, 0.0)
    assert fz == pytest.approx(2000.0, abs=1e-9)
    # tire frame on flat ground with the axle along +y: t forward, rho = r
    u = (0.0, 1.0, 0.0)
    ok, t, b = tire_frame(u, UP)
    assert ok and t == pytest.approx((1.0, 0.0, 0.0)) and b == pytest.approx((0.0, 1.0, 0.0))
    c_pt = (0.0, 0.0, 0.3)
    q_pt = contact_point(QUERY_SPHERE, c_pt, UP, u, 0.3)
    rho = rolling_arm(u, q_pt, c_pt, t)
    assert rho == pytest.approx(0.3, abs=1e-15)
    # vx = 5, omega = 20, mu = 1, Ck = 10000 -> kappa = 0.2, Fx = 2000 (inside the budget mu Fz = 2000)
    kappa, alpha = slip(rho, 20.0, 5.0, 0.0, 1.0)
    fx, fy, scale = combined_limit(*linear_tire(kappa, alpha, fz=fz), 1.0, fz)
    assert fx == pytest.approx(2000.0, abs=1e-8) and fy == 0.0 and scale == pytest.approx(1.0)
    # Iw = 1, dt = 0.01, no drive or brake: omega 20 -> 14
    omega_next, _ = wheel_spin(20.0, 0.0, 0.0, rho, fx, 1.0, 0.01)
    assert omega_next == pytest.approx(14.0, abs=1e-9)
    # a 1000 kg body gains 0.02 m/s forward
    _, _, vel, _ = integrate_body((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (5.0, 0.0, 0.0), (0.0, 0.0, 0.0),
                                  (fx, 0.0, 0.0), (0.0, 0.0, 0.0), 1000.0, (1.0, 1.0, 1.0), 0.01)
    assert vel[0] - 5.0 == pytest.approx(0.02, abs=1e-12)
    # next step recomputes the slip from omega = 14: kappa = (0.3 * 14 - 5.02) / 5.02 < 0
    kappa2, _ = slip(rho, omega_next, vel[0], 0.0, 1.0)
    assert kappa2 == pytest.approx((0.3 * 14.0 - 5.02) / 5.02, rel=1e-12)


@pytest.mark.parametrize("camber_deg", [5.0, 10.0, 20.0])
def test_camber_disc_versus_sphere(camber_deg):
    # flat ground n = z; the axle tilted by the camber: h = dot(n, u) = sin(camber)
    g = math.radians(camber_deg)
    r = 0.3
    u = (0.0, math.cos(g), math.sin(g))
    h = math.sin(g)
    # disc: rEff = r sqrt(1 - h^2); sphere: rEff = r
    assert support_radius(QUERY_DISC, r, UP, u) == pytest.approx(r * math.sqrt(1 - h * h), rel=1e-14)
    assert support_radius(QUERY_SPHERE, r, UP, u) == r
    # with s = 0.8 on flat ground the sphere lifts the centre higher (shorter l) than the disc
    _, l_sphere, _ = suspension_length(0.8, 1.0, r, 0.0, 1.0)
    _, l_disc, _ = suspension_length(0.8, 1.0, support_radius(QUERY_DISC, r, UP, u), 0.0, 1.0)
    assert l_sphere == pytest.approx(0.5)
    assert l_disc == pytest.approx(0.8 - r * math.cos(g), rel=1e-14)
    ok, t, _ = tire_frame(u, UP)
    assert ok
    c_pt = (0.0, 0.0, 1.0)
    # disc: Q = C - r normalize(n - h u) -> rho = r;  sphere: Q = C - r n -> rho = r sqrt(1 - h^2)
    q_disc = contact_point(QUERY_DISC, c_pt, UP, u, r)
    q_sphere = contact_point(QUERY_SPHERE, c_pt, UP, u, r)
    assert rolling_arm(u, q_disc, c_pt, t) == pytest.approx(r, rel=1e-14)
    assert rolling_arm(u, q_sphere, c_pt, t) == pytest.approx(r * math.sqrt(1 - h * h), rel=1e-14)
    # the disc's contact point is its lowest rim point: C minus exactly rEff along n
    assert c_pt[2] - q_disc[2] == pytest.approx(r * math.cos(g), rel=1e-14)


def test_axle_parallel_to_normal_is_rejected():
    ok, _, _ = tire_frame((0.0, 0.0, 1.0), UP)
    assert not ok


def test_full_compression_rate_with_moving_normal_and_camber():
    # xdot = (rEffDot - dot(nDot, C - Q) - vn) / a, term by term
    a, vn, reff_dot = 0.9, -0.3, 0.01
    n_dot = (0.0, 0.2, 0.0)
    c_pt, q_pt = (0.0, 0.0, 0.3), (0.0, -0.05, 0.0)
    expected = (0.01 - (0.2 * 0.05) + 0.3) / 0.9
    assert compression_rate(1.0 / a, vn, reff_dot, n_dot, c_pt, q_pt) == pytest.approx(expected, rel=1e-14)
