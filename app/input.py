"""Keyboard and gamepad -> sim.Controls, plus the one-shot actions (reset, pause, camera, ...).

Events come in per frame; controls go out per physics step: `controls(dt)` ramps the keyboard pedals and
steering at rates per second times the fixed dt, so the ramps do not depend on the frame rate. Gamepads
use SDL's game-controller API (pygame._sdl2.controller): triggers for the pedals, the left stick for
steering (with a deadzone), buttons for the rest; pads can come and go while the app runs.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import pygame
from pygame._sdl2 import controller as sdl_controller

import sim
from config import CONFIG_DIR
from sim.model import files

CONTINUOUS = ("throttle", "brake", "steer_left", "steer_right", "handbrake", "clutch")
ONE_SHOT = ("gear_up", "gear_down", "abs", "tc", "esp", "reset", "pause", "step", "step_back", "slow_motion", "camera",
            "help", "overlay", "screenshot", "quit", "arrows", "steer_hold", "cruise", "map", "mute")
CRUISE_GAIN = 0.5          # throttle per m/s below the set speed
CRUISE_INTEGRAL = 0.25     # throttle per (m/s x s) below the set speed: holds a slope or a circle's drag
CRUISE_BRAKE_GAIN = 0.15   # brake per m/s above the set speed plus CRUISE_BRAKE_BAND
CRUISE_BRAKE_BAND = 1.0    # m/s over the set speed before the cruise control brakes
PAD_AXES = {"leftx": "CONTROLLER_AXIS_LEFTX", "lefty": "CONTROLLER_AXIS_LEFTY",
            "rightx": "CONTROLLER_AXIS_RIGHTX", "righty": "CONTROLLER_AXIS_RIGHTY",
            "lefttrigger": "CONTROLLER_AXIS_TRIGGERLEFT", "righttrigger": "CONTROLLER_AXIS_TRIGGERRIGHT"}
PAD_BUTTONS = {"a": "A", "b": "B", "x": "X", "y": "Y", "back": "BACK", "guide": "GUIDE", "start": "START",
               "leftstick": "LEFTSTICK", "rightstick": "RIGHTSTICK", "leftshoulder": "LEFTSHOULDER",
               "rightshoulder": "RIGHTSHOULDER", "dpup": "DPAD_UP", "dpdown": "DPAD_DOWN",
               "dpleft": "DPAD_LEFT", "dpright": "DPAD_RIGHT"}
GEARS = ("R", "N", "D")
RATE_RANGES = {"pedal_rise": (0.1, 100.0), "pedal_fall": (0.1, 100.0), "steer_rate": (0.1, 100.0),
               "steer_return": (0.1, 100.0), "stick_deadzone": (0.0, 0.9), "rumble": (0.0, 1.0),
               "rumble_full_slip": (0.01, 5.0)}


def gear_name(gear: int) -> str:
    """An engine car's gear as the HUD shows it: R, N, 1, 2, ..."""
    return {-1: "R", 0: "N"}.get(gear, str(gear))


def finite(x: float) -> float:
    """x, or 0 when it is NaN or infinite."""
    return float(x) if math.isfinite(x) else 0.0


@dataclass
class Bindings:
    keys: dict[str, list[int]]                 # action -> pygame key codes
    key_names: dict[str, list[str]]            # action -> names, for the help overlay
    pad_axes: dict[str, int]                   # throttle / brake / steer -> SDL axis
    pad_buttons: dict[str, list[int]]          # action -> SDL buttons
    pad_names: dict[str, list[str]]
    rates: dict[str, float] = field(default_factory=dict)


def load_bindings(path: Path | None = None) -> Bindings:
    """Read bindings TOML; anything wrong raises sim.ConfigError naming the file, key and value."""
    path = Path(path) if path else CONFIG_DIR / "bindings.toml"
    data = files.read_toml(path, "bindings")
    return files.build(path, "bindings", lambda: bindings_from_dict(data, str(path)))


def names_of(where: str, key: str, value) -> list[str]:
    """A binding's names: one text or a list of texts."""
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise sim.ConfigError(f"{where}: {key} = {files.show(value)} is not allowed; expected a name or a list "
                              f"of names")
    return value


def bindings_from_dict(data: dict, where: str) -> Bindings:
    files.table(where, "the file", data)
    files.known_keys(where, "bindings", data, ("keys", "gamepad", "rates"))
    keys, names = {}, {}
    for action, value in files.table(where, "keys", data.get("keys", {})).items():
        if action not in CONTINUOUS + ONE_SHOT:
            raise sim.ConfigError(f"{where}: unknown action keys.{action}; known actions: "
                                  f"{', '.join(CONTINUOUS + ONE_SHOT)}")
        value = names_of(where, f"keys.{action}", value)
        codes = []
        for name in value:
            try:
                with warnings.catch_warnings():       # key_code works before pygame.init(); it only warns
                    warnings.simplefilter("ignore")
                    codes.append(pygame.key.key_code(name))
            except (ValueError, TypeError):
                raise sim.ConfigError(f"{where}: keys.{action} = {files.show(name)} is not allowed; expected a "
                                      f"pygame key name such as 'up', 'w', 'space', 'f1'") from None
        keys[action] = codes
        names[action] = list(value)
    pad = files.table(where, "gamepad", data.get("gamepad", {}))
    axes, buttons, pad_names = {}, {}, {}
    for action in ("throttle", "brake", "steer"):
        name = pad.get(action)
        if name is None:
            continue
        if not isinstance(name, str) or name not in PAD_AXES:
            raise sim.ConfigError(f"{where}: gamepad.{action} = {files.show(name)} is not allowed; expected one "
                                  f"of {', '.join(PAD_AXES)}")
        axes[action] = getattr(pygame, PAD_AXES[name])
        pad_names[action] = [name]
    for action, value in pad.items():
        if action in ("throttle", "brake", "steer"):
            continue
        if action not in CONTINUOUS + ONE_SHOT:
            raise sim.ConfigError(f"{where}: unknown action gamepad.{action}; known actions: "
                                  f"{', '.join(CONTINUOUS + ONE_SHOT)}")
        value = names_of(where, f"gamepad.{action}", value)
        for name in value:
            if name not in PAD_BUTTONS:
                raise sim.ConfigError(f"{where}: gamepad.{action} = {files.show(name)} is not allowed; expected "
                                      f"one of {', '.join(PAD_BUTTONS)}")
        buttons[action] = [getattr(pygame, "CONTROLLER_BUTTON_" + PAD_BUTTONS[n]) for n in value]
        pad_names[action] = list(value)
    rates = {}
    given = files.table(where, "rates", data.get("rates", {}))
    for k, v in given.items():
        if k not in RATE_RANGES:
            raise sim.ConfigError(f"{where}: unknown key rates.{k}; known keys: {', '.join(RATE_RANGES)}")
        lo, hi = RATE_RANGES[k]
        rates[k] = files.number(where, f"rates.{k}", v, lo, hi)
    # a file cut short is an error, not a silent default: every table and every rate must be there
    files.required(where, data, ("keys", "gamepad", "rates"), "the bindings file")
    files.required(where, given, tuple(RATE_RANGES), "[rates]")
    return Bindings(keys, names, axes, buttons, pad_names, rates)


class Input:
    """Holds what is pressed; turns it into Controls once per physics step."""

    def __init__(self, bindings: Bindings | None = None):
        self.b = bindings or load_bindings()
        self.code_to_action = {code: a for a, codes in self.b.keys.items() for code in codes}
        self.button_to_action = {btn: a for a, btns in self.b.pad_buttons.items() for btn in btns}
        self.held: set[str] = set()
        self.pads: dict[int, object] = {}           # instance id -> Controller
        self.pad_axis: dict[str, float] = {"throttle": 0.0, "brake": 0.0, "steer": 0.0}
        self.pad_held: set[str] = set()
        self.throttle = 0.0
        self.brake = 0.0
        self.steer = 0.0
        self.gear = "D"                            # direct drive's R / N / D
        self.direct_gears = False                  # True for a direct-drive car: gear keys pick R / N / D
        self.pending_shift = 0                     # an engine car's shift request for the next step
        self.abs = False
        self.tc = False
        self.esp = False
        self.messages: list[str] = []               # for the HUD: pads connected / lost
        self._typing = False                        # a text field has the keyboard
        self.steer_hold = False                     # keyboard steering stays where the keys leave it
        self.cruise: float | None = None            # m/s the cruise control holds (None: off)
        self._cruise_i = 0.0                        # its integral part (throttle)
        self.speed = 0.0                            # m/s: the car's forward speed at the last step
        self.replay_drives = False                  # a replay has the car: the driver's aids wait for its end
        self._asked = 0                             # the shift request the last controls() handed out
        self._gears = (0, 0)                        # (engaged gear, gear being shifted to) after the last step
        # (the gear asked for, +1 up or -1 down, s left) while the automatic gearbox may take it back
        self._asked_gear: tuple[int, int, float] | None = None

    # -- devices ------------------------------------------------------------------------------------
    def open_pads(self) -> None:
        """Open every game controller already connected (hot-plugged ones arrive as events)."""
        for i in range(sdl_controller.get_count()):
            self._add_pad(i)

    def _add_pad(self, device_index: int) -> None:
        try:
            if not sdl_controller.is_controller(device_index):
                return
            pad = sdl_controller.Controller(device_index)
        except pygame.error as exc:
            self.messages.append(f"gamepad could not be opened: {exc}")
            return
        jid = pad.as_joystick().get_instance_id()
        self.pads[jid] = pad
        self.messages.append(f"gamepad connected: {pad.name}")

    def _remove_pad(self, instance_id: int) -> None:
        pad = self.pads.pop(instance_id, None)
        if pad is not None:
            self.messages.append(f"gamepad disconnected: {getattr(pad, 'name', 'pad')}")
        if not self.pads:
            self.pad_axis = {"throttle": 0.0, "brake": 0.0, "steer": 0.0}
            self.pad_held.clear()

    # -- events -------------------------------------------------------------------------------------
    def handle(self, event) -> list[str]:
        """Take one pygame event; return the one-shot actions it triggered."""
        t = event.type
        fired = []
        if t == pygame.KEYDOWN:
            action = self.code_to_action.get(event.key)
            if action in CONTINUOUS:
                self.held.add(action)
            elif action:
                fired.append(action)
        elif t == pygame.KEYUP:
            action = self.code_to_action.get(event.key)
            if action in CONTINUOUS:
                self.held.discard(action)
        elif t == pygame.CONTROLLERDEVICEADDED:
            self._add_pad(event.device_index)
        elif t == pygame.CONTROLLERDEVICEREMOVED:
            self._remove_pad(event.instance_id)
        elif t == pygame.CONTROLLERAXISMOTION:
            for name, axis in self.b.pad_axes.items():
                if event.axis == axis:
                    self.pad_axis[name] = self._axis_value(name, event.value)
        elif t in (pygame.CONTROLLERBUTTONDOWN, pygame.CONTROLLERBUTTONUP):
            action = self.button_to_action.get(event.button)
            if action in CONTINUOUS:
                (self.pad_held.add if t == pygame.CONTROLLERBUTTONDOWN else self.pad_held.discard)(action)
            elif action and t == pygame.CONTROLLERBUTTONDOWN:
                fired.append(action)
        for action in fired:
            if self.replay_drives and action in ("steer_hold", "cruise") + (() if self.direct_gears else
                                                                             ("gear_up", "gear_down")):
                what = {"steer_hold": "steering hold", "cruise": "cruise control"}.get(action, "the gears")
                self.messages.append(f"{what}: the replay drives the car; yours again when it ends")
            elif action in ("gear_up", "gear_down"):
                step = 1 if action == "gear_up" else -1
                if self.direct_gears:
                    self.gear = GEARS[min(max(GEARS.index(self.gear) + step, 0), len(GEARS) - 1)]
                else:
                    self.pending_shift = step
            elif action == "abs":
                self.abs = not self.abs
                self.messages.append(f"ABS {'on' if self.abs else 'off'}")
            elif action == "tc":
                self.tc = not self.tc
                self.messages.append(f"traction control {'on' if self.tc else 'off'}")
            elif action == "esp":
                self.esp = not self.esp
                self.messages.append(f"stability control (ESP) {'on' if self.esp else 'off'}")
            elif action == "steer_hold":
                self.steer_hold = not self.steer_hold
                self.messages.append("steering hold on: the wheel stays where the keys leave it" if self.steer_hold
                                     else "steering hold off")
            elif action == "cruise":
                self.set_cruise(None if self.cruise is not None else self.speed)
        return fired

    def follow(self, session) -> None:
        """Drive `session` (app/session.py): its replays take the car and give it back (`hand_over`), and
        after each physics step a shift asked for that did not happen is explained (`after_step`)."""
        session.on_hand_over.append(self.hand_over)
        session.on_step.append(lambda: self.after_step(session.sim))
        self._gears = (int(session.sim.state.gear), int(session.sim.state.shifting_to))
        if session.replay_drives:
            self.hand_over(True)

    def hand_over(self, to_replay: bool) -> None:
        """A replay (a trace, a branch, a watched test drive) takes the car (True) or gives it back (False). Either
        way the aids that are the driver's, not the car's, are switched off (cruise control, steering hold; ABS,
        traction and stability control are the car's and stay as set) and the pedals and steering come back to
        rest, so the car is handed back in a defined state: coasting, wheel centred, no cruise braking."""
        was = [name for name, on in (("cruise control", self.cruise is not None), ("steering hold", self.steer_hold))
               if on]
        self.cruise, self._cruise_i, self.steer_hold = None, 0.0, False
        self.throttle = self.brake = self.steer = 0.0
        self.pending_shift = self._asked = 0
        self._asked_gear = None
        self.replay_drives = to_replay
        off = f"; {' and '.join(was)} off" if was else ""
        self.messages.append(f"the replay drives the car{off}" if to_replay else
                             f"the replay has ended: the car is yours (pedals released, steering centred{off})")

    def after_step(self, s: sim.Simulation) -> None:
        """After each physics step of an engine car: say why a shift the driver asked for did not happen (the
        top gear, reverse, a shift under way), or that the automatic gearbox took it back within its hold."""
        if self.direct_gears:
            return
        gear, target = int(s.state.gear), int(s.state.shifting_to)
        asked, self._asked = self._asked, 0
        (was_gear, was_target), self._gears = self._gears, (gear, target)
        box = s.vehicle.gearbox
        if asked and not self.replay_drives:
            key = self.shift_words(asked)
            name = gear_name(was_target)
            if target != was_target:
                self._asked_gear = (target, asked, box.shift_time + box.shift_hold + 0.5) if box.mode == "auto" \
                    else None
            elif was_target != was_gear:
                self.messages.append(f"{key}: a shift to {name} is under way; ask again once it is done")
            elif asked > 0 and was_gear >= len(box.ratios):
                self.messages.append(f"{key}: already in the top gear ({name})")
            elif asked < 0 and was_gear <= -1:
                self.messages.append(f"{key}: already in reverse")
        elif self._asked_gear is not None:
            wanted, asked, left = self._asked_gear
            self._asked_gear = (wanted, asked, left - s.dt) if left > s.dt else None
            if target != wanted:
                self._asked_gear = None
                self.messages.append(f"{self.shift_words(asked)}: the automatic gearbox went back from "
                                     f"{gear_name(wanted)} to {gear_name(target)}; it picks the gear by engine and "
                                     f"road speed, gearbox.mode = manual (Tuning, Gearbox and clutch) keeps the gear "
                                     f"you choose")

    def shift_words(self, direction: int) -> str:
        """ "shift up (E)" or "shift down (Q)": the action and its keys, for the messages."""
        action = "gear_up" if direction > 0 else "gear_down"
        keys = ", ".join(self.b.key_names.get(action, [])).upper()
        return action.replace("gear_", "shift ") + (f" ({keys})" if keys else "")

    def set_cruise(self, speed: float | None) -> None:
        """Hold `speed` (m/s) with the throttle (and a light brake above it); None switches it off. The brake
        key also switches it off; the throttle key adds to it."""
        self.cruise = None if speed is None or not math.isfinite(speed) or speed < 0.5 else float(speed)
        self._cruise_i = 0.0
        self.messages.append(f"cruise control at {self.cruise * 3.6:.0f} km/h" if self.cruise is not None
                             else "cruise control off")

    def _axis_value(self, name: str, raw: int) -> float:
        v = max(-1.0, min(1.0, raw / 32767.0))
        if name == "steer":
            dz = self.b.rates["stick_deadzone"]
            mag = max(0.0, (abs(v) - dz) / (1.0 - dz))
            return -math.copysign(mag, v)          # stick right (+) steers right, which is negative steer
        return max(0.0, v)

    def release_all(self) -> None:
        """Forget held keys (the window lost focus, so their key-ups will not arrive)."""
        self.held.clear()
        self.pad_held.clear()

    def typing(self, active: bool) -> None:
        """Whether a text field has the keyboard: when one takes it, the car lets go of every held key
        (the keys typed from then on go to the field, not to the car)."""
        if active and not self._typing:
            self.release_all()
        self._typing = active

    # -- per physics step ---------------------------------------------------------------------------
    def controls(self, dt: float, speed: float | None = None) -> sim.Controls:
        """The controls for the next physics step of dt seconds (ramps advance by rate x dt); `speed` is the
        car's forward speed (m/s), which the cruise control needs."""
        r = self.b.rates
        if speed is not None and math.isfinite(speed):
            self.speed = float(speed)
        for name in ("throttle", "brake"):
            target = 1.0 if name in self.held else 0.0
            cur = getattr(self, name)
            rate = r["pedal_rise"] if target > cur else r["pedal_fall"]
            setattr(self, name, sim.approach(float(cur), target, rate * dt))
        target = (1.0 if "steer_left" in self.held else 0.0) - (1.0 if "steer_right" in self.held else 0.0)
        rate = r["steer_rate"] if target != 0.0 else r["steer_return"]
        if target != 0.0 and target * self.steer < 0.0:
            rate = max(rate, r["steer_return"])
        if self.steer_hold:
            # held: the wheel stays where the keys left it, and the keys move it at a quarter of the rate,
            # so a circle's steering angle can be set finely
            rate = 0.0 if target == 0.0 else 0.25 * r["steer_rate"]
        self.steer = sim.approach(float(self.steer), target, rate * dt)
        throttle = max(self.throttle, self.pad_axis["throttle"])
        brake = max(self.brake, self.pad_axis["brake"])
        if self.cruise is not None:
            if "brake" in self.held or self.pad_axis["brake"] > 0.05:
                self.set_cruise(None)                   # braking switches the cruise control off
            else:
                error = self.cruise - self.speed
                self._cruise_i = min(1.0, max(0.0, self._cruise_i + CRUISE_INTEGRAL * error * dt))
                brake = min(0.3, max(0.0, CRUISE_BRAKE_GAIN * (-error - CRUISE_BRAKE_BAND)))
                if brake == 0.0:
                    throttle = max(throttle, min(1.0, max(0.0, CRUISE_GAIN * error + self._cruise_i)))
        steer = self.steer if abs(self.steer) >= abs(self.pad_axis["steer"]) else self.pad_axis["steer"]
        handbrake = 1.0 if ("handbrake" in self.held or "handbrake" in self.pad_held) else 0.0
        clutch = 1.0 if ("clutch" in self.held or "clutch" in self.pad_held) else 0.0
        shift, self.pending_shift = self.pending_shift, 0
        self._asked = shift or self._asked
        sign = {"D": 1.0, "N": 0.0, "R": -1.0}[self.gear] if self.direct_gears else 1.0
        # a device that reports something that is not a number (a driver glitch) counts as released
        return sim.Controls(throttle=finite(sign * throttle), brake=finite(brake), steer=finite(steer),
                            handbrake=handbrake, clutch=clutch, shift=shift, abs=self.abs, tc=self.tc,
                            esp=self.esp)

    def rumble(self, slip: float, duration_ms: int = 120) -> None:
        """Rumble every pad in proportion to the largest wheel slip |kappa|, full at rumble_full_slip,
        where the pad supports it."""
        strength = max(0.0, min(1.0, slip / self.b.rates["rumble_full_slip"])) * self.b.rates["rumble"]
        for pad in list(self.pads.values()):
            try:
                pad.rumble(strength, strength * 0.6, duration_ms)
            except (pygame.error, AttributeError):
                pass
