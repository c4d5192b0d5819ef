"""The Sweeps panel (a view of ui/sweeps.py): a sweep's results folder opened (a path, the folders opened
lately and those beside the last one), its table sortable by any column with the units in the headers and
the failed variants in red, a figure against a parameter from the table (ImPlot) with each figure's
sensitivities, and "drive this variant", which makes the selected row the car as tuned."""
from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from imgui_bundle import imgui

from sim.model.files import ConfigError
from ui.panels.sweep_plot import figure_plot
from ui.sweeps import SweepFolder
from ui.sweeps import drive_variant
from ui.sweeps import open_folder
from ui.sweeps import recent_folders
from ui.sweeps import remember
from ui.sweeps import sweep_folders_in
from ui.sweeps import unit_label
from ui.tuning import Tuning
from ui.widgets import AMBER
from ui.widgets import GREY
from ui.widgets import RED
from ui.widgets import fit_text
from ui.widgets import text_wrapped_colored

TABLE = (imgui.TableFlags_.sortable | imgui.TableFlags_.resizable | imgui.TableFlags_.reorderable
         | imgui.TableFlags_.hideable | imgui.TableFlags_.row_bg | imgui.TableFlags_.borders_inner_v
         | imgui.TableFlags_.scroll_x | imgui.TableFlags_.scroll_y | imgui.TableFlags_.sizing_fixed_fit)


SIDE_BY_SIDE = 900.0      # px of width from which the table and the plot are shown side by side, not as tabs


def header_label(name: str, unit: str) -> str:
    """A column's header on two lines, so that the columns stay narrow: "front_suspension." over
    "anti_roll (N/m)", "braking/" over "stopping distance (m)"."""
    sep = "/" if "/" in name else "."
    head, mark, tail = name.partition(sep)
    return unit_label(name, unit) if not mark else f"{head}{mark}\n{unit_label(tail, unit)}"


class SweepsPanel:
    def __init__(self, begin: Callable[[str], bool], tuning: Tuning):
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.tuning = tuning                  # "drive this variant" edits it
        self.recent = recent_folders()        # newest first
        self.path = self.recent[0] if self.recent else ""      # the folder box: the last folder opened
        self.sweep: SweepFolder | None = None
        self.message = ""                     # one line: why a folder did not open
        self.status = ""                      # what "drive this variant" did
        self.order: list[int] = []            # the rows' indices as sorted
        self.selected: int | None = None      # a row index (of sweep.rows)
        self.x = 0                            # the plot's parameter (index of sweep.table.paths)
        self.y = 0                            # the plot's figure (index of sweep.table.figures)
        self.tab_request: str | None = None
        self._nearby: tuple[str, list[str]] = ("", [])     # (folder listed, the sweep folders in it)

    def open(self, path: str | Path) -> bool:
        """Open a sweep's results folder; False with `message` (one line) if it is not one."""
        self.path = str(path)
        try:
            sweep = open_folder(path)
        except ConfigError as exc:
            self.message = str(exc).splitlines()[0] if str(exc) else "not a sweep's results folder"
            return False
        self.sweep, self.message, self.status = sweep, "", ""
        self.order = list(range(len(sweep.rows)))
        self.selected, self.x, self.y = None, 0, 0
        self.recent = remember(sweep.folder)
        self.path = self.recent[0]
        return True

    def drive_selected(self) -> str:
        """Make the selected row the car as tuned (ui/sweeps.drive_variant)."""
        if self.sweep is None or self.selected is None:
            return ""
        self.status = drive_variant(self.tuning, self.sweep, self.sweep.rows[self.selected])
        return self.status

    def draw(self, w: float, h: float) -> None:
        imgui.set_next_window_pos((w * 0.25, h * 0.45), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((w * 0.5, h * 0.45), imgui.Cond_.first_use_ever)
        if self.begin("Sweeps"):
            self.folder_line()
            if self.message:
                text_wrapped_colored(RED, self.message)
            s = self.sweep
            if s is not None:
                self.info_line(s)
                if imgui.get_content_region_avail().x >= SIDE_BY_SIDE:
                    width = imgui.get_content_region_avail().x * 0.55
                    if imgui.begin_child("table side", (width, 0.0)):
                        self.table_view(s)
                    imgui.end_child()
                    imgui.same_line()
                    if imgui.begin_child("plot side", (0.0, 0.0)):
                        self.plot_view(s)
                    imgui.end_child()
                elif imgui.begin_tab_bar("sweep views"):
                    for name, body in (("Table", self.table_view), ("Plot", self.plot_view)):
                        flags = imgui.TabItemFlags_.set_selected if self.tab_request == name else 0
                        if imgui.begin_tab_item(name, None, flags)[0]:
                            body(s)
                            imgui.end_tab_item()
                    self.tab_request = None
                    imgui.end_tab_bar()
        imgui.end()

    def folder_line(self) -> None:
        """The folder box, open, and the folders opened lately or found beside the last one."""
        style = imgui.get_style()
        rest = imgui.calc_text_size("open").x + 2 * style.frame_padding.x + imgui.get_frame_height() \
            + 2 * style.item_spacing.x
        imgui.set_next_item_width(max(120.0, imgui.get_content_region_avail().x - rest))
        entered, self.path = imgui.input_text_with_hint("##sweep folder", "a sweep's output folder (--out DIR)",
                                                        self.path, imgui.InputTextFlags_.enter_returns_true)
        if imgui.is_item_hovered():
            imgui.set_tooltip((f"{self.path}\n" if self.path else "") + "a folder `contactpatch sweep FILE --out DIR` "
                              "wrote; Enter or open reads it, the arrow lists the folders opened lately")
        imgui.same_line()
        if imgui.button("open") or entered:
            self.open(self.path)
        imgui.same_line()
        if imgui.begin_combo("##recent", "recent", imgui.ComboFlags_.no_preview | imgui.ComboFlags_.height_large):
            shown = set()
            for p in self.recent:
                shown.add(p)
                if imgui.selectable(fit_text(p, 600.0), False)[0]:
                    self.open(p)
            nearby = self.nearby()
            extra = [p for p in nearby if p not in shown]
            if extra:
                imgui.separator_text("beside the last one")
                for p in extra:
                    if imgui.selectable(fit_text(p, 600.0), False)[0]:
                        self.open(p)
            if not self.recent and not extra:
                imgui.text_disabled("none yet: contactpatch sweep FILE --out DIR writes one")
            imgui.end_combo()

    def nearby(self) -> list[str]:
        """The sweep folders beside the last one opened (listed when the folder changes, not every frame)."""
        parent = str(Path(self.recent[0]).parent) if self.recent else str(Path.cwd())
        if self._nearby[0] != parent:
            self._nearby = (parent, sweep_folders_in(Path(parent)))
        return self._nearby[1]

    def info_line(self, s: SweepFolder) -> None:
        """"drive this variant", then what it did, or else what the sweep is (car, drives, rows)."""
        info = s.info
        picked = self.selected
        imgui.begin_disabled(picked is None)
        if imgui.button("drive this variant"):
            self.drive_selected()
        imgui.end_disabled()
        if imgui.is_item_hovered(imgui.HoveredFlags_.allow_when_disabled):
            imgui.set_tooltip("the selected row's car becomes the car as tuned: the sweep's car as the preset, "
                              "the row's values as edits (marked changed in the Tuning panel)" if picked is not None
                              else "select a row of the table first")
        imgui.same_line()
        text = self.status or (f"{s.rows[picked]['variant']} selected; " if picked is not None else "") + info
        color = RED if "refused" in self.status or "not loaded" in self.status else GREY
        imgui.text_colored(color, fit_text(text, imgui.get_content_region_avail().x))
        if imgui.is_item_hovered():
            imgui.set_tooltip(f"{text}\n{info}\n{s.folder}" if self.status else f"{text}\n{s.folder}")
        if s.skipped:
            text_wrapped_colored(AMBER, f"{s.skipped} rows of results.csv could not be read and are left out")
        if s.car_note:
            text_wrapped_colored(AMBER, s.car_note)

    def table_view(self, s: SweepFolder) -> None:
        """The rows: sortable by any column (a click on its header), drawn a screenful at a time."""
        cols, units = s.columns, s.units
        if not imgui.begin_table("sweep rows", len(cols), TABLE, (0.0, 0.0)):
            return
        imgui.table_setup_scroll_freeze(1, 1)
        for k, (c, u) in enumerate(zip(cols, units)):
            flags = imgui.TableColumnFlags_.default_sort if k == 0 else 0
            imgui.table_setup_column(header_label(c, u), flags | imgui.TableColumnFlags_.prefer_sort_ascending)
        imgui.table_headers_row()
        specs = imgui.table_get_sort_specs()
        if specs is not None and specs.specs_dirty:
            if specs.specs_count:
                spec = specs.get_specs(0)
                descending = spec.get_sort_direction() == imgui.SortDirection.descending
                self.order = s.order(spec.column_index, descending)
            specs.specs_dirty = False
        clipper = imgui.ListClipper()
        clipper.begin(len(self.order))
        while clipper.step():
            for j in range(clipper.display_start, clipper.display_end):
                i = self.order[j]
                cells = s.cells[i]
                failed = s.failed(i)
                imgui.table_next_row()
                imgui.table_next_column()
                if failed:
                    imgui.push_style_color(imgui.Col_.text, RED)
                clicked, _ = imgui.selectable(f"{cells[0]}##{i}", self.selected == i,
                                              imgui.SelectableFlags_.span_all_columns)
                if clicked:
                    self.selected = i
                if failed and imgui.is_item_hovered():
                    imgui.set_tooltip(s.rows[i].get("error", "") or "failed")
                for cell in cells[1:]:
                    imgui.table_next_column()
                    imgui.text(cell)
                if failed:
                    imgui.pop_style_color()
        clipper.end()
        imgui.end_table()

    def plot_view(self, s: SweepFolder) -> None:
        """A figure against a parameter, every variant a point (the selected one ringed, the car as tuned
        now marked), and the figure's sensitivity to each parameter."""
        t = s.table
        if not t.figures:
            imgui.text_disabled("this sweep has no figures")
            return
        half = max(120.0, imgui.get_content_region_avail().x * 0.5 - 10.0)
        imgui.set_next_item_width(half)
        _, self.y = imgui.combo("##figure", min(self.y, len(t.figures) - 1),
                                [unit_label(f, u) for f, u in zip(t.figures, t.figure_units)])
        imgui.same_line()
        imgui.text("against")
        imgui.same_line()
        imgui.set_next_item_width(-1)
        _, self.x = imgui.combo("##parameter", min(self.x, len(t.paths) - 1),
                                [unit_label(p, u) for p, u in zip(t.paths, t.param_units)])
        fig, path = t.figures[self.y], t.paths[self.x]
        x, y = s.values(path), s.values(fig)
        failed = x[s.failed_rows]
        picked = None if self.selected is None else (x[self.selected], y[self.selected])
        try:
            now = float(getattr(getattr(self.tuning.params, path.split(".")[0]), path.split(".")[1]))
        except (AttributeError, IndexError, TypeError, ValueError):
            now = None
        sens_h = imgui.get_text_line_height_with_spacing() * len(t.paths) + 4.0
        series, by = s.series(path)
        height = max(100.0, imgui.get_content_region_avail().y - sens_h)
        figure_plot("##sweep plot", x, y, unit_label(path, t.param_units[self.x]),
                    unit_label(fig.partition("/")[2], t.figure_units[self.y]), height=height,
                    failed_x=failed, current=now, selected=picked, series=series,
                    series_of=f"a line for each {by}" if series else "")
        slope, per_tenth, n = s.sensitivity(fig)
        unit = t.figure_units[self.y]
        for j, (p, pu) in enumerate(zip(t.paths, t.param_units)):
            change = f"{per_tenth[j]:+.4g} {unit}" if math.isfinite(per_tenth[j]) else "-"
            imgui.text_disabled(fit_text(f"{change} per 10 % of {p}'s range", imgui.get_content_region_avail().x))
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"sensitivity of {fig} to {p} (summary.md's): the least-squares slope on every "
                                  f"parameter at once over {n} rows,\n{slope[j]:.6g} {unit} per {pu}, "
                                  f"{change} per 10 % of the swept range")
