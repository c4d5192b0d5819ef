"""The work ledger (docs/physics.md §16): the work each kind of force does on the body, summed over the run
in the body telemetry (TB_WORK_*, J), so that when the watchdog finds energy from nowhere it can say which
force put it in. A force f at the point r (from the centre of mass) does f . (v + w x r) h in a substep, with
the body's velocities halfway through it ((old + new) / 2): for the translation that is exactly the change of
kinetic energy the force makes under the step's update."""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.tables import NW
from sim.kernel.tables import TB_TIRE_LOST
from sim.kernel.tables import TB_TIRE_MADE
from sim.kernel.tables import TB_WORK_COLLISION
from sim.kernel.tables import TB_WORK_GROUND
from sim.kernel.tables import TB_WORK_PARKING
from sim.kernel.tables import TB_WORK_SPIN
from sim.kernel.tables import TB_WORK_SUSPENSION
from sim.kernel.tables import TB_WORK_TIRE
from sim.kernel.tables import W_FROM_SLIP
from sim.kernel.tables import W_FRX
from sim.kernel.tables import W_FSX
from sim.kernel.tables import W_FTX
from sim.kernel.tables import W_FX
from sim.kernel.tables import W_FY
from sim.kernel.tables import W_GROUNDED
from sim.kernel.tables import W_LOCKED
from sim.kernel.tables import W_OMEGA
from sim.kernel.tables import W_QX
from sim.kernel.tables import W_RHO
from sim.kernel.tables import W_VGX
from sim.kernel.tables import W_VX
from sim.kernel.tables import W_VY
from sim.kernel.unsprung import own_contact_couple
from sim.kernel.vec import add
from sim.kernel.vec import cross
from sim.kernel.vec import dot
from sim.kernel.vec import get3w
from sim.kernel.vec import scale
from sim.kernel.vec import sub


@leaf
def record_work(v, wheel_scratch, body_telemetry, pos, vel0, w0, vel1, w1, f_hull, tau_hull, tau_spin, h,
                skip_tire):
    """Add this substep's work on vehicle v's body (J) to TB_WORK_*: the suspension (W_FSX at Q), the tires
    (W_FTX + W_FRX at Q; a wheel held by static friction counts as parking), the hull (force and torque)
    and the spin ledger's torque; and to TB_WORK_GROUND the work a moving ground did through the wheels'
    contacts, F . v_ground (the hull's contacts add theirs in the collision stage). pos: the centre of mass
    the contact points are taken from; vel0, w0 and vel1, w1: the body's velocity and angular velocity
    (world) before and after the substep."""
    v_mid = scale(add(vel0, vel1), 0.5)
    w_mid = scale(add(w0, w1), 0.5)
    w_susp = 0.0
    w_tire = 0.0
    w_park = 0.0
    w_ground = 0.0
    for i in range(NW):
        v_q = add(v_mid, cross(w_mid, sub(get3w(wheel_scratch, v, i, W_QX), pos)))
        f = get3w(wheel_scratch, v, i, W_FSX)
        w_susp += dot(f, v_q) + dot(own_contact_couple(v, i, wheel_scratch), w_mid)   # its push at its own contact
        if not skip_tire[i]:
            f_t = add(get3w(wheel_scratch, v, i, W_FTX), get3w(wheel_scratch, v, i, W_FRX))
            f = add(f, f_t)
            p = dot(f_t, v_q)
            if wheel_scratch[v, i, W_LOCKED] != 0.0:
                w_park += p
            else:
                w_tire += p
        w_ground += dot(f, get3w(wheel_scratch, v, i, W_VGX))      # the ground's push on a moving platform
    body_telemetry[v, TB_WORK_SUSPENSION] += w_susp * h
    body_telemetry[v, TB_WORK_TIRE] += w_tire * h
    body_telemetry[v, TB_WORK_PARKING] += w_park * h
    body_telemetry[v, TB_WORK_COLLISION] += (dot(f_hull, v_mid) + dot(tau_hull, w_mid)) * h
    body_telemetry[v, TB_WORK_SPIN] += dot(tau_spin, w_mid) * h
    body_telemetry[v, TB_WORK_GROUND] += w_ground * h
    made, lost = slip_power(v, wheel_scratch, skip_tire)
    body_telemetry[v, TB_TIRE_MADE] += made * h
    body_telemetry[v, TB_TIRE_LOST] += lost * h


@leaf
def slip_power(v, wheel_scratch, skip_tire):
    """(power the tires' slip makes, power it loses) (W) of vehicle v this substep. A tire's force F does
    F . v_slip on the contact patch sliding at v_slip = (vx - rho omega, vy) over the ground (tire frame): what
    the body gains from F at the contact plus what the wheel's spin gains from its moment -F_x rho. A force that
    opposes the slip loses energy (heat); one that pushes the way the tire slides makes it (a tire curve gone
    wrong, sim/model/tire_curves.py). Wheels held by static friction (a spring that gives back what it took)
    and the chaos and avs wheels (whose force is their torque's request, not a curve of the slip) are left
    out."""
    made = 0.0
    lost = 0.0
    for i in range(NW):
        if skip_tire[i] or wheel_scratch[v, i, W_LOCKED] != 0.0 or wheel_scratch[v, i, W_GROUNDED] == 0.0 \
                or wheel_scratch[v, i, W_FROM_SLIP] == 0.0:
            continue
        vsx = wheel_scratch[v, i, W_VX] - wheel_scratch[v, i, W_RHO] * wheel_scratch[v, i, W_OMEGA]
        p = wheel_scratch[v, i, W_FX] * vsx + wheel_scratch[v, i, W_FY] * wheel_scratch[v, i, W_VY]
        if p > 0.0:
            made += p
        else:
            lost -= p
    return made, lost
