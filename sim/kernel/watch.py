"""The watchdog's per-vehicle checks (docs/physics.md §16), compiled: one call looks at every vehicle, so
checking after each step costs about as much as a substep, not a pile of numpy calls.

Codes: OK, NOT_FINITE, TOO_FAST, SPINNING, SUNK, ENERGY, TIRE_MADE (the first that applies, in that order).
"""
from __future__ import annotations

import math

from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.tables import BS_N
from sim.kernel.tables import BS_PZ
from sim.kernel.tables import BS_QW
from sim.kernel.tables import BS_QX
from sim.kernel.tables import BS_QY
from sim.kernel.tables import BS_QZ
from sim.kernel.tables import BS_VX
from sim.kernel.tables import BS_VY
from sim.kernel.tables import BS_VZ
from sim.kernel.tables import BS_WX
from sim.kernel.tables import BS_WY
from sim.kernel.tables import BS_WZ
from sim.kernel.tables import TB_HULL_DEPTH
from sim.kernel.tables import TB_TIRE_LOST
from sim.kernel.tables import TB_TIRE_MADE
from sim.kernel.tables import TB_WORK_GROUND
from sim.kernel.tables import TB_WORK_RACK
from sim.kernel.tables import WS_N
from sim.kernel.tables import WS_VW
from sim.kernel.vec import quat_rotate_inv

OK, NOT_FINITE, TOO_FAST, SPINNING, SUNK, ENERGY, TIRE_MADE = range(7)


# the watch table, one row per vehicle (Simulation keeps it; the kernel updates the last five columns)
(WT_MASS, WT_IXX, WT_IYY, WT_IZZ,          # kg, kg m^2
 WT_RADIUS,                                # m: the smaller wheel radius (how deep the body may sink)
 WT_RATE,                                  # W: how fast the energy budget grows
 WT_SLACK,                                 # J: the budget's standing allowance
 WT_E0, WT_T0,                             # J, s: the sliding budget's base and when it was taken
 WT_DEEP_SINCE,                            # s: since when the body is deeper than WT_RADIUS (NaN: it is not)
 WT_CODE, WT_VALUE,                        # the verdict and the figure that shows it
 WT_OUTSIDE0,                              # J: work from outside the car (TB_WORK_GROUND + TB_WORK_RACK) at the
                                           # last check
 WT_MADE0, WT_LOST0,                       # J: the tires' slip energy made and lost (TB_TIRE_*) when the window began
 WT_WHEELS) = range(16)                    # 4 x (m_u kg, s m body frame): each wheel's own mass and the lever
WT_N = WT_WHEELS + 16                      # s = A x e its travel turns with the body by (unsprung_turn.py)

MAX_SPEED = 150.0         # m/s: faster than any car here
MAX_SPIN = 60.0           # rad/s: a body spinning faster than this has blown up
DEEP_TIME = 0.5           # s: a body deeper in the ground than a wheel radius for this long has sunk in
TIRE_MADE_PER_KG = 20.0   # J/kg: tires whose slip made this much more energy per kg of car than it lost add energy


@leaf
def outside_work(body_telemetry, v):
    """The work done on vehicle v from outside the car since it was placed (J): a moving platform's push
    through the contacts and the steering rack's on the spinning wheels (the driver's)."""
    return body_telemetry[v, TB_WORK_GROUND] + body_telemetry[v, TB_WORK_RACK]


@leaf
def vehicle_energy(body_state, wheel_state, v, table, gravity):
    """Kinetic (translation, body rotation, and the wheels' own mass moving along their axes, sum m_u u^2 / 2,
    u = s . w + x_w', §7.2) plus gravitational energy of vehicle v (J)."""
    b = body_state[v]
    q = (b[BS_QW], b[BS_QX], b[BS_QY], b[BS_QZ])
    wb = quat_rotate_inv(q, (b[BS_WX], b[BS_WY], b[BS_WZ]))
    v2 = b[BS_VX] * b[BS_VX] + b[BS_VY] * b[BS_VY] + b[BS_VZ] * b[BS_VZ]
    rot = 0.5 * (table[v, WT_IXX] * wb[0] * wb[0] + table[v, WT_IYY] * wb[1] * wb[1] + table[v, WT_IZZ] * wb[2] * wb[2])
    for i in range(4):
        k = WT_WHEELS + 4 * i
        u = table[v, k + 1] * wb[0] + table[v, k + 2] * wb[1] + table[v, k + 3] * wb[2] + wheel_state[v, i, WS_VW]
        rot += 0.5 * table[v, k] * u * u
    return 0.5 * table[v, WT_MASS] * v2 + rot + table[v, WT_MASS] * gravity * b[BS_PZ]


@kernel
def energies(body_state, wheel_state, table, gravity, out):
    for v in range(body_state.shape[0]):
        out[v] = vehicle_energy(body_state, wheel_state, v, table, gravity)


@leaf
def tire_window(body_telemetry, v, t):
    """(TIRE_MADE, the energy made) when vehicle v's tires have made TIRE_MADE_PER_KG a kg of car more energy by
    their slip than they lost since the window began: a curve that pushes the way the tire slides (work.py
    slip_power), whose energy may go into the wheels' spin and brakes rather than the body.
    (OK, 0) otherwise; the window starts again whenever the tires have lost that much more than they made."""
    made = body_telemetry[v, TB_TIRE_MADE] - t[WT_MADE0]
    lost = body_telemetry[v, TB_TIRE_LOST] - t[WT_LOST0]
    allowance = TIRE_MADE_PER_KG * t[WT_MASS]
    if made > lost + allowance:
        return TIRE_MADE, made - lost
    if lost > made + allowance:
        t[WT_MADE0] = body_telemetry[v, TB_TIRE_MADE]
        t[WT_LOST0] = body_telemetry[v, TB_TIRE_LOST]
    return OK, 0.0


@kernel
def check_vehicles(body_state, wheel_state, body_telemetry, table, gravity, time):
    """Look at every vehicle: WT_CODE (OK or the first problem) and WT_VALUE (the figure that shows it:
    speed, spin, depth, or the energy above the budget). Slides the energy budget (WT_E0 at WT_T0: it grows
    at WT_RATE and never stays above the energy the car has) and tracks since when each body has been
    deeper than a wheel radius. Returns the number of vehicles with a problem."""
    sick = 0
    for v in range(body_state.shape[0]):
        t = table[v]
        finite = True
        for j in range(BS_N):
            if not math.isfinite(body_state[v, j]):
                finite = False
        for i in range(wheel_state.shape[1]):
            for j in range(WS_N):
                if not math.isfinite(wheel_state[v, i, j]):
                    finite = False
        b = body_state[v]
        speed = math.sqrt(b[BS_VX] * b[BS_VX] + b[BS_VY] * b[BS_VY] + b[BS_VZ] * b[BS_VZ])
        spin = math.sqrt(b[BS_WX] * b[BS_WX] + b[BS_WY] * b[BS_WY] + b[BS_WZ] * b[BS_WZ])
        energy = vehicle_energy(body_state, wheel_state, v, table, gravity)
        outside = outside_work(body_telemetry, v)
        supplied = t[WT_E0] + t[WT_RATE] * (time - t[WT_T0]) + (outside - t[WT_OUTSIDE0])
        t[WT_OUTSIDE0] = outside
        budget = supplied + t[WT_SLACK]
        t[WT_E0] = min(supplied, energy)               # energy lost is not credited to a later gain
        t[WT_T0] = time
        depth = body_telemetry[v, TB_HULL_DEPTH]
        if depth > t[WT_RADIUS]:
            if not t[WT_DEEP_SINCE] <= time:           # NaN: not deep until now
                t[WT_DEEP_SINCE] = time
        else:
            t[WT_DEEP_SINCE] = math.nan
        code = OK
        value = 0.0
        if not finite:
            code = NOT_FINITE
        elif speed > MAX_SPEED:
            code, value = TOO_FAST, speed
        elif spin > MAX_SPIN:
            code, value = SPINNING, spin
        elif depth > t[WT_RADIUS] and time - t[WT_DEEP_SINCE] >= DEEP_TIME:
            code, value = SUNK, depth
        elif energy > budget:
            code, value = ENERGY, energy - budget
        else:
            code, value = tire_window(body_telemetry, v, t)
        t[WT_CODE] = code
        t[WT_VALUE] = value
        if code != OK:
            sick += 1
    return sick
