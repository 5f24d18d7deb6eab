"""``envs.xla()``: the pool stepped from inside ``jax.jit`` (docs/jax.md).

- ``calls``: the FFI calls ``xla()`` returns (imports jax);
- ``build``: compiles the handler library against the installed jaxlib at first use
  (``python -m envpool.xla.build`` does it ahead of time; needs no jax import).

Nothing is imported here, so ``envpool.xla.build`` works without jax.
"""
