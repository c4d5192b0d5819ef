"""The user's panel layouts on disk: one file per window size class (ui/layout.py size_class), so that a run
at 1920x1080 and a run at 1280x720 each come back to their own layout, and a window resized across classes
takes the other class's. A file is used only when it parses, docks the panels and leaves the 3D view free,
and its docking tree is whole (ui/layout.py); a damaged one is set aside as `<name>.bad` (the next save must
not lose it, nor write the damage back) and the default layout is built, with a notice.

ImGui-free: the overlay (ui/overlay.py) loads what `open` returns into ImGui and asks `save` to write what
ImGui gives back."""
from __future__ import annotations

import os
from pathlib import Path

from ui import layout

LEGACY = "imgui.ini"               # the one file of the versions before the size classes


class LayoutFiles:
    """The layout files in `folder` (the app's data folder): `kind` is the size class in use, `trusted`
    whether the layout ImGui holds now may be saved into its file (a loaded file is trusted only once the
    overlay has checked what ImGui made of it; a built default at once)."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.kind = ""
        self.trusted = False
        self.problem = ""            # the last save's failure, told once

    def path(self, kind: str) -> Path:
        return self.folder / f"imgui-{kind}.ini"

    def migrate(self) -> None:
        """The single layout file of older versions becomes the file of the size class it was saved at (when
        that class has none yet)."""
        old = self.folder / LEGACY
        if not old.is_file():
            return
        try:
            kind = layout.saved_class(layout.read(old)) or "compact"
        except layout.ConfigError:
            kind = "compact"                         # damaged: open() sets it aside with a message
        if not self.path(kind).exists():
            try:
                os.replace(old, self.path(kind))
            except OSError:
                pass

    def open(self, kind: str, panels) -> tuple[str, str]:
        """Switch to size class `kind`: (its saved layout to load, or "" for the default one; a notice, or "").
        `panels` are the panels a layout must dock."""
        self.kind = kind
        self.trusted = False
        self.migrate()
        path = self.path(kind)
        saved, problem = layout.load(path)
        if problem:
            return "", problem
        if not layout.has_docking(saved):
            if "DockId=" in saved and "[Docking]" not in saved:     # panels docked in nodes it no longer has
                return "", self.set_aside(path, "it is damaged (it ends before its docking section)")
            return "", ""                           # a first start, or a run with the panels hidden: no notice
        if layout.covers_the_view(saved):
            return "", self.set_aside(path, "it put panels over the 3D view")
        why = layout.docking_problem(saved, panels)
        if why:
            return "", self.set_aside(path, f"it is damaged ({why})")
        return saved, ""

    def set_aside(self, path: Path, why: str) -> str:
        """Keep a rejected file as <name>.bad (not written again); returns the notice."""
        try:
            os.replace(path, path.with_name(path.name + ".bad"))
            kept = f" (the file is kept as {path.name}.bad)"
        except OSError:
            kept = ""
        self.trusted = False
        return f"{path}: the saved layout is not used: {why}; the default layout is back{kept}"

    def reject(self, why: str) -> str:
        """The loaded layout failed the overlay's check of what ImGui made of it: set its file aside."""
        return self.set_aside(self.path(self.kind), why)

    def save(self, text: str) -> str:
        """Write ImGui's layout into the size class's file, when it is trusted; "" or a failure's message, once."""
        if not self.kind or not self.trusted:
            return ""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        problem = layout.save(self.path(self.kind), text)
        told, self.problem = self.problem, problem
        return problem if problem != told else ""
