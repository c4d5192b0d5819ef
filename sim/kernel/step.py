"""The order of the physics (docs/physics.md §1): one substep of the wheel chain, and the batched step.

Each stage lives in the file of its topic; this file only says in which order they run. Every stage of a
substep starts from the same frozen body pose and velocity (`body`, read once); the tables are described
in `sim/kernel/tables.py`. What each stage reads and writes (wheel_scratch columns W_*, state tables WS_* DS_*):

stage          reads                                        writes
steering  §2   this step's targets (controls, body speed   W_STEER
               at the step's start), WS_STEER
broad     §5   body position, world                         the shape masks (run by the step loop just
                                                            before the substep, `broad_phase`)
contact   §6   body pose, W_STEER, world, WS_LRAW,           W_S W_A W_L W_LRAW W_X W_R_EFF W_GROUNDED W_SURFACE
               WS_TRAVEL (§7.1)                             W_SHAPE W_MU W_CAMBER_BODY W_TOE, vectors W_Q W_N
                                                            W_T W_B W_C W_U W_VG
suspension §7  body, W_A W_C W_Q W_N W_U W_VG W_X W_LRAW     W_XDOT W_FS W_FZ W_FZ_LINK, vector W_FS (force on
               W_STEER W_SHAPE W_GROUNDED, WS_SHAPE WS_N     the body)
               WS_STEER WS_LINK_SHARE
tire      §8   body, W_Q W_C W_U W_T W_B W_VG W_MU W_FZ      W_OMEGA W_VX W_VY W_RHO W_KAPPA W_ALPHA W_FX_RAW
               W_GROUNDED, WS_OMEGA                         W_FY_RAW W_FX W_FY W_GRIP_SCALE W_DFX W_KY, vectors
                                                            W_FT W_FR (tire and rolling force)
brakes    §3   controls, W_KAPPA, WS_ABS                     W_T_BRAKE_MAX W_ABS; WS_ABS
esp     §3.1   controls, body, W_STEER W_MU W_GROUNDED      W_T_BRAKE_MAX (+ one wheel) W_ESP; the engine's cut
powertrain §4  controls, body velocity, W_KAPPA, WS_OMEGA,   W_T_DRIVE; DS_GEAR DS_GEAR_TARGET DS_SHIFT_T DS_TC
               drive_state                                  DS_OMEGA_E DS_SINCE_SHIFT DS_LAST_SHIFT DS_LAUNCH
                                                            (direct drive: W_T_DRIVE only)
wheel     §9   W_T_DRIVE W_T_BRAKE_MAX W_FX W_FY W_DFX W_RHO  W_OMEGA_NEXT W_T_BRAKE W_FX, vector W_FT;
               W_VX W_MU W_FZ W_STEER W_SHAPE W_N W_LRAW     WS_OMEGA WS_STEER WS_ANGLE WS_SHAPE WS_N WS_LRAW
               W_GROUNDED, WS_OMEGA
ledger    §12  W_OMEGA_NEXT W_U, DS_OMEGA_E, WS_H DS_HE      WS_H DS_HE; returns dHw + dHe
collision §10  body, hull points, world                     returns the hull's force and torque
parking   §11  body, W_GROUNDED W_VX W_VY W_RHO W_OMEGA      held wheels: W_FX W_FY W_GRIP_SCALE W_T_BRAKE
               W_T_DRIVE W_T_BRAKE_MAX W_MU W_FZ W_Q W_T     W_LOCKED, vectors W_FT W_FR; WS_OMEGA WS_H;
               W_B W_VG W_FS W_FT W_FR, WS_LOCKED WS_H       WS_LOCKED and W_LOCKED of every wheel
               W_SHAPE, world (a moving box's kinematics)
body      §12  body, W_Q W_FS W_FT W_FR, the ledger, WS_H    body_state; with the midpoint lateral update W_FY
               DS_HE; W_KY W_B W_N W_VX W_GROUNDED W_LOCKED  and vector W_FT gain its correction
links   §7.1   body, W_L W_GROUNDED W_FT W_T W_T_BRAKE W_RHO WS_TRAVEL WS_LINK_SHARE (geometry wheels only)
               W_FZ
(the last substep works in wheel_telemetry itself; then the camber, for people)

Stages also record their body-level telemetry (TB_*) as they go; nothing reads it back. The tire stage
runs before the brakes and the powertrain so that ABS and traction control judge the slip of this
substep; the tire force it computes does not depend on the torques they set.
"""
from __future__ import annotations

from sim.kernel.body import body_stage
from sim.kernel.body import forward_speed
from sim.kernel.body import read_body
from sim.kernel.body import spin_ledger
from sim.kernel.brakes import brake_stage
from sim.kernel.brakes import esp_stage
from sim.kernel.broadphase import broadphase_stage
from sim.kernel.broadphase import fresh_broad_cache
from sim.kernel.collision import collision_stage
from sim.kernel.contact import contact_stage
from sim.kernel.differential import differential_stage
from sim.kernel.differential import driveline_speed
from sim.kernel.direct_drive import direct_drive_stage
from sim.kernel.engine import engine_stage
from sim.kernel.gearbox import gearbox_stage
from sim.kernel.jit import inlined_copy
from sim.kernel.jit import kernel
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.jit import threaded_kernel
from sim.kernel.lanes import asin4
from sim.kernel.linkage import link_stage
from sim.kernel.parking import parking_stage
from sim.kernel.steering import steering_stage
from sim.kernel.steering import steering_targets
from sim.kernel.suspension import suspension_stage
from sim.kernel.tables import BS_PX
from sim.kernel.tables import NW
from sim.kernel.tables import VP_DIRECT
from sim.kernel.tables import W_GAMMA
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_UX
from sim.kernel.tire.stage import tire_stage
from sim.kernel.vec import dot
from sim.kernel.vec import get3
from sim.kernel.vec import get3w
from sim.kernel.watch import check_vehicles
from sim.kernel.wheel import wheel_stage


@stage
def substep(v, vehicle_params, wheel_params, hull_points, controls, body_state, drive_state, wheel_state,
            wheel_scratch, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t, h, steer_targets,
            box_mask, hf_mask):
    """One substep of h seconds for vehicle v at time t, in the order of the wheel chain; steer_targets:
    this step's road-wheel angles (sim/kernel/steering.py steering_targets); box_mask, hf_mask: the broad phase's
    masks for this substep (`broad_phase`)."""
    body = read_body(body_state, v)                                      # frozen for the whole substep
    pos, q, vel, w = body
    steering_stage(v, vehicle_params, wheel_params, steer_targets, q, w, wheel_state, wheel_scratch, body_telemetry,
                   h)                                                   # the rack
    contact_stage(v, wheel_params, pos, q, wheel_state, wheel_scratch, planes, boxes, hf_meta, hf_z, surf_mu, t,
                  box_mask, hf_mask)                                     # query, a, l, C, Q, x, t, b
    suspension_stage(v, wheel_params, body, wheel_state, wheel_scratch, gravity, h)   # xdot, Fs, Fz (+ bar, §7.2)
    tire_stage(v, wheel_params, body, wheel_state, wheel_scratch, h)     # slip, raw force, combined limit
    brake_stage(v, vehicle_params, wheel_params, controls, wheel_state, wheel_scratch, h)   # brakes, ABS
    v_forward = forward_speed(q, vel)
    esp_cut = esp_stage(v, vehicle_params, wheel_params, controls, q, w, v_forward, wheel_scratch, body_telemetry,
                        gravity)                                        # stability control: one wheel's brake
    if vehicle_params[v, VP_DIRECT] > 0.5:
        direct_drive_stage(v, wheel_params, controls, wheel_state, wheel_scratch)
    else:
        omega_w = driveline_speed(v, vehicle_params, wheel_state)        # what the gearbox output turns at
        g, shifting = gearbox_stage(v, vehicle_params, wheel_params, controls, drive_state, v_forward, h)
        shaft = engine_stage(v, vehicle_params, wheel_params, controls, drive_state, wheel_scratch, body_telemetry,
                             g, shifting, omega_w, v_forward, h, esp_cut)   # TC, ESP's cut, engine, clutch
        differential_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, body_telemetry, shaft)
    wheel_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, h)   # spin, brake rule, commit
    d_h = spin_ledger(v, vehicle_params, wheel_params, q, drive_state, wheel_state, wheel_scratch)   # dHw + dHe
    f_hull, tau_hull = collision_stage(v, vehicle_params, hull_points, body, body_telemetry, planes, boxes, hf_meta,
                                       hf_z, surf_mu, t, box_mask, hf_mask, h)   # body hull against the ground
    d_h = parking_stage(v, vehicle_params, wheel_params, body, wheel_state, wheel_scratch, gravity, d_h, f_hull,
                        tau_hull, h, boxes, planes.shape[0], t)          # static friction for still wheels
    body_stage(v, vehicle_params, wheel_params, body, body_state, drive_state, wheel_state, wheel_scratch,
               body_telemetry, gravity, d_h, f_hull, tau_hull, h)        # forces, ledger torque, integrate
    link_stage(v, wheel_params, q, wheel_state, wheel_scratch)          # geometry: travel, the links' next load


substep_of_step = inlined_copy(substep)      # step_and_watch's own copy (sim.kernel.jit.inlined_copy says why)


@leaf
def broad_phase(v, vehicle_params, body_state, boxes, hf_meta, t, broad):
    """The broad phase's masks for vehicle v's next substep at time t, from its centre of mass now, and the
    BroadCache after it (sim/kernel/broadphase.py): (box mask, heightfield mask, cache)."""
    return broadphase_stage(v, vehicle_params, get3(body_state, v, BS_PX), boxes, hf_meta, t, broad)


@leaf
def scratch_of(j, substeps, wheel_scratch, wheel_telemetry):
    """The table substep j of `substeps` works in: the scratch, but the last substep works in the telemetry
    table itself, so what people read is that substep's record without a copy. (No stage reads what an
    earlier substep left in the scratch: each writes its columns before any later stage reads them.)"""
    if j == substeps - 1:
        return wheel_telemetry
    return wheel_scratch


@leaf
def camber_sin(v, i, wheel_telemetry):
    """sin(camber) of wheel i against the ground, -dot(u, n) within [-1, 1] (0 airborne)."""
    if wheel_telemetry[v, i, W_GROUNDED] == 0.0:
        return 0.0
    return min(1.0, max(-1.0, -dot(get3w(wheel_telemetry, v, i, W_UX), get3w(wheel_telemetry, v, i, W_NX))))


@leaf
def publish(v, wheel_telemetry):
    """After the last substep: the camber against the ground, asin(-dot(u, n)) (0 airborne), which only
    people read (so it is worked out once a step, not in the tire stage), the four at once (sim/kernel/lanes.py)."""
    i0 = v - v                     # plain integers, not literals: one compile of camber_sin, not four
    gamma = asin4((camber_sin(v, i0, wheel_telemetry), camber_sin(v, i0 + 1, wheel_telemetry),
                   camber_sin(v, i0 + 2, wheel_telemetry), camber_sin(v, i0 + 3, wheel_telemetry)))
    for i in range(NW):
        wheel_telemetry[v, i, W_GAMMA] = gamma[i]


@kernel
def step_and_watch(vehicle_params, wheel_params, hull_points, controls, body_state, drive_state, wheel_state,
                   wheel_scratch, wheel_telemetry, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0,
                   dt, substeps, watch_table, watch_on, t_end):
    """Advance every vehicle by one fixed step dt (s) made of `substeps` equal substeps, from time t0, then
    the watchdog's look at every vehicle at time t_end (sim/kernel/watch.py), in one call from Python (`step()`).
    Returns the number of vehicles with a problem (0 when watch_on is False). (One kernel, not a step
    kernel called by a watching one: numba re-optimises and re-emits the machine code of everything a
    compiled function calls, so each nested level made the whole chain's machine code once more on a
    first run; sim.kernel.jit.inlined_copy.)"""
    h = dt / substeps
    for v in range(body_state.shape[0]):
        targets = steering_targets(v, vehicle_params, controls, body_state)
        broad = fresh_broad_cache()
        for k in range(substeps):
            box_mask, hf_mask, broad = broad_phase(v, vehicle_params, body_state, boxes, hf_meta, t0 + k * h, broad)
            substep_of_step(v, vehicle_params, wheel_params, hull_points, controls, body_state, drive_state,
                            wheel_state, scratch_of(k, substeps, wheel_scratch, wheel_telemetry), body_telemetry,
                            planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0 + k * h, h, targets, box_mask, hf_mask)
        publish(v, wheel_telemetry)
    if not watch_on:
        return 0
    return check_vehicles(body_state, wheel_state, body_telemetry, watch_table, gravity, t_end)


@threaded_kernel
def run_vehicles(vehicle_params, wheel_params, hull_points, control_trace, body_state, drive_state, wheel_state,
                 wheel_scratch, wheel_telemetry, body_telemetry, planes, boxes, hf_meta, hf_z, surf_mu, gravity, t0, dt,
                 substeps, v0, v1):
    """Advance vehicles v0 .. v1-1 by len(control_trace) steps; control_trace[k] holds the controls (N, CT_N)
    of step k. Each vehicle runs all its steps before the next one starts (its state stays in the cache);
    the vehicles do not act on one another, so this is bit for bit what step_and_watch gives step by step (the
    camber, which only people read, is published after the last step, the only one whose telemetry is left
    to read).
    It runs without Python's lock: `Simulation.run` gives each core a share of the vehicles."""
    h = dt / substeps
    for v in range(v0, v1):
        broad = fresh_broad_cache()              # the broad phase's masks, kept from step to step
        for k in range(control_trace.shape[0]):
            t = t0 + k * dt
            targets = steering_targets(v, vehicle_params, control_trace[k], body_state)
            for j in range(substeps):
                box_mask, hf_mask, broad = broad_phase(v, vehicle_params, body_state, boxes, hf_meta, t + j * h, broad)
                substep(v, vehicle_params, wheel_params, hull_points, control_trace[k], body_state, drive_state,
                        wheel_state, scratch_of(j, substeps, wheel_scratch, wheel_telemetry), body_telemetry, planes,
                        boxes, hf_meta, hf_z, surf_mu, gravity, t + j * h, h, targets, box_mask, hf_mask)
        if control_trace.shape[0] > 0:
            publish(v, wheel_telemetry)          # only the last step's telemetry is there to be read
