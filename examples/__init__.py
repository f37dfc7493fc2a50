"""Examples built on vkpersist's public API (`python -m examples.fdtd3d`)."""
