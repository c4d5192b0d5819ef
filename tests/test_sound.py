"""The sound's synthesis (app/sound.py) read as numbers: the engine note's frequency against rpm, a
free-rolling tire's silence, a saturated tire's squeal, the limiter's chop, and the mixer under the dummy
driver."""
import numpy as np
import pytest

import sim
from app.sound import BLOCK
from app.sound import RATE
from app.sound import SoundState
from app.sound import Synth
from app.sound import WheelSound
from app.sound import sound_state


def spectrum_peak(x: np.ndarray) -> float:
    spec = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.fft.rfftfreq(len(x), 1.0 / RATE)[np.argmax(spec)])


def engine_only(rpm, cylinders, load=0.5, seconds=1.0, limiter=False):
    synth = Synth()
    n = int(seconds * RATE)
    return synth.engine(n, rpm, rpm, load, cylinders, limiter)


@pytest.mark.parametrize("rpm, cylinders", [(3000, 4), (6000, 6), (900, 4), (7200, 8)])
def test_the_engine_note_fires_at_rpm_over_60_times_half_the_cylinders(rpm, cylinders):
    """A four-stroke fires each cylinder once every two turns: 3000 rpm x 4 cylinders is 100 Hz, 6000 x 6
    is 300 Hz. The strongest line of a 1 s buffer's spectrum is there (1 Hz bins)."""
    f = rpm / 60.0 * cylinders / 2.0
    assert spectrum_peak(engine_only(rpm, cylinders)) == pytest.approx(f, abs=1.0)


def test_more_load_is_louder_and_harsher_and_the_limiter_chops():
    idle, full = engine_only(3000, 4, load=0.0), engine_only(3000, 4, load=1.0)
    assert np.sqrt(np.mean(full ** 2)) > 1.5 * np.sqrt(np.mean(idle ** 2))
    high = lambda x: np.sum(np.abs(np.fft.rfft(x))[np.fft.rfftfreq(len(x), 1 / RATE) > 250.0] ** 2)  # noqa: E731
    assert high(full) / np.sum(full ** 2) > 2.0 * high(idle) / np.sum(idle ** 2)
    chopped = engine_only(6500, 4, load=1.0, limiter=True)
    env = np.abs(chopped).reshape(-1, RATE // 100).max(axis=1)       # 10 ms windows
    assert env.min() < 0.3 * env.max()                               # the cuts are heard


def test_a_free_rolling_tire_is_silent_and_a_saturated_one_is_not():
    synth = Synth()
    rolling = synth.tire(BLOCK, 0, WheelSound(demand=0.05, slide=0.01))
    assert not rolling.any()
    near = synth.tire(BLOCK, 0, WheelSound(demand=0.9, slide=1.0))
    past = synth.tire(BLOCK, 0, WheelSound(demand=1.2, slide=3.0))
    rms = lambda x: float(np.sqrt(np.mean(x ** 2)))  # noqa: E731
    assert 0.0 < rms(near) < rms(past)
    locked = synth.tire(BLOCK, 1, WheelSound(demand=1.0, slide=20.0, scrub=True))
    assert rms(locked) > rms(past)


def test_a_parked_car_makes_only_its_idle_and_a_sliding_one_squeals():
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    for _ in range(480):
        s.step(sim.Controls())
    state, _ = sound_state(s)
    assert all(w.demand < 0.05 and not w.scrub for w in state.wheels)
    assert state.rpm == pytest.approx(car.engine.idle_rpm, rel=0.1) and state.cylinders == 4
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=20.0)
    for _ in range(240):
        s.step(sim.Controls(brake=1.0, abs=False))
    state, _ = sound_state(s)
    assert all(w.scrub for w in state.wheels[:2])                    # the fronts lock
    assert Synth().block(state).std() > 0.05


def test_the_mixer_takes_blocks_under_the_dummy_driver(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    from app.sound import Audio
    car = sim.load_vehicle("hatchback")
    s = sim.Simulation(car, sim.World.flat(), dt=1 / 240, substeps=2)
    s.reset(position=(0.0, 0.0, sim.rest_com_height(car)))
    audio = Audio()
    assert audio.available, audio.problem
    for _ in range(5):
        audio.update(s)
    assert audio.channel.get_busy()
    block = audio.synth.block(SoundState(rpm=3000.0))
    assert block.dtype == np.float32 and np.abs(block).max() <= 1.0
