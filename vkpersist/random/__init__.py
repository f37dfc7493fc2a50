"""vkpersist.random: counter-based random numbers (Philox4x32-10) on the device."""
from ._philox import Generator, default_rng, philox4x32, philox_normal, philox_uniform

__all__ = ["Generator", "default_rng", "philox4x32", "philox_normal", "philox_uniform"]
