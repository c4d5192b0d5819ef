"""Issue 28 item 2: a blow-up the app meets is saved for a reproduction (app/repro.py): the last seconds before
it and the step that blew up, replayed bit for bit in a fresh Simulation, blow up the same way at the same
time. The blow-up is a real one: the random MF 6.1 tire whose curve pushes a locked wheel forward
(tests/data/energy_tire.toml, 72 % over its nominal pressure: past the pressure rule, lifted here), braked from
20 m/s (test_advisor.py), which the watchdog names."""
from pathlib import Path

from bodies import lift_pressure_rule

import sim
from app import repro
from app.session import Session

DATA = Path(__file__).parent / "data"


def test_a_blow_up_in_the_app_is_saved_and_replays_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    lift_pressure_rule(monkeypatch)
    car = sim.load_vehicle(str(DATA / "energy_tire.toml"))
    session = Session(sim.load_vehicle("hatchback"), sim.World.flat())
    session.sim.check_stability = False                 # the advisor refuses this tire: run it anyway
    session.sim.set_params(car)
    session.sim.reset(position=(0.0, 0.0, sim.rest_com_height(car)), speed=20.0, gear=0)
    for _ in range(600):                                # 10 s of frames, braked hard with the clutch open
        session.frame(1 / 60, lambda dt: sim.Controls(brake=1.0, clutch=1.0))
        if session.blown_up:
            break
    assert session.blown_up and "tires that made" in session.blow_up
    message, _, where = session.blow_up.partition("; reproduction in ")
    folder = Path(where)
    assert folder.parent == tmp_path / "contactpatch" / "blowups"
    assert (folder / "repro.pkl").is_file() and sim.load_vehicle(str(folder / "vehicle.toml")) == car
    blown_at = session.sim.time + session.sim.dt        # the session went back to the step before
    again, t = repro.replay(folder)
    assert again == message and abs(t - blown_at) < 1e-9
    assert repro.main([str(folder)]) == 4


def test_a_folder_without_a_reproduction_is_one_line(tmp_path, capsys):
    assert repro.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "repro.pkl: not a blow-up reproduction" in err[0]
