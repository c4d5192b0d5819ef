"""The driving window: pygame-ce for the window and input, moderngl for drawing, the Session for time.

Only this module knows pygame's event loop, the GL context and the simulation at once.
"""
from __future__ import annotations

import os
import sys
import time
from collections import deque
from pathlib import Path

import moderngl
import numpy as np
import pygame

import sim
from app.input import Input, load_bindings
from app.session import Session, Trace
from render.camera import ChaseCamera, FreeCamera, OrbitCamera
from render.arrows import force_arrows
from render.mathx import quat_matrix
from render.scene import SceneRenderer
from render.text import TextPanel
from imgui_bundle import imgui, implot
from ui.backend import ModernGLRenderer, PygameInput, configure_io
from ui import layout
from ui.overlay import Overlay

HELP_ORDER = ("throttle", "brake", "steer_left", "steer_right", "handbrake", "clutch", "gear_up", "gear_down",
              "abs", "tc", "reset", "pause", "step", "slow_motion", "camera", "help", "overlay", "screenshot",
              "quit")


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "contactpatch"


def open_window(size: tuple[int, int], fullscreen: bool) -> tuple[pygame.Surface, moderngl.Context]:
    pygame.display.init()
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MAJOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_MINOR_VERSION, 3)
    pygame.display.gl_set_attribute(pygame.GL_CONTEXT_PROFILE_MASK, pygame.GL_CONTEXT_PROFILE_CORE)
    pygame.display.gl_set_attribute(pygame.GL_DEPTH_SIZE, 24)
    flags = pygame.OPENGL | pygame.DOUBLEBUF | pygame.RESIZABLE | (pygame.FULLSCREEN if fullscreen else 0)
    surface = None
    for samples in (4, 0):                 # antialiasing where the context allows it
        pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLEBUFFERS, 1 if samples else 0)
        pygame.display.gl_set_attribute(pygame.GL_MULTISAMPLESAMPLES, samples)
        try:
            surface = pygame.display.set_mode(size, flags)
            break
        except pygame.error:
            if samples == 0:
                raise
    pygame.display.set_caption("Contact Patch")
    return surface, moderngl.create_context()


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


class App:
    def __init__(self, vehicle: sim.Vehicle, world: sim.World, *, size=(1280, 720), fullscreen=False,
                 fps=120, frame_dt=None, record=None, replay: Trace | None = None, quit_after=None,
                 screenshot=None, vehicle_name=None, world_name=None, substeps=8, camera="chase",
                 overlay=True):
        self.surface, self.ctx = open_window(size, fullscreen)
        self.size = self.surface.get_size()
        pygame.font.init()
        from pygame._sdl2 import controller as sdl_controller
        sdl_controller.init()
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
        self.hud = TextPanel(self.ctx, 24)
        self.banner = TextPanel(self.ctx, 24)
        self.cameras = [ChaseCamera(), OrbitCamera(), FreeCamera()]
        self.camera_index = [c.name for c in self.cameras].index(camera)
        self.show_help = False
        self.fps = fps
        self.frame_dt = frame_dt
        self.quit_after = quit_after
        self.screenshot_path = screenshot
        self.notices: deque[tuple[float, str]] = deque(maxlen=4)
        self.clock = pygame.time.Clock()
        self.rtf_window: deque[tuple[float, float]] = deque(maxlen=120)
        self.dragging = False
        self.running = True
        self.last_screenshot: Path | None = None
        # the ImGui overlay; its window layout lives in the app's own settings file
        self.imgui_context = imgui.create_context()
        implot.create_context()
        configure_io(self.size)
        io = imgui.get_io()
        if hasattr(imgui.ConfigFlags_, "docking_enable"):
            io.config_flags |= imgui.ConfigFlags_.docking_enable
        # read and written by ui/layout.py (a damaged file gets a message and the default layout)
        self.ini = data_dir() / "imgui.ini"
        io.set_ini_filename(None)                        # no file of ImGui's own: it asks us to save instead
        saved, layout_problem = layout.load(self.ini)
        if saved:
            imgui.load_ini_settings_from_memory(saved)
        self.layout_problem = ""                         # the last save's failure, told once
        if layout_problem:
            print(f"contactpatch: {layout_problem}", file=sys.stderr)
            self.notices.append((time.monotonic() + 12.0, layout_problem))
        self.gui_renderer = ModernGLRenderer(self.ctx)
        self.gui_input = PygameInput()
        self.overlay = Overlay(self.session, ini_path=self.ini)
        self.overlay.visible = overlay
        self.session.on_step.append(self.overlay.after_step)

    @property
    def camera(self):
        return self.cameras[self.camera_index]

    def notice(self, text: str) -> None:
        self.notices.append((time.monotonic() + 4.0, text))

    # -- events -------------------------------------------------------------------------------------
    def handle_events(self) -> None:
        for event in pygame.event.get():
            t = event.type
            if self.overlay.visible and self.gui_input.handle(event):
                if self.gui_input.pad_nav:
                    self.input.release_all()       # the pad navigates the overlay: the car lets go
                    self.input.pad_axis = {"throttle": 0.0, "brake": 0.0, "steer": 0.0}
                continue                           # ImGui wanted this mouse, keyboard or pad event
            if t == pygame.QUIT:
                self.running = False
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

    def act(self, action: str) -> None:
        s = self.session
        if action == "quit":
            self.running = False
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
        aids = "  ".join(a for a, on in (("ABS", self.input.abs), ("TC", self.input.tc)) if on)
        if self.gui_input.pad_nav and self.overlay.visible:
            aids += "   PAD NAVIGATES THE OVERLAY (click the left stick to drive)"
        lines = [f"{speed:6.1f} km/h   {drive}   {aids}",
                 f"{frame_rtf:4.2f}x real time   t = {s.sim.time:7.2f} s   dt 1/{round(1 / s.sim.dt)} s x {s.sim.substeps}",
                 f"camera {self.camera.name}   F1 help"]
        flags = []
        if s.blown_up:
            flags.append("BLOWN UP")
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

    def draw(self, alpha: float, frame_dt: float, frame_rtf: float) -> None:
        pose = self.session.pose(alpha)
        fwd = quat_matrix(pose.orientation)[:3, 0]
        cam = self.camera
        cam.update(pose.position, fwd, frame_dt)
        aspect = self.size[0] / max(self.size[1], 1)
        arrows = force_arrows(self.session.sim.telemetry, self.overlay.arrows, self.overlay.arrow_scale) \
            if self.overlay.visible else ()
        car = self.session.sim
        self.scene.draw(cam.view(), cam.projection(aspect), cam.eye, pose, self.size, car.vehicle, car.wheel_geometry(),
                        wheel_tints=self.overlay.wheel_colors() if self.overlay.visible else None, arrows=arrows)
        self.hud.set_lines(self.hud_lines(frame_rtf))
        self.hud.draw(10, 30 if self.overlay.visible else 10, self.size)
        now = time.monotonic()
        msgs = [m for until, m in self.notices if until > now]
        if self.session.message:
            msgs.insert(0, self.session.message)
        if msgs:
            self.banner.set_lines(msgs, (255, 230, 150))
            self.banner.draw(10, self.size[1] - self.banner.size[1] - 10, self.size)
        io = imgui.get_io()
        io.display_size = self.size
        io.delta_time = max(frame_dt, 1e-4)
        imgui.new_frame()
        self.overlay.build()
        if self.show_help:
            self.help_window()
        imgui.render()
        self.gui_renderer.render(imgui.get_draw_data())
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
        first = True
        while self.running:
            wall = self.clock.tick(0 if self.frame_dt else self.fps) / 1000.0
            frame_dt = self.frame_dt if self.frame_dt else (0.0 if first else wall)
            first = False
            self.handle_events()
            if not self.running:
                break
            t0 = self.session.sim.time
            alpha = self.session.frame(frame_dt, self.input.controls)
            self.rtf_window.append((frame_dt, self.session.sim.time - t0))
            wall_sum = sum(w for w, _ in self.rtf_window)
            rtf = sum(s for _, s in self.rtf_window) / wall_sum if wall_sum > 0 else 0.0
            slip = float(np.max(np.abs(self.session.sim.telemetry.kappa))) if not self.session.paused else 0.0
            self.input.rumble(slip)
            self.draw(alpha, frame_dt, rtf)
            if self.quit_after is not None and self.session.sim.time >= self.quit_after - 1e-9:
                if self.screenshot_path:
                    save_screenshot(self.ctx, self.size, self.screenshot_path)
                self.running = False
            pygame.display.flip()
        self.finish()
        return 0

    def finish(self) -> None:
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
