"""The cold start (once per machine: numba caches the machine code).

A scripted run (--quit-after, --replay, --benchmark) compiles the physics in a worker thread while the window
shows how far along it is (`compile_screen`). A run with a driver opens the app first (`BackgroundCompile`):
another process (`python -m sim.warmup`, with its own helper) compiles the physics into the cache while the
window shows the car standing on the ground with every panel, and the car drives once the step is there.
This process only compiles what its first frame needs (placing the car, the panels' small formulas), which
takes seconds where the step takes a minute or more.
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import moderngl
import pygame
from imgui_bundle import imgui

import sim
from ui.backend import ModernGLRenderer


class BackgroundCompile:
    """`python -m sim.warmup` in another process (it starts its own helper): the physics step compiles into
    the cache while this process draws. `held()` is True until the step can be loaded from there; if that
    process fails, this one compiles the step itself on the first step (as a scripted run does)."""

    def __init__(self):
        self.process = sim.warmup.start_helper("--warm-up")
        self.start = time.monotonic()
        self.share, self.checked = 0.0, 0.0
        self.told = False                         # a failed compile was reported

    def held(self) -> bool:
        if self.process is None or self.process.poll() is None:
            return self.process is not None
        if self.process.returncode != 0 and not self.told:
            self.told = True
            print(f"contactpatch: the physics compile in the background ended with status {self.process.returncode}; "
                  "this process compiles the step at the first step instead (the window waits meanwhile)",
                  file=sys.stderr)
        return False

    def message(self) -> str:
        now = time.monotonic()
        if now - self.checked > 1.0:             # reads an index file per kernel: once a second
            self.share, self.checked = sim.warmup.progress(on_disk=True), now
        return (f"Compiling the physics (first start on this machine, cached afterwards): {min(self.share, 0.99):.0%} "
                f"of the kernels, {now - self.start:.0f} s. The car drives when it is done; the panels, cameras "
                "and tuning work meanwhile.")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()                   # what it put in the cache is kept
        if self.process is not None:
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def compile_screen(ctx: moderngl.Context, renderer: ModernGLRenderer, size: tuple[int, int],
                   work=None, share=None) -> tuple[int, int]:
    """Compile the physics in a worker thread while the window shows how far along it is (numba
    compiles on first use and caches the machine code, so this happens once per machine). Returns the
    window's size, which the user may have changed meanwhile. `work` (default sim.warmup.warm_up) runs in
    the thread, `share` () -> 0..1 says how far along (default sim.warmup.progress)."""
    done = threading.Event()
    failure = []
    work = work or sim.warmup.warm_up
    share_of = share or sim.warmup.progress

    def work_():
        try:
            work()
        except BaseException as exc:               # shown in the window's thread, below
            failure.append(exc)
        done.set()

    threading.Thread(target=work_, daemon=True, name="compile").start()
    start = time.monotonic()
    while not done.wait(0.05):
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                pygame.quit()
                raise SystemExit(0)
            if event.type == pygame.VIDEORESIZE:
                size = (max(event.w, 1), max(event.h, 1))
        ctx.screen.use()
        ctx.viewport = (0, 0, *size)
        ctx.clear(0.62, 0.74, 0.88, 1.0)
        io = imgui.get_io()
        io.display_size = size
        io.delta_time = 0.05
        imgui.new_frame()
        w, h = size
        imgui.set_next_window_pos((w / 2 - 260, h / 2 - 60), imgui.Cond_.always)
        imgui.set_next_window_size((520, 0), imgui.Cond_.always)
        imgui.begin("Contact Patch: first start", None,
                    imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize)
        imgui.text_wrapped("Compiling the physics kernels to machine code. This happens once on this "
                           "machine; later starts load them from the cache in a second or two.")
        elapsed = time.monotonic() - start
        share = min(0.99, share_of())
        imgui.progress_bar(share, (-1, 0), f"{share:.0%} of the kernels, {elapsed:.0f} s")
        imgui.end()
        imgui.render()
        renderer.render(imgui.get_draw_data())
        pygame.display.flip()
    if failure:
        raise failure[0]
    if work is sim.warmup.warm_up:
        print(f"contactpatch: physics compiled in {time.monotonic() - start:.0f} s (cached from now on)",
              file=sys.stderr)
    return size
