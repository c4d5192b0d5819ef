"""Prints this machine's eight state hashes (tests/test_state_hash.py HASHES, in its order) for its vector maths
(sim.kernel.jit.VECTOR_MATH): run it from the checkout, `python tests/state_hashes.py`, after a deliberate change of
the physics, and set the printed tuple as HASHES' entry for the kind it names (CONTACTPATCH_VECTOR_MATH=scalar
for the scalar kind)."""
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent.parent)]   # the tests, the checkout

import test_state_hash as t  # noqa: E402

import sim  # noqa: E402

# the earlier code paths the other six hashes pin (the tests that monkeypatch sim.load_vehicle)
VARIANTS = [(), ("brakes.hold_stop", "impulse", "brakes.hold_solver", "gradient"),
            ("chassis.lateral_update", "explicit"), ("brakes.hold_solver", "gradient")]


def main() -> None:
    load = sim.load_vehicle
    hashes = []
    for variant in VARIANTS:
        def patched(name, variant=variant):
            car = load(name)
            for k in range(0, len(variant), 2):
                car = sim.with_value(car, variant[k], variant[k + 1])
            return car
        sim.load_vehicle = patched
        hashes += [t.batch_drive_hash(), t.single_drive_hash()]
    sim.load_vehicle = load
    print(f'    "{sim.kernel.jit.VECTOR_MATH}": (' + ",\n            ".join(f'"{h}"' for h in hashes) + "),")


if __name__ == "__main__":
    main()
