"""Compile the physics before it is needed, with a figure of how far along it is (a cold first start).

numba compiles a kernel the first time it is called and keeps the machine code on disk; on a machine
that has never run Contact Patch the first step therefore takes half a minute. `needed()` says whether
that is ahead, `warm_up()` does it (a throwaway car on flat ground: reset, one step, the watchdog), and
`progress()` is the share of the physics kernels compiled so far, to be read from another thread while
`warm_up()` runs in one.
"""
from __future__ import annotations

import sys

import numba

from sim.jit import needs_compile

# kernels a single car does not call (batches and parallel runs compile when first used)
BATCH_ONLY = ("run_batch", "run_batch_parallel")


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
    from sim.step import step_and_watch
    return needs_compile(step_and_watch)


def progress() -> float:
    """Share (0..1) of the kernels that have machine code in this process."""
    ks = kernels()
    return sum(1 for k in ks if k.signatures) / max(len(ks), 1)


def warm_up() -> None:
    """Compile (or load) everything a single car needs: a reset, a step, the watchdog."""
    from sim.params import Vehicle
    from sim.pack import rest_com_height
    from sim.simulation import Controls, Simulation
    from sim.world import World
    car = Vehicle()
    s = Simulation(car, World.flat(), dt=1.0 / 240.0, substeps=2, check_stability=False)
    s.reset(position=(0.0, 0.0, rest_com_height(car)))
    s.step(Controls())
    s.check_health()
