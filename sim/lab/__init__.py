"""The lab: the driver model, the test drives and validation, the model families' comparison, the
benchmark, telemetry logs and plots, and their command lines. Imports the API, the model and the kernel."""
