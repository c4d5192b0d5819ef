"""Keyboard and gamepad events -> Controls, with ramps that depend on physics time only."""
import ctypes
import glob
import os

import pygame
import pytest

from app.input import Input
from app.input import load_bindings

DT = 1 / 240


@pytest.fixture(scope="module", autouse=True)
def pygame_events():
    pygame.display.init()
    from pygame._sdl2 import controller
    controller.init()
    yield
    pygame.display.quit()


def press(inp, key, down=True):
    inp.handle(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=key))


def posted(event_type, **kw):
    pygame.event.post(pygame.event.Event(event_type, **kw))
    return [e for e in pygame.event.get() if e.type == event_type]


def test_held_throttle_ramps_at_its_rate_per_second():
    inp = Input()
    rise = inp.b.rates["pedal_rise"]
    press(inp, pygame.K_UP)
    values = [inp.controls(DT).throttle for _ in range(24)]
    assert values[11] == pytest.approx(rise * 12 * DT)          # 12 steps = 0.05 s
    assert values[-1] == pytest.approx(min(1.0, rise * 24 * DT))
    press(inp, pygame.K_UP, down=False)
    fall = inp.b.rates["pedal_fall"]
    after = inp.controls(DT).throttle
    assert after == pytest.approx(max(0.0, values[-1] - fall * DT))


def test_ramp_depends_on_physics_steps_not_on_how_events_arrive():
    # the same 0.1 s of held steering gives the same steer whether it is read in 24 steps of one
    # frame or spread over frames: controls() is called once per physics step either way
    a, b = Input(), Input()
    press(a, pygame.K_LEFT)
    press(b, pygame.K_LEFT)
    for _ in range(24):
        a.controls(DT)
    for _ in range(3):                # three "frames" of eight steps, with unrelated events between
        for _ in range(8):
            b.controls(DT)
        b.handle(pygame.event.Event(pygame.MOUSEMOTION, rel=(3, 1), pos=(0, 0), buttons=(0, 0, 0)))
    assert a.steer == b.steer == pytest.approx(a.b.rates["steer_rate"] * 24 * DT)
    assert a.steer > 0.0                                          # left is positive


def test_engine_car_gear_keys_send_one_shift_request():
    inp = Input()
    press(inp, pygame.K_e)
    assert inp.controls(DT).shift == 1 and inp.controls(DT).shift == 0     # once, for one step
    press(inp, pygame.K_q)
    assert inp.controls(DT).shift == -1
    press(inp, pygame.K_F5)
    press(inp, pygame.K_F6)
    c = inp.controls(DT)
    assert c.abs and c.tc


def test_gears_and_one_shot_actions():
    inp = Input()
    inp.direct_gears = True
    assert inp.gear == "D"
    press(inp, pygame.K_w)
    for _ in range(100):
        c = inp.controls(DT)
    assert c.throttle == 1.0
    fired = []
    for key in (pygame.K_q, pygame.K_q):
        inp.handle(pygame.event.Event(pygame.KEYDOWN, key=key))
    assert inp.gear == "R" and inp.controls(DT).throttle == -1.0      # reverse drives backwards
    fired += inp.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_r))
    fired += inp.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_p))
    fired += inp.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_F1))
    assert fired == ["reset", "pause", "help"]
    press(inp, pygame.K_SPACE)
    assert inp.controls(DT).handbrake == 1.0


def test_posted_controller_events_map_to_controls():
    inp = Input()
    for e in posted(pygame.CONTROLLERAXISMOTION, instance_id=0, axis=pygame.CONTROLLER_AXIS_TRIGGERRIGHT, value=16384):
        inp.handle(e)
    for e in posted(pygame.CONTROLLERAXISMOTION, instance_id=0, axis=pygame.CONTROLLER_AXIS_LEFTX, value=32767):
        inp.handle(e)
    c = inp.controls(DT)
    assert c.throttle == pytest.approx(16384 / 32767)
    assert c.steer == pytest.approx(-1.0)                         # stick right = steer right
    dz = inp.b.rates["stick_deadzone"]
    for e in posted(pygame.CONTROLLERAXISMOTION, instance_id=0, axis=pygame.CONTROLLER_AXIS_LEFTX,
                    value=int(0.5 * dz * 32767)):
        inp.handle(e)
    assert inp.controls(DT).steer == 0.0                          # inside the deadzone
    for e in posted(pygame.CONTROLLERBUTTONDOWN, instance_id=0, button=pygame.CONTROLLER_BUTTON_Y):
        assert inp.handle(e) == ["reset"]


def sdl_library():
    here = os.path.join(os.path.dirname(pygame.__file__), "..", "pygame_ce.libs")
    libs = glob.glob(os.path.join(here, "libSDL2-2*")) or glob.glob(os.path.join(here, "libSDL2.so*"))
    if not libs:
        pytest.skip("pygame-ce's bundled SDL library was not found")
    return ctypes.CDLL(libs[0])


def test_virtual_pad_added_used_and_removed_mid_run():
    sdl = sdl_library()
    inp = Input()
    pygame.event.get()
    index = sdl.SDL_JoystickAttachVirtual(1, 6, 15, 0)            # SDL_JOYSTICK_TYPE_GAMECONTROLLER
    assert index >= 0
    for e in pygame.event.get():
        inp.handle(e)
    assert len(inp.pads) == 1 and "gamepad connected" in inp.messages[-1]
    sdl.SDL_JoystickOpen.restype = ctypes.c_void_p
    js = ctypes.c_void_p(sdl.SDL_JoystickOpen(index))
    sdl.SDL_JoystickSetVirtualAxis.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int16]
    sdl.SDL_JoystickSetVirtualAxis(js, pygame.CONTROLLER_AXIS_TRIGGERLEFT, 32767)
    sdl.SDL_JoystickUpdate()
    for e in pygame.event.get():
        inp.handle(e)
    assert inp.controls(DT).brake == pytest.approx(1.0)
    inp.rumble(0.8)                                                # must not fail on a pad without motors
    sdl.SDL_JoystickClose(js)
    sdl.SDL_JoystickDetachVirtual(index)
    for e in pygame.event.get():
        inp.handle(e)
    assert inp.pads == {} and "gamepad disconnected" in inp.messages[-1]
    assert inp.controls(DT).brake == 0.0                           # a lost pad releases its pedals


def test_bad_binding_names_file_and_key(tmp_path):
    import sim
    p = tmp_path / "b.toml"
    p.write_text('[keys]\nthrottle = ["upp"]\n')
    with pytest.raises(sim.ConfigError, match=r"b\.toml: keys\.throttle = 'upp' is not allowed"):
        load_bindings(p)
    p.write_text('[rates]\npedal_rise = -1\n')
    with pytest.raises(sim.ConfigError,
                       match=r"rates\.pedal_rise = -1 is not allowed; expected a number in \[0\.1, 100\]"):
        load_bindings(p)


def test_cruise_control_and_steering_hold_keep_a_steady_circle():
    """Accelerate, switch the cruise control on (K), steer left for 0.1 s and hold the wheel (H), let go
    of every key: the car then circles at the set speed, on a radius that stays put (v / yaw rate)."""
    import numpy as np

    import sim
    from render.mathx import quat_matrix
    inp = Input()
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=DT, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))

    def forward():
        return float(np.dot(s.state.velocity, quat_matrix(s.state.orientation)[:3, 0]))

    def drive(seconds):
        out = []
        for _ in range(int(round(seconds / DT))):
            s.step(inp.controls(DT, forward()))
            out.append((forward(), float(s.state.angular_velocity[2])))
        return np.array(out)
    press(inp, pygame.K_UP)
    drive(4.0)
    press(inp, pygame.K_k)                                  # cruise at the speed reached
    press(inp, pygame.K_UP, down=False)
    target = inp.cruise
    assert target is not None and target > 8.0
    press(inp, pygame.K_LEFT)
    drive(0.1)
    press(inp, pygame.K_h)                                  # hold the wheel where it is
    press(inp, pygame.K_LEFT, down=False)
    held = inp.steer
    drive(8.0)                                              # settle
    run = drive(10.0)
    assert inp.steer == held and 0.15 < held < 1.0
    speed, yaw = run[:, 0], run[:, 1]
    assert np.all(np.abs(speed - target) < 0.3)             # the cruise control holds the set speed
    radius = speed / yaw
    assert radius.max() / radius.min() < 1.02               # a steady circle
    press(inp, pygame.K_DOWN)                               # the brake ends the cruise control
    inp.controls(DT, forward())
    assert inp.cruise is None
