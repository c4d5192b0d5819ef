"""The overlay's window layout file (ImGui's .ini format), read and written by us rather than by ImGui so
that a damaged file is answered like every other file: one message naming the file, the line and what
is allowed, and the default layout instead. Writes are atomic. A saved layout is kept only when it docks
panels and leaves the 3D view free (has_docking, covers_the_view)."""
from __future__ import annotations

import os
import re
from pathlib import Path

from sim.model.files import ConfigError
from sim.model.files import atomic_write_bytes
from sim.model.files import read_text

MAX_BYTES = 1 << 20          # a layout of a few dozen windows is a few kB
LONG_NUMBER = re.compile(r"\d{10,}")     # ImGui reads numbers with sscanf: keep them well inside an int
LINE = re.compile(r"^(?:\[[^\]]*\]\[.*\]|[A-Za-z][A-Za-z0-9_ ]*=.*|\s*Dock(?:Space|Node)\b.*|;.*|\s*)$")


def parse(text: str, path: str) -> str:
    """`text` if every line is an ImGui settings line ([Type][Name] header, Key=Value, docking line,
    ; comment or blank), else ConfigError naming the first line that is not."""
    for k, line in enumerate(text.splitlines(), start=1):
        if not LINE.match(line) or LONG_NUMBER.search(line):
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise ConfigError(f"{path}: line {k} = {shown!r} is not allowed; expected an ImGui layout line "
                              f"([Window][name], key=value or a Dock line); the default layout is used")
    return text


def read(path: str | os.PathLike) -> str:
    """The layout text, or ConfigError with one line naming the file and what is wrong."""
    return parse(read_text(path, "layout", max_bytes=MAX_BYTES), str(path))


def load(path: str | os.PathLike) -> tuple[str, str]:
    """(layout text, problem): the saved layout, or "" and a one-line message when the file is damaged
    (then renamed to <name>.bad so that the next save does not lose what was there). A missing file is
    no problem: ("", "")."""
    path = Path(path)
    if not path.exists():
        return "", ""
    if not os.access(path, os.R_OK):                    # unreadable is not damaged: leave it be
        return "", f"{path}: cannot read the layout file; the default layout is used"
    try:
        return read(path), ""
    except ConfigError as exc:
        try:
            os.replace(path, path.with_name(path.name + ".bad"))
        except OSError:
            pass
        message = str(exc)
        return "", message if message.endswith("layout is used") else message + "; the default layout is used"


def has_docking(saved: str) -> bool:
    """Whether a saved layout docks any panel: then it is the user's own and kept. Without one (a first
    start, an older layout, or a run with the panels hidden, which saves an empty docking section) the
    default is built; an empty section taken for the user's would leave every panel floating over the 3D
    view."""
    return "[Docking]" in saved and "DockId=" in saved


CENTRAL_NODE = re.compile(r"^\s*Dock(?:Space|Node)\s+ID=(0x[0-9A-Fa-f]+)\b[^\n]*\bCentralNode=1\b", re.M)
DOCKED_INTO = re.compile(r"^DockId=(0x[0-9A-Fa-f]+)\b", re.M)


def covers_the_view(saved: str) -> bool:
    """Whether a saved layout docks a panel into the dockspace's central node, the place of the 3D view:
    then the car is hidden behind tabs from the first frame (a layout saved that way, by a drag or a run
    that stopped half way, came back on every start). Such a layout is not kept; the default is built."""
    central = set(CENTRAL_NODE.findall(saved))
    return any(node in central for node in DOCKED_INTO.findall(saved))


def save(path: str | os.PathLike, text: str) -> str:
    """Write the layout atomically; returns "" or the reason it could not be written."""
    try:
        atomic_write_bytes(path, text.encode())
        return ""
    except OSError as exc:
        return f"{path}: cannot save the layout: {exc.strerror or exc}"


def undocked(saved: str, names) -> list[str]:
    """The panels among `names` that a saved layout does not dock (a panel added since it was saved): kept
    layouts dock them beside their default neighbour (ui/overlay.py NEW_PANEL_HOSTS) instead of letting them
    float over the 3D view."""
    out = []
    for name in names:
        section = re.search(r"^\[Window\]\[" + re.escape(name) + r"\]\n((?:[^\[\n][^\n]*\n?)*)", saved, re.M)
        if section is None or "DockId=" not in section.group(1):
            out.append(name)
    return out

