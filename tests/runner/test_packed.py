"""PackedEpisodes (how RunnerGroup's runners send episodes) carry every field of every episode."""

from __future__ import annotations

import pickle

import pytest

import envpool

from .oracle import LIMIT, SEED, NestedCartPole, nested_policy, same_episode


@pytest.mark.parametrize("kind", ["native", "nested"])
def test_packed_episodes_travel_whole(kind):
    """PackedEpisodes (how RunnerGroup's runners send episodes): pickled and unpacked, every
    episode comes back with every field, also nested observations, steps without extras
    (random actions) and kept infos."""
    from envpool.runner.packed import PackedEpisodes

    kwargs = dict(num_envs=3, seed=SEED)
    if kind == "native":
        envs = envpool.make("CartPole-v1", max_episode_steps=LIMIT, **kwargs)
    else:
        envs = envpool.make_python(NestedCartPole, num_workers=2, **kwargs)
    with envs:
        runner = envpool.EnvRunner(envs, nested_policy, keep_infos=kind == "native")
        episodes = runner.sample(num_timesteps=40, random_actions=True)  # chunks without extras
        episodes += runner.sample(num_timesteps=90)
    packed = pickle.loads(pickle.dumps(PackedEpisodes(episodes)))
    back = packed.unpack()
    assert len(packed) == len(back) == len(episodes) > 3
    assert any(not e.extras for e in episodes) and any(e.extras for e in episodes)
    ids: dict = {}
    for a, b in zip(episodes, back):
        assert a.id == b.id
        same_episode(a, b, ids)
        assert len(a.infos) == len(b.infos) and all(x.keys() == y.keys() for x, y in zip(a.infos, b.infos))
    assert PackedEpisodes([]).unpack() == []
