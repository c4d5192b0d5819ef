"""The driver's own aids and a replay (issue 32 item 3): a watched test drive or a branch replay takes the car
with the cruise control and the steering hold off and gives it back coasting, the wheel centred; and a shift
the driver asks for that does not happen is explained (item 5), through the session as the app wires it."""
import numpy as np
import pygame
import pytest

import sim
from app.input import Input
from app.session import Session
from sim.lab import drives as M


@pytest.fixture(scope="module", autouse=True)
def pygame_events():
    pygame.display.init()
    yield
    pygame.display.quit()


def key(inp, action, down=True):
    """Press (or release) the first key bound to `action`, as a pygame event."""
    code = inp.b.keys[action][0]
    return inp.handle(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=code))


def drive(s, inp, seconds):
    """Frames of 1/60 s with the input's controls, as the window runs them."""
    for _ in range(int(round(seconds * 60))):
        s.frame(1 / 60, lambda dt: inp.controls(dt, s.forward_speed()))


def with_aids_on(s, inp):
    """Drive off by hand, set the cruise control at the speed reached and hold the steering a little left."""
    key(inp, "throttle")
    drive(s, inp, 2.0)
    key(inp, "throttle", down=False)
    key(inp, "cruise")
    key(inp, "steer_left")
    drive(s, inp, 0.1)
    key(inp, "steer_left", down=False)
    key(inp, "steer_hold")
    drive(s, inp, 0.25)
    assert inp.cruise is not None and inp.cruise > 5.0 and inp.steer_hold and inp.steer > 0.1


def handed_back_neutral(s, inp):
    """The first controls after the hand-back, no key held: no pedal, the wheel centred, no aid of the driver's."""
    assert not s.replaying and not s.replay_drives and not inp.replay_drives
    assert inp.cruise is None and not inp.steer_hold
    c = inp.controls(s.sim.dt, s.forward_speed())
    assert (c.throttle, c.brake, c.steer, c.shift) == (0.0, 0.0, 0.0, 0)
    assert any(m.startswith("the replay has ended: the car is yours") for m in inp.messages)


def test_a_watched_drive_takes_the_car_without_the_drivers_aids_and_hands_it_back_at_rest():
    """Cruise control and steering hold set by hand; "watch it" on the braking drive (100 km/h to a stop): they
    are off from its first step, pressing them during it only says why, and at its end the car is the driver's
    with no pedal and the wheel centred (before: the cruise control pulled the stopped car off to its speed
    with the wheel held left)."""
    car = sim.load_vehicle("hatchback")
    s = Session(car, sim.World.flat(), substeps=2)
    inp = Input()
    inp.follow(s)
    with_aids_on(s, inp)
    braking = M.run("braking", car)
    assert s.watch_drive(braking) == ""
    assert inp.replay_drives and inp.cruise is None and not inp.steer_hold and inp.steer == 0.0
    assert "the replay drives the car; cruise control and steering hold off" in inp.messages
    key(inp, "cruise")                                       # refused while the replay drives, with a word
    assert inp.cruise is None and inp.messages[-1].startswith("cruise control: the replay drives the car")
    n = len(braking.log.inputs.for_vehicle(0)[1])
    while s.replaying:
        drive(s, inp, 1.0)
    assert s.replay_pos == n
    handed_back_neutral(s, inp)
    assert np.linalg.norm(s.sim.state.velocity) < 0.5        # the drive's own end: stopped, nothing pulls it away
    before = s.sim.state.position.copy()
    drive(s, inp, 1.0)
    assert np.linalg.norm(s.sim.state.position - before) < 0.05


def test_a_branch_replay_starts_without_the_drivers_aids_and_hands_the_car_back_at_rest():
    """Rewound 1 s with the cruise control and the steering hold on, a branch replay drives the recorded inputs
    (those of the aids included) with the aids themselves off, and hands back coasting with the wheel centred."""
    s = Session(sim.load_vehicle("hatchback"), sim.World.flat(), substeps=2)
    inp = Input()
    inp.follow(s)
    with_aids_on(s, inp)
    drive(s, inp, 1.0)
    s.scrub_to(round(1.0 / s.sim.dt))
    assert s.branch_replay() == ""
    assert inp.replay_drives and inp.cruise is None and not inp.steer_hold
    steps = s.sim.steps
    while s.replaying:
        drive(s, inp, 0.5)
    assert s.sim.steps == steps + round(1.0 / s.sim.dt)
    handed_back_neutral(s, inp)


def shift_session(mode="auto"):
    car = sim.with_value(sim.load_vehicle("hatchback"), "gearbox.mode", mode)
    s = Session(car, sim.World.flat(), substeps=2)
    inp = Input()
    inp.follow(s)
    drive(s, inp, 0.1)
    return s, inp


def test_a_shift_up_the_automatic_takes_back_is_explained():
    """Standing in first, E asks for second: the automatic gearbox shifts up, then, its hold over (shift_hold
    after the shift), shifts back to first as the engine idles below its downshift speed: the driver is told."""
    s, inp = shift_session()
    assert s.sim.state.gear == 1
    key(inp, "gear_up")
    drive(s, inp, 0.5)
    assert s.sim.state.gear == 2 and not inp.messages
    box = s.sim.vehicle.gearbox
    drive(s, inp, box.shift_hold + box.shift_time)
    assert s.sim.state.gear == 1
    assert inp.messages[-1].startswith("shift up (E): the automatic gearbox went back from 2 to 1;")
    assert "gearbox.mode = manual" in inp.messages[-1]


def test_a_shift_in_the_manual_gearbox_is_kept_and_one_past_the_top_gear_is_explained():
    s, inp = shift_session("manual")
    top = len(s.sim.vehicle.gearbox.ratios)
    for _ in range(top - 1):
        key(inp, "gear_up")
        drive(s, inp, 0.5)
    assert s.sim.state.gear == top and not inp.messages           # each shift happened: nothing to say
    key(inp, "gear_up")
    drive(s, inp, 0.1)
    assert inp.messages == [f"shift up (E): already in the top gear ({top})"]
    key(inp, "gear_down")
    s.physics_step(lambda dt: inp.controls(dt))                    # the shift starts: the clutch opens
    key(inp, "gear_down")                                          # while it is under way
    s.physics_step(lambda dt: inp.controls(dt))
    assert inp.messages[-1] == f"shift down (Q): a shift to {top - 1} is under way; ask again once it is done"
