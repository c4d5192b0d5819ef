"""The grip log as the Grip panel lists it (ImGui-free): which entries a filter by wheel and by cause keeps,
newest first, and the short line each is listed with (the reason goes in its tooltip)."""
from __future__ import annotations

import sim
from sim.diagnosis import CAUSE_NAMES
from sim.diagnosis import GRIP
from sim.diagnosis import LOW
from sim.diagnosis import NO_LOAD
from sim.diagnosis import SATURATED
from sim.diagnosis import STATE_NAMES
from sim.diagnosis import GripEvent

WHEELS = ("all wheels", *sim.WHEEL_NAMES)
# what an entry is about: the log's cause filter; each kind's test of an entry
KINDS = {
    "every entry": lambda e: True,
    "losses of grip": lambda e: not e.esp and e.after in (NO_LOAD, SATURATED) and e.before in (LOW, GRIP),
    "no load": lambda e: not e.esp and e.after == NO_LOAD,
    **{name: (lambda e, k=k: not e.esp and e.after == SATURATED and e.cause == k)
       for k, name in enumerate(CAUSE_NAMES) if name},
    "grip back": lambda e: not e.esp and e.after in (LOW, GRIP) and e.before in (NO_LOAD, SATURATED),
    "ESP braking": lambda e: e.esp,
}


def kept(events: list[GripEvent], wheel: int = 0, kind: str = "every entry", most: int = 200) -> list[GripEvent]:
    """The entries of `events` (oldest first) that the filter keeps, newest first, at most `most`: `wheel` is an
    index of WHEELS (0: all, 1..4: FL, FR, RL, RR), `kind` a key of KINDS."""
    test = KINDS[kind]
    out = []
    for e in reversed(events):
        if (wheel == 0 or e.wheel == wheel - 1) and test(e):
            out.append(e)
            if len(out) >= most:
                break
    return out


def line(e: GripEvent) -> str:
    """One short line: time, wheel, the change (and its cause)."""
    if e.esp:
        return f"{e.time:8.3f} s  {sim.WHEEL_NAMES[e.wheel]}  ESP brakes it"
    after = STATE_NAMES[e.after] + (f" ({CAUSE_NAMES[e.cause]})" if e.cause else "")
    return f"{e.time:8.3f} s  {sim.WHEEL_NAMES[e.wheel]}  {STATE_NAMES[e.before]} -> {after}"
