"""envs.xla() on the Atari plugin against the Python front ends, field for field.

Atari's info holds arrays named as the pool's own fields: ``reward`` (the game's, unclipped)
and ``terminated`` (game over, int32), beside the pool's ``reward`` (clipped with
``reward_clip=True``) and ``terminated`` (a life lost with ``episodic_life=True``, bool). Inside
jit each must arrive where the Python API puts it (CleanRL's ``ppo_atari_envpool_xla_jax*.py``
reads both). Needs the plugin (envpool-ng-atari) and jax: scripts/ci_atari.sh runs this file in
its CleanRL part, where both are installed (and gym 0.23.1, so ``env_type="gym"`` is that gym's
four-value API there); elsewhere it skips.
"""

from __future__ import annotations

import pytest

import envpool

pytestmark = pytest.mark.integration

jax = pytest.importorskip("jax", reason="envs.xla() needs jax: pip install 'envpool-ng[jax]'")
if "Breakout-v5" not in envpool.list_all_envs():
    pytest.skip("the Atari plugin (envpool-ng-atari) is not installed", allow_module_level=True)

from support.xla_compare import compare_with_python  # noqa: E402 - needs jax, skipped above without it

# CleanRL's kwargs (ppo_atari_envpool_xla_jax.py).
CLEANRL = dict(episodic_life=True, reward_clip=True)


def _info(result):
    return result[-1] if isinstance(result, tuple) else result.observation._asdict()


def test_episodic_life_ends_and_pool_fields_equal_python():
    """Breakout with episodic_life: the pool's terminated is set at every life lost, info's
    terminated only at game over; inside jit both must be the Python API's (bool, not int32)."""
    wants = compare_with_python("Breakout-v5", 4, 400, seed=1, **CLEANRL)
    lives_lost = sum(int(w[2].sum()) for w in wants)
    game_overs = sum(int(w[4]["terminated"].sum()) for w in wants)
    assert lives_lost > game_overs, (lives_lost, game_overs)  # the rollout saw life losses


def test_clipped_reward_and_info_reward_equal_python():
    """SpaceInvaders scores 5-30 per alien: the pool's reward is clipped to 1, info's is not."""
    wants = compare_with_python("SpaceInvaders-v5", 4, 300, seed=2, **CLEANRL)
    assert any((w[4]["reward"] > w[1]).any() for w in wants)  # clipped rewards were compared


@pytest.mark.parametrize("env_type", ["gym", "dm"])
def test_gym_and_dm_front_ends_equal_python(env_type):
    """CleanRL's env_type='gym' (with gym 0.21-0.25 installed: (obs, reward, done, info) with
    info['TimeLimit.truncated']) and dm (discount from info with zero_discount_on_life_loss)."""
    if env_type == "dm":
        pytest.importorskip("dm_env")
        kwargs = dict(CLEANRL, zero_discount_on_life_loss=True)
    else:
        kwargs = CLEANRL
    wants = compare_with_python("Breakout-v5", 3, 300, seed=3, env_type=env_type, max_episode_steps=150, **kwargs)
    if env_type == "dm":
        assert any((w.discount == 0).any() for w in wants)  # life losses were compared
    else:
        assert any((_info(w)["lives"] < 5).any() for w in wants)
