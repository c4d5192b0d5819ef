"""Differentials and the drive layout (docs/physics.md §4.4).

The centre split sends a share s of the driveline torque to the front axle and 1 - s to the rear (rwd
s = 0, fwd s = 1, awd the centre split), so each wheel's WP_SHARE is half its axle's share. The
driveline speed the clutch sees is the matching mean, s (front mean) + (1 - s) (rear mean). On each axle:
    open    both wheels get half the axle torque, whatever their speeds
    lsd     plus a locking torque T_lock = clamp(Kdiff (omegaL - omegaR), -TdiffMax, TdiffMax), taken from
            the left wheel and given to the right, so the axle total is unchanged
    locked  after the wheel spin update both wheels share one speed, their spin momentum kept
"""
from __future__ import annotations

from sim.kernel.jit import leaf
from sim.kernel.jit import stage
from sim.kernel.tables import TB_LOCK_F
from sim.kernel.tables import VP_DIFF_F
from sim.kernel.tables import VP_DIFF_R
from sim.kernel.tables import VP_LSD_K
from sim.kernel.tables import VP_LSD_T
from sim.kernel.tables import VP_SPLIT
from sim.kernel.tables import W_OMEGA_NEXT
from sim.kernel.tables import W_T_DRIVE
from sim.kernel.tables import WP_IW
from sim.kernel.tables import WP_SHARE
from sim.kernel.tables import WS_OMEGA

DIFF_OPEN, DIFF_LSD, DIFF_LOCKED = 0, 1, 2
DIFFS = {"open": DIFF_OPEN, "lsd": DIFF_LSD, "locked": DIFF_LOCKED}


@leaf
def lsd_lock(k_diff, omega_left, omega_right, t_max):
    """T_lock = clamp(Kdiff (omegaL - omegaR), -TdiffMax, TdiffMax): the left wheel gets -T_lock,
    the right +T_lock, so the axle's total torque is unchanged."""
    return min(t_max, max(-t_max, k_diff * (omega_left - omega_right)))


@leaf
def driveline_speed(v, vehicle_params, wheel_state):
    """The wheel speed (rad/s) the gearbox output turns at: s (front mean) + (1 - s) (rear mean)."""
    split = vehicle_params[v, VP_SPLIT]
    return split * 0.5 * (wheel_state[v, 0, WS_OMEGA] + wheel_state[v, 1, WS_OMEGA]) \
        + (1.0 - split) * 0.5 * (wheel_state[v, 2, WS_OMEGA] + wheel_state[v, 3, WS_OMEGA])


@stage
def differential_stage(v, vehicle_params, wheel_params, wheel_state, wheel_scratch, body_telemetry, shaft):
    """Share the driveline torque `shaft` (N m, after efficiency) out to the wheels: W_T_DRIVE."""
    for axle in range(2):
        left = 2 * axle
        right = left + 1
        half = shaft * wheel_params[v, left, WP_SHARE]
        lock = 0.0
        kind = vehicle_params[v, VP_DIFF_F] if axle == 0 else vehicle_params[v, VP_DIFF_R]
        if kind == DIFF_LSD and half != 0.0:
            lock = lsd_lock(vehicle_params[v, VP_LSD_K], wheel_state[v, left, WS_OMEGA],
                            wheel_state[v, right, WS_OMEGA], vehicle_params[v, VP_LSD_T])
        wheel_scratch[v, left, W_T_DRIVE] = half - lock                 # left minus, right plus
        wheel_scratch[v, right, W_T_DRIVE] = half + lock
        body_telemetry[v, TB_LOCK_F + axle] = lock


@leaf
def lock_axles(v, vehicle_params, wheel_params, wheel_scratch):
    """A locked differential on a driven axle: both wheels take the momentum-weighted mean of their
    spin-updated speeds W_OMEGA_NEXT (rad/s)."""
    for axle in range(2):
        left = 2 * axle
        kind = vehicle_params[v, VP_DIFF_F] if axle == 0 else vehicle_params[v, VP_DIFF_R]
        if kind == DIFF_LOCKED and wheel_params[v, left, WP_SHARE] > 0.0:
            il = wheel_params[v, left, WP_IW]
            ir = wheel_params[v, left + 1, WP_IW]
            common = (il * wheel_scratch[v, left, W_OMEGA_NEXT] + ir * wheel_scratch[v, left + 1, W_OMEGA_NEXT]) \
                / (il + ir)
            wheel_scratch[v, left, W_OMEGA_NEXT] = common
            wheel_scratch[v, left + 1, W_OMEGA_NEXT] = common
