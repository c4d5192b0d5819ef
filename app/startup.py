"""How long the app takes to start: `python -m app.startup [--cold] [--runs N] [app options]`.

Each run starts `python -m app` offscreen (SDL_VIDEODRIVER=offscreen, its own empty data folder: a fresh
user's default layout) with CONTACTPATCH_STARTUP set to the wall-clock time it was launched at; the app then
prints when its window opened, its first frame was shown and the HUD stood in a settled 3D view (the first
frame whose panel layout is the same as the frame before's) and, on a cold `--driver` start, when the car
could drive, counted from that launch (`marks`). A run is scripted (--quit-after: the physics compiles before
the first frame) unless `--driver` (as a person starts it; it is ended with Ctrl+C). `--cold` gives each run
an empty numba cache folder (NUMBA_CACHE_DIR), so the kernels compile as on a machine that never ran Contact
Patch; without it the runs use the cache in place (run once first to fill it).
The figures depend on the machine and its load: the report names both (nproc, the CPU, `uptime`).
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ENV = "CONTACTPATCH_STARTUP"
MARKS = ("window", "compiled", "first frame", "hud", "physics")


class StartupClock:
    """The app's side: `mark(name)` prints `contactpatch startup: NAME X.XXX s` (seconds since the launch
    time in CONTACTPATCH_STARTUP) to stderr, once per name; nothing when the variable is not set."""

    def __init__(self) -> None:
        try:
            self.launched = float(os.environ.get(ENV, ""))
        except ValueError:
            self.launched = None
        self.done: set[str] = set()

    def mark(self, name: str) -> None:
        if self.launched is None or name in self.done:
            return
        self.done.add(name)
        print(f"contactpatch startup: {name} {time.time() - self.launched:.3f} s", file=sys.stderr, flush=True)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def one_run(app_args: list[str], cold: bool, driver: bool) -> dict[str, float]:
    """One start of the app: its marks, and 'exit'. A scripted run (--quit-after 0.2 simulated s, the
    default) ends by itself; a `driver` run (no --quit-after: how a person starts it, where a cold start
    opens the app while the step compiles in another process) is sent Ctrl+C once the HUD stands (and,
    cold, the car can drive)."""
    with tempfile.TemporaryDirectory(prefix="contactpatch-startup-") as tmp:
        env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", XDG_DATA_HOME=tmp)
        if cold:
            env["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")
        launched = time.time()
        env[ENV] = repr(launched)
        script = [] if driver else ["--quit-after", "0.2", "--frame-dt", "0.0166"]
        proc = subprocess.Popen([sys.executable, "-m", "app", *script, *app_args], env=env, text=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # (a background
        # shell ignores Ctrl+C, and so would the app)
        marks, lines = {}, []
        wanted = {"hud", "physics"} if cold and driver else {"hud"}
        for line in proc.stderr:
            lines.append(line)
            m = re.match(r"contactpatch startup: (.+?) ([0-9.]+) s", line)
            if m:
                marks[m.group(1)] = float(m.group(2))
            if driver and wanted <= set(marks) and proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        proc.wait()
        marks["exit"] = time.time() - launched
    if proc.returncode not in (0, 130) or not wanted <= set(marks):
        raise SystemExit(f"contactpatch startup: the app ended with status {proc.returncode}: {''.join(lines).strip()}")
    return marks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.startup", description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="an empty numba cache for each run (the kernels compile)")
    ap.add_argument("--runs", type=int, default=3, help="how many starts (default 3)")
    ap.add_argument("--driver", action="store_true", help="start as a person does (no --quit-after); a cold start "
                                                          "then opens the app while the step compiles elsewhere")
    args, app_args = ap.parse_known_args(argv)
    print(f"{'cold' if args.cold else 'warm'} start{' (driver)' if args.driver else ''}, {os.cpu_count()} cores, "
          f"{cpu_model()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    runs = []
    for k in range(max(args.runs, 1)):
        before = load()
        marks = one_run(app_args, args.cold, args.driver)
        runs.append(marks)
        print(f"  run {k + 1}: " + ", ".join(f"{name} {marks[name]:.2f} s" for name in (*MARKS, "exit")
                                              if name in marks) + f"  (load before {before}, after {load()})",
              flush=True)
    for name in (*MARKS, "exit"):
        values = [r[name] for r in runs if name in r]
        if values:
            print(f"  {name}: {min(values):.2f} - {max(values):.2f} s (median {statistics.median(values):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
