"""envs.xla() (envpool.xla): the pool stepped inside jax.jit."""
