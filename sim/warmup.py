"""Compile the physics before it is needed, with a figure of how far along it is (a cold first start).

numba compiles a kernel the first time it is called and keeps the machine code on disk; on a machine
that has never run Contact Patch the first step therefore takes half a minute. `needed()` says whether
that is ahead, `warm_up()` does it (a throwaway car on flat ground: reset, one step, the watchdog), and
`progress()` is the share of the physics kernels compiled so far, to be read from another thread while
`warm_up()` runs in one.

numba compiles on one core. On a machine with more, a cold `warm_up()` starts a helper process that
compiles the same kernels from the other end of the chain (the body, the parking solve, the collision
stage first) and writes them to the cache, where this process finds them when its own compile reaches
them. The helper learns the argument types to compile for from one step of the same car run as plain
Python with every kernel noting its argument types (`sim.kernel.jit.plain`), which takes a third of a second.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numba

from sim.kernel.jit import needs_compile

# kernels a single car does not call (batches and parallel runs compile when first used; `step()` runs its
# own inlined copy of substep, sim.kernel.jit.inlined_copy)
BATCH_ONLY = ("run_vehicles", "normalise_trace", "substep")
# what the helper leaves out: step_and_watch contains the whole chain and is compiled by the main process
# anyway; the batch's substep (a second copy of the chain) is not needed for the first frame and is made
# after it by `start_later` (on a loaded 2-core machine it took CPU from the main process's compile)
HELPER_SKIPS = ("step_and_watch", "substep")


def kernels() -> list:
    """The compiled (not inlined) kernels of the physics modules loaded so far."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("sim.") or module is None:
            continue
        for attr, obj in list(vars(module).items()):
            if isinstance(obj, numba.core.registry.CPUDispatcher) and attr not in BATCH_ONLY \
                    and obj.targetoptions.get("inline", "never") != "always":
                found[id(obj)] = obj
    return list(found.values())


def needed() -> bool:
    """True when the next single-car step would compile rather than load cached machine code."""
    from sim.kernel.step import step_and_watch
    return needs_compile(step_and_watch)


def progress(on_disk: bool = False) -> float:
    """Share (0..1) of the kernels that have machine code in this process, or (`on_disk`) in the cache,
    where another process (`python -m sim.warmup`) puts them."""
    ks = kernels()
    return sum(1 for k in ks if (not needs_compile(k) if on_disk else k.signatures)) / max(len(ks), 1)


def warm_up(helper: bool = True) -> None:
    """Compile (or load) everything a single car needs: a reset, a step, the watchdog. When that means
    compiling and there is a core to spare, a helper process compiles from the other end (`helper`)."""
    process = start_helper() if helper and needed() and (os.cpu_count() or 1) > 1 else None
    try:
        drive_one_step()
    finally:
        if process is not None:
            process.kill()                        # its work that landed in the cache is kept
            process.wait()


def later_needed() -> bool:
    """True when a batch run (`Simulation.run`: standing-still test drives, sweeps) would compile."""
    from sim.kernel.step import run_vehicles
    return needs_compile(run_vehicles)


def start_later():
    """After the first frame of a cold start: a helper process at low priority (nice 10: it takes the
    cores the app and the user leave idle) compiles what the app uses later (the batch kernels) into the
    cache, where this process finds them when first used. None when nothing is left or it cannot start."""
    if not later_needed():
        return None
    return start_helper("--later", nice=10)


def start_helper(task: str = "--helper", nice: int = 0):
    """The helper process (`python -m sim.warmup --helper`), or None when it cannot be started."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    try:
        return subprocess.Popen([sys.executable, "-m", "sim.warmup", task], env=env, cwd=root,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                preexec_fn=(lambda: os.nice(nice)) if nice and hasattr(os, "nice") else None)
    except OSError:
        return None


def recorded_types() -> list[tuple[str, str, tuple]]:
    """(module, name, argument types) of every compiled function one step of the warm-up car calls, in
    the order they are first called, from a child process that runs that step as Python."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", CONTACTPATCH_RECORD_TYPES="1")
    out = subprocess.run([sys.executable, "-m", "sim.warmup", "--record"], env=env, capture_output=True,
                         stdin=subprocess.DEVNULL, check=True, timeout=120)
    return pickle.loads(out.stdout)


def compile_backwards(calls: list[tuple[str, str, tuple]]) -> int:
    """Compile the recorded functions, the last called first (the helper's side of the warm-up): each
    lands in the cache as soon as it is done. Returns how many were compiled or found."""
    done = 0
    for module, name, sig in reversed(calls):
        fn = getattr(sys.modules.get(module), name, None)
        if name in HELPER_SKIPS or not isinstance(fn, numba.core.registry.CPUDispatcher) \
                or fn.targetoptions.get("inline", "never") == "always":
            continue
        try:
            fn.compile(sig)
            done += 1
        except Exception:                # a type the compiled caller does not use: the main process
            pass                         # compiles what it needs itself
    return done


def drive_one_step() -> None:
    """A throwaway car on flat ground: reset, one step, the watchdog."""
    from sim.controls import Controls
    from sim.model.geometry import rest_com_height
    from sim.model.params import Vehicle
    from sim.model.world import World
    from sim.simulation import Simulation
    car = Vehicle()
    s = Simulation(car, World.flat(), dt=1.0 / 240.0, substeps=2, check_stability=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)))
    s.step(Controls())
    s.check_health()


def compile_step() -> None:
    """Compile the step (step_and_watch) for the types one step of the warm-up car uses, without placing a car
    (the app's own process does that meanwhile, see place_one_car), with the helper working from the other
    end when there is a core to spare."""
    import sim.simulation  # noqa: F401  (every physics module, so the recorded names resolve)
    process = start_helper() if needed() and (os.cpu_count() or 1) > 1 else None
    try:
        for module, name, sig in recorded_types():
            if name == "step_and_watch":
                getattr(sys.modules[module], name).compile(sig)
    finally:
        if process is not None:
            process.kill()
            process.wait()


def place_one_car() -> None:
    """A throwaway car placed on flat ground and checked by the watchdog, without a step: what a window's
    first frame needs compiled (`python -m sim.warmup --warm-up` compiles the step meanwhile)."""
    from sim.model.geometry import rest_com_height
    from sim.model.params import Vehicle
    from sim.model.world import World
    from sim.simulation import Simulation
    car = Vehicle()
    s = Simulation(car, World.flat(), dt=1.0 / 240.0, substeps=2, check_stability=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)))
    s.check_health()


def drive_batch() -> None:
    """One batch run (`Simulation.run`) of a throwaway car: compiles the batch kernels."""
    import numpy as np

    from sim.controls import CONTROL_COLUMNS
    from sim.model.geometry import rest_com_height
    from sim.model.params import Vehicle
    from sim.model.world import World
    from sim.simulation import Simulation
    car = Vehicle()
    s = Simulation(car, World.flat(), dt=1.0 / 240.0, substeps=2, check_stability=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)))
    s.run(np.zeros((1, len(CONTROL_COLUMNS))))


def main(argv: list[str]) -> int:
    if argv == ["--record"]:               # NUMBA_DISABLE_JIT=1, CONTACTPATCH_RECORD_TYPES=1: see recorded_types
        from sim.kernel import jit
        drive_one_step()
        calls = [(m, q, sig) for (m, q), sigs in jit.RECORDED.items() for sig in sigs]
        sys.stdout.buffer.write(pickle.dumps(calls))
        return 0
    if argv == ["--helper"]:               # see warm_up
        import sim.simulation  # noqa: F401  (every physics module, so the recorded names resolve)
        compile_backwards(recorded_types())
        return 0
    if argv == ["--warm-up"]:              # app/compile_screen.py BackgroundCompile
        compile_step()
        return 0
    if argv == ["--later"]:                # see start_later
        drive_batch()
        return 0
    warm_up()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
