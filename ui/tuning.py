"""The tuning model, free of ImGui: the live parameter edits and their validation (a refused value keeps the
old one and its message names the key, the value and what is allowed), the marks of what differs from the
loaded preset, revert, the stability advisor's report on the car as tuned, and saving and loading presets
(sim.save_vehicle writes atomically, keeping a preset file's comments and layout).

An edit reaches the simulation through `Simulation.set_params`, at the next step boundary. The Tuning panel
(ui/panels/tuning.py) is a view of this model.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import sim
from sim import advisor
from sim.model import checks
from sim.model import files
from sim.model import vehicle_toml
from ui.refusal import refusal


def config_presets() -> list[vehicle_toml.Preset]:
    """The preset box's entries: the built-in presets (config/vehicles), then the ones the user saved
    (<data dir>/vehicles), which are marked as theirs."""
    return vehicle_toml.vehicle_presets()


NUMBER_FORMAT = "%.10g"   # how a number field shows its value: ten significant digits, no trailing zeros


def typed_number(new: float, current: float, fmt: str = NUMBER_FORMAT) -> float:
    """The value a number field's edit stands for. The field is a double-precision input, so what was
    typed arrives exactly (0.6 is 0.6; ImGui's float input gave float32's 0.6000000238418579). Enter on
    an untouched field hands back the shown text, `current` printed with `fmt`: that rounded copy must
    not replace the more precise value behind it, so it counts as no edit."""
    return current if new == float(fmt % current) else float(new)


def short_number(x: float) -> str:
    """A number as a list field shows it: "%g" when that reads back as the same value, else the shortest
    repr (an edit re-reads every number of the list, so none may be rounded on the way)."""
    g = f"{x:g}"
    return g if float(g) == x else repr(x)


def home_short(path: Path) -> str:
    """A path as the save box shows it: the home folder as ~ (save and load expand it), so more of a
    long path fits the field."""
    try:
        return "~" + os.sep + str(path.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(path)


def same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def sprung_note(car: sim.Vehicle, path: str) -> str:
    """For the chassis' mass and inertias: which body they are, the sprung part when the wheels have a mass of
    their own (docs/physics.md §7.2), else the whole car ('' for any other parameter)."""
    if path not in ("chassis.mass", "chassis.inertia_roll", "chassis.inertia_pitch", "chassis.inertia_yaw"):
        return ""
    wheels = sim.total_mass(car) - car.chassis.mass
    if wheels <= 0.0:
        return "\nthe whole car's (the wheels have no mass of their own: unsprung_mass 0)"
    return (f"\nthe sprung part only: the four wheels' unsprung_mass adds {wheels:g} kg "
            f"(the car: {sim.total_mass(car):g} kg) and their own moment about z")


class Tuning:
    """The car as tuned now (`params`: the parameters of the next step) against the loaded preset
    (`baseline`), with why the last edit of each field was refused (`errors`), the substeps that would
    make a refused unstable edit stable (`fixes`) and what the last save or load did (`status`)."""

    def __init__(self, session, on_params: Callable[[sim.Vehicle], None] | None = None):
        self.session = session
        self.on_params = on_params                            # told of every new set of parameters
        self.baseline: sim.Vehicle = session.sim.vehicle      # the loaded preset, for "changed" marks
        self.errors: dict[str, str] = {}                      # field path -> why the last edit was refused
        self.fixes: dict[str, tuple[object, int]] = {}        # field path -> (refused value, substeps it needs)
        self.details: dict[str, str] = {}                     # field path -> the advisor's line (formula, figures)
        self.refused: dict[str, object] = {}                  # field path -> the value its refusal is about
        self.substeps_error = ""
        self.status = ""                                      # what the last save, load or revert did
        self.source = self._source_of(session)                # the file the baseline was loaded from, or None
        self.file_path = self.default_save_path()             # the save box
        self._report: tuple[sim.Vehicle, int, advisor.Report, dict[str, float]] | None = None
        self._ranges_for: tuple[sim.Vehicle, int] | None = None
        self._ranges: dict[str, tuple[float, float] | None] = {}
        self._edited: tuple[sim.Vehicle, sim.Vehicle, bool] | None = None
        self._source_folder: tuple = (None, "")               # source_folder's answer for one file

    # -- edits ----------------------------------------------------------------------------------------
    @property
    def params(self) -> sim.Vehicle:
        return self.session.sim.next_params()

    def apply(self, path: str, value) -> str | None:
        """Try an edit; on success it reaches the simulation at the next step. Returns the reason an
        invalid or unstable value was refused (and keeps the old one), or None. For an unstable one the
        substeps that would make it stable are kept in `fixes`, and the advisor's own line (its formula and
        figures) in `details`; for one applied but held (springs or dampers stiffer than the step follows,
        sim/advisor.py), the substeps that run it as given. An accepted edit takes back the refusals it
        answers (`rejudge`)."""
        self.fixes.pop(path, None)
        self.details.pop(path, None)
        new = None
        try:
            new = checks.with_value(self.params, path, value)
            self._use(new)                                   # set_params: the rules and the advisor
        except sim.ConfigError as exc:
            return self._refusal(path, value, exc, new)
        self._forget(path)
        r = self._advice(new)
        if r.substeps_as_given > self.session.sim.substeps:   # applied, but the kernel holds the springs or dampers
            self.fixes[path] = (value, r.substeps_as_given)
        self.rejudge()
        return None

    def _refused(self, path: str, value) -> str | None:
        """Why the car as tuned now with `path` = `value` would be refused (kept as `apply` keeps it), or None
        when it would be accepted; nothing is applied."""
        new = None
        try:
            new = checks.with_value(self.params, path, value)
            self.session.sim.check_params(new)
        except sim.ConfigError as exc:
            return self._refusal(path, value, exc, new)
        return None

    def _refusal(self, path: str, value, exc: sim.ConfigError, new: sim.Vehicle | None) -> str:
        """Keep why `path` = `value` was refused: in `errors` the rule's own line (out of range, a rule between
        parameters; `new` None: no car could be built) or the advisor's refusal in plain words, with the
        advisor's line in `details` and the substeps that fix it in `fixes`."""
        self.refused[path] = value
        r = self._advice(new) if new is not None else None
        if r is None or r.stable:                            # refused by the rules, not by the advisor
            self.errors[path] = self._reason(exc)
            return self.errors[path]
        self.errors[path] = refusal(path, value, r)
        self.details[path] = self._reason(exc)
        if r.substeps_needed < 10 ** 6:                      # a refusal more substeps fix
            self.fixes[path] = (value, r.substeps_needed)
        return self.errors[path]

    def _advice(self, car: sim.Vehicle) -> advisor.Report:
        s = self.session.sim
        return advisor.report(car, s.dt, s.substeps, s.surface_mu, s.world.gravity)

    def _forget(self, path: str) -> None:
        for table in (self.errors, self.details, self.refused, self.fixes):
            table.pop(path, None)

    def _forget_all(self) -> None:
        for table in (self.errors, self.details, self.refused, self.fixes):
            table.clear()

    def rejudge(self) -> None:
        """After an accepted change (an edit, a revert, the substeps): a refusal under another field that the
        change answered disappears (its value would now be accepted: the message no longer applies); one that
        still applies is said again for the car as it is now."""
        for path, value in list(self.refused.items()):
            self.fixes.pop(path, None)
            self.details.pop(path, None)
            if self._refused(path, value) is None:
                self._forget(path)

    def apply_list(self, path: str, text: str) -> str | None:
        """A list field's edit as typed: numbers separated by commas or semicolons (as `short_number`
        shows them). Returns why it was refused, or None."""
        try:
            numbers = [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
        except ValueError:
            self.errors[path] = f"{text!r} is not a list of numbers"
            return self.errors[path]
        return self.apply(path, numbers)

    def apply_with_substeps(self, path: str) -> str | None:
        """Take the substeps that make the refused edit of `path` stable, then apply it. Returns why
        either was refused (substeps and parameters then stay as they were), or None."""
        value, n = self.fixes[path]
        old = self.session.sim.substeps
        try:
            self.session.set_substeps(n)
        except (sim.ConfigError, ValueError) as exc:
            self.errors[path] = f"{self.errors.get(path, '')}; and {self._reason(exc)}".lstrip("; ")
            if not isinstance(exc, sim.ConfigError):        # more substeps than the simulation allows
                self.fixes.pop(path, None)
            return self.errors[path]
        why = self.apply(path, value)
        if why is not None:
            self.session.sim.set_substeps(old)          # the parameters did not change: stable as before
        else:
            self.substeps_error = ""
        return why

    def set_substeps(self, n: int) -> str | None:
        """Change the substeps from the next step; returns why they were refused, or None."""
        try:
            self.session.set_substeps(n)
        except (sim.ConfigError, ValueError) as exc:
            self.substeps_error = self._reason(exc)
            return self.substeps_error
        self.substeps_error = ""
        self.rejudge()
        return None

    def _reason(self, exc: Exception) -> str:
        """The message without the leading car name."""
        text = str(exc)
        for prefix in (f"{self.params.source}: ", f"{self.params.name}: "):
            if text.startswith(prefix):
                return text[len(prefix):]
        return text

    def _use(self, new: sim.Vehicle) -> None:
        self.session.sim.set_params(new)
        if self.on_params:
            self.on_params(new)

    def revert(self, path: str | None = None) -> None:
        """Back to the loaded preset's value for one field, or for all with path None."""
        if path is None:
            try:
                self._use(self.baseline)
            except sim.ConfigError as exc:
                self.status = f"not reverted: {exc}"
                return
            self._forget_all()
        else:
            self.apply(path, checks.get_value(self.baseline, path))

    # -- presets and files ---------------------------------------------------------------------------
    def _source_of(self, session) -> Path | None:
        """The file the starting car came from: the session's vehicle name or path, if loading it gives
        that car (a car built in code has none)."""
        try:
            path = files.resolve_preset(session.vehicle_name, vehicle_toml.PRESET_DIR, "vehicle")
            return path.resolve() if sim.load_vehicle(path) == self.baseline else None
        except (sim.ConfigError, OSError, TypeError):
            return None

    def default_save_path(self) -> str:
        """What the save box proposes: the loaded file itself when it is the user's own, otherwise
        <data dir>/vehicles/<preset name>.toml, so a built-in preset is never overwritten by default
        and nothing lands in whatever folder the app was started from."""
        if self.source is not None and not same_file(self.source.parent, vehicle_toml.PRESET_DIR):
            return home_short(self.source)
        stem = self.source.stem if self.source is not None else self.baseline.name
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem).strip(".") or "vehicle"
        return home_short(vehicle_toml.user_vehicle_dir() / f"{stem}.toml")

    def edited(self) -> bool:
        """True when a parameter differs from the loaded preset (compared once per change)."""
        car = self.params
        if self._edited is None or self._edited[0] is not car or self._edited[1] is not self.baseline:
            self._edited = (car, self.baseline, car != self.baseline)
        return self._edited[2]

    def source_folder(self) -> str:
        """"preset", "user" or "" (another folder, or no file): which folder the loaded file is in. Worked
        out once per file (resolving the paths took 0.4 ms of every build of the overlay)."""
        src = self.source
        if src is None:
            return ""
        if self._source_folder[0] != src:
            kind = "preset" if same_file(src.parent, vehicle_toml.PRESET_DIR) else \
                "user" if same_file(src.parent, vehicle_toml.user_vehicle_dir()) else ""
            self._source_folder = (src, kind)
        return self._source_folder[1]

    def preset_label(self) -> str:
        """What the preset box shows: the loaded preset's name ("hatchback", "mine (user)"), a loaded
        file's name, or the car's name when it came from no file; marked edited once a parameter differs
        from it ("hatchback (edited)", "mine (user, edited)")."""
        tags = []
        folder = self.source_folder()
        if self.source is None:
            label = self.baseline.name
        elif folder == "preset":
            label = self.source.stem
        elif folder == "user":
            label, tags = self.source.stem, ["user"]
        else:
            label = self.source.name
        if self.edited():
            tags.append("edited")
        return f"{label} ({', '.join(tags)})" if tags else label

    def save(self, path: str) -> bool:
        """Save the current parameters to `path`; False with the reason in `status` if not. A car loaded
        from a file is saved as that file with only the changed values replaced (its comments and layout
        stay); the user's preset folder is made when it is missing. The saved file becomes the loaded preset
        (the baseline the edits are marked against)."""
        target = Path(path.strip()).expanduser() if path.strip() else None
        if target is None:
            self.status = "not saved: no file name given"
            return False
        if same_file(target.parent, vehicle_toml.user_vehicle_dir()):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self.status = f"not saved: {target}: cannot make the folder {target.parent}: {exc.strerror or exc}"
                return False
        try:
            sim.save_vehicle(self.params, target, source=self.source)
        except sim.ConfigError as exc:
            self.status = f"not saved: {exc}"
            return False
        # the saved file is the preset now: the preset box names it, not "(edited)", and the changed marks,
        # the reverts and the question on quitting are about what differs from it
        self.baseline = self.params
        self.source = target.resolve()
        self.status = f"saved {target}"
        return True

    def load(self, name_or_path: str | os.PathLike) -> bool:
        """Load a preset name or a vehicle file; it becomes the baseline that edits are marked against,
        the preset box shows it and the save box proposes where to save it."""
        if isinstance(name_or_path, str):
            name_or_path = os.path.expanduser(name_or_path.strip())          # no preset name starts with ~
        try:
            path = files.resolve_preset(name_or_path, vehicle_toml.PRESET_DIR, "vehicle")
            car = sim.load_vehicle(path)
            self._use(car)
        except sim.ConfigError as exc:
            self.status = f"not loaded: {exc}"
            return False
        self.baseline = car
        self.source = path.resolve()
        self.file_path = self.default_save_path()
        self._forget_all()
        self.status = f"loaded {self.source}"
        return True

    # -- stability -----------------------------------------------------------------------------------
    def stability(self) -> advisor.Report:
        """The advisor's report on the next parameters at the current step, recomputed when either changes."""
        car, s = self.params, self.session.sim
        if self._report is None or self._report[0] is not car or self._report[1] != s.substeps:
            r = advisor.report(car, s.dt, s.substeps, s.surface_mu)
            self._report = (car, s.substeps, r, advisor.fields_of_report(r))
        return self._report[2]

    def margin_of(self, path: str) -> float | None:
        """The smallest margin of the parts that `path` drives, or None if it drives none."""
        self.stability()
        return self._report[3].get(path)

    def stable_range(self, path: str) -> tuple[float, float] | None:
        """The stable interval of `path` at the current step (None: no value is), computed once per
        parameters, substeps and path."""
        car, s = self.params, self.session.sim
        if self._ranges_for is None or self._ranges_for[0] is not car or self._ranges_for[1] != s.substeps:
            self._ranges_for, self._ranges = (car, s.substeps), {}
        if path not in self._ranges:
            self._ranges[path] = advisor.stable_range(car, path, s.dt, s.substeps, surface_mu=s.surface_mu)
        return self._ranges[path]

    def range_tip(self, path: str, unit: str) -> str:
        """The stable range of `path` and its margin, for its tooltip."""
        s = self.session.sim
        at = f"at dt {s.dt * 1e3:.3g} ms / {s.substeps} substeps"
        r = self.stable_range(path)
        if r is None:
            return f"no value is stable {at}"
        m = checks.field_info(path).metadata
        lo = f"{r[0]:.4g}" + (" (allowed min)" if r[0] <= m["lo"] else "")
        hi = f"{r[1]:.4g}" + (" (allowed max)" if r[1] >= m["hi"] else "")
        margin = self.margin_of(path)
        tip = f"stable {at}: {lo} to {hi} {unit}"
        if margin is not None:
            tip += f"\nmargin {margin:.3g} (needs {advisor.REQUIRED_MARGIN:g})"
        return tip
