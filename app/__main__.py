"""`contactpatch` / `python -m app`: open the driving window.

Drive with the arrow keys or WASD (F1 lists every binding), or a gamepad. Scripted runs for bug
reports, docs and tests: --record / --replay an input trace, --quit-after simulated seconds,
--screenshot the last frame, --frame-dt to advance a fixed time per frame as fast as possible.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from sim import DEFAULT_SUBSTEPS  # 2: the app's substeps per step, one constant with the API's
from sim import MAX_SUBSTEPS
from sim.lab.arguments import Parser
from sim.lab.arguments import number
from sim.lab.arguments import whole
from sim.lab.exit_codes import Exit

MAX_FPS = 1000             # --fps: the frame-rate cap's largest value


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
        if w < 64 or h < 64:
            raise ValueError
        return w, h
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; expected WIDTHxHEIGHT, each at least 64, e.g. "
                                         f"1280x720") from None


def benchmark_trace(seconds: float, substeps: int, vehicle: str, world: str):
    """A scripted drive for --benchmark: launch, weave, brake hard, weave again, coast."""

    from app.session import Trace
    rows = []
    for k in range(int(round(seconds * 240)) + 1):
        t = k / 240
        phase = t % 10.0
        throttle = 1.0 if phase < 3.0 or 5.0 <= phase < 8.5 else 0.0
        brake = 1.0 if 3.0 <= phase < 4.5 else 0.0
        steer = 0.5 * math.sin(1.3 * t) if phase >= 1.5 else 0.0
        rows.append([throttle, brake, steer, 0.0])
    return Trace(1.0 / 240.0, substeps, vehicle, world, rows)


COMMANDS = """headless commands (each has its own --help):
  contactpatch test NAME|all [--vehicle V]      standard test drives, their figures and logs
  contactpatch compare [--models a,b]           the model families side by side (seed 001's table)
  contactpatch sweep FILE --out DIR             every variant of a sweep file (grid, random, search)
  python -m app.repro FOLDER                    replay a saved blow-up (<data dir>/blowups/)"""


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] in (["test"], ["compare"], ["sweep"]):   # headless: test drives, the model lab, sweeps
        if args_in[0] == "test":
            from sim.lab.cli import drives_command as cli
        elif args_in[0] == "sweep":
            from sim.lab.cli import sweep_command as cli
        else:
            from sim.lab.cli import compare_command as cli
        try:
            return cli(args_in[1:])
        except BrokenPipeError:                      # the output went to `head` or a closed pager
            sys.stderr.close()
            return Exit.OK
    ap = Parser(prog="contactpatch", description=__doc__.splitlines()[0], epilog=COMMANDS,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vehicle", help="vehicle preset name or TOML file (default hatchback)")
    ap.add_argument("--world", help="world preset name or TOML file (default proving_ground)")
    ap.add_argument("--size", type=parse_size, default=(1280, 720), help="window size WIDTHxHEIGHT")
    ap.add_argument("--fullscreen", action="store_true")
    ap.add_argument("--fps", type=whole(1, MAX_FPS, "frames per second"), default=120,
                    help=f"frame-rate cap, 1 to {MAX_FPS} (default 120)")
    ap.add_argument("--substeps", type=whole(1, MAX_SUBSTEPS),
                    help=f"physics substeps per 1/240 s step, 1 to {MAX_SUBSTEPS} (default {DEFAULT_SUBSTEPS}, or a "
                         "replayed trace's)")
    ap.add_argument("--record", metavar="FILE", help="save the controls of every physics step to FILE")
    ap.add_argument("--replay", metavar="FILE", help="drive from a recorded trace (then hand over to you)")
    ap.add_argument("--quit-after", type=number(0.0, unit="seconds"), metavar="SECONDS",
                    help="quit after this much simulated time")
    ap.add_argument("--screenshot", metavar="PATH", help="save the last frame as a PNG before quitting")
    ap.add_argument("--camera", choices=("chase", "orbit", "free"), default="chase", help="starting camera")
    ap.add_argument("--sweep", metavar="DIR", help="open the Sweeps panel on a sweep's results folder "
                                                   "(contactpatch sweep FILE --out DIR)")
    ap.add_argument("--no-overlay", action="store_true", help="start with the ImGui overlay hidden (F2 shows it)")
    ap.add_argument("--mute", action="store_true", help="start with the sound off (F8 turns it on)")
    ap.add_argument("--frame-dt", type=number(0.0, 1.0, "seconds", above=True), metavar="SECONDS",
                    help="treat every frame as this long and do not wait (reproducible scripted runs)")
    ap.add_argument("--benchmark", action="store_true",
                    help="drive a scripted lap (600 frames timed) as fast as the machine allows and print the "
                         "frame-time percentiles and where the time goes")
    args = ap.parse_args(args_in)
    if args.benchmark:
        args.frame_dt = args.frame_dt or 1.0 / 60.0
        # 600 frames timed after the 30 that warm up (FrameTimes.report skips them)
        args.quit_after = 10.5 if args.quit_after is None else args.quit_after

    import app  # noqa: F401  (quiets pygame's banner)
    import sim
    from app.session import Trace
    try:
        replay = Trace.load(args.replay) if args.replay else None
        if args.benchmark and replay is None:
            replay = benchmark_trace(args.quit_after, args.substeps or DEFAULT_SUBSTEPS, args.vehicle or "hatchback",
                                     args.world or "proving_ground")
        if args.substeps is None:
            args.substeps = replay.substeps if replay else DEFAULT_SUBSTEPS
        vehicle_name = args.vehicle or (replay.vehicle if replay else "hatchback")
        world_name = args.world or (replay.world if replay else "proving_ground")
        car = sim.load_vehicle(vehicle_name)
        world = sim.load_world(world_name)
    except sim.ConfigError as exc:
        print(f"contactpatch: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    if not 1 <= args.substeps <= MAX_SUBSTEPS:           # a replayed trace's own
        print(f"contactpatch: {args.replay}: substeps = {args.substeps} is not allowed; expected a whole number from "
              f"1 to {MAX_SUBSTEPS}", file=sys.stderr)
        return Exit.BAD_INPUT
    if args.screenshot and args.quit_after is None:
        print("contactpatch: --screenshot needs --quit-after (the screenshot is the last frame)", file=sys.stderr)
        return Exit.BAD_INPUT

    import pygame

    from app.window import App
    from app.window import data_dir
    from config import CONFIG_DIR
    from sim.model.files import clean_stale_temps
    # what saves interrupted by a kill left behind (presets, worlds, the folder started in, the app's data
    # and the user's saved presets in it)
    for folder in {CONFIG_DIR / "vehicles", CONFIG_DIR / "worlds", CONFIG_DIR, Path.cwd(), data_dir(),
                   data_dir() / "vehicles",
                   *(Path(p).resolve().parent for p in (args.record, args.screenshot) if p)}:
        clean_stale_temps(folder)
    try:
        window = App(car, world, size=args.size, fullscreen=args.fullscreen, fps=args.fps, frame_dt=args.frame_dt,
                     record=args.record, replay=replay, quit_after=args.quit_after, screenshot=args.screenshot,
                     vehicle_name=vehicle_name, world_name=world_name, substeps=args.substeps,
                     camera=args.camera, overlay=not args.no_overlay, sound=not args.mute)
    except sim.ConfigError as exc:
        print(f"contactpatch: {exc}", file=sys.stderr)
        return Exit.BAD_INPUT
    except (pygame.error, Exception) as exc:  # no display, no OpenGL 3.3
        print(f"contactpatch: could not open an OpenGL 3.3 window: {exc}", file=sys.stderr)
        return Exit.NO_WINDOW
    if args.benchmark:
        window.finish_frames = True
    if args.sweep and not window.overlay.open_sweep(args.sweep):
        print(f"contactpatch: {window.overlay.sweeps.message}", file=sys.stderr)
    try:
        code = window.run()
        if args.benchmark and code == Exit.OK:
            print(f"contactpatch --benchmark: {args.size[0]}x{args.size[1]}, renderer "
                  f"{window.ctx.info.get('GL_RENDERER', '?')}, antialiasing {'on' if window.target.msaa else 'off'}, "
                  f"overlay {'off' if args.no_overlay else 'on'}"
                  f"{' (built at most every 1/30 s, its panels drawn a fifth a frame)' if window.target.keeps else ''}"
                  "; each frame waits until it is drawn")
            print(window.times.report())
            reference = window.reference
            frame = window.times.all["frame"][30:]
            if reference and frame:
                print(f"  reference frame (issue 11's prototype: a lit cube, one ImGui window, one ImPlot line; "
                      f"2.2 - 2.6 ms when the issue was filed): median {reference:.2f} ms; this run's median frame "
                      f"is {float(np.median(frame)) / reference:.2f} x that")
        return code
    except KeyboardInterrupt:
        window.finish()
        return Exit.INTERRUPTED
    except Exception as exc:
        crash = traceback.format_exc()
        window.finish()
        print(crash_line(exc, crash), file=sys.stderr)
        return Exit.FAILED


def crash_line(exc: Exception, crash: str) -> str:
    """One line for an unexpected error (a bug): what it was and where, and the file its whole trace was
    saved to for the report (the trace itself only when it cannot be saved)."""
    from sim.model.files import data_dir
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" ({Path(where[0].filename).name}:{where[0].lineno})" if where else ""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())
    path = data_dir() / time.strftime("crash-%Y%m%d-%H%M%S.txt")
    head = f"contactpatch: an unexpected error stopped the app: {what}{at}; please report it"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(crash)
    except OSError:
        return f"{head} with this trace:\n{crash}"
    return f"{head} with the trace saved in {path}"


if __name__ == "__main__":
    sys.exit(main())
