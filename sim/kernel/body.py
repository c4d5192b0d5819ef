"""The rigid body (docs/physics.md §12): the wrench of every external force, the angular-momentum ledger
of the spinning wheels and engine rotor, and the integration (seed 004).

Linear: semi-implicit Euler, v' = v + h F / M, x' = x + h v' over a substep of h seconds.
Angular: the body's angular momentum about its centre of mass, L = (R I R^T) w, is advanced by the
torque, L' = L + h tau, and the new angular velocity is recovered with the inertia of the new
orientation, w' = (R' I R'^T)^-1 L'. Written in the body frame this is Euler's equation
I w_dot = tau_b - w x (I w): the gyroscopic term is carried exactly, and in free flight L is conserved to
rounding.
The orientation turns by the exact rotation exp(w_mid h) with w_mid = (R I R^T)^-1 L' (the new momentum
with the old inertia, the semi-implicit choice), then is renormalised. That keeps L but not the energy: a
body tumbling off its principal axes drifts toward its least moment (a 1090 / 1139 / 14 000 kg m^2 body
reached 12.8 times its rotational energy, I_max / I_min, in 4 s of free flight at 1/240 s). Above
SPLIT_RATE the body turns instead by the free rigid body's symplectic splitting (`turn_split`: exact turns
about one body axis at a time, L held), whose energy error stays bounded (docs/physics.md §12).

With chassis.lateral_update = "midpoint" (the default) the tires' lateral forces are first taken halfway
through the substep's velocity change, linearised in the contacts' sideways speed (`lateral_implicit`);
"explicit" leaves every force at the substep's start, as above.

The ledger: the wheels' spin momentum Hw = Iw omega u and the rotor's He = Ie omegaE uEngine belong to the
car too. Internal torques (drive, brake, clutch) only move momentum between them and the body, so the
body's torque is the external one minus their change: tau = sum (Q - com) x F - (sum dHw + dHe) / h.
"""
from __future__ import annotations

from sim.kernel.aero import downforce
from sim.kernel.aero import drag_force
from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import BS_PX
from sim.kernel.tables import BS_QW
from sim.kernel.tables import BS_QX
from sim.kernel.tables import BS_QY
from sim.kernel.tables import BS_QZ
from sim.kernel.tables import BS_VX
from sim.kernel.tables import BS_WX
from sim.kernel.tables import DS_H_ENGINE_X
from sim.kernel.tables import DS_OMEGA_E
from sim.kernel.tables import NW
from sim.kernel.tables import TB_DOWNFORCE_X
from sim.kernel.tables import TB_DRAG_X
from sim.kernel.tables import TB_GRAVITY_X
from sim.kernel.tables import TB_HBODY_X
from sim.kernel.tables import TB_HENGINE_X
from sim.kernel.tables import TB_HTOTAL_X
from sim.kernel.tables import TB_HWHEELS_X
from sim.kernel.tables import TB_ROLLING_X
from sim.kernel.tables import TB_SUSPENSION_X
from sim.kernel.tables import TB_TIRE_X
from sim.kernel.tables import VP_AREA
from sim.kernel.tables import VP_CD
from sim.kernel.tables import VP_CLA_F
from sim.kernel.tables import VP_CLA_R
from sim.kernel.tables import VP_IE
from sim.kernel.tables import VP_IXX
from sim.kernel.tables import VP_IYY
from sim.kernel.tables import VP_IZZ
from sim.kernel.tables import VP_LATERAL_THETA
from sim.kernel.tables import VP_MASS
from sim.kernel.tables import VP_MASS_U
from sim.kernel.tables import VP_RHO
from sim.kernel.tables import VP_UEX
from sim.kernel.tables import VP_XF
from sim.kernel.tables import VP_XR
from sim.kernel.tables import W_BX
from sim.kernel.tables import W_FRX
from sim.kernel.tables import W_FSX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_KY
from sim.kernel.tables import W_LOCKED
from sim.kernel.tables import W_NX
from sim.kernel.tables import W_OMEGA_NEXT
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_UX
from sim.kernel.tables import W_VX
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WS_HX
from sim.kernel.unsprung import unsprung_after
from sim.kernel.unsprung import unsprung_torque
from sim.kernel.unsprung_turn import unsprung_turn
from sim.kernel.unsprung_turn import wheels_momentum
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3
from sim.kernel.vec import get3w
from sim.kernel.vec import madd
from sim.kernel.vec import quat_axis_x
from sim.kernel.vec import quat_axis_z
from sim.kernel.vec import quat_from_rotvec
from sim.kernel.vec import quat_matrix
from sim.kernel.vec import quat_mul
from sim.kernel.vec import quat_normalize
from sim.kernel.vec import quat_rotate
from sim.kernel.vec import quat_rotate_inv
from sim.kernel.vec import scale
from sim.kernel.vec import set3
from sim.kernel.vec import set3w
from sim.kernel.vec import solve_spd4
from sim.kernel.vec import sub
from sim.kernel.vec import world_inertia_apply
from sim.kernel.vec import world_inertia_solve
from sim.kernel.work import record_work

NO_SKIP = (False, False, False, False)
SPLIT_RATE = 2.5      # rad/s: a body turning faster is stepped by the splitting (a car spinning or tumbling; the
                      # state-hash drives stay under 1.9)


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
def turn_about(q, l, inertia, axis, h):
    """q turned for h about its own body axis `axis` (0 x, 1 y, 2 z) at that axis' rate L_b[axis] / I[axis], the
    world angular momentum l held: the exact flow of one term L_b[axis]^2 / (2 I[axis]) of the free body's energy."""
    lb = quat_rotate_inv(q, l)
    if axis == 0:
        r = (h * lb[0] / inertia[0], 0.0, 0.0)
    elif axis == 1:
        r = (0.0, h * lb[1] / inertia[1], 0.0)
    else:
        r = (0.0, 0.0, h * lb[2] / inertia[2])
    return quat_mul(q, quat_from_rotvec(r))


@leaf
def turn_split(q, inertia, l, h):
    """The torque-free turn over h with the world angular momentum l held, by the symplectic splitting of the free
    rigid body (x, y for h/2, z for h, y, x for h/2; Dullweber, Leimkuhler and McLachlan 1997): L is kept to
    rounding and the energy error stays bounded, where the single turn exp(w_mid h) creeps toward the least moment."""
    q = turn_about(q, l, inertia, 0, 0.5 * h)
    q = turn_about(q, l, inertia, 1, 0.5 * h)
    q = turn_about(q, l, inertia, 2, h)
    q = turn_about(q, l, inertia, 1, 0.5 * h)
    q = turn_about(q, l, inertia, 0, 0.5 * h)
    return quat_normalize(q)


@leaf
def integrate_body(pos, q, vel, w, force, tau, mass, inertia, h):
    """Advance one step. pos (m), q (w,x,y,z), vel (m/s), w (rad/s), force (N), tau (N m), all world;
    mass (kg); inertia: principal moments (Ixx, Iyy, Izz) in the body frame (kg m^2); h (s).
    Returns (pos', q', vel', w')."""
    vel_new = madd(vel, force, h / mass)
    pos_new = madd(pos, vel_new, h)
    l_new = madd(world_inertia_apply(q, inertia, w), tau, h)
    w_mid = world_inertia_solve(q, inertia, l_new)
    if dot(w_mid, w_mid) > SPLIT_RATE * SPLIT_RATE:
        q_new = turn_split(q, inertia, l_new, h)
    else:
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


@leaf
def lateral_row(wheel_scratch, v, i, pos, m, inv_i, w, dv0, dw0b, theta, h):
    """Wheel i's part of the implicit lateral update: (active, b, r x b (world), r x b in the body frame,
    the same scaled by I^-1, 1 / (theta h k), rhs) with b its lateral axis, r = Q - com, k = W_KY,
    m = R(q) as rows and inv_i = 1 / (Ixx, Iyy, Izz). rhs = -(b . dv0 + (r x b) . dw0 + drift) is the
    lateral contact speed the explicit step would add (dw0b: dw0 in the body frame), with the drift
    h (w x b) . v_c = h w . (b x v_c) as b turns with the body; b x v_c = vn t - vx n, of which the drift
    keeps -vx n (vn, the contact's speed along the normal, is the suspension's, and small). Inactive (no
    damping, airborne, or held by static friction, whose force the parking solve set): zeros."""
    k = wheel_scratch[v, i, W_KY]
    zero = (0.0, 0.0, 0.0)
    if not (k > 0.0) or wheel_scratch[v, i, W_GROUNDED] == 0.0 or wheel_scratch[v, i, W_LOCKED] != 0.0:
        return False, zero, zero, zero, zero, 1.0, 0.0
    b = get3w(wheel_scratch, v, i, W_BX)
    rb = cross(sub(get3w(wheel_scratch, v, i, W_QX), pos), b)
    rbb = (m[0][0] * rb[0] + m[1][0] * rb[1] + m[2][0] * rb[2],      # R^T (r x b)
           m[0][1] * rb[0] + m[1][1] * rb[1] + m[2][1] * rb[2],
           m[0][2] * rb[0] + m[1][2] * rb[1] + m[2][2] * rb[2])
    yb = (rbb[0] * inv_i[0], rbb[1] * inv_i[1], rbb[2] * inv_i[2])
    drift = -h * wheel_scratch[v, i, W_VX] * dot(w, get3w(wheel_scratch, v, i, W_NX))
    return True, b, rb, rbb, yb, 1.0 / (theta * h * k), -(dot(b, dv0) + dot(rbb, dw0b) + drift)


@leaf
def coupling(b_i, rbb_i, b_j, yb_j, inv_mass):
    """g_i^T M^-1 g_j with g = (b, r x b): how a lateral impulse at wheel j moves wheel i's contact
    sideways (1/kg); 0 when either takes no part (its row's vectors are zero)."""
    return dot(b_i, b_j) * inv_mass + dot(rbb_i, yb_j)


@leaf
def correct(wheel_scratch, v, i, b, f):
    """Add the implicit update's lateral force f (N, along b) to wheel i's W_FY and W_FTX."""
    if f != 0.0:
        wheel_scratch[v, i, W_FY] += f
        set3w(wheel_scratch, v, i, W_FTX, madd(get3w(wheel_scratch, v, i, W_FTX), b, f))


@stage
def lateral_implicit(v, wheel_scratch, pos, q, w, force, tau, mass, inertia, theta, h):
    """The tires' lateral force taken halfway (theta) through the substep's velocity change (docs/physics.md
    §12): each grounded wheel's lateral force is linearised in its contact's lateral speed,
    Fy(u') = Fy(u) - k (g . du + drift) with k = W_KY and g = (b, r x b), and the body's velocity change
    du = h M^-1 F + M^-1 sum g p is solved with the corrections p_i = -theta h k_i (g_i . du + drift_i)
    (N s) as one 4x4 system, (G^T M^-1 G + diag(1 / (theta h k))) p = -(G^T du0 + drift), du0 = h M^-1 F
    the explicit change. Returns the force and torque with the corrections (N, N m, world) and the
    corrections' sum, and adds each wheel's to its W_FY and W_FTX (the force the body takes). M: the
    mass and the world inertia at q."""
    m = quat_matrix(q)
    inv_i = (1.0 / inertia[0], 1.0 / inertia[1], 1.0 / inertia[2])
    inv_mass = 1.0 / mass
    dv0 = scale(force, h * inv_mass)
    dw0b = (h * inv_i[0] * (m[0][0] * tau[0] + m[1][0] * tau[1] + m[2][0] * tau[2]),   # h I^-1 R^T tau
            h * inv_i[1] * (m[0][1] * tau[0] + m[1][1] * tau[1] + m[2][1] * tau[2]),
            h * inv_i[2] * (m[0][2] * tau[0] + m[1][2] * tau[1] + m[2][2] * tau[2]))
    i0 = v - v            # the wheel indices as plain integers: a literal 0..3 would make numba compile
    i1, i2, i3 = i0 + 1, i0 + 2, i0 + 3   # lateral_row and correct once for each of them
    a0, b0, w0, rb0, y0, d0, r0 = lateral_row(wheel_scratch, v, i0, pos, m, inv_i, w, dv0, dw0b, theta, h)
    a1, b1, w1, rb1, y1, d1, r1 = lateral_row(wheel_scratch, v, i1, pos, m, inv_i, w, dv0, dw0b, theta, h)
    a2, b2, w2, rb2, y2, d2, r2 = lateral_row(wheel_scratch, v, i2, pos, m, inv_i, w, dv0, dw0b, theta, h)
    a3, b3, w3, rb3, y3, d3, r3 = lateral_row(wheel_scratch, v, i3, pos, m, inv_i, w, dv0, dw0b, theta, h)
    if not (a0 or a1 or a2 or a3):
        return force, tau, (0.0, 0.0, 0.0)
    mat = (coupling(b0, rb0, b0, y0, inv_mass) + d0, coupling(b0, rb0, b1, y1, inv_mass),
           coupling(b0, rb0, b2, y2, inv_mass), coupling(b0, rb0, b3, y3, inv_mass),
           coupling(b1, rb1, b1, y1, inv_mass) + d1, coupling(b1, rb1, b2, y2, inv_mass),
           coupling(b1, rb1, b3, y3, inv_mass),
           coupling(b2, rb2, b2, y2, inv_mass) + d2, coupling(b2, rb2, b3, y3, inv_mass),
           coupling(b3, rb3, b3, y3, inv_mass) + d3)                  # an inactive row: (0 .. 1 .. 0), rhs 0
    p = solve_spd4(mat, (r0, r1, r2, r3))
    inv_h = 1.0 / h
    f0, f1, f2, f3 = p[0] * inv_h, p[1] * inv_h, p[2] * inv_h, p[3] * inv_h
    df = add(add(scale(b0, f0), scale(b1, f1)), add(scale(b2, f2), scale(b3, f3)))
    dtau = add(add(scale(w0, f0), scale(w1, f1)), add(scale(w2, f2), scale(w3, f3)))
    correct(wheel_scratch, v, i0, b0, f0)
    correct(wheel_scratch, v, i1, b1, f1)
    correct(wheel_scratch, v, i2, b2, f2)
    correct(wheel_scratch, v, i3, b3, f3)
    return add(force, df), add(tau, dtau), df


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
    d_h = add(d_h, sub(he_new, get3(drive_state, v, DS_H_ENGINE_X)))
    set3(drive_state, v, DS_H_ENGINE_X, he_new)
    return d_h


@stage
def body_stage(v, vehicle_params, wheel_params, body, body_state, drive_state, wheel_state, wheel_scratch,
               body_telemetry, gravity, d_h, f_hull, tau_hull, h):
    """Sum the external forces and torques, take the ledger's dH/h off the torque, integrate one
    substep h (s) and commit the body state; record the named forces and the angular momenta. With wheels of
    their own mass (VP_MASS_U > 0, §7.2) their weight and inertia act at their contacts, and their carrier's
    acceleration and roll couple are kept for the next substep (sim/kernel/unsprung.py)."""
    pos, q, vel, w = body
    mass = vehicle_params[v, VP_MASS]
    inertia = inertia_of(vehicle_params, v)
    force, tau, named = wrench(v, vehicle_params, body, wheel_scratch, gravity, f_hull, tau_hull, NO_SKIP)
    tau = madd(tau, d_h, -1.0 / h)                                   # ledger: minus (sum dHw + dHe)/h
    f_tire_implicit = (0.0, 0.0, 0.0)
    theta = vehicle_params[v, VP_LATERAL_THETA]
    if theta > 0.0:                                                  # the tires' lateral force mid-substep
        force, tau, f_tire_implicit = lateral_implicit(v, wheel_scratch, pos, q, w, force, tau, mass, inertia, theta, h)
    unsprung = vehicle_params[v, VP_MASS_U] > 0.0
    inertia_step = inertia
    if unsprung:                                                     # the wheels' weight and inertia at their contacts
        tau = add(tau, unsprung_torque(v, wheel_params, pos, force, mass, wheel_scratch, gravity))
        tau, inertia_step = unsprung_turn(v, wheel_params, wheel_state, wheel_scratch, q, w, inertia, tau, h)
    pos0, vel0, w0 = pos, vel, w
    pos, q, vel, w = integrate_body(pos, q, vel, w, force, tau, mass, inertia_step, h)
    if unsprung:                                                     # their carrier's acceleration, the roll couple
        unsprung_after(v, wheel_params, pos0, q, vel0, vel, w, wheel_state, wheel_scratch, gravity, h)
    record_work(v, wheel_scratch, body_telemetry, pos0, vel0, w0, vel, w, f_hull, tau_hull, scale(d_h, -1.0 / h), h,
                NO_SKIP)
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
    set3(body_telemetry, v, TB_TIRE_X, add(f_tire, f_tire_implicit))
    record_momenta(v, wheel_params, q, inertia, w, drive_state, wheel_state, body_telemetry)


@leaf
def record_momenta(v, wheel_params, q, inertia, w, drive_state, wheel_state, body_telemetry):
    """The telemetry's angular momenta about the centre of mass (N m s, world): the body's I_w w (q, the
    principal moments `inertia`, w world) with its wheels' own mass moving along their axes (sum m_u u s,
    sim/kernel/unsprung_turn.py), the wheels' and the rotor's committed spin momenta, their sum."""
    h_body = add(world_inertia_apply(q, inertia, w),
                 quat_rotate(q, wheels_momentum(v, wheel_params, wheel_state, quat_rotate_inv(q, w))))
    h_wheels = (0.0, 0.0, 0.0)
    for i in range(NW):
        h_wheels = add(h_wheels, get3w(wheel_state, v, i, WS_HX))
    h_engine = get3(drive_state, v, DS_H_ENGINE_X)
    set3(body_telemetry, v, TB_HBODY_X, h_body)
    set3(body_telemetry, v, TB_HWHEELS_X, h_wheels)
    set3(body_telemetry, v, TB_HENGINE_X, h_engine)
    set3(body_telemetry, v, TB_HTOTAL_X, add(add(h_body, h_wheels), h_engine))
