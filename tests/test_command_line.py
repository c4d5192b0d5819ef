"""The command lines a user types (issue 32 items 5 and 6): a number option out of its range refused in one line
naming the option, the value and what is allowed (exit status 2); `contactpatch test`'s summary line and exit
status; `contactpatch compare`'s progress on stderr, silent when stderr is not a terminal."""
import io

import pytest

import sim.lab.cli
from sim.lab.cli import compare_command
from sim.lab.cli import drives_command
from sim.lab.drives.suite import SUITE
from sim.lab.exit_codes import Exit


@pytest.mark.parametrize("argv, line", [
    (["--fps", "0"], "contactpatch: --fps 0 is not allowed; expected a whole number of frames per second from 1 "
                     "to 1000"),
    (["--fps", "-5"], "contactpatch: --fps -5 is not allowed; expected a whole number of frames per second from 1 "
                      "to 1000"),
    (["--fps", "fast"], "contactpatch: --fps fast is not allowed; expected a whole number of frames per second "
                        "from 1 to 1000"),
    (["--substeps", "0"], "contactpatch: --substeps 0 is not allowed; expected a whole number from 1 to 1000"),
    (["--frame-dt", "0"], "contactpatch: --frame-dt 0 is not allowed; expected seconds in (0, 1]"),
    (["--quit-after", "-1"], "contactpatch: --quit-after -1 is not allowed; expected seconds of at least 0"),
    (["--quit-after", "inf"], "contactpatch: --quit-after inf is not allowed; expected seconds of at least 0"),
    (["--size", "10x10"], "contactpatch: --size 10x10 is not allowed; expected WIDTHxHEIGHT, each at least 64, "
                          "e.g. 1280x720"),
])
def test_a_number_option_out_of_its_range_is_refused_in_one_line(argv, line, capsys):
    from app.__main__ import main
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == Exit.BAD_INPUT == 2
    captured = capsys.readouterr()
    assert captured.err == line + "\n" and captured.out == ""


@pytest.mark.parametrize("command, argv, line", [
    (drives_command, ["settle", "--log-rate", "0"],
     "contactpatch test: --log-rate 0 is not allowed; expected rows per second in (0, 240]"),
    (compare_command, ["--jobs", "0"],
     "contactpatch compare: --jobs 0 is not allowed; expected a whole number of processes, at least 1"),
    (sim.lab.cli.sweep_command, ["s.toml", "--out", "d", "--workers", "-2"],
     "contactpatch sweep: --workers -2 is not allowed; expected a whole number of at least 1"),
])
def test_the_headless_commands_refuse_numbers_out_of_range_the_same_way(command, argv, line, capsys):
    with pytest.raises(SystemExit) as done:
        command(argv)
    assert done.value.code == Exit.BAD_INPUT
    assert capsys.readouterr().err == line + "\n"


SMALL = ("drop", "braking", "sine-with-dwell-no-esp")     # about a second of driving together


def last_line(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_test_all_ends_with_a_summary_and_counts_a_drive_failing_on_purpose_as_expected(monkeypatch, capsys):
    """`test all` over a small suite: every drive within its limits but the sine with dwell without stability
    control, which spins on purpose (expected, exit 0); a user's limit the braking cannot meet makes it a drive
    outside its limits, named with the figure (exit 1). On the Boxster S: the hatchback understeers enough
    to come back from that drive on its own (tests/test_esp.py)."""
    monkeypatch.setattr(sim.lab.cli, "SUITE", {name: SUITE[name] for name in SMALL})
    assert drives_command(["all", "--vehicle", "boxster_s"]) == Exit.OK
    assert last_line(capsys) == ("contactpatch test: boxster_s: 3 drives, 2 within their limits, 1 outside as expected "
                                 "(sine-with-dwell-no-esp: spins without stability control), 0 outside their "
                                 "limits: exit status 0")
    assert drives_command(["all", "--vehicle", "boxster_s", "--limit", "braking/stopping distance<=1"]) == Exit.FAILED
    line = last_line(capsys)
    assert line.startswith("contactpatch test: boxster_s: 3 drives, 1 within their limits, 1 outside as expected "
                           "(sine-with-dwell-no-esp: spins without stability control), 1 outside their limits "
                           "(braking: stopping distance ")
    assert line.endswith(" m (limit <= 1)): exit status 1")


class Terminal(io.StringIO):
    def isatty(self):
        return True


def fake_compare(monkeypatch):
    """compare without driving: each (family, drive) job and each step-cost measurement instant."""
    monkeypatch.setattr(sim.lab.cli, "_measure_job", lambda job: (job[2], {f"{job[3]} figure": 1.0}))

    def costs(cars, rounds=3, steps=1000, tick=None):
        for _ in range(rounds * len(cars)):
            tick()
        return {name: 1.0 for name in cars}
    monkeypatch.setattr(sim.lab.cli, "step_costs", costs)


def test_compare_shows_its_progress_on_a_terminal_and_nothing_in_a_pipe(monkeypatch, capsys):
    fake_compare(monkeypatch)
    assert compare_command(["--models", "reference,simple", "--jobs", "1"]) == Exit.OK
    out, err = capsys.readouterr()
    assert err == "" and "| reference |" in out                   # stderr is not a terminal here: silent
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert compare_command(["--models", "reference,simple", "--jobs", "1"]) == Exit.OK
    shown = terminal.getvalue()
    runs = 2 * len(sim.lab.cli.COMPARE_DRIVES) + 3 * 2           # (family, drive) pairs, then 3 rounds of costs
    assert "compare: 100%" in shown and f"{runs}/{runs}" in shown and "step costs" in shown
