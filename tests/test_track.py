"""Circuits (issue 31): the centre line of a [track] table, the ground laid from heightfields, the
circuit preset, and one-line errors for bad track descriptions."""
import math
import textwrap

import numpy as np
import pytest

import sim
from sim.kernel.query import hf_height
from sim.model.track_ground import LAYER_DEPTH
from sim.model.track_ground import LAYER_SLOPE

SURFACES = """
name = "ring"
gravity = 9.81
spawn = [[100.0, 0.0, 90.0]]
[surfaces]
asphalt = { mu = 1.0 }
curb = { mu = 0.9 }
grass = { mu = 0.55, rolling = 0.06 }
gravel = { mu = 0.6, rolling = 0.04 }
"""


# a 100 m square with a point every 10 m: its spline turns each corner on a radius of about 2 m
SQUARE = ([(x, 0) for x in range(0, 100, 10)] + [(100, y) for y in range(0, 100, 10)]
          + [(x, 100) for x in range(100, 0, -10)] + [(0, y) for y in range(100, 0, -10)])


def ring_toml(radius=100.0, n=24, extra="", point_extra=None):
    """A circle of `radius` run counter-clockwise, from (radius, 0)."""
    pts = []
    for k in range(n):
        a = 2.0 * math.pi * k / n
        more = (point_extra or {}).get(k, "")
        pts.append(f"  {{ x = {radius * math.cos(a):.6f}, y = {radius * math.sin(a):.6f}{more} }},")
    return SURFACES + "[track]\nmargin = 30.0\n" + extra + "points = [\n" + "\n".join(pts) + "\n]\n"


def load(tmp_path, text, name="ring.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return sim.load_world(p), p


def test_a_ring_has_the_circle_length_curvature_and_offsets(tmp_path):
    world, _ = load(tmp_path, ring_toml(100.0, point_extra={8: ", sector = true", 16: ", sector = true"}))
    t = world.track
    assert t.length == pytest.approx(2 * math.pi * 100.0, rel=1e-4)          # the spline through 24 points
    assert np.abs(t.curvature - 0.01).max() < 1e-4                           # counter-clockwise: left, +1/R
    assert t.sectors == pytest.approx((0.0, t.length / 3, 2 * t.length / 3), abs=0.05)
    # a point 3 m outside the circle, a quarter of the way round, is 3 m right of the line (the lap turns left);
    # the line is searched as chords of ds = 0.5 m, which sag ds^2 / (8 R) = 0.3 mm inside the circle
    s, l, d = t.project(np.array([0.0, 103.0]))
    assert s == pytest.approx(t.length / 4, abs=0.01) and l == pytest.approx(-3.0, abs=1e-3)
    assert d == pytest.approx(3.0, abs=1e-3)
    s, l, err = t.locate([[0.0, 97.0, 0.3]], [math.pi + 0.1])
    assert l[0] == pytest.approx(3.0, abs=1e-3) and err[0] == pytest.approx(0.1, abs=1e-3)
    # a hinted search finds the same station, also across the start/finish line
    s_all, _, _ = t.project(np.array([[99.0, -1.0], [99.0, 1.0]]))
    s_hint, _, _ = t.project(np.array([[99.0, -1.0], [99.0, 1.0]]), hint=[t.length - 1.0, 1.0])
    assert s_hint == pytest.approx(s_all, abs=1e-9)


def test_the_ground_is_the_road_kerbs_and_run_off_where_the_file_puts_them(tmp_path):
    world, _ = load(tmp_path, ring_toml(60.0, extra="width = 10.0\nbank_deg = 4.0\nkerb_radius = 100.0\n",
                                        point_extra={k: ", gravel = true" for k in range(6, 9)}))
    t = world.track
    names = [s.name for s in world.surfaces]

    def ground(s, l):
        x, y, z = t.point(s, l)
        hit = world.ray_cast((x, y, z + 2.0), (0.0, 0.0, -1.0), 10.0)
        return names[hit.surface], float(hit.P[2]), z

    for s in np.linspace(0.0, t.length, 13)[:-1]:
        for l in (-4.5, -2.0, 0.0, 3.0, 4.8):
            kind, z, want = ground(s, l)
            # banked 4 degrees (ISO: the left edge up): z = tan(4 deg) l on the road
            assert kind == "asphalt" and z == pytest.approx(math.tan(math.radians(4.0)) * l, abs=0.013)
        assert ground(s, 5.6)[0] == "curb" and ground(s, -5.6)[0] == "curb"      # every bend is kerbed here
    trap = 0.5 * (t.gravel[0][0] + t.gravel[0][1])
    assert t.gravel[0][2] == -1.0                                         # a left-hand ring: outside is right
    assert ground(trap, -16.0)[0] == "gravel" and ground(trap, 16.0)[0] == "grass"
    assert ground(0.0, -16.0)[0] == "grass"
    # the kerb's crown: kerb_height (4 cm) above the banked plane in the middle of the band
    kind, z, plane = ground(t.length / 2, 5.6)
    assert z - plane == pytest.approx(0.04, abs=0.004)
    # a layer that is not on top sinks LAYER_SLOPE per metre of distance to its region over two grid cells, then
    # faster: 0.3 m inside the road's edge the run-off (beyond the 1.2 m kerb) is 1.5 m away and 7.5 cm down
    x, y, z = t.point(t.length / 2, 4.7)
    k = [h.name for h in world.heightfields].index("run-off")
    assert hf_height(world.hf_table, world.hf_z, k, x, y)[1] == pytest.approx(z - LAYER_SLOPE * 1.5, abs=0.01)
    x, y, z = t.point(t.length / 2, 0.0)                   # 6.2 m away: sink(6.2) (4.1 m: at most LAYER_DEPTH)
    assert hf_height(world.hf_table, world.hf_z, k, x, y)[1] == pytest.approx(z - LAYER_DEPTH, abs=0.01)


def test_the_circuit_preset_has_what_issue_31_asks_for():
    world = sim.load_world("circuit")
    t = world.track
    radius = 1.0 / np.maximum(np.abs(t.curvature), 1e-9)
    assert 2000.0 <= t.length <= 3000.0 and len(t.sectors) == 3
    assert radius.min() < 20.0                                   # a hairpin
    assert ((radius > 120.0) & (radius < 300.0)).sum() * t.ds > 300.0    # fast sweepers
    straight = radius > 2000.0
    runs = np.diff(np.flatnonzero(np.diff(np.concatenate([[0], straight, [0]]))))[::2]
    assert runs.max() * t.ds > 500.0                             # a long straight
    assert np.ptp(t.z) > 5.0 and np.abs(np.degrees(t.bank)).max() >= 3.0
    assert t.kerbs and t.gravel
    names = [s.name for s in world.surfaces]
    assert set(t.on_track_surfaces) == {"asphalt", "curb"} and {"grass", "gravel"} <= set(names)
    shapes = [h.name for h in world.heightfields]
    assert "track" in shapes and "run-off" in shapes and len(shapes) <= 63      # all in the broad phase's masks
    assert sum(h.heights.size for h in world.heightfields) <= 4_000_000


@pytest.mark.parametrize("text, key, allowed", [
    (SURFACES + "[track]\npoints = [{ x = 0, y = 0 }, { x = 100, y = 0 }, { x = 100, y = 100 }]\n",
     "track.points", "a list of 4 to"),
    (ring_toml(point_extra={3: ", tilt = 2"}), "unknown key track.points[3].tilt", "known keys"),
    (ring_toml(point_extra={0: ", sector = true"}), "track.points[0].sector", "the start/finish line"),
    (ring_toml(extra="surface = 'tarmac'\n"), "track.surface = 'tarmac'", "one of the surfaces"),
    (ring_toml(extra="width = 90.0\n"), "track.width = 90.0", "[3, 60] m"),
    (ring_toml(point_extra={5: ", bank_deg = 45"}), "track.points[5].bank_deg = 45", "[-20, 20] deg"),
    (SURFACES + "[track]\npoints = [" + ", ".join(f"{{ x = {x}, y = {y} }}" for x, y in SQUARE) + "]\n",
     "bend with a radius of", "half the width plus the kerb"),
    (SURFACES + "[track]\npoints = [{ x = 0, y = 0 }, { x = 300, y = 0 }, { x = 300, y = 0.5 }, "
                "{ x = 0, y = 100 }]\n", "track.points[2] is 0.50 m from track.points[1]", "at least 1 m apart"),
    (SURFACES + "[track]\npoints = [" + ", ".join(f"{{ x = {x}, y = {y} }}" for x, y in
                                                   ((0, 0), (400, 0), (400, 200), (200, 200), (200, 10),
                                                    (180, 10), (180, 200), (0, 200))) + "]\n",
     "within", "between the centre lines"),
])
def test_a_bad_track_gets_one_line_naming_file_key_and_what_is_allowed(tmp_path, text, key, allowed):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(sim.ConfigError) as exc:
        sim.load_world(p)
    msg = str(exc.value)
    assert str(p) in msg and key in msg and allowed in msg and "\n" not in msg
