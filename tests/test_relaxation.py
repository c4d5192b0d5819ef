"""The relaxation length rolled off at the contact patch's speed (docs/physics.md §16): a car braked to a stop
while sliding sideways. Without relaxation the locked tires' sliding force stops it in d0; with a relaxation
length lambda the force builds over the distance travelled, dF/ds = (F_steady - F) / lambda, so its
deceleration is a_max (1 - exp(-s / lambda)) and the energy balance v0^2 / 2 = a_max (d - lambda (1 -
exp(-d / lambda))) gives d = d0 + lambda (1 - exp(-d / lambda)). Seed 001's literal form rolls lambda off at
|vx|, which is 0 sideways: the force then builds in lambda / v_min seconds, however fast the car slides."""
import math

import pytest
from bodies import without_linkage

import sim
from sim.kernel import tables as T

# the seed's wheel on an axis: with the preset's roll centres the contact also moves sideways as the body rolls
# (docs/physics.md §7.1), and the relaxed force, a spring in the carcass, gives back a few J of what it stores
HATCH = without_linkage(sim.load_vehicle("hatchback"))
V0 = 8.0          # m/s sideways


def relaxed(length: float, speed: str) -> sim.Vehicle:
    car = HATCH
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.relaxation_length", length)
        car = sim.with_value(car, f"{axle}.relaxation_speed", speed)
    return car


def braked_slide(car: sim.Vehicle, steps: int) -> sim.Simulation:
    """The car settled on its springs with the brakes on, then set sliding sideways at V0 (heading along x,
    sliding along y) and run `steps` more braked steps of 1/240 s."""
    s = sim.Simulation(car, sim.World.flat())
    s.reset(position=(0.0, 0.0, sim.spawn_height(car, 0.0, 0.0, 0.0, lambda x, y: 0.0)))
    for _ in range(240):
        s.step(sim.Controls(brake=1.0))
    s.tables.body_state[0, T.BS_VY] = V0
    for _ in range(steps):
        s.step(sim.Controls(brake=1.0))
    return s


def sideways_stop(car: sim.Vehicle) -> tuple[float, float]:
    """(the distance the braked car slides sideways from V0 to a stop (m), the energy its tires made (J))."""
    s = braked_slide(car, 0)
    b = s.tables.body_state[0]
    y0 = b[T.BS_PY]
    made0 = s.tables.body_telemetry[0, T.TB_TIRE_MADE]
    for _ in range(2400):
        s.step(sim.Controls(brake=1.0))
        if abs(b[T.BS_VY]) < 0.01:
            break
    return b[T.BS_PY] - y0, s.tables.body_telemetry[0, T.TB_TIRE_MADE] - made0


def test_a_relaxed_tire_sliding_sideways_builds_its_force_over_lambda_of_travel():
    d0, made = sideways_stop(relaxed(0.0, "contact"))
    assert made == 0.0
    for length in (0.5, 1.0):
        d, made = sideways_stop(relaxed(length, "contact"))
        expected = d0
        for _ in range(50):                                        # d = d0 + lambda (1 - exp(-d / lambda))
            expected = d0 + length * (1.0 - math.exp(-expected / length))
        assert d == pytest.approx(expected, rel=0.01) and made == 0.0
        literal, _ = sideways_stop(relaxed(length, "vx"))
        # seed 001's |vx|: the force builds in lambda / v_min = lambda / (1 m/s) seconds, while the car slides
        # about V0 lambda / (1 m/s) metres: far longer than lambda
        assert literal - d0 > 0.5 * V0 * length / HATCH.front_tire.v_min


def test_the_literal_form_is_noted_not_refused():
    report = sim.advisor.report(relaxed(0.5, "vx"), 1 / 240, 2)
    assert report.stable and any("relaxation_speed = \"vx\"" in n for n in report.notes)
    assert not any("relaxation_speed" in n for n in sim.advisor.report(relaxed(0.5, "contact"), 1 / 240, 2).notes)


def test_a_held_force_pushing_the_way_the_patch_slides_gives_back_at_most_what_the_carcass_stores():
    """Pacejka's deflection form: the carcass, a lateral spring k_y = C_alpha / lambda, holds F^2 / (2 k_y), and
    while its force pushes the way the patch slides it unwinds at the slide's own speed. Sliding sideways at V0
    with the brakes on, the tires' force builds against the slide; the slide then turns round at once: what the
    tires make (`TB_TIRE_MADE`, their force along the slide) is at most what the carcasses stored. The lag alone
    toward the friction-limited force gave back the held force over lambda of slide: 2785 J against 194 J stored."""
    from sim.model.handling import slip_stiffnesses
    length = 3.0
    car = relaxed(length, "contact")
    s = braked_slide(car, 72)                                      # 0.3 s: the force built against the slide
    b = s.tables.body_state[0]
    held = s.tables.wheel_state[0, :, T.WS_FY_LAG].copy()
    fz = s.tables.wheel_telemetry[0, :, T.W_FZ].copy()
    tires = (car.front_tire, car.front_tire, car.rear_tire, car.rear_tire)
    k_y = [slip_stiffnesses(t, t.nominal_load)[1] / t.nominal_load * f / length for t, f in zip(tires, fz)]
    stored = sum(f * f / (2.0 * k) for f, k in zip(held, k_y))
    assert stored > 50.0 and abs(held).min() > 500.0
    b[T.BS_VY] = -V0
    made0 = s.tables.body_telemetry[0, T.TB_TIRE_MADE]
    for _ in range(240):
        s.step(sim.Controls(brake=1.0))
    assert s.tables.body_telemetry[0, T.TB_TIRE_MADE] - made0 <= 1.05 * stored


def test_an_avs_lateral_slip_held_from_a_slide_the_other_way_does_not_push_the_car_along():
    """The AVS family's slips follow their targets over avs_slip_time (docs/models.md): a slip held from a slide
    the other way gave the full mu Fz pushing the way the patch now slides for that long. Sliding sideways at V0
    with the brakes on, then turned round at once: the car only slows (the held slip takes its target, which
    opposes the slide, at once); its energy never rises."""
    car = HATCH
    for axle in ("front_tire", "rear_tire"):
        car = sim.with_value(car, f"{axle}.model", "avs")
        car = sim.with_value(car, f"{axle}.avs_slip_time", 1.0)
    s = braked_slide(car, 120)
    b = s.tables.body_state[0]
    assert abs(s.tables.wheel_state[0, :, T.WS_SY]).min() > 0.1         # slips held against the slide
    b[T.BS_VY] = -V0
    e0 = s.watcher.energies(s.tables.body_state, s.tables.wheel_state)[0]
    for _ in range(240):
        s.step(sim.Controls(brake=1.0))
        assert s.watcher.energies(s.tables.body_state, s.tables.wheel_state)[0] <= e0 + 1.0
