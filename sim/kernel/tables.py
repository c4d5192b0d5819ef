"""The packed tables the kernels read and write, and their columns.

Every table is float64, indexed `[vehicle, column]` or `[vehicle, wheel, column]` (wheel order FL, FR,
RL, RR). There are four kinds, and a column belongs to exactly one:

    params     constants between edits, packed from `sim.model.params.Vehicle` by `sim/model/pack.py`
               vehicle_params VP_*, wheel_params WP_*, hull_points [v, k, xyz]
    controls   the driver's inputs for the step, CT_*
    state      what the next step starts from; a snapshot copies exactly these
               body_state BS_*, drive_state DS_*, wheel_state WS_*
    scratch    the substep's working record: every stage writes its results here for the stages after
               it; rewritten from state every substep, so never part of a snapshot
               wheel_scratch W_* (all columns)
    telemetry  for people to read, never read by the physics: the last substep works in wheel_telemetry
               instead of the scratch (same columns), whose columns W_* below W_TELEMETRY are published;
               body_telemetry TB_* is written by the stages that compute its quantities

Units are in the comments; docs/physics.md §1 describes the step and §13 every telemetry name. Python
the app, the overlay and the renderer read all of this through `sim.Simulation`'s views, never through
these constants (tests may use them to set up a case).
"""

NW = 4                                     # wheels per vehicle
NHULL = 14                                 # body collision points: hull_points[v, k, xyz] (m, body frame,
                                           # relative to the centre of mass)
WHEEL_NAMES = ("FL", "FR", "RL", "RR")
MAX_CURVE = 16                             # most points in an engine torque curve
MAX_GEARS = 10                             # most forward gears
NO_GEAR = 100.0                            # controls CT_GEAR: no gear requested this step
NO_STEER_ANGLE = 100.0                     # controls CT_STEER_ANGLE (rad): at or past it, no angle given (steer acts)
# the Magic Formula tires' coefficient block, in the kernel's order (wheel_params WP_PCX1 .. WP_NOMPRES below):
# the 1996-style model's, then the MF 6.1-style model's camber and pressure terms after them
MF96_FIELDS = ("pcx1", "pdx1", "pdx2", "pex1", "pex2", "pkx1", "pkx2", "pkx3", "pcy1", "pdy1", "pdy2", "pey1",
               "pey2", "pky1", "pky2", "rbx1", "rbx2", "rcx1", "rby1", "rby2", "rcy1")
MF61_EXTRA = ("pdx3", "pex3", "pex4", "ppx1", "ppx2", "ppx3", "ppx4", "pdy3", "pey3", "pey4", "pey5", "pky3", "pky4",
              "pky5", "pky6", "pky7", "ppy1", "ppy2", "ppy3", "ppy4", "ppy5", "pvy3", "pvy4", "pressure",
              "nominal_pressure")

# --- vehicle_params[v, :] --------------------------------------------------------------------------
(VP_MASS,                                  # kg
 VP_IXX, VP_IYY, VP_IZZ,                   # kg m^2, principal, body frame
 VP_RHO, VP_CD, VP_AREA,                   # kg/m^3, -, m^2
 VP_CLA_F, VP_CLA_R,                       # m^2 lift-area products (downforce)
 VP_XF, VP_XR,                             # m, axle x relative to the centre of mass (downforce points)
 VP_IE,                                    # kg m^2 engine rotor inertia
 VP_UEX, VP_UEY, VP_UEZ,                   # engine rotor axis, body frame, unit
 VP_STEER_MAX,                             # rad road-wheel angle at full steer
 VP_HULL_K, VP_HULL_C, VP_HULL_CT, VP_HULL_MU,   # body collision: N/m, N s/m, N s/m, - (per hull point)
 VP_DIRECT,                                # 1 direct drive, 0 engine and gearbox
 VP_ENGINE_BRAKE, VP_IDLE_OMEGA, VP_IDLE_GAIN, VP_REDLINE_OMEGA,   # N m s/rev, rad/s, 1/(rad/s), rad/s
 VP_NCURVE,                                # points in the torque curve
 VP_NGEARS, VP_REVERSE, VP_FINAL, VP_EFF,  # forward gears, reverse ratio, final drive, efficiency
 VP_AUTO, VP_UP_OMEGA, VP_DOWN_OMEGA, VP_SHIFT_TIME,   # 1 automatic; rad/s, rad/s, s
 VP_KICKDOWN_THROTTLE,                     # - throttle above which the automatic may kick down
 VP_KICKDOWN_HEADROOM, VP_KICKDOWN_BELOW,  # - kick-down limits as fractions of the upshift speed
 VP_SHIFT_HOLD,                            # s the automatic will not shift back the other way after a shift
 VP_LC_ON, VP_LC_OMEGA,                    # launch control: 1 on, 0 off; rad/s engine speed it holds
 VP_CLUTCH_K, VP_CLUTCH_T_MAX, VP_LAUNCH_OMEGA,   # N m s/rad clutch stiffness, N m its most torque, rad/s
 VP_SPLIT, VP_DIFF_F, VP_DIFF_R, VP_LSD_K, VP_LSD_T,   # front share, diff kinds (DIFF_*), N m s/rad, N m
 VP_WHEELBASE, VP_TRACK_F, VP_ACKERMANN, VP_STEER_LIMIT_V, VP_STEER_RATE,   # m, m, -, m/s, rad/s
 VP_STEER_TORQUE,                          # N m the most torque the rack turns a road wheel with
 VP_ABS_SLIP, VP_ABS_RELEASE, VP_ABS_APPLY,   # -, s, s
 VP_TC_SLIP, VP_TC_CUT, VP_TC_RESTORE,     # -, s, s
 VP_ESP_THRESHOLD, VP_ESP_GAIN, VP_ESP_CUT,   # stability control: rad/s, N m s/rad, s/rad
 VP_ESP_MU, VP_ESP_MIN_SPEED, VP_ESP_K,    # -, m/s, s^2/m (the single-track understeer coefficient)
 VP_UP_LIGHT, VP_BLIP,                     # -: upshift point's share with the pedal lifted; downshift throttle
 VP_REACH,                                 # m: the farthest a wheel's sweep or a hull point gets from the centre
                                           # of mass (the broad phase's radius, sim/kernel/broadphase.py vehicle_reach)
 VP_HOLD_STOP,                             # static friction's stop rule: HOLD_STOP_VELOCITY or _IMPULSE (parking)
 VP_HOLD_SOLVER,                           # static friction's solver: HOLD_SOLVER_ACCELERATED or _GRADIENT (parking)
 VP_LATERAL_THETA,                         # -: where in the substep the body takes the tires' lateral force
                                           # (0: at its start, the seed's explicit form; 0.5: at its middle)
 VP_HULL_CT_LIMIT,                         # N s: the hull's friction damping at substep h is at most this / h
                                           # (sim/advisor.py hull_friction_limit)
 VP_HULL_LAMBDA,                           # 1/kg: the hull's fastest mode per unit of penalty stiffness; its
                                           # k and c are held to h^2 k lambda + 2 h c lambda <= HULL_LOAD_CAP
 VP_HULL_BX, VP_HULL_BY, VP_HULL_BZ,       # m: the centre of the hull points' bounding box, body frame
 VP_HULL_HX, VP_HULL_HY, VP_HULL_HZ,       # m: its half extents (sim/kernel/collision.py clear_of_planes)
 VP_HULL_SIZE,                             # m: sum of |x| + |y| + |z| over the hull points (their rounding's size)
 VP_HULL_RADIUS,                           # m: the farthest hull point from the centre of mass (widened a little)
 VP_MASS_U,                                # kg: the four wheels' unsprung mass (0: massless wheels; VP_MASS is then
                                           # the sprung part; sim/kernel/unsprung.py, docs/physics.md §7.2)
 VP_SCALARS) = range(84)
VP_CURVE_RPM = VP_SCALARS                  # MAX_CURVE engine speeds (rpm)
VP_CURVE_NM = VP_CURVE_RPM + MAX_CURVE     # MAX_CURVE torques (N m)
VP_RATIO = VP_CURVE_NM + MAX_CURVE         # MAX_GEARS forward ratios
VP_N = VP_RATIO + MAX_GEARS

# --- wheel_params[v, w, :] -------------------------------------------------------------------------
(WP_AX, WP_AY, WP_AZ,                      # m anchor relative to the centre of mass, body frame
 WP_DX, WP_DY, WP_DZ,                      # suspension axis d, body frame, unit (points down)
 WP_R, WP_L0, WP_LMIN, WP_LMAX,            # m
 WP_K, WP_C, WP_ARB,                       # N/m, N s/m, N/m
 WP_CAMBER,                                # rad rotation of the axle about body x (side-signed)
 WP_CAMBER_COS, WP_CAMBER_SIN,             # - its cos and sin (the spin axis, sim/kernel/contact.py spin_axis)
 WP_QUERY,                                 # QUERY_RAY, QUERY_SPHERE or QUERY_DISC (sim/kernel/query.py)
 WP_MODEL,                                 # the tire family: MODEL_* (sim/kernel/tire/__init__.py)
 WP_IW, WP_GRIP, WP_CK, WP_CA, WP_VMIN, WP_ROLL,   # kg m^2, -, N, N/rad, m/s, -
 WP_BX, WP_CX, WP_DXF, WP_EX, WP_BY, WP_CY, WP_DYF, WP_EY,   # Magic Formula factors
 WP_TDRIVE, WP_TBRAKE, WP_THAND,           # N m at full input (T_DRIVE: direct drive only)
 WP_WMAX,                                  # rad/s direct drive: wheel speed where the torque reaches 0
 WP_STEERS,                                # 1 if the wheel steers, else 0
 WP_SHARE,                                 # share of the driveline torque that reaches this wheel's axle / 2
 WP_PARTNER,                               # index of the other wheel on the axle (anti-roll bar)
 WP_SPIN,                                  # SPIN_IMPLICIT or SPIN_EXPLICIT (sim/kernel/spin.py)
 WP_ALONG,                                 # ALONG_NORMAL or ALONG_AXIS (sim/kernel/suspension.py)
 WP_LOAD_SENS, WP_FZ0,                     # -, N: peak friction's load sensitivity and its nominal load
 # the 1996-style Magic Formula (tire model "mf96", sim/kernel/tire/mf96.py): pure slip with load dependence ...
 WP_PCX1, WP_PDX1, WP_PDX2, WP_PEX1, WP_PEX2, WP_PKX1, WP_PKX2, WP_PKX3,
 WP_PCY1, WP_PDY1, WP_PDY2, WP_PEY1, WP_PEY2, WP_PKY1, WP_PKY2,
 WP_RBX1, WP_RBX2, WP_RCX1, WP_RBY1, WP_RBY2, WP_RCY1,   # ... and its combined-slip weighting
 # ... and "mf61"'s camber and pressure terms (right after: the kernel reads WP_PCX1..WP_NOMPRES as one block)
 WP_PDX3, WP_PEX3, WP_PEX4, WP_PPX1, WP_PPX2, WP_PPX3, WP_PPX4, WP_PDY3, WP_PEY3, WP_PEY4, WP_PEY5, WP_PKY3,
 WP_PKY4, WP_PKY5, WP_PKY6, WP_PKY7, WP_PPY1, WP_PPY2, WP_PPY3, WP_PPY4, WP_PPY5, WP_PVY3, WP_PVY4,
 WP_PRESSURE, WP_NOMPRES,
 WP_SUS_MODEL,                             # SUS_REFERENCE or SUS_FGEAR (sim/kernel/suspension.py)
 WP_PRELOAD, WP_C_REBOUND, WP_STOP_C,      # N, N s/m, N s/m (fgear: the travel limit's damping, 0 = off)
 WP_RELAX,                                 # m relaxation length of the lateral force (0: none)
 WP_FRICTION_ON, WP_ROLLING_ON,            # kill switches (Simulation.set_switches): 1 on, 0 off
 WP_LOAD_RATIO, WP_FZ_STATIC,              # chaos tire: -, N (the static load its friction load blends with)
 WP_AVS_TAU, WP_AVS_PEAK, WP_AVS_BLEND,    # avs tire: s, rad, m/s
 WP_STOP_K,                                # N/m stiffness past l_min (10 k; avs: its support rate)
 WP_SLIP_FORM,                             # SLIP_REFERENCE or SLIP_FGEAR (sim/kernel/tire/slip.py)
 WP_CHAOS_CURVE,                           # chaos tire: 1 the lateral curve, 0 the cornering stiffness
 WP_STOP_LAM_S, WP_STOP_LAM_C, WP_STOP_LAM,   # the body's fastest modes per unit mass of the springs and bars
                                           # (1/s^2), dampers (1/s) and bump stops (1/s^2), the same on all four
                                           # wheels (sim/kernel/suspension.py held_stop_scale)
 WP_RELAX_VX,                              # 1: the relaxation's time constant from |vx| (seed 001), 0: contact speed
 # the suspension geometry (sim/kernel/linkage.py, docs/physics.md §7.1), all 0 for the seed's wheel on an axis
 WP_GEO,                                   # 1 when some of it acts on this wheel (0: the stages skip it, bit for bit)
 WP_SIDE,                                  # +1 a left wheel, -1 a right one
 WP_L_STATIC,                              # m: the length at static ride, where the travel z = l_static - l is 0
 WP_RC_TAN, WP_RC_TAN_SLOPE,               # -, 1/m: the roll-centre line's slope from the contact, h_rc / half
                                           # track, and its change per m of travel
 WP_ANTI_B, WP_ANTI_B_SLOPE,               # -, 1/m: the brakes' side-view line, -tan (front) or +tan (rear), and
                                           # its change per m of travel
 WP_ANTI_D, WP_ANTI_D_SLOPE,               # -, 1/m: the same for the drive's share of the longitudinal force
 WP_CAMBER_GAIN, WP_CAMBER_ROLL,           # rad/m: the axle's turn about body x (as WP_CAMBER) per m of travel,
                                           # and per m of the travel ahead of the other wheel of the axle
 WP_TOE, WP_BUMP_STEER,                    # rad, rad/m: the wheel's turn about body z (toe, side-signed), per m
 WP_PATH_REACH,                            # m: the farthest the wheel's path takes it from under its anchor
 # the wheel's own mass (sim/kernel/unsprung.py, docs/physics.md §7.2); WP_MU 0: the massless wheel, bit for bit
 WP_MU, WP_KT, WP_CT,                      # kg unsprung mass, N/m the tire's vertical stiffness, N s/m its damping
 WP_COMPLY,                                # rad/N: the wheel's turn about body z (+ left) per N of its side force
                                           # (body y) the bushings carry: compliance steer (§7.1)
 WP_CA_LOAD,                               # 1/rad: the cornering stiffness per N of load at the nominal load, with
                                           # a relaxation length (the carcass' lateral stiffness C_alpha / lambda)
 WP_N) = range(128)

# --- controls[v, :] --------------------------------------------------------------------------------
(CT_THROTTLE, CT_BRAKE, CT_STEER, CT_HANDBRAKE,   # [-1,1] ([0,1] with an engine), [0,1], [-1,1] (+ left), [0,1]
 CT_CLUTCH,                                # [0,1] pedal: 1 fully pressed (open)
 CT_SHIFT,                                 # -1 shift down, 0 none, +1 shift up
 CT_GEAR,                                  # requested gear: -1 reverse, 0 neutral, 1.. forward; NO_GEAR = none
 CT_ABS, CT_TC,                            # driver aids on (1) or off (0)
 CT_ESP,                                   # stability control on (1) or off (0)
 CT_STEER_ANGLE,                           # rad: the road wheels' mean angle, bypassing the rack (NO_STEER_ANGLE: none)
 CT_N) = range(12)

# --- body_state[v, :] ------------------------------------------------------------------------------
(BS_PX, BS_PY, BS_PZ,                      # m centre of mass, world
 BS_QW, BS_QX, BS_QY, BS_QZ,               # orientation body -> world
 BS_VX, BS_VY, BS_VZ,                      # m/s, world
 BS_WX, BS_WY, BS_WZ,                      # rad/s, world
 BS_N) = range(14)

# --- drive_state[v, :]: engine and gearbox ---------------------------------------------------------
(DS_OMEGA_E,                               # rad/s engine speed
 DS_H_ENGINE_X, DS_H_ENGINE_Y, DS_H_ENGINE_Z,   # N m s engine rotor angular momentum last committed (world)
 DS_GEAR, DS_GEAR_TARGET, DS_SHIFT_T,      # engaged gear (-1 R, 0 N, 1..), gear being shifted to, s left
 DS_TC,                                    # traction control's throttle factor 0..1
 DS_SINCE_SHIFT,                           # s since the last shift ended
 DS_LAST_SHIFT,                            # +1 the last shift went up, -1 down, 0 none yet
 DS_LAUNCH,                                # 1 while launch control runs a standing start
 DS_N) = range(12)

# --- wheel_state[v, w, :] --------------------------------------------------------------------------
(WS_OMEGA,                                 # rad/s spin, positive rolls forward
 WS_STEER,                                 # rad road-wheel angle, positive turns left
 WS_ANGLE,                                 # rad spin angle in [0, 2 pi) (drawing)
 WS_HX, WS_HY, WS_HZ,                      # N m s wheel spin angular momentum last committed (world)
 WS_SHAPE,                                 # shape id of the last contact (-1 airborne)
 WS_NX, WS_NY, WS_NZ,                      # last contact normal (for nDot)
 WS_ABS,                                   # ABS brake factor 0..1
 WS_LOCKED,                                # 1 while static friction holds the wheel (parking)
 WS_LRAW,                                  # m l_raw of the last contact (l_max airborne): how far a surface may jump
 WS_FY_LAG,                                # N the lateral force the relaxation length lets through (raw)
 WS_SX, WS_SY,                             # avs tire: the longitudinal and lateral slips following their targets
 WS_TRAVEL,                                # m: the last substep's bump travel z = l_static - l (geometry, §7.1)
 WS_LINK_SHARE,                            # -: the share of the load the links carry, from the last substep (§7.1)
 # the wheel's own mass (§7.2; all 0 and unused for a massless wheel)
 WS_XW, WS_VW,                             # m, m/s: the wheel's compression along its axis (x_w = l0 - l_w), its rate
 WS_UA,                                    # m/s^2: the body's acceleration at the wheel along -d, last substep
 WS_UPAIR,                                 # N: the axle's unsprung roll couple's share pressing this tire, last substep
 WS_UINIT,                                 # 1 once x_w is placed (0 after a reset: placed at the first substep)
 WS_UAX, WS_UAY,                           # m/s^2: the wheel's acceleration along body x and y, last substep (the
                                           # links pass the tire's force less m_u times it, §7.2)
 WS_COMPLY,                                # rad: the compliance steer from the last substep's side force (§7.1)
 WS_LINK_CUT,                              # -: 1 - the held share over the links' own (0 unless held, §7.1)
 WS_SINK,                                  # m: how far the wheel sits in a surface it met from the air (§6)
 WS_N) = range(29)

# --- wheel_scratch[v, w, :] and wheel_telemetry[v, w, :] (the last substep's); the first W_TELEMETRY are published
(W_S, W_A, W_L, W_LRAW, W_X, W_XDOT,      # m, -, m, m, m, m/s
 W_FS, W_FZ,                               # N
 W_VX, W_VY, W_KAPPA, W_ALPHA,             # m/s, m/s, -, rad
 W_FX_RAW, W_FY_RAW, W_FX, W_FY, W_GRIP_SCALE,   # N ..., -
 W_T_DRIVE, W_T_BRAKE,                     # N m: drive torque; brake torque actually applied (back-computed)
 W_OMEGA, W_RHO, W_R_EFF,                  # rad/s (at the start of the substep), m, m
 W_GROUNDED, W_SURFACE, W_SHAPE, W_MU, W_STEER,   # 0/1, index, id, -, rad
 W_QX, W_QY, W_QZ,                         # contact point Q, world
 W_NX, W_NY, W_NZ,                         # ground normal n
 W_TX, W_TY, W_TZ,                         # tire longitudinal axis t
 W_BX, W_BY, W_BZ,                         # tire lateral axis b
 W_CX, W_CY, W_CZ,                         # wheel centre C
 W_UX, W_UY, W_UZ,                         # wheel spin axis u
 W_FSX, W_FSY, W_FSZ,                      # suspension force on the body, world (N)
 W_FTX, W_FTY, W_FTZ,                      # tire force on the body, world (N)
 W_FRX, W_FRY, W_FRZ,                      # rolling resistance force, world (N)
 W_VGX, W_VGY, W_VGZ,                      # ground velocity at Q (m/s)
 W_ABS,                                    # 1 while ABS is easing this wheel's brake
 W_LOCKED,                                 # 1 when static friction held the contact this substep
 W_DFX,                                    # N per unit kappa: slope of the limited Fx at the operating point
 W_ESP,                                    # N m: the brake torque stability control asks of this wheel
 W_GAMMA,                                  # rad camber against the ground (+: the top leans to the tire's left)
 W_CAMBER_BODY, W_TOE,                     # rad: camber against the body (- top inward) and toe (+ toe-in), §7.1
 W_FZ_LINK,                                # N: the part of Fz the links carry (§7.1)
 W_TELEMETRY) = range(66)                  # the number of published columns
# scratch only
(W_T_BRAKE_MAX,                            # N m the brake may apply this substep (pedal, bias, ABS)
 W_OMEGA_NEXT,                             # rad/s spin after this substep, before the commit
 W_ROLL_SURF,                              # - the ground's rolling resistance coefficient under the wheel
 W_MF_DX, W_MF_EX, W_MF_DY, W_MF_EY,       # N, -, N, -: the Magic Formula's peak D and shape E of this substep,
                                           # longitudinal and lateral (D = 0: that curve is not a Magic Formula)
 W_MF_FX, W_MF_SLOPE, W_MF_FY,             # N, N, N: its longitudinal force and slope, its lateral D sin(...)
 W_MF_SLOPE_Y,                             # N/rad: the lateral curve's slope d(D sin(...))/d alpha
 W_KY,                                     # N s/m: how much the limited lateral force falls per m/s of lateral
                                           # contact speed (the body's implicit lateral update, sim/kernel/body.py)
 W_KY_NUM, W_KY_DEN,                       # the tire stage's W_KY = factor x max(0, num / den), the four
                                           # wheels' divisions done at once (sim/kernel/tire/stage.py)
 W_INV_V,                                  # s/m: 1 / max(|vx|, vMin), the slip ratio's and the spin stiffness's
 W_INV_A,                                  # -: 1 / a of a grounded wheel (the length's and the compression rate's)
 W_FROM_SLIP,                              # 1: the family's force follows the slip (0: chaos and avs, a torque's
                                           # request), so its slip power is a dissipation (sim/kernel/work.py)
 W_U_MU, W_U_GIVE,                         # kg, s: a wheel of its own mass, how much of it its spring side drags
                                           # with its carrier this substep, and its rate's change per m/s^2 of its
                                           # carrier's acceleration up its axis (sim/kernel/unsprung.py)
 W_U_SHIFTX, W_U_SHIFTY, W_U_SHIFTZ,       # m, world: how far across the ground the wheel's own contact is from
                                           # the rigid wheel's Q (0 for a massless wheel; sim/kernel/unsprung.py)
 W_N) = range(W_TELEMETRY, W_TELEMETRY + 23)

# --- body_telemetry[v, :] (the last substep) -------------------------------------------------------
(TB_GRAVITY_X, TB_GRAVITY_Y, TB_GRAVITY_Z,   # external forces by name, world (N)
 TB_DRAG_X, TB_DRAG_Y, TB_DRAG_Z,
 TB_DOWNFORCE_X, TB_DOWNFORCE_Y, TB_DOWNFORCE_Z,
 TB_ROLLING_X, TB_ROLLING_Y, TB_ROLLING_Z,
 TB_SUSPENSION_X, TB_SUSPENSION_Y, TB_SUSPENSION_Z,
 TB_TIRE_X, TB_TIRE_Y, TB_TIRE_Z,
 TB_COLLISION_X, TB_COLLISION_Y, TB_COLLISION_Z,
 TB_HULL_CONTACTS,                         # number of hull points touching the ground
 TB_HULL_DEPTH,                            # m: the deepest a hull point is inside the ground
 TB_RPM, TB_GEAR,                          # engine rpm, engaged gear (-1 R, 0 N, 1..)
 TB_T_ENGINE, TB_T_CLUTCH,                 # N m: engine torque (after throttle, limiter, braking), clutch
 TB_LOCK_F, TB_LOCK_R,                     # N m: differential locking torque, front and rear axle
 TB_TC_ACTIVE,                             # 1 while traction control cuts the engine
 TB_ESP_CUT,                               # stability control's throttle factor (1: no cut)
 TB_YAW_REF,                               # rad/s: the yaw rate the steering asks for (stability control)
 TB_HBODY_X, TB_HBODY_Y, TB_HBODY_Z,       # angular momentum about the centre of mass (N m s)
 TB_HWHEELS_X, TB_HWHEELS_Y, TB_HWHEELS_Z,
 TB_HENGINE_X, TB_HENGINE_Y, TB_HENGINE_Z,
 TB_HTOTAL_X, TB_HTOTAL_Y, TB_HTOTAL_Z,
 TB_WORK_SUSPENSION, TB_WORK_TIRE,         # J: work done on the body since the car was placed, by kind of force
 TB_WORK_PARKING, TB_WORK_COLLISION,       # (sim/kernel/work.py; the watchdog names the one that put energy in)
 TB_WORK_SPIN,                             # the spin ledger's torque (wheels and rotor turning with the body)
 TB_WORK_GROUND,                           # J: work the moving ground (platforms) did through the contacts
 TB_WORK_RACK,                             # J: work the steering rack did turning the spinning wheels (steering.py)
 TB_TIRE_MADE, TB_TIRE_LOST,               # J: energy the tires' slip made and lost, sum of max(0, +-F . v_slip) h
 TB_N) = range(54)

EXTERNAL_FORCES = {"gravity": TB_GRAVITY_X, "drag": TB_DRAG_X, "downforce": TB_DOWNFORCE_X,
                   "rolling": TB_ROLLING_X, "suspension": TB_SUSPENSION_X, "tire": TB_TIRE_X,
                   "collision": TB_COLLISION_X}
