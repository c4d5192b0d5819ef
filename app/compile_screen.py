"""The cold start's screen: the physics kernels compile in a worker thread while the window shows how far
along they are (once per machine: numba caches the machine code).
"""
from __future__ import annotations

import sys
import threading
import time

import moderngl
import pygame
from imgui_bundle import imgui

import sim
from ui.backend import ModernGLRenderer


def compile_screen(ctx: moderngl.Context, renderer: ModernGLRenderer, size: tuple[int, int]) -> tuple[int, int]:
    """Compile the physics in a worker thread while the window shows how far along it is (numba
    compiles on first use and caches the machine code, so this happens once per machine). Returns the
    window's size, which the user may have changed meanwhile."""
    done = threading.Event()
    failure = []

    def work():
        try:
            sim.warmup.warm_up()
        except BaseException as exc:               # shown in the window's thread, below
            failure.append(exc)
        done.set()

    threading.Thread(target=work, daemon=True, name="compile").start()
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
                           "machine; later starts load them from the cache in about a second.")
        elapsed = time.monotonic() - start
        share = min(0.99, sim.warmup.progress())
        imgui.progress_bar(share, (-1, 0), f"{share:.0%} of the kernels, {elapsed:.0f} s")
        imgui.end()
        imgui.render()
        renderer.render(imgui.get_draw_data())
        pygame.display.flip()
    if failure:
        raise failure[0]
    print(f"contactpatch: physics compiled in {time.monotonic() - start:.0f} s (cached from now on)",
          file=sys.stderr)
    return size
