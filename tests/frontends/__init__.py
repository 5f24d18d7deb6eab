"""The front ends (envpool.frontends): gymnasium vector envs, gym, dm_env, single envs, seeding,
the reference EnvPool's API and the layer rules."""
