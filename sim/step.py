"""The order of the physics (docs/physics.md §1): one substep of the wheel chain, and the batched step.

Each stage lives in the file of its topic; this file only says in which order they run. Every stage of a
substep starts from the same frozen body pose and velocity (`body`, read once); the tables are described
in `sim/tables.py`. What each stage reads and writes (wheel_scratch columns W_*, state tables):

    stage                   reads                                     writes
    steering      §2        controls, body velocity, WS_STEER         W_STEER
    brakes        §3        controls, WS_ABS, WS_KAPPA                W_T_BRAKE_MAX, W_ABS; WS_ABS
    powertrain    §4        controls, drive_state, WS_OMEGA, WS_KAPPA W_T_DRIVE; drive_state (gear, shift
                                                                      timer, TC factor, engine speed)
    broad phase   §5        body position, world                      shape masks
    contact       §6        body pose, W_STEER, world                 W_S .. W_MU, Q n t b C u v_ground
    suspension    §7        body, contact columns, WS_SHAPE/NX/STEER  W_XDOT, W_FS, W_FZ, W_FSX
    tire          §8        body, contact columns, W_FZ, WS_OMEGA     W_OMEGA, slip, forces, W_FTX, W_FRX
    wheel spin    §9        W_T_DRIVE, W_T_BRAKE_MAX, W_FX, W_RHO     W_OMEGA_NEXT, W_T_BRAKE; wheel_state
                                                                      (omega, steer, angle, contact, kappa)
    spin ledger   §12       W_OMEGA_NEXT, W_UX, engine speed          WS_H*, DS_HE*; returns dHw + dHe
    collision     §10       body, hull points, world                  returns the hull's force, torque
    parking       §11       body, contact and force columns           held wheels: W_FX .. W_T_BRAKE,
                                                                      W_LOCKED; WS_OMEGA, WS_H*, WS_LOCKED
    body          §12       body, force columns, ledger               body_state
    (after the last substep) wheel_scratch -> wheel_telemetry

Stages also record their body-level telemetry (TB_*) as they go; nothing reads it back.
"""
from __future__ import annotations

from sim.body import body_stage, read_body, spin_ledger
from sim.brakes import brake_stage
from sim.broadphase import broadphase_stage
from sim.collision import collision_stage
from sim.contact import contact_stage
from sim.differential import differential_stage, driveline_speed
from sim.drive import direct_drive_stage
from sim.engine import engine_stage
from sim.gearbox import gearbox_stage
from sim.jit import kernel, leaf
from sim.parking import parking_stage
from sim.steering import steering_stage
from sim.suspension import suspension_stage
from sim.tables import NW, VP_DIRECT, W_TELEMETRY
from sim.tire import tire_stage
from sim.wheel import wheel_stage


@kernel
def substep(v, vehicle_params, wheel_params, hull_points, controls, body_state, drive_state, wheel_state,
            wheel_scratch, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t, h):
    """One substep of h seconds for vehicle v at time t, in the order of the wheel chain."""
    body = read_body(body_state, v)                                      # frozen for the whole substep
    pos, q, vel, w = body
    steering_stage(v, vehicle_params, wheel_params, controls, vel, wheel_state, wheel_scratch, h)
    brake_stage(v, vehicle_params, wheel_params, controls, wheel_state, wheel_scratch, h)
    if vehicle_params[v, VP_DIRECT] > 0.5:
        direct_drive_stage(v, wheel_params, controls, wheel_state, wheel_scratch)
    else:
        omega_w = driveline_speed(v, vehicle_params, wheel_state)        # what the gearbox output turns at
        g, shifting = gearbox_stage(v, vehicle_params, controls, drive_state, omega_w, h)
        shaft = engine_stage(v, vehicle_params, wheel_params, controls, drive_state, wheel_state, body_telemetry,
                             g, shifting, omega_w, h)                     # TC, engine, clutch
        differential_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, body_telemetry, shaft)
    box_mask, hf_mask = broadphase_stage(v, wheel_params, hull_points, pos, boxes, hf_meta, t)
    contact_stage(v, wheel_params, pos, q, wheel_scratch, planes, boxes, hf_meta, hf_z, surf_mu, t, box_mask,
                  hf_mask)                                               # query, a, l, C, Q, x, t, b
    suspension_stage(v, wheel_params, body, wheel_state, wheel_scratch, h)   # xdot, Fs, Fz (+ anti-roll)
    tire_stage(v, wheel_params, body, wheel_state, wheel_scratch)        # slip, raw force, combined limit
    wheel_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, h)   # spin, brake rule, commit
    d_h = spin_ledger(v, vehicle_params, wheel_params, q, drive_state, wheel_state, wheel_scratch)   # dHw + dHe
    f_hull, tau_hull = collision_stage(v, vehicle_params, hull_points, body, body_telemetry, planes, boxes, hf_meta,
                                       hf_z, surf_mu, t, box_mask, hf_mask)   # body hull against the ground
    d_h = parking_stage(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, d_h, f_hull,
                        tau_hull, h)                                     # static friction for still wheels
    body_stage(v, vehicle_params, body, body_state, drive_state, wheel_state, wheel_scratch, body_telemetry, gravity,
               d_h, f_hull, tau_hull, h)                                 # forces, ledger torque, integrate


@leaf
def publish(v, wheel_scratch, wheel_telemetry):
    """Copy the last substep's wheel quantities to the telemetry people read."""
    for i in range(NW):
        for k in range(W_TELEMETRY):
            wheel_telemetry[v, i, k] = wheel_scratch[v, i, k]


@kernel
def step_batch(vehicle_params, wheel_params, hull_points, controls, body_state, drive_state, wheel_state,
               wheel_scratch, wheel_telemetry, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0, dt,
               substeps):
    """Advance every vehicle by one fixed step dt (s) made of `substeps` equal substeps, from time t0."""
    h = dt / substeps
    for v in range(body_state.shape[0]):
        for k in range(substeps):
            substep(v, vehicle_params, wheel_params, hull_points, controls, body_state, drive_state, wheel_state,
                    wheel_scratch, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0 + k * h, h)
        publish(v, wheel_scratch, wheel_telemetry)


@kernel
def run_batch(vehicle_params, wheel_params, hull_points, control_trace, body_state, drive_state, wheel_state,
              wheel_scratch, wheel_telemetry, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0, dt,
              substeps):
    """Advance len(control_trace) steps; control_trace[k] holds the controls (N, CT_N) of step k."""
    for k in range(control_trace.shape[0]):
        step_batch(vehicle_params, wheel_params, hull_points, control_trace[k], body_state, drive_state, wheel_state,
                   wheel_scratch, wheel_telemetry, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity,
                   t0 + k * dt, dt, substeps)
