"""Frame timing: the wall time of each frame's phases (FrameTimes), Python's garbage collector set so that it
does not cost a frame now and then (settle_garbage_collector), and the benchmark's reference frame drawn in
the same window (reference_frames).
"""
from __future__ import annotations

import gc
import time
from collections import deque

import moderngl
import numpy as np
import pygame
from imgui_bundle import imgui
from imgui_bundle import implot

from render.mathx import gl
from render.mathx import look_at
from render.mathx import perspective
from render.mathx import rot_axis
from render.mathx import scale
from render.scene import SceneRenderer
from render.scene import instance
from ui.backend import ModernGLRenderer

PHASES = ("physics", "audio", "scene", "overlay", "gui render", "swap", "frame", "cpu")


class FrameTimes:
    """Wall time of each frame's phases (ms): the last `keep` frames, and every frame for a benchmark."""

    def __init__(self, keep: int = 120):
        self.recent = {p: deque(maxlen=keep) for p in PHASES}
        self.all = {p: [] for p in PHASES}
        self.built: list[bool] = []               # per frame: the overlay was built (OVERLAY_PERIOD)
        self.gc_counts = [0, 0, 0]                # Python's garbage collections per generation, and the
        self.gc_longest = [0.0, 0.0, 0.0]         # longest of each (ms), while the frames run
        self._gc_start = 0.0

    def on_gc(self, phase: str, info: dict) -> None:
        """A gc.callbacks hook: count and time the collections."""
        if phase == "start":
            self._gc_start = time.perf_counter()
            return
        g = info.get("generation", 2)
        self.gc_counts[g] += 1
        self.gc_longest[g] = max(self.gc_longest[g], (time.perf_counter() - self._gc_start) * 1e3)

    def add(self, phase: str, seconds: float) -> None:
        self.recent[phase].append(seconds * 1e3)
        self.all[phase].append(seconds * 1e3)

    def median(self, phase: str) -> float:
        d = self.recent[phase]
        return float(np.median(d)) if d else 0.0

    def report(self, skip: int = 30) -> str:
        """Percentiles of the frame time and where it goes (medians per phase), skipping the warm-up."""
        frame = np.array(self.all["frame"][skip:])
        if not len(frame):
            return "no frames"
        lines = [f"frames {len(frame)}: frame time median {np.median(frame):.2f} ms, mean {frame.mean():.2f}, p90 "
                 f"{np.percentile(frame, 90):.2f}, p99 {np.percentile(frame, 99):.2f}, max {frame.max():.2f}; "
                 f"frames over 33 ms: {int((frame > 33.3).sum())}"]
        for p in PHASES[:-2]:
            a = np.array(self.all[p][skip:])
            lines.append(f"  {p:11s} median {np.median(a):6.2f} ms  p90 {np.percentile(a, 90):6.2f}  "
                         f"share {a.sum() / frame.sum():5.1%}")
        built = np.array(self.built[skip:len(self.all["frame"])], dtype=bool)
        if len(built) == len(frame) and not built.all():
            lines.append(f"  the overlay built on {int(built.sum())} frames (median "
                         f"{np.median(frame[built]) if built.any() else 0:.2f} ms), drawn from the last build on "
                         f"{int((~built).sum())} (median {np.median(frame[~built]):.2f} ms)")
        cpu = np.array(self.all["cpu"][skip:])
        if len(cpu):
            # the process's CPU time over all its threads (the software rasteriser's included): on a machine
            # shared with other work this moves much less than the wall time
            lines.append(f"  cpu time of all threads per frame: median {np.median(cpu):.2f} ms, "
                         f"p90 {np.percentile(cpu, 90):.2f}")
        long_frames = np.flatnonzero(frame > 33.3)[:5]
        for k in long_frames:
            # a long frame whose CPU time is far below its wall time waited for the machine, not for the app
            phases = ", ".join(f"{p} {self.all[p][skip + k]:.1f}" for p in PHASES[:-2] if len(self.all[p]) > skip + k)
            cpu_k = self.all["cpu"][skip + k] if len(self.all["cpu"]) > skip + k else float("nan")
            lines.append(f"  frame {skip + k} took {frame[k]:.1f} ms ({phases}; cpu {cpu_k:.1f} ms of all threads)")
        n, longest = self.gc_counts, self.gc_longest
        lines.append(f"  Python's garbage collections after the first frame: {n[0]} young (longest {longest[0]:.1f} "
                     f"ms), {n[1]} middle ({longest[1]:.1f} ms), {n[2]} full ({longest[2]:.1f} ms)")
        return "\n".join(lines)


def settle_garbage_collector() -> None:
    """After the first frame: collect once, then set every object alive (some 160 000: the modules, the
    compiled kernels' wrappers, the world, the presets, ImGui's bindings) apart, where Python's collector no
    longer scans them. A full collection scanned them all and took 30 - 65 ms, several frames, at moments
    nobody chose; now it scans only what was made since (the rewind's snapshots and the like). A frozen
    object caught in a reference cycle is never freed, so what the app drops later must not form one (a
    Simulation's views hold its tables, not the simulation)."""
    gc.collect()
    gc.freeze()


def reference_frames(ctx: moderngl.Context, size: tuple[int, int], scene: SceneRenderer,
                     gui_renderer: ModernGLRenderer, n: int = 230, skip: int = 30) -> float:
    """The benchmark's reference, drawn in the same window after its frames: issue 11's prototype (a lit
    cube turning, one ImGui window of text and an ImPlot line of 200 points), each frame drawn and
    finished like the benchmark's. Returns the median frame time (ms) of the last n - skip. The
    renderer's speed moves between machines and hours; the benchmark's frame over this one does less."""
    w, h = size
    eye = np.array([3.0, -4.0, 2.5])
    proj = perspective(60.0, w / max(h, 1), 0.1, 100.0)
    vp = proj @ look_at(eye, (0.0, 0.0, 0.0))
    xs = np.linspace(0.0, 10.0, 200)
    times = []
    for k in range(n):
        start = time.perf_counter()
        ctx.screen.use()
        ctx.viewport = (0, 0, w, h)
        ctx.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)
        ctx.clear(0.62, 0.74, 0.88, 1.0, depth=1.0)
        prog = scene.prog
        prog["u_vp"].write(gl(vp))
        prog["u_eye"].value = tuple(float(v) for v in eye)
        scene.cube.draw("reference", instance(rot_axis("z", 0.02 * k) @ scale((2.0, 2.0, 2.0)), (0.8, 0.25, 0.2)))
        io = imgui.get_io()
        io.display_size = size
        io.delta_time = 1.0 / 60.0
        imgui.new_frame()
        imgui.set_next_window_pos((20, 20), imgui.Cond_.always)
        imgui.set_next_window_size((420, 320), imgui.Cond_.always)
        imgui.begin("reference frame", None, imgui.WindowFlags_.no_saved_settings)
        imgui.text(f"frame {k}")
        imgui.text("a lit cube, this window and one plot")
        if implot.begin_plot("line", (-1, -1)):
            implot.plot_line("sin", xs, np.sin(xs + 0.05 * k))
            implot.end_plot()
        imgui.end()
        imgui.render()
        gui_renderer.render(imgui.get_draw_data())
        pygame.display.flip()
        ctx.finish()
        times.append(time.perf_counter() - start)
    return float(np.median(times[skip:])) * 1e3
