"""A refused edit in words a user reads (the Tuning panel, free of ImGui): the edited parameter first, then the
part of the car that limits it, then what would fix it. The stability advisor's formula and figures
(sim/advisor.py) are kept for the message's tooltip."""
from __future__ import annotations

from sim import advisor
from sim.model import checks

# what an unstable part would do, after "would " (the advisor's part names; {axle} for front or rear)
STEP = "than the physics step can follow"
CONSEQUENCES = {
    advisor.SPRINGS: f"make the suspension's springs and dampers stiffer {STEP}",
    "suspension with the bump stops engaged": f"make the suspension on its bump stops stiffer {STEP}",
    "tires near rest (dampers dF/dslip / vMin)": f"make the tires near a standstill react faster {STEP}",
    "suspension and tires together": f"make the suspension and the tires together react faster {STEP}",
    "wheel spin (explicit update)": f"make the {{axle}} wheels' spin change faster {STEP}",
    "limited-slip differential": f"make the {{axle}} limited-slip differential lock faster {STEP}",
    "body collision": f"make the body's collision springs stiffer {STEP}",
    "body collision friction": f"make the body's sliding friction stiffer {STEP}",
    "springs holding the car": "leave the {axle} springs unable to hold the car up",
    "centre of mass within the track": "tip the car over at rest",
    "tire curves opposing the slip": "make the {axle} tires push the way they slide, adding energy to the car",
}


# the advisor's part names that read as a rule rather than a part, as a part
PARTS = {"tire curves opposing the slip": "{axle} tire's force curves"}


def plain_name(doc: str) -> str:
    """A parameter's plain name from its description: the words before the first colon or semicolon, after a
    leading one-word model tag ("mf61: longitudinal slip stiffness ..." -> "longitudinal slip stiffness ...")."""
    head, _, rest = doc.partition(":")
    if rest.strip() and " " not in head.strip():
        return plain_name(rest)
    return head.split(";")[0].strip()


def parameter_words(path: str) -> str:
    """`path` with its plain name, e.g. "front_suspension.c (damping coefficient)"."""
    try:
        return f"{path} ({plain_name(checks.field_info(path).metadata['doc'])})"
    except (KeyError, AttributeError, ValueError, TypeError):
        return path


def value_words(path: str, value) -> str:
    """A value as the field shows it, with its unit."""
    try:
        unit = checks.field_info(path).metadata.get("unit", "")
    except (KeyError, AttributeError, ValueError, TypeError):
        unit = ""
    if isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, (list, tuple)):
        text = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    else:
        text = str(value)
    return text + (f" {unit}" if unit and unit != "-" else "")


def split_axle(part: str) -> tuple[str, str]:
    """("front" or "rear" or "", the rest) of an advisor Item's part."""
    first, _, rest = part.partition(" ")
    return (first, rest) if first in ("front", "rear") else ("", part)


def consequence(part: str) -> str:
    """What `part` (an advisor Item's part) would do when unstable, in plain words (after "would")."""
    axle, key = split_axle(part)
    return CONSEQUENCES.get(key, f"make the {part} unstable").format(axle=axle)


def part_name(part: str) -> str:
    """An advisor Item's part as a part of the car, without its formula in brackets."""
    axle, key = split_axle(part)
    return PARTS[key].format(axle=axle) if key in PARTS else part.split(" (")[0]


def refusal(path: str, value, report: advisor.Report) -> str:
    """One message for an edit of `path` to `value` that the advisor refused with `report`: the edited parameter
    and what it would do, then the limiting part and the parameter that drives it, then the fix."""
    w = report.worst
    part = part_name(w.part)
    edited = f"{path} = {value_words(path, value)}"
    limit = f"the {part}, set by this parameter" if w.parameter == path else \
        f"the {part}, set by {parameter_words(w.parameter)}"
    n = report.substeps_needed
    fix = (f"{n} substeps would run it (the button below), or choose another value" if n < 10 ** 6 else
           "no number of substeps fixes this: choose another value"
           + ("" if w.parameter == path else f" or change {w.parameter}"))
    return f"{edited} would {consequence(w.part)}. Limiting part: {limit}. {fix[0].upper()}{fix[1:]}."
