"""The rigid body (docs/physics.md §12): the wrench of every external force, the angular-momentum ledger
of the spinning wheels and engine rotor, and the integration (seed 004).

Linear: semi-implicit Euler, v' = v + h F / M, x' = x + h v' over a substep of h seconds.
Angular: the body's angular momentum about its centre of mass, L = (R I R^T) w, is advanced by the
torque, L' = L + h tau, and the new angular velocity is recovered with the inertia of the new
orientation, w' = (R' I R'^T)^-1 L'. Written in the body frame this is Euler's equation
I w_dot = tau_b - w x (I w): the gyroscopic term is carried exactly, and in free flight L is conserved to
rounding (no energy creep from an explicit w x (I w) term).
The orientation turns by the exact rotation exp(w_mid h) with w_mid = (R I R^T)^-1 L' (the new momentum
with the old inertia, the semi-implicit choice), then is renormalised.

The ledger: the wheels' spin momentum Hw = Iw omega u and the rotor's He = Ie omegaE uEngine belong to the
car too. Internal torques (drive, brake, clutch) only move momentum between them and the body, so the
body's torque is the external one minus their change: tau = sum (Q - com) x F - (sum dHw + dHe) / h.
"""
from __future__ import annotations

from sim.aero import downforce, drag_force
from sim.jit import leaf, stage
from sim.tables import BS_PX, BS_QW, BS_QX, BS_QY, BS_QZ, BS_VX, BS_WX, DS_HEX, DS_OMEGA_E, NW, TB_DOWNFORCE_X, \
    TB_DRAG_X, TB_GRAVITY_X, TB_HBODY_X, TB_HENGINE_X, TB_HTOTAL_X, TB_HWHEELS_X, TB_ROLLING_X, TB_SUSPENSION_X, \
    TB_TIRE_X, VP_AREA, VP_CD, VP_CLA_F, VP_CLA_R, VP_IE, VP_IXX, VP_IYY, VP_IZZ, VP_MASS, VP_RHO, VP_UEX, VP_XF, \
    VP_XR, W_FRX, W_FSX, W_FTX, W_OMEGA_NEXT, W_QX, W_UX, WP_IW, WS_HX
from sim.vec import add, cross, dot, get3, get3w, madd, quat_axis_x, quat_axis_z, quat_from_rotvec, quat_mul, \
    quat_normalize, quat_rotate, scale, set3, set3w, sub, world_inertia_apply, world_inertia_solve

NO_SKIP = (False, False, False, False)


@leaf
def read_body(body_state, v):
    """The body state of vehicle v as tuples: (position (m), orientation (w,x,y,z), velocity (m/s),
    angular velocity (rad/s)), all world. Every stage of a substep reads this same frozen copy."""
    return (get3(body_state, v, BS_PX),
            (body_state[v, BS_QW], body_state[v, BS_QX], body_state[v, BS_QY], body_state[v, BS_QZ]),
            get3(body_state, v, BS_VX), get3(body_state, v, BS_WX))


@leaf
def forward_speed(q, vel):
    """The velocity vel (m/s, world) along the body's heading x."""
    return dot(vel, quat_axis_x(q))


@leaf
def inertia_of(vehicle_params, v):
    """Principal moments (Ixx, Iyy, Izz) in the body frame (kg m^2)."""
    return (vehicle_params[v, VP_IXX], vehicle_params[v, VP_IYY], vehicle_params[v, VP_IZZ])


@leaf
def integrate_body(pos, q, vel, w, force, tau, mass, inertia, h):
    """Advance one step. pos (m), q (w,x,y,z), vel (m/s), w (rad/s), force (N), tau (N m), all world;
    mass (kg); inertia: principal moments (Ixx, Iyy, Izz) in the body frame (kg m^2); h (s).
    Returns (pos', q', vel', w')."""
    vel_new = madd(vel, force, h / mass)
    pos_new = madd(pos, vel_new, h)
    l_new = madd(world_inertia_apply(q, inertia, w), tau, h)
    w_mid = world_inertia_solve(q, inertia, l_new)
    q_new = quat_normalize(quat_mul(quat_from_rotvec(scale(w_mid, h)), q))
    w_new = world_inertia_solve(q_new, inertia, l_new)
    return pos_new, q_new, vel_new, w_new


@stage
def wrench(v, vehicle_params, body, wheel_scratch, gravity, f_hull, tau_hull, skip_tire):
    """Total external force and torque about the centre of mass from the frozen state (N, N m, world):
    gravity, drag, downforce, each wheel's suspension, tire and rolling force at its contact Q, and the
    hull's collision wrench. The tire and rolling forces of wheel i are left out when skip_tire[i] (the
    parking solve replaces them). Returns (force, torque, (gravity, drag, downforce, rolling, suspension,
    tire)) with the named forces for the telemetry."""
    pos, q, vel, w = body
    mass = vehicle_params[v, VP_MASS]
    rho_air = vehicle_params[v, VP_RHO]
    f_gravity = (0.0, 0.0, -mass * gravity)
    f_drag = drag_force(rho_air, vehicle_params[v, VP_CD], vehicle_params[v, VP_AREA], vel)
    z_body = quat_axis_z(q)
    x_body = quat_axis_x(q)
    vx_air = dot(vel, x_body)
    df_front = downforce(rho_air, vehicle_params[v, VP_CLA_F], vx_air, z_body)
    df_rear = downforce(rho_air, vehicle_params[v, VP_CLA_R], vx_air, z_body)
    tau = add(cross(scale(x_body, vehicle_params[v, VP_XF]), df_front),
              cross(scale(x_body, vehicle_params[v, VP_XR]), df_rear))
    tau = add(tau, tau_hull)
    f_susp = (0.0, 0.0, 0.0)
    f_tire = (0.0, 0.0, 0.0)
    f_roll = (0.0, 0.0, 0.0)
    for i in range(NW):
        fs = get3w(wheel_scratch, v, i, W_FSX)
        ft = (0.0, 0.0, 0.0)
        fr = (0.0, 0.0, 0.0)
        if not skip_tire[i]:
            ft = get3w(wheel_scratch, v, i, W_FTX)
            fr = get3w(wheel_scratch, v, i, W_FRX)
        f_susp = add(f_susp, fs)
        f_tire = add(f_tire, ft)
        f_roll = add(f_roll, fr)
        # contact forces act at Q: torque (Q - com) x F
        tau = add(tau, cross(sub(get3w(wheel_scratch, v, i, W_QX), pos), add(add(fs, ft), fr)))
    f_down = add(df_front, df_rear)
    force = add(add(add(f_gravity, f_drag), add(f_down, f_roll)), add(add(f_susp, f_tire), f_hull))
    return force, tau, (f_gravity, f_drag, f_down, f_roll, f_susp, f_tire)


@stage
def spin_ledger(v, vehicle_params, wheel_params, q, drive_state, wheel_state, wheel_scratch):
    """The change of the wheels' and the rotor's spin momentum this substep, sum dHw + dHe (N m s,
    world), from the spin-updated speeds W_OMEGA_NEXT and the new engine speed; commits Hw and He.
    Hw = Iw omega u (u turns with the body and the steering); He = Ie omegaE uEngine."""
    d_h = (0.0, 0.0, 0.0)
    for i in range(NW):
        h_new = scale(get3w(wheel_scratch, v, i, W_UX), wheel_params[v, i, WP_IW] * wheel_scratch[v, i, W_OMEGA_NEXT])
        d_h = add(d_h, sub(h_new, get3w(wheel_state, v, i, WS_HX)))
        set3w(wheel_state, v, i, WS_HX, h_new)
    u_engine = quat_rotate(q, get3(vehicle_params, v, VP_UEX))
    he_new = scale(u_engine, vehicle_params[v, VP_IE] * drive_state[v, DS_OMEGA_E])
    d_h = add(d_h, sub(he_new, get3(drive_state, v, DS_HEX)))
    set3(drive_state, v, DS_HEX, he_new)
    return d_h


@stage
def body_stage(v, vehicle_params, body, body_state, drive_state, wheel_state, wheel_scratch, body_telemetry, gravity,
               d_h, f_hull, tau_hull, h):
    """Sum the external forces and torques, take the ledger's dH/h off the torque, integrate one
    substep h (s) and commit the body state; record the named forces and the angular momenta."""
    pos, q, vel, w = body
    mass = vehicle_params[v, VP_MASS]
    inertia = inertia_of(vehicle_params, v)
    force, tau, named = wrench(v, vehicle_params, body, wheel_scratch, gravity, f_hull, tau_hull, NO_SKIP)
    tau = madd(tau, d_h, -1.0 / h)                                   # ledger: minus (sum dHw + dHe)/h
    pos, q, vel, w = integrate_body(pos, q, vel, w, force, tau, mass, inertia, h)
    set3(body_state, v, BS_PX, pos)
    body_state[v, BS_QW] = q[0]
    body_state[v, BS_QX] = q[1]
    body_state[v, BS_QY] = q[2]
    body_state[v, BS_QZ] = q[3]
    set3(body_state, v, BS_VX, vel)
    set3(body_state, v, BS_WX, w)
    f_gravity, f_drag, f_down, f_roll, f_susp, f_tire = named
    set3(body_telemetry, v, TB_GRAVITY_X, f_gravity)
    set3(body_telemetry, v, TB_DRAG_X, f_drag)
    set3(body_telemetry, v, TB_DOWNFORCE_X, f_down)
    set3(body_telemetry, v, TB_ROLLING_X, f_roll)
    set3(body_telemetry, v, TB_SUSPENSION_X, f_susp)
    set3(body_telemetry, v, TB_TIRE_X, f_tire)
    # angular momentum about the centre of mass: body, wheel spin, engine rotor, and their sum
    h_body = world_inertia_apply(q, inertia, w)
    h_wheels = (0.0, 0.0, 0.0)
    for i in range(NW):
        h_wheels = add(h_wheels, get3w(wheel_state, v, i, WS_HX))
    h_engine = get3(drive_state, v, DS_HEX)
    set3(body_telemetry, v, TB_HBODY_X, h_body)
    set3(body_telemetry, v, TB_HWHEELS_X, h_wheels)
    set3(body_telemetry, v, TB_HENGINE_X, h_engine)
    set3(body_telemetry, v, TB_HTOTAL_X, add(add(h_body, h_wheels), h_engine))
