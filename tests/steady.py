"""The standard steady-state roll and lateral load transfer of a car in a steady turn, by hand (docs/physics.md
§7.1 and §7.2), for tests/test_suspension_geometry.py and tests/test_unsprung.py."""
import math

import numpy as np

import sim
from sim.kernel.units import GRAVITY as G
from sim.model.geometry import ride_com_height


def steady_state(car: sim.Vehicle, ay: float) -> tuple[float, float, float]:
    """(body roll rad, front and rear lateral load transfer N) in a steady left turn at ay (m/s^2).

    Moments about the centre of mass's x axis with the body still (rolled by phi, right side down):
    - the sprung mass m_s (chassis.mass) at its height h_s (static ride, the tires deflected by their static
      load / k_t) turns its axle's share F_s = m_s ay b / L (front; a, b from the chassis's centre of mass, the
      yaw balance) about the roll axis: the springs and the bar carry K_s phi_s of it (x_right - x_left = t
      phi_s; Fs = k x + k_bar (x_i - x_j), so K_s = t^2 (k / 2 + k_bar)), the links F_s h_rc (each wheel's
      J = F_in h_rc / (t / 2)): Milliken RCVD ch. 18's per-axle form;
    - the unsprung masses' own lateral force 2 m_u ay at the wheel centres' height r_u goes straight to the tires
      (RCVD ch. 18): M_u = 2 m_u ay r_u;
    - each axle's tires carry the whole moment dFz t = K_s phi_s + F_s h_rc + M_u, with a roll stiffness of their
      own K_t = t^2 k_t / 2: phi = phi_s + dFz t / K_t on both axles (the body is rigid; the springs in series
      with the tires). Massless wheels (unsprung_mass 0): the tire as stiff as the ground, K_t infinite;
    - the sprung body's balance: K_s,f phi_s,f + K_s,r phi_s,r = m_s ay (h_s - h_ra) + ay sum Iw / r +
      m_s g lever phi, with the roll axis at h_ra = (b h_rc,f + a h_rc,r) / L: the wheels' spin momentum
      Iw omega (omega = v / r) turns with the yaw rate v / R, so the body supplies ay sum Iw / r about x
      (§12's ledger); the weight stands over contacts that the roll has moved sideways, a lever (h_s - h_ra -
      r) phi where a sphere's contact stays under its wheel's centre while the wheel leans with the body
      ((h_s - h_ra) phi for a disc, whose contact stays in the wheel's plane: Gillespie's W h1).
    Without the wheels' mass and the tires' compliance this is Gillespie's roll-rate form
      phi = (m ay (h - h_ra) + ay sum Iw / r) / (K_phi,f + K_phi,r - m g lever)."""
    m, L = car.chassis.mass, car.wheelbase
    a, b = car.front_axle.x - car.chassis.com_x, car.chassis.com_x - car.rear_axle.x
    axles = []
    for axle, sus, tire, share in ((car.front_axle, car.front_suspension, car.front_tire, b / L),
                                   (car.rear_axle, car.rear_suspension, car.rear_tire, a / L)):
        t = 2.0 * axle.half_track
        massless = sus.unsprung_mass <= 0.0
        deflection = 0.0 if massless else (m * G * share / 2.0 + sus.unsprung_mass * G) / sus.tire_k
        axles.append(dict(t=t, ks=t * t * (sus.k / 2.0 + sus.anti_roll),
                          compliance=0.0 if massless else 2.0 / (t * t * sus.tire_k),        # 1 / K_t
                          hrc=sus.roll_centre, fs=m * ay * share, defl=deflection,
                          mu=2.0 * sus.unsprung_mass * ay * (tire.radius - deflection), tire=tire))
    f, r = axles
    h = ride_com_height(car) - (b * f["defl"] + a * r["defl"]) / L
    h_ra = (b * f["hrc"] + a * r["hrc"]) / L
    sphere = car.front_suspension.query != "disc"
    lever = h - h_ra - ((b * f["tire"].radius + a * r["tire"].radius) / L if sphere else 0.0)
    spin = 2.0 * (f["tire"].wheel_inertia / f["tire"].radius + r["tire"].wheel_inertia / r["tire"].radius) * ay
    # unknowns (phi, phi_s,f, phi_s,r): phi = phi_s + (K_s phi_s + F_s h_rc + M_u) / K_t per axle, and the body
    rows, rhs = [], []
    for k, x in enumerate(axles):
        row = [1.0, 0.0, 0.0]
        row[1 + k] = -(1.0 + x["ks"] * x["compliance"])
        rows.append(row)
        rhs.append((x["fs"] * x["hrc"] + x["mu"]) * x["compliance"])
    rows.append([-m * G * lever, f["ks"], r["ks"]])
    rhs.append(m * ay * (h - h_ra) + spin)
    phi, phi_f, phi_r = np.linalg.solve(np.array(rows), np.array(rhs))
    front, rear = ((x["ks"] * p + x["fs"] * x["hrc"] + x["mu"]) / x["t"] for x, p in zip(axles, (phi_f, phi_r)))
    assert math.isfinite(phi)
    return float(phi), float(front), float(rear)


def with_wheels(car: sim.Vehicle, m_u: float, k_t: float | None = None, c_t: float | None = None) -> sim.Vehicle:
    """`car` with wheels of m_u kg each (0: massless) and, if given, tires of k_t N/m and c_t N s/m, the chassis
    lighter or heavier by as much as the wheels change: the same car (sim.total_mass), its mass split anew into
    sprung and unsprung."""
    total = sim.total_mass(car)
    for axle in ("front", "rear"):
        car = sim.with_value(car, f"{axle}_suspension.unsprung_mass", m_u)
        for key, value in (("tire_k", k_t), ("tire_c", c_t)):
            if value is not None:
                car = sim.with_value(car, f"{axle}_suspension.{key}", value)
    return sim.with_value(car, "chassis.mass", total - 4.0 * m_u)
