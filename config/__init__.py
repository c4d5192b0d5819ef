"""Data package: TOML presets for vehicles (`vehicles/`), worlds (`worlds/`) and bindings."""
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
