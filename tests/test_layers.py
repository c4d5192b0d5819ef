"""The house's shape (issue 27): sim in three wings under its API, imports one way, no circle.

Layers, lowest first: sim.kernel (compiled stages, tables, maths) -> sim.model (parameters, files, packing,
world) -> the API at sim/ itself (Simulation, controls, views, advisor, diagnosis, warm-up) -> sim.lab (driver,
test drives, model families, bench, logs) -> render, ui -> app. A module imports its own layer or lower ones,
never a higher one; and no chain of imports, at the top of a file or inside a function, comes back to where
it started. The kernel also imports nothing of ours at all outside sim.kernel."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("sim.kernel", "sim.model", "sim", "sim.lab", "render", "ui", "app")
RANK = {"sim.kernel": 0, "sim.model": 1, "sim": 2, "sim.lab": 3, "render": 4, "ui": 4, "app": 5, "config": -1}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for folder in ("sim", "app", "ui", "render", "config")
            for p in sorted((ROOT / folder).rglob("*.py"))}


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Our modules that `name` imports anywhere in its file (inside functions too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for t in targets:
            while t and t not in known:           # `import sim.kernel.jit` names the module itself
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def layer(name: str) -> str:
    for candidate in ("sim.kernel", "sim.model", "sim.lab"):
        if name == candidate or name.startswith(candidate + "."):
            return candidate
    return name.split(".")[0]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_sim_module_is_in_a_wing_or_the_api():
    wings = {layer(name) for name in modules() if name.startswith("sim")}
    assert wings == {"sim.kernel", "sim.model", "sim", "sim.lab"}


def test_imports_run_one_way():
    wrong = []
    for name, targets in graph().items():
        for t in targets:
            if RANK[layer(t)] > RANK[layer(name)]:
                wrong.append(f"{name} ({layer(name)}) imports {t} ({layer(t)})")
    assert wrong == []


def test_the_kernel_imports_only_the_kernel():
    outside = [f"{n} imports {t}" for n, ts in graph().items() if layer(n) == "sim.kernel"
               for t in ts if layer(t) != "sim.kernel"]
    assert outside == []


def test_no_import_comes_back_round():
    g = graph()
    cycles, state = [], {}

    def visit(node, path):
        state[node] = 1
        for t in sorted(g[node]):
            if state.get(t) == 1:
                cycles.append(" -> ".join(path[path.index(t):] + [t]))
            elif t not in state:
                visit(t, path + [t])
        state[node] = 2

    for n in sorted(g):
        if n not in state:
            visit(n, [n])
    assert cycles == []
