"""The start-up pieces of issue 32 item 9: the marks `python -m app.startup` reads, and the cold start of a run
with a driver, where another process compiles the step (`python -m sim.warmup --warm-up`) while the app draws.
The cold compile itself takes minutes; here the cache is warm (conftest), so the other process finds the step
there and the hand-over is what is checked."""
import sim
from app.startup import StartupClock


def test_the_startup_clock_prints_each_mark_once_and_nothing_without_its_variable(monkeypatch, capsys):
    monkeypatch.setenv("CONTACTPATCH_STARTUP", "0")
    clock = StartupClock()
    clock.mark("first frame")
    clock.mark("first frame")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactpatch startup: first frame ")
    monkeypatch.delenv("CONTACTPATCH_STARTUP")
    StartupClock().mark("hud")
    assert capsys.readouterr().err == ""


def test_the_share_compiled_on_disk_counts_the_kernels_in_the_cache():
    """A warm process loads only the kernels Python calls (their callees are in their machine code), so it
    counts few as its own; the cache has nearly all (the rest are kernels no single car calls). In a process of
    its own: the suite's earlier tests load more of them into this one."""
    import subprocess
    import sys
    code = "import sim.warmup as w; w.warm_up(); print(w.progress(on_disk=True), w.progress())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    on_disk, loaded = float(out[-2]), float(out[-1])
    assert on_disk > 0.9 > 0.5 > loaded


def test_a_background_compile_hands_the_step_over_through_the_cache():
    from app.compile_screen import BackgroundCompile
    sim.warmup.warm_up()
    sim.warmup.place_one_car()                         # what the app's own process compiles meanwhile
    job = BackgroundCompile()
    assert "Compiling the physics" in job.message() and "%" in job.message()
    assert job.process.wait(timeout=300) == 0          # (a guard: it finds the step in the cache)
    assert not job.held() and not sim.warmup.needed()
    job.stop()
