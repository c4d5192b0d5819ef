"""The driving window: pygame-ce for the window and input, moderngl for drawing, the Session for time.

Only this module knows pygame's event loop, the GL context and the simulation at once: App coordinates them
frame by frame. What it draws with lives beside it: app/gl.py (the window, its GL context, where the scene is
drawn, screenshots), app/regions.py (the overlay drawn a region at a time), app/hud.py (the text over the 3D
view), app/frame_times.py (frame timing, the benchmark's reference frame) and app/compile_screen.py (the cold
start); the saved panel layouts, one per window size class, are read and judged by ui/layout_files.py.
"""
from __future__ import annotations

import gc
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np
import pygame
from imgui_bundle import imgui
from imgui_bundle import implot

import sim
from app.compile_screen import BackgroundCompile
from app.compile_screen import compile_screen
from app.frame_times import FrameTimes
from app.frame_times import reference_frames
from app.frame_times import settle_garbage_collector
from app.gl import SceneTarget
from app.gl import back_buffer_kept
from app.gl import open_window
from app.gl import save_screenshot
from app.gl import software_renderer
from app.help import help_window
from app.hud import feature_labels
from app.hud import force_tooltip
from app.hud import hud_lines
from app.hud import pin_labels
from app.hud import text_block
from app.input import Input
from app.input import load_bindings
from app.lap_hud import lap_hud
from app.laps import LapKeeper
from app.regions import OVERLAY_PERIOD
from app.regions import opaque_lines
from app.regions import panel_regions
from app.session import Session
from app.session import Trace
from app.sound import Audio
from app.startup import StartupClock
from render.arrows import force_arrows
from render.arrows import on_screen_scale
from render.camera import ChaseCamera
from render.camera import FreeCamera
from render.camera import OrbitCamera
from render.mathx import quat_matrix
from render.scene import SceneRenderer
from render.skids import SkidMarks
from sim.lab.exit_codes import Exit
from sim.model.features import bounds
from sim.model.features import features
from sim.model.files import data_dir
from ui.backend import ModernGLRenderer
from ui.backend import PygameInput
from ui.backend import configure_io
from ui.map import draw_map
from ui.overlay import Overlay


class App:
    def __init__(self, vehicle: sim.Vehicle, world: sim.World, *, size=(1280, 720), fullscreen=False,
                 fps=120, frame_dt=None, record=None, replay: Trace | None = None, quit_after=None,
                 screenshot=None, vehicle_name=None, world_name=None, substeps=None, camera="chase",
                 overlay=True, sound=True):
        self.startup = StartupClock()                   # python -m app.startup: when the first frames came
        self.surface, self.ctx = open_window(size, fullscreen)
        self.startup.mark("window")
        self.size = self.surface.get_size()
        pygame.font.init()
        from pygame._sdl2 import controller as sdl_controller
        sdl_controller.init()
        # the ImGui overlay; its window layout lives in the app's own settings file
        self.imgui_context = imgui.create_context()
        implot.create_context()
        configure_io(self.size)
        io = imgui.get_io()
        # one per window size class, read and written by the overlay (ui/layout_files.py: a damaged file gets
        # a message and the default layout)
        io.set_ini_filename(None)                        # no file of ImGui's own: it asks us to save instead
        self.gui_renderer = ModernGLRenderer(self.ctx, nearest=software_renderer(self.ctx))
        self.compiling: BackgroundCompile | None = None  # a cold start with a driver: the step compiles elsewhere
        if sim.warmup.needed() and quit_after is None and replay is None:
            self.compiling = BackgroundCompile()
            self.size = compile_screen(self.ctx, self.gui_renderer, self.size, sim.warmup.place_one_car,
                                       lambda: sim.warmup.progress(on_disk=True))
        elif sim.warmup.needed():                        # a cold first start: show what it is doing
            self.size = compile_screen(self.ctx, self.gui_renderer, self.size)
            self.startup.mark("compiled")
        if substeps is None:                              # a replay runs at its own substeps
            substeps = replay.substeps if replay is not None else sim.DEFAULT_SUBSTEPS
        self.session = Session(vehicle, world, substeps=substeps, vehicle_name=vehicle_name, world_name=world_name)
        if replay is not None:
            self.session.start_replay(replay)
        self.record_path = record
        if record:
            self.session.start_recording()
        self.input = Input(load_bindings())
        self.input.direct_gears = vehicle.drive.mode == "direct"
        self.input.follow(self.session)                  # replays take the car from the driver's aids and give it back
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
        self.help_page: str | None = None          # a page of the help to bring to the front (app/help.py PAGES)
        self.fps = fps
        self.frame_dt = frame_dt
        self.quit_after = quit_after
        self.screenshot_path = screenshot
        self.notices: deque[tuple[float, str]] = deque(maxlen=4)
        self.clock = pygame.time.Clock()
        self.rtf_window: deque[tuple[float, float]] = deque(maxlen=120)
        self.times = FrameTimes()
        self.finish_frames = False                 # wait for each frame to be drawn (benchmark)
        self.reference = 0.0                       # the benchmark's reference frame (ms), reference_frames
        self.overlay_age = float("inf")            # s of frame time since the overlay was last built
        self.overlay_wanted = True                 # input the overlay took: build it this frame
        self.pending_regions: list[list[tuple[int, int, int, int]]] = []   # panel regions the last build still owes
        self.last_layout: tuple = ()               # the last build's view and panel rectangles
        self.hud_settled = False                   # this frame's build left the view and panels where they were
        self.dragging = False
        self.running = True
        self.last_screenshot: Path | None = None
        self.gui_input = PygameInput()
        self.audio = Audio(muted=not sound)
        self.overlay = Overlay(self.session, layout_dir=data_dir(), map_panel=self.map_panel, audio=self.audio)
        self.overlay.visible = overlay
        self.overlay.fit(self.size)                 # the layout of the window's size class
        self.gc_settled = False                     # settle_garbage_collector after the first frame
        self.later = None                           # sim.warmup.start_later's process
        self.quit_asked = -1e9                      # when a quit last asked to be confirmed (monotonic s)
        self.features = features(world)
        self.map_bounds = bounds(world, self.features)
        self.session.on_step.append(self.overlay.after_step)
        self.laps = LapKeeper(self.session)                # lap timing whenever the world is a circuit
        self.skids = SkidMarks(self.ctx)
        self.session.on_step.append(lambda: self.skids.record(self.session.sim))
        if self.audio.problem and sound:
            print(f"contactpatch: {self.audio.problem}", file=sys.stderr)

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
                self.overlay.fit(self.size)        # across a size class: that class's layout
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
        elif action == "step_back":
            s.scrub_to(s.scrub + 1)                # one recorded step back (pauses)
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
    def map_panel(self) -> None:
        """The Map panel's content: the world from above; a pick teleports the car."""
        s = self.session
        fwd = quat_matrix(s.sim.state.orientation)[:3, 0]
        pos = s.sim.state.position
        picked = draw_map(self.features, self.map_bounds, (pos[0], pos[1]), float(np.arctan2(fwd[1], fwd[0])),
                          s.world.markings, s.world.spawns, s.world.track)
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
        reference = float(np.mean(sim.tire_loads(car.vehicle))) / 1000.0
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
                        viewport=view, ghost=self.session.ghost() or self.laps.ghost(),
                        companions=self.session.companion_poses(), telemetry=car.telemetry, skids=self.skids)
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
        feature_labels(self.features, vp, cam.eye, (vx, vy, vw, vh))
        pin_labels([c.label for c in self.session.companions], self.scene.car.pins, vp, (vx, vy, vw, vh))
        if self.overlay.arrows_on:
            force_tooltip(car.telemetry, self.overlay.shown, vp, (vx, vy, vw, vh))
        self.overlay.build()
        # the HUD and the messages go through ImGui too (no texture to rewrite when a number changes), in
        # the 3D view's corner; the messages in front of the panels
        hud = hud_lines(self.session, self.input, frame_rtf, self.times, self.camera.name,
                        self.gui_input.pad_nav and self.overlay.visible)
        text_block(hud, (vx + 10, vy + 10), wrap=max(vw - 20, 200))
        lap_hud(self.laps, (vx, vy, vw, vh), hud)
        now = time.monotonic()
        while self.overlay.notices:                # a layout set aside: told for longer
            self.notices.append((now + 12.0, self.overlay.notices.pop(0)))
        msgs = [m for until, m in self.notices if until > now]
        for m in (self.session.message, self.compiling.message() if self.compiling else ""):
            msgs[:0] = [m] if m else []
        if msgs:
            text_block(msgs, (vx + 10, None), color=(1.0, 0.9, 0.59, 1.0), wrap=max(vw - 40, 200), bottom=vy + vh,
                       front=True)
        if self.show_help:
            self.show_help = help_window(self.size, self.input.b, self.help_page)
            self.help_page = None
        imgui.render()
        t2 = time.perf_counter()
        self.times.add("overlay", t2 - t1)
        layout = (self.overlay.central, tuple(self.overlay.layout))
        self.hud_settled = layout == self.last_layout      # the HUD stands where the last build put it
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
        problem = self.overlay.save_layout()
        if problem:
            self.notice(problem)

    # -- main loop ----------------------------------------------------------------------------------
    @property
    def scripted(self) -> bool:
        """Nobody drives: --quit-after (or --benchmark) ends the run, or a --replay trace drives it (until it
        hands over). A blow-up then ends the run (Exit.BLEW_UP) instead of pausing for R."""
        return self.quit_after is not None or self.session.replaying

    def run(self) -> int:
        try:
            return self._run()
        finally:
            if self.times.on_gc in gc.callbacks:          # (finish() removes it too; a raise skips finish)
                gc.callbacks.remove(self.times.on_gc)

    def _run(self) -> int:
        first = True
        while self.running:
            wall = self.clock.tick(0 if self.frame_dt else self.fps if self.compiling is None else 5) / 1000.0
            frame_dt = self.frame_dt if self.frame_dt else (0.0 if first else wall)
            first = False
            start, cpu_start = time.perf_counter(), time.process_time()
            self.handle_events()
            if not self.running:
                break
            t0, scripted = self.session.sim.time, self.scripted
            if self.compiling is not None and not self.compiling.held():     # the step is in the cache
                self.compiling, self.later = None, sim.warmup.start_later()
                self.startup.mark("physics")
            alpha = 0.0 if self.compiling else self.session.frame(
                frame_dt, lambda dt: self.input.controls(dt, self.session.forward_speed()))
            if scripted and self.session.blown_up:        # nobody there to press R: the run ends, and says why
                print(f"contactpatch: {self.session.vehicle_name} on {self.session.world_name}: "
                      f"{self.session.blow_up}; the scripted run stops (exit status {Exit.BLEW_UP:d})",
                      file=sys.stderr)
                self.finish()
                return Exit.BLEW_UP
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
            self.startup.mark("first frame")
            if self.hud_settled:
                self.startup.mark("hud")
            if not self.gc_settled:
                settle_garbage_collector()
                self.gc_settled = True
                gc.callbacks.append(self.times.on_gc)
                if self.compiling is None and self.later is None:    # a cold start: the batch kernels, at low
                    self.later = sim.warmup.start_later()              # priority (None when they are cached)
        if self.finish_frames:
            self.reference = reference_frames(self.ctx, self.size, self.scene, self.gui_renderer)
        self.finish()
        return 0

    def finish(self) -> None:
        if self.compiling is not None:
            self.compiling.stop()
        if self.later is not None and self.later.poll() is None:
            self.later.kill()                          # what it put in the cache is kept
            self.later.wait()
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
