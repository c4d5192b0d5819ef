"""The Tuning panel: a view of the tuning model (ui/tuning.py). The stability summary with the substeps, the
preset box, save, load and revert, and an editor for every parameter by group, with its changed mark,
allowed range, stable range and the reason a refused edit was refused."""
from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import fields

from imgui_bundle import imgui

from sim import advisor
from sim.model import checks
from sim.model import params as P
from ui.panels.sweep_this import context_menu
from ui.panels.sweep_this import sweep_box
from ui.quick_sweep import QuickSweep
from ui.refusal import plain_name
from ui.tuning import NUMBER_FORMAT
from ui.tuning import Tuning
from ui.tuning import config_presets
from ui.tuning import home_short
from ui.tuning import same_file
from ui.tuning import short_number
from ui.tuning import sprung_note
from ui.tuning import typed_number
from ui.widgets import AMBER
from ui.widgets import GREEN
from ui.widgets import GREY
from ui.widgets import RED
from ui.widgets import TABLE_FLAGS
from ui.widgets import fit_text
from ui.widgets import text_wrapped_colored

GROUP_TITLES = {"chassis": "Chassis", "front_axle": "Front axle", "rear_axle": "Rear axle",
                "front_suspension": "Suspension: front", "rear_suspension": "Suspension: rear",
                "front_tire": "Tire: front", "rear_tire": "Tire: rear", "brakes": "Brakes", "steering": "Steering",
                "drive": "Drive and differentials", "aero": "Aero", "collision": "Body collision",
                "engine": "Engine", "gearbox": "Gearbox and clutch"}
LOW_MARGIN = 2.0          # a parameter whose margin is below this gets its margin shown beside its field


def fit_tip(text: str, width: int = 90) -> str:
    """A long line broken into lines of at most `width` characters at spaces, for a tooltip."""
    return "\n".join(textwrap.wrap(text, width)) or text


def margin_color(margin: float) -> tuple[float, float, float, float]:
    return RED if margin < advisor.REQUIRED_MARGIN else AMBER if margin < LOW_MARGIN else GREEN


def item_color(item) -> tuple[float, float, float, float]:
    """A part's margin colour: red only where it would be refused; a bounded part below its margin (it
    chatters, or the kernel holds it) amber."""
    if item.refuses:
        return RED
    return AMBER if not item.stable or item.margin < LOW_MARGIN else GREEN


class TuningPanel:
    def __init__(self, tuning: Tuning, begin: Callable[[str], bool]):
        self.tuning = tuning                  # the model this panel shows and edits
        self.begin = begin                    # the overlay's begin (a panel's window)
        self.sweep = QuickSweep()             # "sweep this": a number field's right-click menu

    def draw(self, w: float, h: float) -> None:
        imgui.set_next_window_pos((10, 120), imgui.Cond_.first_use_ever)
        imgui.set_next_window_size((400, h - 270), imgui.Cond_.first_use_ever)
        if self.begin("Tuning"):
            t = self.tuning
            self.stability_section()
            imgui.separator()
            car = t.params
            self.preset_box()
            imgui.set_next_item_width(-1)                 # the whole width: a path is long
            _, t.file_path = imgui.input_text_with_hint("##file", "file to save to, or a file or preset to load",
                                                        t.file_path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"{t.file_path}\nsave writes this file; load reads it (or a preset name)")
            if imgui.button("save"):
                t.save(t.file_path)
            imgui.same_line()
            if imgui.button("load"):
                t.load(t.file_path)
            imgui.same_line()
            if imgui.button("revert all"):
                t.revert()
            if t.status:
                imgui.text_wrapped(t.status)
            imgui.separator()
            for gname, gtype in P.GROUP_TYPES.items():
                if not imgui.collapsing_header(GROUP_TITLES.get(gname, gname)):
                    continue
                model = getattr(getattr(car, gname), "model", None)
                hidden = 0
                for f in fields(gtype):
                    if model is not None and not P.field_used(gtype, model, f.name):
                        hidden += 1
                        continue
                    self.field_editor(car, gname, f)
                if hidden:
                    imgui.text_disabled(f"({hidden} parameters of the other models hidden)")
        imgui.end()

    def preset_box(self) -> None:
        """The preset picker. Closed, it shows what is loaded (and, under it, the path of a file from
        neither preset folder); open, it lists the built-in presets and the user's saved ones."""
        t = self.tuning
        if imgui.begin_combo("preset", t.preset_label()):
            edited = t.edited()
            for p in config_presets():
                current = t.source is not None and same_file(p.path, t.source)
                clicked, _ = imgui.selectable(p.label, current)
                if imgui.is_item_hovered():
                    imgui.set_tooltip(str(p.path))
                if clicked and (edited or not current):
                    t.load(p.path)
                if current:
                    imgui.set_item_default_focus()
            imgui.end_combo()
        if t.source is not None and not t.source_folder():
            text_wrapped_colored(GREY, f"from {home_short(t.source)}")      # a file of no preset folder

    def stability_section(self) -> None:
        """The least stable part, the substeps, and every part's margin (sim.advisor)."""
        s = self.tuning.session.sim
        r = self.tuning.stability()
        w = r.worst
        imgui.text("stability:")
        imgui.same_line()
        imgui.text_colored(item_color(w), f"margin {w.margin:.3g}")
        imgui.same_line()
        imgui.text_disabled(f"(needs {w.required:g})")
        text_wrapped_colored(GREY, f"least: {w.part}, {w.parameter}")
        if not w.stable and not w.refuses:
            text_wrapped_colored(AMBER, "bounded: below its margin this part chatters (its force is held by a "
                                        "friction limit or a cap), it does not blow up: not refused")
        if not r.stable:
            text_wrapped_colored(RED, f"unstable: {r.substeps_needed} substeps would make it stable")
        for note in r.notes:
            text_wrapped_colored(AMBER, f"note: {note}")
        locked = self.tuning.session.substeps_locked
        imgui.begin_disabled(bool(locked))
        imgui.set_next_item_width(100)
        edited, n = imgui.input_int("substeps", s.substeps, 1, 10, imgui.InputTextFlags_.enter_returns_true)
        imgui.end_disabled()
        if edited and n != s.substeps:
            self.tuning.set_substeps(n)
        imgui.same_line()
        step_text = f"h {r.h * 1e3:.3g} ms of dt {s.dt * 1e3:.3g} ms"
        if imgui.calc_text_size(step_text).x > imgui.get_content_region_avail().x:
            imgui.new_line()                    # a narrow panel: on a line of its own rather than cut short
        imgui.text_disabled(fit_text(step_text, imgui.get_content_region_avail().x))
        if locked:
            text_wrapped_colored(GREY, f"substeps fixed: {locked}")
        if self.tuning.substeps_error:
            text_wrapped_colored(RED, f"refused: {self.tuning.substeps_error}")
        if imgui.tree_node(f"every part ({len(r.items)})###every part"):
            if imgui.begin_table("margins", 3, TABLE_FLAGS):
                imgui.table_setup_column("part", imgui.TableColumnFlags_.width_stretch)
                imgui.table_setup_column("margin", imgui.TableColumnFlags_.width_fixed)
                imgui.table_setup_column("h max", imgui.TableColumnFlags_.width_fixed)
                imgui.table_headers_row()
                for item in sorted(r.items, key=lambda i: i.margin):
                    imgui.table_next_row()
                    imgui.table_next_column()
                    imgui.text_wrapped(item.part)
                    if imgui.is_item_hovered():
                        kind = "\nbounded: below its margin it chatters or is held, it is not refused" \
                            if item.bounded else ""
                        imgui.set_tooltip(f"{item.parameter}\n{item.why}{kind}")
                    imgui.table_next_column()
                    imgui.text_colored(item_color(item), f"{item.margin:7.3g}")
                    imgui.table_next_column()
                    imgui.text(f"{item.h_max * 1e3:.3g} ms")
                imgui.end_table()
            imgui.tree_pop()

    def fix_button(self, path: str) -> None:
        """Under an edit the advisor refused or the kernel holds: take the substeps that make it stable or run
        it as given, when allowed."""
        s = self.tuning.session.sim
        n = self.tuning.fixes[path][1]
        locked = self.tuning.session.substeps_locked
        if locked:
            text_wrapped_colored(GREY, f"\"use {n} substeps\" is unavailable: {locked}")
        else:
            if imgui.small_button(f"use {n} substeps and apply"):
                self.tuning.apply_with_substeps(path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"substeps {s.substeps} -> {n}: about {n / s.substeps:.3g} times the physics "
                                  f"work per step")

    def field_editor(self, car, gname: str, f) -> None:
        """The editor of parameter `gname`.`f` of `car` (the parameters of this build), by its kind: a number
        field, a choice or a list; its changed mark with a revert button, its tooltip and its refusal."""
        path = f"{gname}.{f.name}"
        value = checks.get_value(car, path)
        changed_mark = value != checks.get_value(self.tuning.baseline, path)
        m = f.metadata
        imgui.push_id(path)
        if changed_mark:
            if imgui.small_button("x"):
                self.tuning.revert(path)
            if imgui.is_item_hovered():
                imgui.set_tooltip(f"revert to {checks.get_value(self.tuning.baseline, path)!r}")
            imgui.same_line()
        # the symbol with its plain name beside it, shortened to the room there is (the tooltip has it all)
        room = imgui.get_content_region_avail().x - (130.0 if m["kind"] != "list" else 240.0) - 70.0
        label = fit_text(f"{'* ' if changed_mark else ''}{f.name}  {plain_name(m['doc'])}", room) + "###field"
        if m["kind"] == "num":
            imgui.set_next_item_width(130)
            edited, new = imgui.input_double(label, float(value), 0.0, 0.0, NUMBER_FORMAT,
                                             imgui.InputTextFlags_.enter_returns_true)
            new = typed_number(new, value) if edited else value
            if new != value:
                self.tuning.apply(path, new)
            hovered = imgui.is_item_hovered()
            context_menu(self.sweep, path, float(value))
            imgui.same_line()
            imgui.text_disabled(m["unit"])
            hovered |= imgui.is_item_hovered()
            margin = self.tuning.margin_of(path)
            if margin is not None and margin < LOW_MARGIN:
                imgui.same_line()
                imgui.text_colored(margin_color(margin), f"{margin:.2f}")         # its margin, in the tooltip too
                hovered |= imgui.is_item_hovered()
            if hovered:
                tip = f"{f.name}: {m['doc']} ({m['unit']})\nallowed: {checks.describe_allowed(f)}" + \
                    sprung_note(self.tuning.params, path)
                if path in advisor.PARAMETERS:
                    tip += "\n" + self.tuning.range_tip(path, m["unit"])
                imgui.set_tooltip(tip + "\nright-click: sweep this (a test drive over a range of it)")
        elif m["kind"] == "text":
            choices = list(m["choices"])
            imgui.set_next_item_width(130)
            edited, idx = imgui.combo(label, choices.index(value), choices)
            if edited and choices[idx] != value:
                self.tuning.apply(path, choices[idx])
        else:
            imgui.set_next_item_width(240)
            edited, txt = imgui.input_text(label, ", ".join(short_number(v) for v in value),
                                           imgui.InputTextFlags_.enter_returns_true)
            if edited:
                self.tuning.apply_list(path, txt)
        if m["kind"] != "num" and imgui.is_item_hovered():
            imgui.set_tooltip(f"{f.name}: {m['doc']}\nallowed: {checks.describe_allowed(f)}")
        if path in self.tuning.errors:
            text_wrapped_colored(RED, f"refused: {self.tuning.errors[path]}")
            if path in self.tuning.details:               # the advisor's formula and figures, on demand
                hovered = imgui.is_item_hovered()
                imgui.text_disabled("(the advisor's figures: hover)")
                if hovered or imgui.is_item_hovered():
                    imgui.set_tooltip(fit_tip(self.tuning.details[path]))
            if path in self.tuning.fixes:
                self.fix_button(path)
        elif path in self.tuning.fixes:
            text_wrapped_colored(AMBER, "held: the springs and dampers are stiffer than this step follows; the "
                                        "kernel holds them to what it does (see the stability notes)")
            self.fix_button(path)
        if self.sweep.path == path:
            sweep_box(self.sweep, self.tuning.params, path, m["unit"], float(value))
        imgui.pop_id()
