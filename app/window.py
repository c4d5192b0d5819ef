"""The driving window: pygame-ce for the window and input, moderngl for drawing, the Session for time.

Only this module knows pygame's event loop, the GL context and the simulation at once.
"""
from __future__ import annotations

import gc
import os
import re
import sys
import threading
import time
from collections import deque
from pathlib import Path

import moderngl
import numpy as np
import pygame
from imgui_bundle import imgui, implot

import sim
from app.input import Input, load_bindings
from app.session import Session, Trace
from app.sound import Audio
from render.arrows import force_arrows, on_screen_scale
from render.camera import ChaseCamera, FreeCamera, OrbitCamera
from render.mathx import gl, look_at, perspective, quat_matrix, rot_axis, scale
from render.scene import SceneRenderer, instance
from render.skids import SkidMarks
from sim.model.features import bounds, features
from sim.model.files import data_dir
from ui import layout
from ui.backend import ModernGLRenderer, PygameInput, configure_io
from ui.map import draw_map
from ui.overlay import Overlay

HELP_ORDER = ("throttle", "brake", "steer_left", "steer_right", "handbrake", "clutch", "gear_up", "gear_down",
              "abs", "tc", "esp", "steer_hold", "cruise", "reset", "pause", "step", "slow_motion", "camera", "help",
              "overlay", "arrows", "map", "mute", "screenshot", "quit")
LABEL_RANGE = 90.0       # m: features nearer than this get their name in the 3D view


def open_window(size: tuple[int, int], fullscreen: bool) -> tuple[pygame.Surface, moderngl.Context]:
    pygame.display.init()
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MAJOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MINOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_PROFILE_MASK, pygame.GL_CONTEXT_PROFILE_CORE)
    pygame.display.gl_set_attribute(pygame.GL_DEPTH_SIZE, 24)
    flags = pygame.OPENGL | pygame.DOUBLEBUF | pygame.RESIZABLE | (pygame.FULLSCREEN if fullscreen else 0)
    # no multisampled window: antialiasing is an offscreen framebuffer, and only on a real GPU (SceneTarget)
    pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLEBUFFERS, 0)
    pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLESAMPLES, 0)
    surface = pygame.display.set_mode(size, flags)
    pygame.display.set_caption("Contact Patch")
    return surface, moderngl.create_context()


SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer", "gdi generic",
                      "microsoft basic render")


def software_renderer(ctx: moderngl.Context) -> bool:
    """True when OpenGL is rasterised on the CPU (Mesa llvmpipe and the like): every sample costs."""
    name = str(ctx.info.get("GL_RENDERER", "")).lower()
    return any(k in name for k in SOFTWARE_RENDERERS)


def back_buffer_kept(ctx: moderngl.Context) -> bool:
    """True when the window's back buffer still holds the last frame after a swap (Mesa's software
    renderers do under SDL's offscreen driver; a swap chain that takes turns between buffers does not):
    three frames in slightly different shades of the sky (no flash at startup), each read back after its
    swap."""
    ctx.screen.use()
    kept = True
    for color in ((158, 189, 224), (159, 189, 224), (158, 190, 224)):
        ctx.clear(*(c / 255 for c in color), 1.0)
        pygame.display.flip()
        pixel = tuple(ctx.screen.read(viewport=(0, 0, 1, 1), components=3))
        _ = ctx.error                      # reading the screen can leave a GL error pending
        kept = kept and pixel == color
    return kept


def has_docking(saved: str) -> bool:
    """Whether a saved layout docks any panel: then it is the user's own and kept. Without one (a first
    start, an older layout, or a run with the panels hidden, which saves an empty docking section) the
    default is built; an empty section taken for the user's would leave every panel floating over the 3D
    view."""
    return "[Docking]" in saved and "DockId=" in saved


CENTRAL_NODE = re.compile(r"^\s*Dock(?:Space|Node)\s+ID=(0x[0-9A-Fa-f]+)\b[^\n]*\bCentralNode=1\b", re.M)
DOCKED_INTO = re.compile(r"^DockId=(0x[0-9A-Fa-f]+)\b", re.M)


def covers_the_view(saved: str) -> bool:
    """Whether a saved layout docks a panel into the dockspace's central node, the place of the 3D view:
    then the car is hidden behind tabs from the first frame (a layout saved that way, by a drag or a run
    that stopped half way, came back on every start). Such a layout is not kept; the default is built."""
    central = set(CENTRAL_NODE.findall(saved))
    return any(node in central for node in DOCKED_INTO.findall(saved))


class SceneTarget:
    """Where the scene is drawn: on a GPU a 4x multisampled framebuffer resolved onto the screen each
    frame (antialiasing); on a software renderer the screen itself (4 samples would cost 4x per pixel).
    `keeps`: the screen still holds last frame's pixels when the next frame begins (a software renderer
    whose back buffer survives the swap), so the panels around the 3D view can stay as they are on frames
    that do not draw them again (App.draw)."""

    SAMPLES = 4

    def __init__(self, ctx: moderngl.Context, msaa: bool, keeps: bool = False):
        self.ctx = ctx
        self.msaa = msaa
        self.keeps = keeps and not msaa
        self.size = (0, 0)
        self.fbo = None

    def begin(self, size: tuple[int, int]) -> bool:
        """Draw the scene from now on; True when nothing is kept from the frame before (first, new size)."""
        fresh = size != self.size
        self.size = size
        if not self.msaa:
            self.ctx.screen.use()
            return fresh
        if self.fbo is None or fresh:
            if self.fbo is not None:
                self.fbo.release()
            try:
                self.fbo = self.ctx.framebuffer(
                    color_attachments=[self.ctx.renderbuffer(size, 4, samples=self.SAMPLES)],
                    depth_attachment=self.ctx.depth_renderbuffer(size, samples=self.SAMPLES))
            except moderngl.Error:                 # no multisampling here after all
                self.msaa, self.fbo = False, None
                self.ctx.screen.use()
                return True
        self.fbo.use()
        return fresh

    def end(self) -> None:
        """Resolve onto the screen and draw there from now on (the overlay)."""
        if self.msaa and self.fbo is not None:
            self.ctx.copy_framebuffer(self.ctx.screen, self.fbo)
        self.ctx.screen.use()


def settle_garbage_collector() -> None:
    """After the first frame: collect once, then set every object alive (some 160 000: the modules, the
    compiled kernels' wrappers, the world, the presets, ImGui's bindings) apart, where Python's collector no
    longer scans them. A full collection scanned them all and took 30 - 65 ms, several frames, at moments
    nobody chose; now it scans only what was made since (the rewind's snapshots and the like). A frozen
    object caught in a reference cycle is never freed, so what the app drops later must not form one (a
    Simulation's views hold its tables, not the simulation)."""
    gc.collect()
    gc.freeze()


def save_screenshot(ctx: moderngl.Context, size: tuple[int, int], path: str | Path) -> Path:
    """Save what is on screen as a PNG (atomically)."""
    data = ctx.screen.read(viewport=(0, 0, *size), components=3)
    _ = ctx.error                          # reading the screen can leave a GL error pending
    img = np.frombuffer(data, dtype=np.uint8).reshape(size[1], size[0], 3)[::-1]
    surf = pygame.image.frombytes(np.ascontiguousarray(img).tobytes(), size, "RGB")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.cp-tmp.png")
    pygame.image.save(surf, str(tmp))
    os.replace(tmp, path)
    return path


HUD_FONT_SIZE = 15.0         # px: four lines fit above the Tuning panel
# s: on a software renderer whose window keeps its pixels between frames, the ImGui overlay (panels, HUD,
# labels) is built at most this often (and at once after input it takes); the panels of a build are drawn
# one region per frame over the next five frames (panel_regions), and every frame puts the build's
# commands back over the new 3D view, clipped to it: the panels show new numbers at 30 Hz, or a fifth of
# the frame rate below 150 frames a second (12 Hz at 60), and no frame pays for more than a fifth of
# their pixels (the panels' fill cost llvmpipe about 10 ms at 1280x720, two to three times the 3D
# view's; with three regions a frame took 9.6 - 10 ms, with five 6.4 - 7.1). The numbers stay readable.
OVERLAY_PERIOD = 1.0 / 30.0
def panel_regions(view: tuple[int, int, int, int], size: tuple[int, int]) -> list[list[tuple[int, int, int, int]]]:
    """The window around the 3D view `view` (GL: x, y from the bottom, w, h) as five regions of one or two
    rectangles, of about the same area at the default layouts: the upper and lower halves of the column
    left of the view, the strips above and below it, and the halves of the column right of it. Empty ones
    are left out."""
    x, y, w, h = view
    width, height = size
    half = height // 2
    regions = [[(0, half, x, height - half)], [(0, 0, x, half)], [(x, 0, w, y), (x, y + h, w, height - y - h)],
               [(x + w, half, width - x - w, height - half)], [(x + w, 0, width - x - w, half)]]
    return [rs for rs in ([r for r in region if r[2] > 0 and r[3] > 0] for region in regions) if rs]


def opaque_lines() -> None:
    """Give the style's border and separator colours (half transparent) their look over the window
    background, opaque. Where the panels are drawn again over their last pixels without a clear (the
    regions of a window that keeps its back buffer), a half-transparent line in a gap between two docked
    panels, over no background of its own, would blend over itself and brighten with every redraw."""
    style = imgui.get_style()
    bg = style.color_(imgui.Col_.window_bg)
    for col in (imgui.Col_.border, imgui.Col_.separator):
        c = style.color_(col)
        a = c.w
        style.set_color_(col, imgui.ImVec4(c.x * a + bg.x * (1.0 - a), c.y * a + bg.y * (1.0 - a),
                                           c.z * a + bg.z * (1.0 - a), 1.0))


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


def text_block(lines, pos, color=(1.0, 1.0, 1.0, 1.0), wrap: float = 0.0, size: float = HUD_FONT_SIZE,
               bottom: float | None = None, front: bool = False) -> float:
    """Lines of text on a translucent panel over the scene (behind ImGui's windows, or in front of them
    with `front`); pos is the top-left corner (pixels), y None to sit on `bottom` (the window's bottom edge
    by default). Returns the panel's height."""
    text = "\n".join(lines)
    imgui.push_font(None, size)
    font, font_size = imgui.get_font(), imgui.get_font_size()
    extent = imgui.calc_text_size(text, wrap_width=wrap) if wrap else imgui.calc_text_size(text)
    imgui.pop_font()
    pad = 8.0
    x, y = pos
    if y is None:
        y = (imgui.get_io().display_size.y if bottom is None else bottom) - extent.y - 2 * pad - 10.0
    dl = imgui.get_foreground_draw_list() if front else imgui.get_background_draw_list()
    dl.add_rect_filled((x, y), (x + extent.x + 2 * pad, y + extent.y + 2 * pad),
                       imgui.get_color_u32((0.04, 0.05, 0.06, 0.67)), 3.0)
    dl.add_text(font, font_size, (x + pad, y + pad), imgui.get_color_u32(color), text, wrap_width=wrap)
    return extent.y + 2 * pad


class App:
    def __init__(self, vehicle: sim.Vehicle, world: sim.World, *, size=(1280, 720), fullscreen=False,
                 fps=120, frame_dt=None, record=None, replay: Trace | None = None, quit_after=None,
                 screenshot=None, vehicle_name=None, world_name=None, substeps=None, camera="chase",
                 overlay=True, sound=True):
        self.surface, self.ctx = open_window(size, fullscreen)
        self.size = self.surface.get_size()
        pygame.font.init()
        from pygame._sdl2 import controller as sdl_controller
        sdl_controller.init()
        # the ImGui overlay; its window layout lives in the app's own settings file
        self.imgui_context = imgui.create_context()
        implot.create_context()
        configure_io(self.size)
        io = imgui.get_io()
        # read and written by ui/layout.py (a damaged file gets a message and the default layout)
        self.ini = data_dir() / "imgui.ini"
        io.set_ini_filename(None)                        # no file of ImGui's own: it asks us to save instead
        saved, layout_problem = layout.load(self.ini)
        if saved:
            imgui.load_ini_settings_from_memory(saved)
        self.layout_problem = ""                         # the last save's failure, told once
        self.startup_notice = ""
        if layout_problem:
            print(f"contactpatch: {layout_problem}", file=sys.stderr)
            self.startup_notice = layout_problem
        covered = has_docking(saved) and covers_the_view(saved)
        if covered:
            self.startup_notice = (f"{self.ini}: the saved layout put panels over the 3D view; the default layout "
                                   f"is back (View > Layout for another)")
            print(f"contactpatch: {self.startup_notice}", file=sys.stderr)
        self.gui_renderer = ModernGLRenderer(self.ctx, nearest=software_renderer(self.ctx))
        if sim.warmup.needed():
            self.compile_screen()                # a cold first start: show what it is doing
        if substeps is None:                              # a replay runs at its own substeps
            substeps = replay.substeps if replay is not None else 2
        self.session = Session(vehicle, world, substeps=substeps, vehicle_name=vehicle_name, world_name=world_name)
        if replay is not None:
            self.session.start_replay(replay)
        self.record_path = record
        if record:
            self.session.start_recording()
        self.input = Input(load_bindings())
        self.input.direct_gears = vehicle.drive.mode == "direct"
        self.input.open_pads()
        self.scene = SceneRenderer(self.ctx, world)
        self.scenes = {world.name: self.scene}           # a watched test drive's world gets its own
        software = software_renderer(self.ctx)
        self.target = SceneTarget(self.ctx, msaa=not software, keeps=software and back_buffer_kept(self.ctx))
        if self.target.keeps:
            opaque_lines()
        self.cameras = [ChaseCamera(), OrbitCamera(), FreeCamera()]
        self.camera_index = [c.name for c in self.cameras].index(camera)
        self.show_help = False
        self.fps = fps
        self.frame_dt = frame_dt
        self.quit_after = quit_after
        self.screenshot_path = screenshot
        self.notices: deque[tuple[float, str]] = deque(maxlen=4)
        if self.startup_notice:
            self.notices.append((time.monotonic() + 12.0, self.startup_notice))
        self.clock = pygame.time.Clock()
        self.rtf_window: deque[tuple[float, float]] = deque(maxlen=120)
        self.times = FrameTimes()
        self.finish_frames = False                 # wait for each frame to be drawn (benchmark)
        self.reference = 0.0                       # the benchmark's reference frame (ms), reference_frames
        self.overlay_age = float("inf")            # s of frame time since the overlay was last built
        self.overlay_wanted = True                 # input the overlay took: build it this frame
        self.pending_regions: list[list[tuple[int, int, int, int]]] = []   # panel regions the last build still owes
        self.last_layout: tuple = ()               # the last build's view and panel rectangles
        self.dragging = False
        self.running = True
        self.last_screenshot: Path | None = None
        self.gui_input = PygameInput()
        self.audio = Audio(muted=not sound)
        self.overlay = Overlay(self.session, ini_path=self.ini, map_panel=self.map_panel, audio=self.audio)
        self.overlay.visible = overlay
        self.gc_settled = False                     # settle_garbage_collector after the first frame
        self.quit_asked = -1e9                      # when a quit last asked to be confirmed (monotonic s)
        self.overlay.layout_request = None if has_docking(saved) and not covered else "auto"
        self.features = features(world)
        self.map_bounds = bounds(world, self.features)
        self.session.on_step.append(self.overlay.after_step)
        self.skids = SkidMarks(self.ctx)
        self.session.on_step.append(lambda: self.skids.record(self.session.sim))
        if self.audio.problem and sound:
            print(f"contactpatch: {self.audio.problem}", file=sys.stderr)

    def compile_screen(self) -> None:
        """Compile the physics in a worker thread while the window shows how far along it is (numba
        compiles on first use and caches the machine code, so this happens once per machine)."""
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
        renderer = self.gui_renderer
        while not done.wait(0.05):
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    pygame.quit()
                    raise SystemExit(0)
                if event.type == pygame.VIDEORESIZE:
                    self.size = (max(event.w, 1), max(event.h, 1))
            self.ctx.screen.use()
            self.ctx.viewport = (0, 0, *self.size)
            self.ctx.clear(0.62, 0.74, 0.88, 1.0)
            io = imgui.get_io()
            io.display_size = self.size
            io.delta_time = 0.05
            imgui.new_frame()
            w, h = self.size
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

    @property
    def camera(self):
        return self.cameras[self.camera_index]

    def notice(self, text: str) -> None:
        self.notices.append((time.monotonic() + 4.0, text))

    # -- events -------------------------------------------------------------------------------------
    def handle_events(self) -> None:
        self.input.typing(self.overlay.visible and imgui.get_io().want_text_input)
        for event in pygame.event.get():
            t = event.type
            if self.overlay.visible and self.gui_input.handle(event):
                self.overlay_wanted = True
                if self.gui_input.pad_nav:
                    self.input.release_all()       # the pad navigates the overlay: the car lets go
                    self.input.pad_axis = {"throttle": 0.0, "brake": 0.0, "steer": 0.0}
                continue                           # ImGui wanted this mouse, keyboard or pad event
            if t == pygame.QUIT:
                self.request_quit()
            elif t == pygame.VIDEORESIZE:
                self.size = (max(event.w, 1), max(event.h, 1))
            elif t == pygame.WINDOWFOCUSLOST:
                self.input.release_all()
            elif t == pygame.MOUSEBUTTONDOWN and event.button == 1:
                self.dragging = True
            elif t == pygame.MOUSEBUTTONUP and event.button == 1:
                self.dragging = False
            elif t == pygame.MOUSEMOTION and self.dragging:
                self.camera.drag(*event.rel)
            elif t == pygame.MOUSEWHEEL:
                self.camera.zoom(event.y)
            else:
                for action in self.input.handle(event):
                    self.act(action)
        while self.input.messages:
            self.notice(self.input.messages.pop(0))

    QUIT_CONFIRM_SECONDS = 3.0

    def request_quit(self) -> None:
        """Esc or the window's close button: an open menu or popup is closed first (Esc means that in a
        menu); with tuning edits not saved it asks for a second press within QUIT_CONFIRM_SECONDS."""
        if self.overlay.visible and imgui.is_popup_open("", imgui.PopupFlags_.any_popup_id):
            self.overlay.close_popups = True
            return
        now = time.monotonic()
        if self.overlay.edited() and now - self.quit_asked > self.QUIT_CONFIRM_SECONDS:
            self.quit_asked = now
            self.notices.append((now + self.QUIT_CONFIRM_SECONDS, "The tuning has changes that are not saved: "
                                 "press Esc again to quit without them (Tuning panel > save keeps them)."))
            return
        self.running = False

    def act(self, action: str) -> None:
        s = self.session
        self.overlay_wanted = True                 # what the action changes shows at once
        if action == "quit":
            self.request_quit()
        elif action == "reset":
            s.request_reset()
        elif action == "pause":
            s.toggle_pause()
        elif action == "step":
            s.request_single_step()
        elif action == "slow_motion":
            s.cycle_slow_motion()
        elif action == "camera":
            self.camera_index = (self.camera_index + 1) % len(self.cameras)
        elif action == "help":
            self.show_help = not self.show_help
        elif action == "overlay":
            self.overlay.visible = not self.overlay.visible
        elif action == "arrows":
            self.overlay.arrows_on = not self.overlay.arrows_on
            self.notice(f"force arrows and grip tints {'on' if self.overlay.arrows_on else 'off'}")
        elif action == "mute":
            self.audio.muted = not self.audio.muted
            self.notice("sound off" if self.audio.muted else
                        ("sound on" if self.audio.available else f"sound on, but {self.audio.problem}"))
        elif action == "map":
            self.overlay.visible = True
            self.overlay.show["Map"] = True
            imgui.set_window_focus("Map")
        elif action == "screenshot":
            name = time.strftime("contactpatch-%Y%m%d-%H%M%S.png")
            try:
                self.last_screenshot = save_screenshot(self.ctx, self.size, data_dir() / "screenshots" / name)
                self.notice(f"screenshot saved: {self.last_screenshot}")
            except (OSError, pygame.error) as exc:
                self.notice(f"screenshot failed: {exc}")

    # -- drawing ------------------------------------------------------------------------------------
    def hud_lines(self, frame_rtf: float) -> list[str]:
        s = self.session
        v = s.sim.state.velocity
        fwd = quat_matrix(s.sim.state.orientation)[:3, 0]
        speed = float(np.dot(v, fwd)) * sim.KMH
        if self.input.direct_gears:
            driven = s.sim.wheel_geometry().driven
            wheel_rpm = float(np.mean(np.abs(s.sim.state.wheel_omega[driven]))) * sim.RPM
            drive = f"gear {self.input.gear}   driven wheels {wheel_rpm:5.0f} rpm (direct drive)"
        else:
            gear = int(s.sim.state.gear)
            name = {-1: "R", 0: "N"}.get(gear, str(gear))
            mode = "auto" if s.sim.vehicle.gearbox.mode == "auto" else "manual"
            drive = f"gear {name} ({mode})   {float(s.sim.state.engine_rpm):5.0f} rpm"
        tel = s.sim.telemetry
        # the aids always say whether they are on, and when they act
        aids = "   ".join(f"{name} {'on' if on else 'off'}{' ACTING' if on and float(np.max(act)) > 0.5 else ''}"
                          for name, on, act in (("ABS", self.input.abs, tel.abs_active),
                                                ("TC", self.input.tc, tel.tc_active),
                                                ("ESP", self.input.esp, np.asarray(tel.esp_brake) > 0.0)))
        if not self.input.direct_gears and ("clutch" in self.input.held or "clutch" in self.input.pad_held):
            aids += "   CLUTCH PEDAL DOWN"
        if self.input.cruise is not None:
            aids += f"   cruise {self.input.cruise * sim.KMH:.0f} km/h"
        if s.companions:
            aids += f"   COMPARING (ghosts): {', '.join(c.label for c in s.companions)}"
        off = [name.replace("_", " ") for name, on in s.sim.switches().items() if not on]
        if off:
            aids += f"   OFF (Lab menu): {', '.join(off)}"
        if self.input.steer_hold:
            aids += f"   steering held at {self.input.steer:+.2f}"
        if self.gui_input.pad_nav and self.overlay.visible:
            aids += "   PAD NAVIGATES THE OVERLAY (click the left stick to drive)"
        lines = [f"{speed:6.1f} km/h   {drive}",
                 aids.strip(),
                 f"{frame_rtf:4.2f}x real time   t {s.sim.time:7.2f} s   1/{round(1 / s.sim.dt)} s x {s.sim.substeps}",
                 f"frame {self.times.median('frame'):4.1f} ms (physics {self.times.median('physics'):4.1f})   "
                 f"{self.camera.name} camera"]
        flags = []
        if s.blown_up:
            flags.append("BLOWN UP")
        elif s.scrub:
            flags.append(f"REWOUND {s.scrub * s.sim.dt:.2f} s (N: a recorded step forward, P: drive from here)")
        elif s.pause_reason:
            flags.append(f"PAUSED: {s.pause_reason.removeprefix('paused: ')} (P resumes, N steps)")
        elif s.paused:
            flags.append("PAUSED (N steps)")
        if s.time_scale != 1.0:
            flags.append(f"slow motion {s.time_scale:g}x")
        if s.replaying:
            flags.append(f"replay {s.replay_pos}/{len(s.replay.rows)}")
        if s.recording is not None:
            flags.append("recording")
        if flags:
            lines.append("   ".join(flags))
        return lines

    def help_rows(self) -> list[tuple[str, str, str]]:
        """(action, keys, gamepad) for every binding, from config/bindings.toml."""
        b = self.input.b
        rows = [(a.replace("_", " "), ", ".join(b.key_names.get(a, [])), ", ".join(b.pad_names.get(a, [])))
                for a in HELP_ORDER]
        rows.insert(4, ("steer (stick)", "", ", ".join(b.pad_names.get("steer", []))))
        rows.append(("pad: car / overlay", "", "leftstick (click)"))
        rows.append(("camera view", "mouse drag, wheel", ""))
        return rows

    def help_window(self) -> None:
        w = self.size[0]
        imgui.set_next_window_pos((w / 2 - 230, 60), imgui.Cond_.always)
        imgui.set_next_window_size((460, 0), imgui.Cond_.always)
        opened, self.show_help = imgui.begin("Controls (F1)", self.show_help, imgui.WindowFlags_.no_collapse)
        if opened:
            if imgui.begin_table("bindings", 3, imgui.TableFlags_.row_bg | imgui.TableFlags_.borders_inner_v):
                for name in ("action", "keyboard", "gamepad"):
                    imgui.table_setup_column(name)
                imgui.table_headers_row()
                for row in self.help_rows():
                    imgui.table_next_row()
                    for cell in row:
                        imgui.table_next_column()
                        imgui.text(cell)
                imgui.end_table()
            imgui.text_disabled("bindings live in config/bindings.toml")
        imgui.end()

    def forward_speed(self) -> float:
        """The car's speed along its heading (m/s), for the cruise control."""
        _, _, _, w, x, y, z, vx, vy, vz, _, _, _ = self.session.sim.state.body_list()
        # the body's x axis, the first column of R(q), in plain floats (this runs every physics step)
        return vx * (1.0 - 2.0 * (y * y + z * z)) + vy * 2.0 * (x * y + w * z) + vz * 2.0 * (x * z - w * y)

    def map_panel(self) -> None:
        """The Map panel's content: the world from above; a pick teleports the car."""
        s = self.session
        fwd = quat_matrix(s.sim.state.orientation)[:3, 0]
        pos = s.sim.state.position
        picked = draw_map(self.features, self.map_bounds, (pos[0], pos[1]), float(np.arctan2(fwd[1], fwd[0])),
                          s.world.markings, s.world.spawns)
        if picked is not None:
            why = s.teleport(*picked.approach)
            self.notice(why or f"at the {picked.name}")

    def view_rect(self) -> tuple[int, int, int, int]:
        """(x, y from the top, w, h) pixels of the 3D view: the panels' central node, or the window."""
        w, h = self.size
        c = self.overlay.central
        if not c or c[2] < 32 or c[3] < 32:
            return 0, 0, w, h
        x0, y0 = max(0, int(c[0])), max(0, int(c[1]))
        return x0, y0, max(1, min(w - x0, int(round(c[2])))), max(1, min(h - y0, int(round(c[3]))))

    def force_tooltip(self, vp: np.ndarray, rect) -> None:
        """Hovering near a wheel's contact in the 3D view shows its forces in numbers."""
        io = imgui.get_io()
        if io.want_capture_mouse:
            return
        ox, oy, w, h = rect
        mx, my = io.mouse_pos.x, io.mouse_pos.y
        if not (ox <= mx < ox + w and oy <= my < oy + h):
            return
        tel = self.session.sim.telemetry
        best, best_d = None, 40.0                             # px
        for i in range(4):
            if tel.grounded[i] < 0.5:
                continue
            c = vp @ np.array([*np.asarray(tel.Q[i], float), 1.0])
            if c[3] <= 0.1:
                continue
            x, y = ox + (c[0] / c[3] * 0.5 + 0.5) * w, oy + (0.5 - c[1] / c[3] * 0.5) * h
            d = float(np.hypot(x - mx, y - my))
            if d < best_d:
                best, best_d = i, d
        if best is not None:
            i = best
            state = self.overlay.shown()[i]
            imgui.set_tooltip(f"{sim.WHEEL_NAMES[i]}: {state.name}\n"
                              f"Fz {tel.Fz[i] / 1000:.2f} kN (budget mu Fz {tel.mu[i] * tel.Fz[i] / 1000:.2f} kN)\n"
                              f"Fx {tel.Fx[i] / 1000:+.2f} kN (raw {tel.Fx_raw[i] / 1000:+.2f})\n"
                              f"Fy {tel.Fy[i] / 1000:+.2f} kN (raw {tel.Fy_raw[i] / 1000:+.2f})\n{state.reason}")

    def feature_labels(self, vp: np.ndarray, eye: np.ndarray, rect) -> None:
        """Each named feature's name over it in the 3D view (those in front of the camera and near)."""
        ox, oy, w, h = rect
        dl = imgui.get_background_draw_list()
        taken: list[tuple[float, float, float, float]] = []     # labels drawn: a later one that overlaps is left out
        for f in self.features:
            p = np.array([*f.top, 1.0]) + np.array([0.0, 0.0, 1.5, 0.0])
            if np.linalg.norm(p[:3] - eye) > LABEL_RANGE:
                continue
            c = vp @ p
            if c[3] <= 0.1 or abs(c[0]) > c[3] or abs(c[1]) > c[3]:
                continue
            x, y = ox + (c[0] / c[3] * 0.5 + 0.5) * w, oy + (0.5 - c[1] / c[3] * 0.5) * h
            size = imgui.calc_text_size(f.name)
            box = (x - size.x / 2 - 4, y - 2, x + size.x / 2 + 4, y + size.y + 2)
            if box[0] < ox or box[2] > ox + w or box[1] < oy or box[3] > oy + h:
                continue                                     # a label the view's edge would cut is left out
            if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
                continue
            taken.append(box)
            dl.add_rect_filled((x - size.x / 2 - 4, y - 2), (x + size.x / 2 + 4, y + size.y + 2),
                               imgui.get_color_u32((0.05, 0.05, 0.06, 0.55)), 3.0)
            dl.add_text((x - size.x / 2, y), imgui.get_color_u32((1, 1, 1, 0.9)), f.name)

    def use_world(self, world: sim.World) -> None:
        """Draw `world` from now on (a watched test drive runs in its own): its scene is built once per
        world name and kept, as are the map's features."""
        key = world.name
        if key not in self.scenes:
            self.scenes[key] = SceneRenderer(self.ctx, world)
        self.scene = self.scenes[key]
        self.skids.clear()                                 # the marks belong to the ground they were left on
        self.features = features(world)
        self.map_bounds = bounds(world, self.features)
        for cam in self.cameras:
            if hasattr(cam, "primed"):
                cam.primed = False                         # snap to the car in its new world

    def draw(self, alpha: float, frame_dt: float, frame_rtf: float) -> None:
        if self.scene.world.name != self.session.world.name:
            self.use_world(self.session.world)
        pose = self.session.pose(alpha)
        fwd = quat_matrix(pose.orientation)[:3, 0]
        cam = self.camera
        cam.update(pose.position, fwd, frame_dt)
        # the 3D view fills the central node the panels dock around (last frame's; the whole window without
        # panels), so the car sits in the middle of what is visible and no pixel is drawn under a panel
        vx, vy, vw, vh = self.view_rect()
        aspect = vw / max(vh, 1)
        car = self.session.sim
        reference = float(np.mean(sim.static_loads(car.vehicle))) / 1000.0
        scale, widen = on_screen_scale(self.overlay.arrow_scale, float(np.linalg.norm(cam.eye - pose.position)),
                                       reference)
        arrows = force_arrows(car.telemetry, self.overlay.arrows, scale, widen) if self.overlay.arrows_on else ()
        t0 = time.perf_counter()
        fresh = self.target.begin(self.size)
        self.overlay_age += frame_dt
        final = self.quit_after is not None and self.session.sim.time >= self.quit_after - 1e-9
        view = (vx, self.size[1] - vy - vh, vw, vh)                 # GL: x, y from the bottom, w, h
        # The whole overlay at once (first frame, new size, input it took, an action, a screenshot); else
        # it is built every OVERLAY_PERIOD and its panels are drawn one region (panel_regions: five around
        # the view) per frame from that build, so that no frame pays for all of them; the frames between put the
        # build's commands back over the new 3D view only (OVERLAY_PERIOD says why).
        whole = fresh or not self.target.keeps or self.overlay_wanted or final
        build = whole or (not self.pending_regions and self.overlay_age >= OVERLAY_PERIOD - 1e-9)
        if whole:
            self.pending_regions = []
        elif build:
            self.pending_regions = panel_regions(view, self.size)
        regions = self.pending_regions.pop(0) if self.pending_regions else []
        bg = imgui.get_style().color_(imgui.Col_.window_bg)        # the gaps between the panels (Overlay.build)
        if whole and view != (0, 0, *self.size):
            self.ctx.clear(bg.x, bg.y, bg.z, 1.0)
        if bg.w < 1.0:
            # a region's docked panels paint their own opaque background over all of it but the gaps
            # between them, which change only when a panel moves, and a build that moves one is drawn
            # whole (below): so the regions are cleared only under a see-through style (llvmpipe: 0.3 ms
            # a frame)
            for r in regions:
                self.ctx.clear(bg.x, bg.y, bg.z, 1.0, viewport=r)
        view_m, proj_m = cam.view(), cam.projection(aspect)          # once a frame (numpy; four users)
        vp = proj_m @ view_m
        self.scene.draw(view_m, proj_m, cam.eye, pose, self.size, car.vehicle, car.wheel_geometry(),
                        wheel_tints=self.overlay.wheel_colors() if self.overlay.arrows_on else None, arrows=arrows,
                        viewport=view, ghost=self.session.ghost(), companions=self.session.companion_poses())
        self.skids.draw(vp)
        self.target.end()
        t1 = time.perf_counter()
        self.times.add("scene", t1 - t0)
        self.times.built.append(build)
        if not build:
            self.times.add("overlay", 0.0)
            for clip in (view, *regions):
                self.gui_renderer.redraw(clip=clip)
            self.times.add("gui render", time.perf_counter() - t1)
            return
        io = imgui.get_io()
        io.display_size = self.size
        io.delta_time = max(min(self.overlay_age, 1.0), 1e-4)
        self.overlay_age, self.overlay_wanted = 0.0, False
        imgui.new_frame()
        self.feature_labels(vp, cam.eye, (vx, vy, vw, vh))
        if self.overlay.arrows_on:
            self.force_tooltip(vp, (vx, vy, vw, vh))
        self.overlay.build()
        # the HUD and the messages go through ImGui too (no texture to rewrite when a number changes), in
        # the 3D view's corner; the messages in front of the panels
        text_block(self.hud_lines(frame_rtf), (vx + 10, vy + 10), wrap=max(vw - 20, 200))
        now = time.monotonic()
        msgs = [m for until, m in self.notices if until > now]
        if self.session.message:
            msgs.insert(0, self.session.message)
        if msgs:
            text_block(msgs, (vx + 10, None), color=(1.0, 0.9, 0.59, 1.0), wrap=max(vw - 40, 200), bottom=vy + vh,
                       front=True)
        if self.show_help:
            self.help_window()
        imgui.render()
        t2 = time.perf_counter()
        self.times.add("overlay", t2 - t1)
        layout = (self.overlay.central, tuple(self.overlay.layout))
        if layout != self.last_layout and not whole:
            # a panel moved or changed size without input (the layout settling after a start or a layout
            # request, a tab taking its node): the gaps between the panels, which the regions do not clear,
            # may show where a panel was, so this build is drawn whole on the window cleared around the view
            whole = True
            self.pending_regions = []
            for region in panel_regions(view, self.size):
                for r in region:
                    self.ctx.clear(bg.x, bg.y, bg.z, 1.0, viewport=r)
        self.last_layout = layout
        if whole:
            self.gui_renderer.render(imgui.get_draw_data())
        else:
            self.gui_renderer.update_textures()
            self.gui_renderer.upload(imgui.get_draw_data())
            for clip in (view, *regions):
                self.gui_renderer.redraw(clip=clip)
        self.times.add("gui render", time.perf_counter() - t2)
        if io.want_save_ini_settings:                    # ImGui asks (at most every io.ini_saving_rate s)
            self.save_layout()
            io.want_save_ini_settings = False

    def save_layout(self) -> None:
        try:
            self.ini.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        problem = layout.save(self.ini, imgui.save_ini_settings_to_memory())
        if problem and problem != self.layout_problem:
            self.notice(problem)
        self.layout_problem = problem

    # -- main loop ----------------------------------------------------------------------------------
    def run(self) -> int:
        try:
            return self._run()
        finally:
            if self.times.on_gc in gc.callbacks:          # (finish() removes it too; a raise skips finish)
                gc.callbacks.remove(self.times.on_gc)

    def _run(self) -> int:
        first = True
        while self.running:
            wall = self.clock.tick(0 if self.frame_dt else self.fps) / 1000.0
            frame_dt = self.frame_dt if self.frame_dt else (0.0 if first else wall)
            first = False
            start, cpu_start = time.perf_counter(), time.process_time()
            self.handle_events()
            if not self.running:
                break
            t0 = self.session.sim.time
            alpha = self.session.frame(frame_dt, lambda dt: self.input.controls(dt, self.forward_speed()))
            self.times.add("physics", time.perf_counter() - start)
            self.rtf_window.append((frame_dt, self.session.sim.time - t0))
            wall_sum = sum(w for w, _ in self.rtf_window)
            rtf = sum(s for _, s in self.rtf_window) / wall_sum if wall_sum > 0 else 0.0
            slip = float(np.max(np.abs(self.session.sim.telemetry.kappa))) if not self.session.paused else 0.0
            self.input.rumble(slip)
            t_audio = time.perf_counter()
            self.audio.update(self.session.sim, paused=self.session.paused or bool(self.session.scrub))
            self.times.add("audio", time.perf_counter() - t_audio)
            self.draw(alpha, frame_dt, rtf)
            shot = shot_cpu = 0.0                  # the last frame's screenshot is not the frame's own time
            if self.quit_after is not None and self.session.sim.time >= self.quit_after - 1e-9:
                if self.screenshot_path:
                    if self.finish_frames:
                        self.ctx.finish()          # the frame's own rasterisation stays in its time
                    shot, shot_cpu = time.perf_counter(), time.process_time()
                    save_screenshot(self.ctx, self.size, self.screenshot_path)
                    shot, shot_cpu = time.perf_counter() - shot, time.process_time() - shot_cpu
                self.running = False
            swap = time.perf_counter()
            pygame.display.flip()
            if self.finish_frames:
                self.ctx.finish()                  # count the frame's rasterisation in its own time
            end = time.perf_counter()
            self.times.add("swap", end - swap)
            self.times.add("frame", end - start - shot)
            self.times.add("cpu", time.process_time() - cpu_start - shot_cpu)
            if not self.gc_settled:
                settle_garbage_collector()
                self.gc_settled = True
                gc.callbacks.append(self.times.on_gc)
        if self.finish_frames:
            self.reference = self.reference_frames()
        self.finish()
        return 0

    def reference_frames(self, n: int = 230, skip: int = 30) -> float:
        """The benchmark's reference, drawn in the same window after its frames: issue 11's prototype (a lit
        cube turning, one ImGui window of text and an ImPlot line of 200 points), each frame drawn and
        finished like the benchmark's. Returns the median frame time (ms) of the last n - skip. The
        renderer's speed moves between machines and hours; the benchmark's frame over this one does less."""
        ctx, (w, h) = self.ctx, self.size
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
            prog = self.scene.prog
            prog["u_vp"].write(gl(vp))
            prog["u_eye"].value = tuple(float(v) for v in eye)
            self.scene.cube.draw("reference", instance(rot_axis("z", 0.02 * k) @ scale((2.0, 2.0, 2.0)),
                                                       (0.8, 0.25, 0.2)))
            io = imgui.get_io()
            io.display_size = self.size
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
            self.gui_renderer.render(imgui.get_draw_data())
            pygame.display.flip()
            ctx.finish()
            times.append(time.perf_counter() - start)
        return float(np.median(times[skip:])) * 1e3

    def finish(self) -> None:
        if self.times.on_gc in gc.callbacks:
            gc.callbacks.remove(self.times.on_gc)
        if self.record_path and self.session.recording is not None:
            try:
                self.session.recording.save(self.record_path)
                print(f"contactpatch: input trace saved to {self.record_path} "
                      f"({len(self.session.recording.rows)} steps)")
            except OSError as exc:
                print(f"contactpatch: could not save the input trace to {self.record_path}: {exc}")
        try:
            self.save_layout()
            imgui.destroy_context(self.imgui_context)
        except Exception:
            pass
        pygame.quit()
