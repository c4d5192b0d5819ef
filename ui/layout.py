"""The overlay's window layout files (ImGui's .ini format), read and written by us rather than by ImGui so
that a damaged file is answered like every other file: one message naming the file, the line and what
is allowed, and the default layout instead. Writes are atomic. A saved layout is kept only when it docks
panels and leaves the 3D view free (has_docking, covers_the_view) and its docking tree is whole
(docking_problem). Each window size class (size_class) has its own file (ui/layout_files.py)."""
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



# -- size classes ---------------------------------------------------------------------------------------
SIZE_CLASSES = {"compact": "windows narrower than 1700 px or lower than 950 px (1280x720, 1366x768, 1600x900)",
                "wide": "windows of at least 1700 x 950 px (1920x1080 and larger)"}
WIDE_FROM = (1700, 950)            # px: the least window (width, height) of the wide class


def size_class(w: float, h: float) -> str:
    """The size class of a window w x h pixels: its layout and its layout file."""
    return "wide" if w >= WIDE_FROM[0] and h >= WIDE_FROM[1] else "compact"


DOCKSPACE_SIZE = re.compile(r"^\s*DockSpace\b[^\n]*\bSize=(\d+),(\d+)", re.M)


def saved_class(saved: str) -> str | None:
    """The size class of the window a layout was saved from (its dockspace's size), None when it has none."""
    m = DOCKSPACE_SIZE.search(saved)
    return size_class(int(m.group(1)), int(m.group(2)) + 20) if m else None      # + the menu bar


# -- the 3D view's least size ---------------------------------------------------------------------------
MIN_VIEW = (480.0, 300.0)          # px: a 3D view at least this big, or
MIN_VIEW_SHARE = (0.3, 0.4)        # -: this share of the window's width and height, where that is less


def view_too_small(view_w: float, view_h: float, w: float, h: float) -> bool:
    """Whether a 3D view of view_w x view_h pixels is too small for a window of w x h (a layout of a much
    larger window shrunk into it: the HUD wraps, the car is a sliver)."""
    return (view_w < min(MIN_VIEW[0], MIN_VIEW_SHARE[0] * w) or
            view_h < min(MIN_VIEW[1], MIN_VIEW_SHARE[1] * h))


# -- the docking tree -----------------------------------------------------------------------------------
DOCK_LINE = re.compile(r"^\s*Dock(Space|Node)\b(.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
HEX_ID = re.compile(r"^0x[0-9A-Fa-f]{1,8}$")
SIZE = re.compile(r"^(\d+),(\d+)$")
WINDOW = re.compile(r"^\[Window\]\[([^\]]*)\]\n((?:[^\[\n][^\n]*\n?)*)", re.M)


def docking_problem(saved: str, panels) -> str:
    """"" when the saved layout's docking tree is whole, else what is wrong, in a few words: every node's
    parent is a node above it, a split node has its two children and a leaf none, sizes are positive, the
    dockspace holds exactly one central node (the 3D view's place) and every panel of `panels` is docked
    in a leaf of the dockspace. A file cut short or a damaged docking line fails here (ImGui would float
    the panels over the 3D view, or stop on an assertion); the file parses (parse) either way."""
    nodes: dict[str, dict] = {}
    children: dict[str, int] = {}
    order: list[str] = []
    for line in saved.splitlines():
        m = DOCK_LINE.match(line)
        if not m:
            continue
        fields = dict(FIELD.findall(m.group(2)))
        node_id = fields.get("ID", "")
        if not HEX_ID.match(node_id):
            return f"a docking line without a valid ID: {line.strip()[:60]!r}"
        node_id = node_id.lower()
        if node_id in nodes:
            return f"dock node {node_id} is listed twice"
        parent = fields.get("Parent", "").lower()
        if parent and parent != "0x00000000":
            if parent not in nodes:
                return f"dock node {node_id} hangs from {parent}, which is not above it"
            children[parent] = children.get(parent, 0) + 1
        else:
            parent = ""
        size = SIZE.match(fields.get("SizeRef" if parent else "Size", ""))
        if size is None or int(size.group(1)) <= 0 or int(size.group(2)) <= 0:
            return f"dock node {node_id} has no size"
        nodes[node_id] = {"kind": m.group(1), "parent": parent, "split": fields.get("Split", ""),
                          "central": fields.get("CentralNode") == "1"}
        order.append(node_id)
    spaces = [n for n in order if nodes[n]["kind"] == "Space" and not nodes[n]["parent"]]
    if len(spaces) != 1:
        return "no dockspace" if not spaces else "more than one dockspace"
    for node_id in order:
        want = 2 if nodes[node_id]["split"] in ("X", "Y") else 0
        if children.get(node_id, 0) != want:
            return f"dock node {node_id} has {children.get(node_id, 0)} child nodes, its split needs {want}"

    def root(node_id: str) -> str:
        while nodes[node_id]["parent"]:
            node_id = nodes[node_id]["parent"]
        return node_id
    space = spaces[0]
    central = [n for n in order if nodes[n]["central"] and root(n) == space]
    if len(central) != 1:
        return "no place for the 3D view" if not central else "more than one place for the 3D view"
    docked = {name: re.search(r"^DockId=(0x[0-9A-Fa-f]+)", body, re.M) for name, body in WINDOW.findall(saved)}
    for name in panels:
        m = docked.get(name)
        node_id = m.group(1).lower() if m else ""
        if node_id not in nodes or root(node_id) != space or children.get(node_id, 0):
            return f"the {name} panel is not docked"
    return ""
