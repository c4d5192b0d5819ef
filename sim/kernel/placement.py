"""Placing a vehicle: the state a reset starts from (`sim.Simulation.reset`), written into its rows of the
tables. Upright, heading `yaw`, moving forward at `speed` with the wheels rolling at speed / r and their
spin momentum committed (so the first step sees no jump), in `gear` with the engine at the matching speed
(at least idle; 0 for a direct drive)."""
from __future__ import annotations

import math

from sim.kernel.body import inertia_of
from sim.kernel.body import record_momenta
from sim.kernel.contact import spin_axis
from sim.kernel.differential import driveline_speed
from sim.kernel.gearbox import driven_radius
from sim.kernel.gearbox import total_ratio
from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.linkage import travel_angles
from sim.kernel.tables import BS_PX
from sim.kernel.tables import BS_PY
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
from sim.kernel.tables import DS_GEAR
from sim.kernel.tables import DS_GEAR_TARGET
from sim.kernel.tables import DS_H_ENGINE_X
from sim.kernel.tables import DS_H_ENGINE_Y
from sim.kernel.tables import DS_H_ENGINE_Z
from sim.kernel.tables import DS_OMEGA_E
from sim.kernel.tables import DS_SHIFT_T
from sim.kernel.tables import DS_TC
from sim.kernel.tables import NW
from sim.kernel.tables import VP_DIRECT
from sim.kernel.tables import VP_IDLE_OMEGA
from sim.kernel.tables import VP_IE
from sim.kernel.tables import VP_NGEARS
from sim.kernel.tables import VP_UEX
from sim.kernel.tables import VP_UEY
from sim.kernel.tables import VP_UEZ
from sim.kernel.tables import WP_CAMBER
from sim.kernel.tables import WP_GEO
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_R
from sim.kernel.tables import WS_ABS
from sim.kernel.tables import WS_HX
from sim.kernel.tables import WS_HY
from sim.kernel.tables import WS_HZ
from sim.kernel.tables import WS_OMEGA
from sim.kernel.tables import WS_SHAPE
from sim.kernel.tables import WS_STEER
from sim.kernel.vec import quat_rotate

NO_GEAR_CHANGE = -1000                     # set_vehicle_state's gear: keep the engaged one


@kernel
def place_vehicle(v, x, y, z, yaw, speed, gear, vehicle_params, wheel_params, body_state, drive_state, wheel_state,
                  wheel_scratch, wheel_telemetry, body_telemetry, controls, control_defaults):
    """Vehicle v's state at (x, y, z) (m, its centre of mass), yaw (rad about z), speed (m/s forward), gear
    (-1 R, 0 N, 1.., clamped to the gearbox); its scratch and telemetry cleared and its controls set to
    control_defaults (CT_N,)."""
    c, s = math.cos(yaw / 2), math.sin(yaw / 2)
    body_state[v, :] = 0.0
    body_state[v, BS_PX] = x
    body_state[v, BS_PY] = y
    body_state[v, BS_PZ] = z
    body_state[v, BS_QW] = c
    body_state[v, BS_QX] = 0.0
    body_state[v, BS_QY] = 0.0
    body_state[v, BS_QZ] = s
    body_state[v, BS_VX] = math.cos(yaw) * speed
    body_state[v, BS_VY] = math.sin(yaw) * speed
    body_state[v, BS_VZ] = 0.0 * speed                    # (-0.0 backwards, as the product gives it)
    q = (c, 0.0, 0.0, s)
    wheel_state[v, :, :] = 0.0
    for i in range(NW):
        wheel_state[v, i, WS_SHAPE] = -1.0
        wheel_state[v, i, WS_OMEGA] = speed / wheel_params[v, i, WP_R]
        wheel_state[v, i, WS_ABS] = 1.0
    n_gears = int(vehicle_params[v, VP_NGEARS])
    g_sel = min(max(gear, -1), n_gears)
    geared = abs(total_ratio(vehicle_params, v, g_sel) * speed / driven_radius(v, wheel_params))
    omega_e = max(vehicle_params[v, VP_IDLE_OMEGA], geared)
    drive_state[v, :] = 0.0
    drive_state[v, DS_OMEGA_E] = 0.0 if vehicle_params[v, VP_DIRECT] > 0.5 else omega_e
    drive_state[v, DS_GEAR] = g_sel
    drive_state[v, DS_GEAR_TARGET] = g_sel
    drive_state[v, DS_TC] = 1.0
    commit_momenta(v, q, vehicle_params, wheel_params, drive_state, wheel_state)
    wheel_scratch[v, :, :] = 0.0
    wheel_telemetry[v, :, :] = 0.0
    body_telemetry[v, :] = 0.0
    for k in range(control_defaults.shape[0]):
        controls[v, k] = control_defaults[k]


@leaf
def commit_momenta(v, q, vehicle_params, wheel_params, drive_state, wheel_state):
    """Commit vehicle v's spin momenta for orientation q (w, x, y, z): each wheel's Iw omega u, u its spin
    axis (camber, and the wheel's steering angle WS_STEER; with the geometry of §7.1 its camber and toe at its
    travel), and the engine rotor's Ie omegaE uEngine (N m s, world), so that the next substep's ledger
    (sim/kernel/body.py spin_ledger) sees no jump."""
    for i in range(NW):
        if wheel_params[v, i, WP_GEO] != 0.0:                # the camber and toe at its travel (§7.1)
            camber, toe = travel_angles(v, i, wheel_params, wheel_state)
            u = spin_axis(q, camber, wheel_state[v, i, WS_STEER] + toe)
        else:
            u = spin_axis(q, wheel_params[v, i, WP_CAMBER], wheel_state[v, i, WS_STEER])
        momentum = wheel_params[v, i, WP_IW] * wheel_state[v, i, WS_OMEGA]
        wheel_state[v, i, WS_HX] = momentum * u[0]
        wheel_state[v, i, WS_HY] = momentum * u[1]
        wheel_state[v, i, WS_HZ] = momentum * u[2]
    u_engine = quat_rotate(q, (vehicle_params[v, VP_UEX], vehicle_params[v, VP_UEY], vehicle_params[v, VP_UEZ]))
    momentum = vehicle_params[v, VP_IE] * drive_state[v, DS_OMEGA_E]
    drive_state[v, DS_H_ENGINE_X] = momentum * u_engine[0]
    drive_state[v, DS_H_ENGINE_Y] = momentum * u_engine[1]
    drive_state[v, DS_H_ENGINE_Z] = momentum * u_engine[2]


@kernel
def set_vehicle_state(v, gear, engine_from_wheels, vehicle_params, wheel_params, body_state, drive_state,
                      wheel_state, body_telemetry):
    """The rest of vehicle v's state after `sim.Simulation.set_state` wrote its body state and wheel spins:
    `gear` engaged at once (-1 R, 0 N, 1.., clamped to the gearbox; NO_GEAR_CHANGE keeps the gear); with
    `engine_from_wheels` the engine at the speed the driven wheels turn it in that gear (at least idle; 0
    for a direct drive); the spin momenta committed for the new orientation; and the angular-momentum
    telemetry (H_body, H_wheels, H_engine, H_total) of the new state."""
    if gear != NO_GEAR_CHANGE:
        g_sel = min(max(gear, -1), int(vehicle_params[v, VP_NGEARS]))
        drive_state[v, DS_GEAR] = g_sel
        drive_state[v, DS_GEAR_TARGET] = g_sel
        drive_state[v, DS_SHIFT_T] = 0.0
    if engine_from_wheels:
        geared = abs(total_ratio(vehicle_params, v, int(drive_state[v, DS_GEAR]))
                     * driveline_speed(v, vehicle_params, wheel_state))
        omega_e = max(vehicle_params[v, VP_IDLE_OMEGA], geared)
        drive_state[v, DS_OMEGA_E] = 0.0 if vehicle_params[v, VP_DIRECT] > 0.5 else omega_e
    q = (body_state[v, BS_QW], body_state[v, BS_QX], body_state[v, BS_QY], body_state[v, BS_QZ])
    commit_momenta(v, q, vehicle_params, wheel_params, drive_state, wheel_state)
    w = (body_state[v, BS_WX], body_state[v, BS_WY], body_state[v, BS_WZ])
    record_momenta(v, wheel_params, q, inertia_of(vehicle_params, v), w, drive_state, wheel_state, body_telemetry)
