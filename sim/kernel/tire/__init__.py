"""The tires (docs/physics.md §8, docs/models.md): the stage (stage.py) and one file per family, each with
the same forces signature the stage calls (see stage.py):

    linear.py   Ck kappa, -Ca alpha (seed 000's reference tire)
    magic.py    the Pacejka Magic Formula with four coefficients a direction ("magic"), and FGear's curve
                without E ("simple"); their curves for the four wheels at once
    mf96.py     the 1996-style Magic Formula with load dependence and combined-slip weights
    mf61.py     its MF 6.1-style extension with camber and inflation pressure
                (mf_combined.py: the two families' combined-slip forces and slopes, the stage's call)
    chaos.py    Unreal Chaos's wheel: a force request from the wheel's torque, scaled onto the grip
    avs.py      AVS's ray wheel: target slips followed over time

and what they share: slip.py (the slip definitions), limit.py (load sensitivity, the combined friction
limit and its effect on the slopes, the relaxation length's lag). The family codes below are what
`wheel_params[..., WP_MODEL]` holds."""

MODEL_LINEAR, MODEL_MAGIC, MODEL_SIMPLE, MODEL_MF96, MODEL_MF61, MODEL_CHAOS, MODEL_AVS = 0, 1, 2, 3, 4, 5, 6
TIRE_MODELS = {"linear": MODEL_LINEAR, "magic": MODEL_MAGIC, "simple": MODEL_SIMPLE, "mf96": MODEL_MF96,
               "mf61": MODEL_MF61, "chaos": MODEL_CHAOS, "avs": MODEL_AVS}
