"""The model: the parameter schema with units and ranges, vehicle and world files (TOML), the geometry
derived from the parameters, and the packing of both into the kernel's tables. Imports the kernel (and
the config package's folder) only."""
