"""Hostile input to the multi-agent front ends (issue 35): an env error in a batch whose every env
failed reaches the caller as the EnvError it is (agent rows over make_python), PettingZoo views
refuse actions that do not fit an agent's space instead of casting or broadcasting them, and a
ParallelEnv without agents is refused at make_python with the reason."""

from __future__ import annotations

import numpy as np
import pytest

import envpool
from envpool.errors import EnvError

pettingzoo = pytest.importorskip("pettingzoo")

M = 3  # agents of AgentCounter-v0 and of its Python twin (tests/support/agent_twin.py)


def _failing_twin(fail_at: int):
    """A factory of AgentCounterTwin envs whose step number ``fail_at`` of every episode raises
    (the class is made in the worker, so that cloudpickle sends the factory by value)."""

    def make():
        from support.agent_twin import AgentCounterTwin

        class FailingTwin(AgentCounterTwin):
            def step(self, actions):
                if self.steps + 1 == fail_at:
                    raise RuntimeError(f"step {fail_at} fails on purpose")
                return super().step(actions)

        return FailingTwin()

    return make


def _check_failed_rows(err: EnvError, failed: list[int]) -> None:
    """``err``'s batch is in agent rows, and the failed envs' rows read truncated without reward."""
    assert sorted(err.env_ids) == failed
    assert all("step 2 fails on purpose" in m for m in err.messages)
    obs, rew, term, trunc, info = err.result
    rows = len(info["env_id"])
    assert obs.shape == (rows, 4) and rew.shape == trunc.shape == (rows,)
    assert info["agent_id"].tolist() == [0, 1, 2] * (rows // M)
    failed_rows = np.isin(info["env_id"], failed)
    assert trunc[failed_rows].all() and not rew[failed_rows].any() and not term[failed_rows].any()
    assert not info["active"][failed_rows].any()


# -- item 7: an all-failed batch over make_python ------------------------------------------------


@pytest.mark.parametrize("num_envs", [1, 2])
def test_a_batch_whose_every_env_failed_raises_its_env_error(num_envs):
    envs = envpool.make_python(_failing_twin(2), num_envs=num_envs, num_workers=1)
    try:
        envs.reset(seed=0)
        envs.step(np.ones(M * num_envs, dtype=np.int64))
        with pytest.raises(EnvError) as caught:
            envs.step(np.ones(M * num_envs, dtype=np.int64))
        _check_failed_rows(caught.value, list(range(num_envs)))
        # The pool goes on: the failed envs restart (next-step autoreset), then step again.
        obs, rew, term, trunc, info = envs.step(np.ones(M * num_envs, dtype=np.int64))
        assert info["elapsed_step"].tolist() == [0] * (M * num_envs)
        assert info["active"].tolist() == [True, True, False] * num_envs and not rew.any()
        obs, rew, term, trunc, info = envs.step(np.ones(M * num_envs, dtype=np.int64))
        assert rew.tolist() == [1.0, 2.0, 0.0] * num_envs
    finally:
        envs.close()


def test_an_async_batch_of_one_failed_env_raises_its_env_error():
    envs = envpool.make_python(_failing_twin(2), num_envs=2, batch_size=1, num_workers=2)
    try:
        envs.async_reset()
        errors = 0
        for _ in range(12):
            try:
                info = envs.recv(timeout=60)[4]
            except EnvError as err:
                _check_failed_rows(err, [int(err.result[4]["env_id"][0])])
                info = err.result[4]
                errors += 1
            assert len(info["env_id"]) == M
            envs.send(np.ones(M, dtype=np.int64), info["env_id"])
        assert errors >= 2  # each env failed in its second step
    finally:
        envs.close()


def test_an_async_env_error_comes_with_the_batch_that_holds_its_row():
    """Errors were the pool's since the last batch: an env that failed while an earlier batch was
    being taken was reported with that batch (naming an env not in it), and its own row came
    without an error. Native envs, one env per batch, every env failing in its second step."""
    envs = envpool.make("AgentCounter-v0", num_envs=4, batch_size=1, num_threads=2, fail_at=2)
    try:
        envs.async_reset()
        errors = 0
        for _ in range(60):
            try:
                info = envs.recv(timeout=60)[4]
                assert not info["elapsed_step"].any() or info["elapsed_step"][0] == 1  # no failed row
            except EnvError as err:
                info = err.result[4]
                assert err.env_ids == [int(info["env_id"][0])], (err.env_ids, info["env_id"])
                assert err.result[3].all()
                errors += 1
            envs.send(np.ones(M, dtype=np.int64), info["env_id"])
        assert errors >= 8
    finally:
        envs.close()


# -- item 8: PettingZoo views refuse actions that do not fit the agent's space -------------------


def _discrete_view(kind: str):
    """One AgentCounter-v0 env (agents' actions: Discrete(3)) as a PettingZoo view: the native task,
    or its Python twin in a make_python worker."""
    if kind == "native":
        return envpool.make("AgentCounter-v0", env_type="pettingzoo")
    from support.agent_twin import AgentCounterTwin

    return envpool.make_python(AgentCounterTwin, env_type="pettingzoo", num_workers=1)


@pytest.mark.parametrize("kind", ["native", "make_python"])
def test_views_refuse_discrete_actions_that_are_not_integers(kind):
    env = _discrete_view(kind)
    try:
        env.reset(seed=0)
        bad = [
            (2.7, TypeError, r"'agent_0' must be an integer \(Discrete\(3\)\), got 2\.7"),
            ("1", TypeError, r"'agent_0' must be an integer.*got '1'"),
            (True, TypeError, r"'agent_0' must be an integer.*got True"),
            (np.float64(1.0), TypeError, r"'agent_0' must be an integer"),
            (np.array([1]), TypeError, r"'agent_0' must be an integer"),
            (3, ValueError, r"env 0: the action for 'agent_0' is 3, outside Discrete\(3\)"),
            (-1, ValueError, r"'agent_0' is -1, outside Discrete\(3\)"),
        ]
        for action, error, message in bad:
            with pytest.raises(error, match=message):
                env.step({"agent_0": action, "agent_1": 1})
        # Nothing was stepped by the refused calls; integers of any integer type are taken.
        obs, rew, term, trunc, info = env.step({"agent_0": np.int32(2), "agent_1": np.array(1)})
        assert rew == {"agent_0": 2.0, "agent_1": 2.0}
        assert obs["agent_1"][:3].tolist() == [1, 1, 1]  # step 1, slot 1, last action 1
    finally:
        env.close()


def _spread_continuous():
    from mpe2 import simple_spread_v3

    return simple_spread_v3.parallel_env(continuous_actions=True)


@pytest.mark.parametrize("kind", ["native", "make_python"])
def test_views_refuse_box_actions_of_another_shape_or_type(kind):
    if kind == "native":
        env = envpool.make("SimpleSpread-v3", env_type="pettingzoo", continuous_actions=True)
    else:
        pytest.importorskip("mpe2")
        env = envpool.make_python(_spread_continuous, env_type="pettingzoo", num_workers=1)
    try:
        env.reset(seed=0)
        good = {a: np.full(5, 0.5, np.float32) for a in env.agents}
        bad = [
            (0.5, ValueError, r"env 0: the action for 'agent_1' must have shape \(5,\).*got shape \(\)"),
            ([0.5] * 4, ValueError, r"'agent_1' must have shape \(5,\).*got shape \(4,\)"),
            (np.zeros((1, 5)), ValueError, r"'agent_1' must have shape \(5,\).*got shape \(1, 5\)"),
            (["0.5"] * 5, TypeError, r"'agent_1' must hold real numbers.*got <U3 values"),
            ([True] * 5, TypeError, r"'agent_1' must hold real numbers.*got bool values"),
            ([[0.5], [0.5, 0.5]], TypeError, r"'agent_1' is not an array"),
        ]
        for action, error, message in bad:
            with pytest.raises(error, match=message):
                env.step({**good, "agent_1": action})
        obs, rew, term, trunc, info = env.step({**good, "agent_1": [0, 1, 0, 1, 0]})  # ints and lists are taken
        assert set(rew) == set(good) and all(np.isfinite(r) for r in rew.values())
    finally:
        env.close()


def test_parallel_envs_step_refuses_a_cast_naming_the_env_and_the_agent():
    envs = envpool.make("AgentCounter-v0", env_type="pettingzoo", num_envs=2)
    try:
        envs.reset(seed=0)
        with pytest.raises(TypeError, match=r"env 1: the action for 'agent_1' must be an integer"):
            envs.step([{"agent_0": 1, "agent_1": 1}, {"agent_0": 1, "agent_1": 1.0}])
        got = envs.step([{"agent_0": 1, "agent_1": 1}] * 2)
        assert [r[1] for r in got.tolist()] == [{"agent_0": 1.0, "agent_1": 2.0}] * 2  # the first step of each
    finally:
        envs.close()


# -- item 14: a ParallelEnv without agents -------------------------------------------------------


def _no_agents():
    from support.agent_twin import AgentCounterTwin

    env = AgentCounterTwin()
    env.possible_agents = []
    return env


def _twice_the_same_agent():
    from support.agent_twin import AgentCounterTwin

    env = AgentCounterTwin()
    env.possible_agents = ["agent_0", "agent_1", "agent_0"]
    return env


@pytest.mark.parametrize("env_type", ["gymnasium", "pettingzoo"])
def test_make_python_refuses_a_parallel_env_without_agents(env_type):
    with pytest.raises(ValueError, match=r"AgentCounterTwin has no possible_agents: a multi-agent env needs at least"):
        envpool.make_python(_no_agents, num_envs=2, num_workers=1, env_type=env_type)
    with pytest.raises(ValueError, match=r"lists agents twice in possible_agents: \['agent_0'\]"):
        envpool.make_python(_twice_the_same_agent, num_envs=2, num_workers=1, env_type=env_type)
