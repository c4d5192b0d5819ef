"""How runs of `contactpatch` end (sim/lab/exit_codes.py): a scripted run (--quit-after, --replay, --benchmark)
ends on a physics blow-up with its own status and one line, where an interactive run pauses for the user; a
bad replay file ends it with the bad-input status; an unexpected error is one line and a saved trace."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sim
from sim.lab.exit_codes import Exit


def in_fresh_process(fn, *args, timeout: float = 300.0):
    """Run fn(*args) in a new Python process (one window per process: moderngl finds the GL context only
    for the first window a process opens). A run that does not end (one waiting for a user who is not there)
    fails the test after `timeout` s instead of hanging it: the process is killed (SIGKILL: SDL turns a
    SIGTERM into a quit event)."""
    import multiprocessing
    import queue
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    child = ctx.Process(target=child_main, args=(results, fn, args))
    child.start()
    try:
        ok, value = results.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"{fn.__name__} did not end within {timeout:g} s")
    finally:
        child.join(10.0)
        if child.is_alive():
            child.kill()
            child.join()
    assert ok, value
    return value


def child_main(results, fn, args) -> None:
    import traceback
    try:
        results.put((True, fn(*args)))
    except BaseException:
        results.put((False, traceback.format_exc()))


BLOW_UP_AT = 0.1          # s: when the test's own sim.BlowUp is raised


def blow_up_at(t_blow: float) -> None:
    """From t_blow on, every physics step raises sim.BlowUp as the watchdog would: what is tested is the app's
    reaction to it, not the physics (test_robust.py and test_trust.py make the watchdog find real ones)."""
    step = sim.Simulation.step

    def blowing(self, controls=None):
        if self.time >= t_blow - 1e-9:
            raise sim.BlowUp(f"the physics blew up at t = {self.time:.3f} s: the test's own blow-up", 0)
        step(self, controls)
    sim.Simulation.step = blowing


def scripted_run(argv: list[str]) -> tuple[int, str]:
    """Child process: `contactpatch ARGV` with a blow-up at BLOW_UP_AT; (exit status, what went to stderr)."""
    import contextlib
    import io

    from app.__main__ import main
    blow_up_at(BLOW_UP_AT)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    return int(code), err.getvalue()


def interactive_run(frames: int) -> tuple[int, bool, bool, float, str]:
    """Child process: the window without a scripted flag, a blow-up at BLOW_UP_AT, `frames` frames of 1/60 s
    (then the window is closed, as a user would); (status, blown up, paused, simulated s, the message)."""
    from app.window import App
    blow_up_at(BLOW_UP_AT)
    app = App(sim.load_vehicle("hatchback"), sim.World.flat(), size=(320, 180), frame_dt=1 / 60, overlay=False,
              sound=False)
    handle, count = app.handle_events, [0]

    def events():
        handle()
        count[0] += 1
        app.running = app.running and count[0] <= frames
    app.handle_events = events
    code = app.run()
    s = app.session
    return int(code), s.blown_up, s.paused, s.sim.time, s.message


def test_the_exit_statuses_are_distinct():
    assert len({int(e) for e in Exit}) == len(Exit)
    assert (Exit.OK, Exit.FAILED, Exit.BAD_INPUT, Exit.NO_WINDOW, Exit.BLEW_UP) == (0, 1, 2, 3, 4)


def test_a_blow_up_ends_a_scripted_run_with_status_4_and_one_line(tmp_path, monkeypatch):
    """--quit-after 2 with a blow-up at 0.1 s: the run ends there (nobody is there to press R), with the
    watchdog's line on stderr, and the --record trace of the steps before it is saved for a bug report."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    rec = tmp_path / "rec.json"
    code, err = in_fresh_process(scripted_run, ["--quit-after", "2", "--frame-dt", str(1 / 60), "--size", "320x180",
                                                "--no-overlay", "--mute", "--world", "flat", "--record", str(rec)])
    assert code == Exit.BLEW_UP == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    head = f"contactpatch: hatchback on flat: the physics blew up at t = {BLOW_UP_AT:.3f} s: the test's own blow-up"
    tail = "; the scripted run stops (exit status 4)"
    assert lines[0].startswith(head + "; reproduction in ") and lines[0].endswith(tail)
    saved = Path(lines[0][len(head + "; reproduction in "):-len(tail)])      # app/repro.py (test_repro.py)
    assert saved.parent == tmp_path / "contactpatch" / "blowups" and (saved / "repro.pkl").is_file()
    from app.session import Trace
    assert len(Trace.load(rec).rows) == round(BLOW_UP_AT * 240) + 1       # the steps up to the one that blew up


def test_a_blow_up_pauses_an_interactive_run_for_the_user(tmp_path, monkeypatch):
    """No scripted flag: the blow-up pauses the session at the last sane state and says to press R; the
    window stays open (frames go on, time does not) until the user closes it, with status 0."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    code, blown_up, paused, t, message = in_fresh_process(interactive_run, 30)
    assert code == Exit.OK and blown_up and paused
    # 30 frames of 1/60 s would have driven 0.5 s: time stopped at the state before the step that blew up
    assert t == pytest.approx(BLOW_UP_AT, abs=1e-9)
    assert "Press R to reset the car" in message


@pytest.mark.parametrize("text, words", [
    ('{"format": "contactpatch-trace-2", "dt": 0.004', "trace.json"),
    (json.dumps({"format": "contactpatch-trace-2", "dt": 1 / 240, "substeps": 2, "vehicle": "hatchback",
                 "world": "flat", "steps": [[0.5, 0.0, "left"]]}), "steps[0] = [0.5, 0.0, 'left'] is not allowed"),
])
def test_a_bad_replay_file_ends_a_scripted_run_with_status_2_and_one_line(tmp_path, text, words):
    trace = tmp_path / "trace.json"
    trace.write_text(text)
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", XDG_DATA_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "app", "--replay", str(trace), "--quit-after", "1"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == Exit.BAD_INPUT == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactpatch: ") and str(trace) in lines[0], out.stderr
    assert words in lines[0] and "Traceback" not in out.stderr


def test_an_unexpected_error_is_one_line_and_its_trace_is_saved(tmp_path, monkeypatch):
    import traceback

    from app.__main__ import crash_line
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    try:
        {}["wheel"]
    except KeyError as exc:
        line = crash_line(exc, traceback.format_exc())
    assert "\n" not in line
    assert line.startswith("contactpatch: an unexpected error stopped the app: KeyError: 'wheel' "
                           "(test_scripted_runs.py:")
    saved = next((tmp_path / "contactpatch").glob("crash-*.txt"))
    assert str(saved) in line and 'KeyError: \'wheel\'' in saved.read_text()


def test_the_help_names_the_headless_commands(capsys):
    from app.__main__ import main
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    for command in ("contactpatch test", "contactpatch compare", "contactpatch sweep", "python -m app.repro"):
        assert command in out
