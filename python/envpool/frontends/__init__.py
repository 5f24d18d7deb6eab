"""Front ends: the APIs a pool is presented through, all over one :class:`~envpool.frontends.pool.PoolFrontEnd`.

- ``sources``: where a pool comes from: :class:`PoolSource` (``NativeSource`` here; the process
  and external ones in their subpackages), :class:`OpenedPool` (what a source hands the front
  end) and ``CorePoolAdapter`` (the process and external pools' shared calls);
- ``pool``: :class:`PoolFrontEnd` (adopting a source's pool, seeding, ``send``/``recv``/``step``
  over it, ``xla()``);
- ``vector_env`` / ``vector_calls``: gymnasium's ``VectorEnv`` (``env_type="gymnasium"``) and its
  ``AsyncVectorEnv``-style split calls;
- ``gym_env``, ``legacy_gym``, ``installed_gym``: the reference EnvPool's ``env_type="gym"``,
  for whichever ``gym`` is installed;
- ``dm``: ``dm_env`` (``env_type="dm"``);
- ``single_env``: one env for ``gymnasium.make("envpool/<task>")``.
"""
