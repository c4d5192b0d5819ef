"""Unit conversions used at the edges (config, UI) and in the engine's torque table, and the standard
gravity, in one place."""
import math

RPM = 60.0 / (2.0 * math.pi)               # rpm per rad/s: engine_rpm = omega * RPM
RAD_S_PER_RPM = 2.0 * math.pi / 60.0       # rad/s per rpm: omega = rpm * RAD_S_PER_RPM
KMH = 3.6                                  # km/h per m/s
GRAVITY = 9.81                             # m/s^2: standard gravity, the worlds' default and the g of "0.9 g"
