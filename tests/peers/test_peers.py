"""Users of the reference EnvPool's ecosystem, run on this envpool with at most the line that
builds the env changed: CleanRL's ppo.py and ppo_continuous_action.py (vendored unmodified in
cleanrl/, MIT), Tianshou 2.0's Collector and EnvPoolFactory, TorchRL's GymWrapper and GymEnv.
SB3's PPO/SAC: tests/integrations/test_sb3.py (scripts/ci_train.sh).

These need torch, tianshou, torchrl, tyro and tensorboard: scripts/ci_compat.sh makes a venv with
them; elsewhere the tests skip. Short runs: they check that the libraries run on envpool and
collect what they should, not that they learn.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import envpool

pytestmark = pytest.mark.integration

CLEANRL = pathlib.Path(__file__).with_name("cleanrl")

# -- CleanRL ---------------------------------------------------------------------------------------

# CleanRL builds `envs` from per-env gymnasium.make thunks in one statement; the replacement is
# one line: the same task from envpool through gymnasium's registry (the "envpool:" prefix makes
# gymnasium import envpool, so the script needs no import added), with the vector versions of
# the wrappers its make_env applies.
CLEANRL_ENVS = {
    "ppo.py": (
        'envs = gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec("envpool:envpool/" + args.env_id, '
        'num_envs=args.num_envs, vectorization_mode="vector_entry_point"))'
    ),
    "ppo_continuous_action.py": (
        "envs = gym.wrappers.vector.NormalizeReward(gym.wrappers.vector.NormalizeObservation("
        "gym.wrappers.vector.ClipAction(gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec("
        '"envpool:envpool/" + args.env_id, num_envs=args.num_envs, vectorization_mode="vector_entry_point")))), '
        "gamma=args.gamma)"
    ),
}
CLEANRL_ARGS = {
    "ppo.py": ["--env-id", "CartPole-v1", "--num-envs", "4", "--num-steps", "128", "--total-timesteps", "2048"],
    "ppo_continuous_action.py": [
        "--env-id",
        "Hopper-v5",
        "--num-envs",
        "2",
        "--num-steps",
        "256",
        "--total-timesteps",
        "2048",
        "--num-minibatches",
        "4",
        "--update-epochs",
        "2",
    ],
}
# Each run: (script, its arguments); the Box2D walker too (issue 39), through the same make_vec line.
CLEANRL_RUNS = [(script, CLEANRL_ARGS[script]) for script in sorted(CLEANRL_ARGS)] + [
    ("ppo_continuous_action.py", ["--env-id", "BipedalWalker-v3", *CLEANRL_ARGS["ppo_continuous_action.py"][2:]])
]


def cleanrl_with_envpool(script: str) -> str:
    """The script's source with its env construction replaced by CLEANRL_ENVS[script]."""
    source = (CLEANRL / script).read_text()
    construction = re.compile(r"^    envs = gym\.vector\.SyncVectorEnv\(\n.*?\n    \)\n", re.M | re.S)
    assert len(construction.findall(source)) == 1, f"{script}: the env construction moved"
    return construction.sub(lambda _: "    " + CLEANRL_ENVS[script] + "\n", source)


@pytest.mark.parametrize(("script", "args"), CLEANRL_RUNS, ids=[f"{s}-{a[1]}" for s, a in CLEANRL_RUNS])
def test_cleanrl_script_runs_on_envpool(script, args, tmp_path):
    for module in ("torch", "tyro", "torch.utils.tensorboard"):
        pytest.importorskip(module)
    patched = tmp_path / script
    patched.write_text(cleanrl_with_envpool(script))
    original, changed = (CLEANRL / script).read_text().splitlines(), patched.read_text().splitlines()
    assert len(original) - len(changed) == 2  # three lines became one, nothing else moved
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, str(patched), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    iterations = 2048 // int(args[3]) // int(args[5])
    assert result.stdout.count("SPS:") == iterations, result.stdout[-2000:]
    assert any((tmp_path / "runs").iterdir())  # its tensorboard log


# -- Tianshou ----------------------------------------------------------------------------------------


def _tianshou_policy(obs_dim: int, num_actions: int):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
    from tianshou.utils.net.common import Net
    from tianshou.utils.net.discrete import DiscreteActor

    actor = DiscreteActor(preprocess_net=Net(state_shape=obs_dim, hidden_sizes=[16]), action_shape=num_actions)
    return DiscreteActorPolicy(actor=actor, action_space=gym.spaces.Discrete(num_actions))


def test_tianshou_collector_on_its_envpool_factory():
    policy = _tianshou_policy(4, 2)
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.highlevel.env import EnvMode, EnvPoolFactory

    envs = EnvPoolFactory().create_venv("CartPole-v1", 4, EnvMode.TRAINING, 0, {})
    collector = Collector(policy, envs, VectorReplayBuffer(4000, len(envs)))
    collector.reset()
    stats = collector.collect(n_step=400)
    assert stats.n_collected_steps == 400
    # n_episode: envs whose episode ends once enough are running stop stepping (a subset step).
    stats = collector.collect(n_episode=10)
    assert stats.n_collected_episodes == 10
    lengths = np.asarray(stats.lens)
    assert len(lengths) == 10 and (lengths >= 8).all() and (lengths <= 500).all()
    envs.close()


def test_tianshou_collector_on_the_gym_front_end_with_random_actions():
    policy = _tianshou_policy(4, 2)
    from tianshou.data import Collector, VectorReplayBuffer

    envs = envpool.make("CartPole-v1", env_type="gym", num_envs=3, seed=1)
    collector = Collector(policy, envs, VectorReplayBuffer(3000, len(envs)))
    collector.reset()
    assert collector.collect(n_step=300, random=True).n_collected_steps == 300
    assert collector.collect(n_episode=6).n_collected_episodes == 6
    envs.close()


# -- TorchRL -------------------------------------------------------------------------------------------


def _torchrl_envs():
    """``torchrl.envs``, imported with the Procgen oracle hidden: torchrl.envs imports every
    library ``find_spec`` finds, and the oracle in .test-oracles/ (tests/conftest.py puts it on the
    path) is installed without gym, which its ``procgen/__init__`` imports (tests/envs/procgen/oracle.py
    loads it around that)."""
    pytest.importorskip("torchrl")
    with pytest.MonkeyPatch.context() as patch:
        if "procgen" not in sys.modules:
            patch.setitem(sys.modules, "procgen", None)  # find_spec("procgen") is None
        import torchrl.envs
    return torchrl.envs


@pytest.mark.parametrize("mode", ["same_step", "disabled"])
def test_torchrl_gym_wrapper_rollout(mode):
    GymWrapper = _torchrl_envs().GymWrapper

    env = GymWrapper(envpool.make("CartPole-v1", num_envs=4, seed=0, autoreset_mode=mode))
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout.batch_size == (4, 300)
    terminated = rollout["next", "terminated"].squeeze(-1).numpy()
    assert terminated.sum() >= 4
    # A terminated step's next observation is the episode's last (out of CartPole's bounds),
    # not the next episode's first.
    last = rollout["next", "observation"].numpy()[terminated]
    assert ((np.abs(last[:, 0]) > 2.4) | (np.abs(last[:, 2]) > 12 * 2 * np.pi / 360)).all()
    env.close()


def test_torchrl_refuses_next_step_autoreset():
    GymWrapper = _torchrl_envs().GymWrapper

    envs = envpool.make("CartPole-v1", num_envs=2)
    with pytest.raises(RuntimeError, match="SAME_STEP or DISABLED"):
        GymWrapper(envs)
    envs.close()


def test_torchrl_gym_env_by_id():
    GymEnv = _torchrl_envs().GymEnv

    assert gym.spec("envpool/CartPole-v1").entry_point is not None  # the single-env entry point
    # "envpool:" makes gymnasium import envpool (its registrations) in the vector env's fresh worker processes.
    env = GymEnv("envpool:envpool/CartPole-v1", num_envs=2)
    assert env.rollout(20, break_when_any_done=False).batch_size == (2, 20)
    env.close()
