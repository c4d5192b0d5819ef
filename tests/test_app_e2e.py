"""The app as a user runs it, under SDL_VIDEODRIVER=offscreen: a scripted drive, a screenshot, and
checks on its pixels. The screenshots are kept in artifacts/ (CONTACTPATCH_ARTIFACTS overrides)."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pygame
import pytest

import sim
from render.mathx import project
from render.scene import SKY

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("CONTACTPATCH_ARTIFACTS", ROOT / "artifacts"))


def drive_trace(path: Path, seconds: float) -> None:
    n = int(seconds * 240)
    rows = [[0.5, 0.0, 0.3 if k > 240 else 0.0, 0.0, 0] for k in range(n)]
    path.write_text(json.dumps({"format": "contactpatch-trace-1", "dt": 1 / 240, "substeps": 2,
                                "vehicle": "hatchback", "world": "proving_ground", "steps": rows}))


def load_png(path: Path) -> np.ndarray:
    surf = pygame.image.load(str(path))
    return pygame.surfarray.array3d(surf).transpose(1, 0, 2).astype(int)      # (h, w, 3)


def test_cli_drives_and_saves_a_screenshot(tmp_path):
    trace = tmp_path / "drive.json"
    drive_trace(trace, 3.0)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "e2e-cli-drive.png"
    rec = tmp_path / "again.json"
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy",
               XDG_DATA_HOME=str(tmp_path))                  # the overlay's layout file, not the user's
    out = subprocess.run([sys.executable, "-m", "app", "--replay", str(trace), "--quit-after", "3",
                          "--frame-dt", str(1 / 60), "--screenshot", str(shot), "--size", "800x450",
                          "--record", str(rec)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    img = load_png(shot)
    assert img.shape == (450, 800, 3)
    # the recording reproduces the replayed controls step for step
    from app.session import Trace
    again = Trace.load(rec).rows
    given = Trace.load(trace).rows
    assert again == given[:len(again)]
    assert len(again) == 720


def test_bad_preset_gives_a_message_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[chassis]\nmass = -3\n")
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy")
    out = subprocess.run([sys.executable, "-m", "app", "--vehicle", str(bad)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2
    assert "chassis.mass = -3" in out.stderr and "Traceback" not in out.stderr


def in_fresh_process(fn, *args):
    """Run fn(*args) in a new Python process: moderngl finds the window's GL context only for the
    first window a process opens, so each windowed test gets its own process."""
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def drive_with_camera(shot: str):
    """Child process: a scripted drive with the overlay hidden; returns what the camera saw."""
    from app.session import Trace
    from app.window import App
    car = sim.load_vehicle("hatchback")
    app = App(car, sim.load_world("proving_ground"), size=(960, 540), frame_dt=1 / 60, quit_after=2.5,
              screenshot=shot, overlay=False)
    app.session.start_replay(Trace(1 / 240, 2, "hatchback", "proving_ground", [[0.5, 0.0, 0.25, 0.0, 0]] * 600))
    assert app.run() == 0
    cam = app.camera
    vp = cam.projection(960 / 540) @ cam.view()
    s = app.session.sim
    return vp, np.array(s.state.position), np.array(s.telemetry.C)


def test_screenshot_shows_ground_car_and_wheels():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "e2e-drive.png"
    vp, position, wheel_centres = in_fresh_process(drive_with_camera, str(shot))
    img = load_png(shot)
    h, w, _ = img.shape
    sky = np.array(SKY) * 255
    # the sky at the top, the ground (not sky) at the bottom
    assert np.abs(img[5, w // 2] - sky).max() < 12
    assert np.abs(img[h - 5, w // 2] - sky).max() > 40
    # the car's body is drawn where the camera projects its centre of mass: red paint near there
    cx, cy = project(vp, position, w, h)
    patch = img[int(cy) - 30:int(cy) + 30, int(cx) - 40:int(cx) + 40].reshape(-1, 3)
    red = (patch[:, 0] > patch[:, 1] + 50) & (patch[:, 0] > patch[:, 2] + 50)
    assert red.mean() > 0.1
    # the rear wheels are drawn apart from the body's centre, with dark tread around their centres
    for i in (2, 3):
        wx, wy = project(vp, wheel_centres[i], w, h)
        assert np.hypot(wx - cx, wy - cy) > 20
        around = img[int(wy) - 8:int(wy) + 9, int(wx) - 8:int(wx) + 9].reshape(-1, 3)
        assert (around.max(axis=1) < 70).mean() > 0.1, f"no dark tire pixels near wheel {i}"


def brake_and_turn_with_overlay(shot: str, data_home: str, size=(1280, 720)):
    """Child process: braking and turning hard with the overlay open; returns the grip states."""
    os.environ["XDG_DATA_HOME"] = data_home                   # the overlay's layout file goes here
    from app.session import Trace
    from app.window import App
    rows = [[1.0, 0.0, 0.0, 0.0, 0]] * 480 + [[0.0, 1.0, 0.8, 0.0, 0]] * 48
    app = App(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), size=size,
              frame_dt=1 / 60, quit_after=len(rows) / 240, screenshot=shot)
    app.session.start_replay(Trace(1 / 240, 2, "hatchback", "proving_ground", rows))
    assert app.run() == 0
    # where the car's centre lands on screen, with the camera and the 3D view of the last frame
    vx, vy, vw, vh = app.view_rect()
    cam = app.camera
    c = cam.projection(vw / vh) @ cam.view() @ np.array([*app.session.sim.state.position, 1.0])
    car_px = (vx + (c[0] / c[3] * 0.5 + 0.5) * vw, vy + (0.5 - c[1] / c[3] * 0.5) * vh)
    return [int(x) for x in app.overlay.monitor.states], (vx, vy, vw, vh), car_px


# a layout with three panels docked as tabs into the dockspace's central node, over the 3D view (saved so
# on a run of this machine: it came back on every start until the app refused it)
COVERING_LAYOUT = """[Window][Map]
Pos=0,19
Size=1280,701
Collapsed=0
DockId=0x08BD597D,0

[Window][Plan view]
Pos=0,19
Size=1280,701
Collapsed=0
DockId=0x08BD597D,1

[Window][Test drives]
Pos=0,19
Size=1280,701
Collapsed=0
DockId=0x08BD597D,2

[Window][Telemetry]
Pos=0,20
Size=32,35
Collapsed=0

[Docking][Data]
DockSpace ID=0x08BD597D Window=0x1BBC0F80 Pos=0,19 Size=1280,701 CentralNode=1 Selected=0x55B716CB
"""


def test_a_layout_is_kept_only_when_it_docks_panels_and_leaves_the_3d_view_free():
    from ui.layout import covers_the_view
    from ui.layout import has_docking
    assert has_docking(COVERING_LAYOUT) and covers_the_view(COVERING_LAYOUT)
    nested = ("[Window][Tuning]\nDockId=0x00000007,0\n\n[Docking][Data]\nDockSpace ID=0x08BD597D Split=X\n"
              "  DockNode ID=0x00000007 Parent=0x08BD597D SizeRef=319,720\n"
              "  DockNode ID=0x00000005 Parent=0x08BD597D SizeRef=548,478 CentralNode=1\n")
    assert has_docking(nested) and not covers_the_view(nested)
    assert covers_the_view(nested.replace("DockId=0x00000007", "DockId=0x00000005"))
    assert not has_docking("[Window][Debug##Default]\nPos=60,60\n\n[Docking][Data]\n")


@pytest.mark.parametrize("size, saved", [((1280, 720), "hidden"), ((1920, 1080), None), ((1280, 720), "covering")])
def test_overlay_screenshot_shows_panels_and_force_arrows(tmp_path, size, saved):
    from render.arrows import ARROW_COLORS
    from sim.diagnosis import SATURATED
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"e2e-overlay-{size[0]}x{size[1]}-{saved}.png"
    if saved:
        # what a run with the panels hidden saves (no panel docked, so not the user's own), or a layout whose
        # panels cover the 3D view: both give the default layout
        (tmp_path / "contactpatch").mkdir()
        (tmp_path / "contactpatch" / "imgui.ini").write_text(
            COVERING_LAYOUT if saved == "covering" else
            "[Window][Debug##Default]\nPos=60,60\nSize=400,400\nCollapsed=0\n\n[Docking][Data]\n")
    states, (vx, vy, vw, vh), (cx, cy) = in_fresh_process(brake_and_turn_with_overlay, str(shot), str(tmp_path),
                                                          size)
    kind = "wide" if size[0] >= 1700 else "compact"
    assert (tmp_path / "contactpatch" / f"imgui-{kind}.ini").exists()     # the layout persisted, not in the cwd
    img = load_png(shot)
    h, w, _ = img.shape

    def dark(region):                                              # ImGui's window background
        r = region.reshape(-1, 3)
        return ((r.max(axis=1) < 70) & (np.abs(r[:, 0] - r[:, 2]) < 25)).mean()
    # the panels dock around the 3D view, which keeps most of the window and has the car inside it
    assert vx > 200 and vx + vw < w - 200 and vw * vh > 0.25 * w * h
    assert vx + 0.2 * vw < cx < vx + 0.8 * vw and vy + 0.2 * vh < cy < vy + 0.9 * vh
    assert dark(img[60:460, vx + vw + 20:w - 20]) > 0.3            # grip and telemetry panels at the right (the 3D
    # view has next to no such pixels)
    assert dark(img[140:300, 20:vx - 20]) > 0.3                    # tuning panel at the left
    # the arrows' colours appear around the car, in the 3D view
    middle = img[vy:vy + vh, vx:vx + vw].reshape(-1, 3).astype(float)
    found = [int((np.abs(middle - np.array(c) * 255).max(axis=1) < 60).sum()) for c in ARROW_COLORS.values()]
    assert sum(n > 20 for n in found) >= 2, found
    # braking while turning saturates at least one wheel, and the diagnosis says so
    assert SATURATED in states


def test_benchmark_prints_the_frame_time_and_where_it_goes(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", XDG_DATA_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "app", "--benchmark", "--quit-after", "1", "--size", "640x360"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "renderer" in text and "frame time median" in text
    for phase in ("physics", "scene", "overlay", "gui render", "swap"):
        assert f"  {phase}" in text
    assert "garbage collections after the first frame" in text
    ref = re.search(r"reference frame .*: median ([0-9.]+) ms; this run's median frame is ([0-9.]+) x that", text)
    assert ref and float(ref.group(1)) > 0.0 and float(ref.group(2)) > 0.0, text


def handbrake_turn(shot: str):
    """Child process: a run up and a handbrake turn (the overlay hidden); returns the skid marks laid and
    where the locked rear wheels slid, projected on the screenshot."""
    from app.session import Trace
    from app.window import App
    rows = [[1.0, 0.0, 0.0, 0.0, 0]] * 1200 + [[0.0, 0.0, 1.0, 1.0, 0]] * 180
    app = App(sim.load_vehicle("hatchback"), sim.load_world("flat"), size=(960, 540), frame_dt=1 / 60,
              quit_after=len(rows) / 240, screenshot=shot, overlay=False, sound=False)
    app.session.start_replay(Trace(1 / 240, 2, "hatchback", "flat", rows))
    app.scene.car.smoke_puffs = lambda *args: np.empty((0, 19))     # the marks alone (smoke would lighten them)
    trail = []
    app.session.on_step.append(lambda: trail.append(np.array(app.session.sim.telemetry.Q[2])))
    assert app.run() == 0
    cam = app.camera
    vp = cam.projection(960 / 540) @ cam.view()
    return app.skids.count, [project(vp, p, 960, 540) for p in trail[-60:-20]]


def test_a_handbrake_turn_leaves_skid_marks_on_the_ground():
    """The locked rear wheels slide: marks are laid, and the ground where the left-rear wheel slid half a
    quarter of a second before the screenshot is drawn darker than the flat world's clean asphalt grid around it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "e2e-skid-marks.png"
    count, trail = in_fresh_process(handbrake_turn, str(shot))
    assert count > 10
    img = load_png(shot)
    seen = [p for p in trail if p is not None and 0 <= p[0] < 960 and 0 <= p[1] < 540]
    dark = [img[int(y), int(x)].max() for x, y in seen]
    assert len(dark) > 10 and np.median(dark) < 45


def overlay_between_redraws(data_home: str):
    """Child process: 40 frames of 1/60 s with the panels open on the software renderer; returns how many
    frames built the overlay, and per frame whether it did and what the screen showed."""
    os.environ["XDG_DATA_HOME"] = data_home
    from app.session import Trace
    from app.window import App
    app = App(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), size=(960, 540),
              frame_dt=1 / 60, quit_after=40 / 60)
    app.session.start_replay(Trace(1 / 240, 2, "hatchback", "proving_ground", [[1.0, 0.0, 0.0, 0.0, 0]] * 200))
    assert app.target.keeps                     # llvmpipe under SDL's offscreen driver keeps the back buffer
    built, shown = [], []
    build, draw = app.overlay.build, app.draw

    def counting_build():
        built[-1] = True
        build()

    def reading_draw(*args):
        built.append(False)
        draw(*args)
        data = app.ctx.screen.read(components=3)
        _ = app.ctx.error
        shown.append(np.frombuffer(data, np.uint8).reshape(540, 960, 3)[::-1].astype(int))
    app.overlay.build, app.draw = counting_build, reading_draw
    assert app.run() == 0
    return built, shown, app.view_rect()


@pytest.mark.slow
def test_the_panels_are_built_at_12_hz_at_60_frames_and_drawn_a_region_a_frame(tmp_path):
    """On a software renderer, at 60 frames a second the overlay is built every fifth frame (its five
    regions); the top of the left column is drawn on the frame of the build, its bottom on the next, the
    strips above and below the view on the third and the right column's halves on the two after, and a
    region not drawn keeps its pixels."""
    built, shown, (vx, vy, vw, vh) = in_fresh_process(overlay_between_redraws, str(tmp_path))
    assert len(shown) == 40
    assert 8 <= sum(built) <= 11, built
    assert built[0] and built[-1]                              # the first frame, and the last (screenshots)
    half = 540 - 540 // 2                                      # image rows above the regions' split
    after = [k for k in range(6, 40) if not built[k] and built[k - 1]]    # once the layout has settled
    assert len(after) >= 5
    for k in after:
        before, now = shown[k - 1], shown[k]
        assert np.array_equal(now[:half, :vx], before[:half, :vx])   # the Tuning panel's pixels, kept
        assert np.array_equal(now[:, vx + vw:], before[:, vx + vw:])   # and the right column's
        r = now[40:half - 10, 10:vx - 10].reshape(-1, 3)       # and they are the panel, not an empty buffer:
        assert (r.max(axis=1) < 70).mean() > 0.3                # mostly ImGui's dark window background
        assert len(np.unique(r, axis=0)) > 20                   # with text on it
    # the 3D view is drawn every frame: the car moves, so the view changes between builds too
    changed = [not np.array_equal(shown[k][vy:vy + vh, vx:vx + vw], shown[k - 1][vy:vy + vh, vx:vx + vw])
               for k in after]
    assert sum(changed) >= len(after) - 1
    # the right column of a build shows three and four frames later: drawn then from that build
    late = [k for k in range(6, 36) if built[k] and not any(built[k + 1:k + 5])]
    assert late
    for k in late:
        assert not np.array_equal(shown[k + 3][:half, vx + vw:], shown[k + 2][:half, vx + vw:]) or \
            not np.array_equal(shown[k + 4][half:, vx + vw:], shown[k + 3][half:, vx + vw:])

def panels_region_by_region_and_whole(data_home: str):
    """Child process: drive until a build's five regions have all been drawn (no region cleared first),
    read the screen, then clear it and draw the same build's panels whole; returns both readings and the
    view's rectangle (GL)."""
    os.environ["XDG_DATA_HOME"] = data_home
    from imgui_bundle import imgui

    from app.session import Trace
    from app.window import App
    app = App(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), size=(960, 540),
              frame_dt=1 / 60, quit_after=60.0)
    app.session.start_replay(Trace(1 / 240, 2, "hatchback", "proving_ground", [[1.0, 0.0, 0.3, 0.0, 0]] * 2400))
    assert app.target.keeps

    def grab():
        app.ctx.finish()
        return np.frombuffer(app.ctx.screen.read(components=3), np.uint8).reshape(540, 960, 3).astype(int)
    for k in range(60):
        alpha = app.session.frame(1 / 60, lambda dt: app.input.controls(dt, app.session.forward_speed()))
        app.draw(alpha, 1 / 60, 1.0)
        pygame.display.flip()
        if k > 30 and not app.pending_regions and not app.times.built[-1]:
            break
    by_region = grab()
    bg = imgui.get_style().color_(imgui.Col_.window_bg)
    app.ctx.clear(bg.x, bg.y, bg.z, 1.0)
    app.gui_renderer.redraw()
    whole = grab()
    vx, vy, vw, vh = app.view_rect()
    app.finish()
    return by_region, whole, (vx, 540 - vy - vh, vw, vh)


def test_panels_drawn_a_region_at_a_time_without_clearing_match_a_whole_redraw(tmp_path):
    """The regions are not cleared before their panels are drawn again (the docked panels' opaque
    backgrounds cover them but for the gaps, which only a whole frame changes): after a build's five
    regions the panels' pixels are exactly those of the same build drawn whole on a cleared screen."""
    by_region, whole, (x, y, w, h) = in_fresh_process(panels_region_by_region_and_whole, str(tmp_path))
    outside = np.ones(by_region.shape[:2], bool)
    outside[y:y + h, x:x + w] = False                          # (GL rows, as read: the view itself differs)
    assert outside.sum() > 0.3 * outside.size
    assert np.array_equal(by_region[outside], whole[outside])


def objects_a_full_collection_scans():
    """Child process: a short drive; what Python's collector holds apart (frozen) and what a full
    collection still scans."""
    import gc

    from app.window import App
    app = App(sim.load_vehicle("hatchback"), sim.load_world("proving_ground"), size=(640, 360), frame_dt=1 / 60,
              quit_after=0.5, overlay=True, sound=False)
    assert app.run() == 0
    return gc.get_freeze_count(), len(gc.get_objects())


def test_a_full_garbage_collection_scans_a_small_share_of_the_apps_objects():
    """After the first frame the app's objects (modules, compiled kernels' wrappers, world, presets, ImGui)
    are set apart from Python's collector: a full collection that scanned all of them took 30 - 90 ms, a
    long frame in steady driving about every half minute (docs: README, frame time)."""
    frozen, scanned = in_fresh_process(objects_a_full_collection_scans)
    assert frozen > 50_000 and scanned < 0.25 * frozen


def open_tiny_window(data_home: str):
    """Child process: the app with the overlay in a 320x180 window (the default layout built for it)."""
    os.environ["XDG_DATA_HOME"] = data_home                   # no saved layout: the default one is built
    from app.window import App
    app = App(sim.load_vehicle("hatchback"), sim.load_world("flat"), size=(320, 180), frame_dt=1 / 60,
              quit_after=0.25)
    return app.run(), app.view_rect()


def test_a_tiny_window_builds_its_layout_and_keeps_a_3d_view(tmp_path):
    """The default layout at 320x180 (its side panels were wider than the window: a ZeroDivisionError)."""
    status, (vx, vy, vw, vh) = in_fresh_process(open_tiny_window, str(tmp_path))
    assert status == 0 and vw > 0 and vh > 0
