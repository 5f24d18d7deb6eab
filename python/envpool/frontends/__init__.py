"""Front ends: the APIs a pool is presented through, all over one :class:`~envpool.frontends.pool.PoolFrontEnd`.

- ``pool``: :class:`PoolFrontEnd` (arguments, seeding, ``send``/``recv``/``step`` over the core
  pool, ``xla()``) and :class:`OpenedPool` (what a pool source hands the front end);
- ``vector_env`` / ``vector_calls``: gymnasium's ``VectorEnv`` (``env_type="gymnasium"``) and its
  ``AsyncVectorEnv``-style split calls;
- ``gym_env``, ``legacy_gym``, ``installed_gym``: the reference EnvPool's ``env_type="gym"``,
  for whichever ``gym`` is installed;
- ``dm``: ``dm_env`` (``env_type="dm"``);
- ``single_env``: one env for ``gymnasium.make("envpool/<task>")``.
"""
