"""envs.xla() against the Python front end, field for field, for every task family.

A jitted rollout (``lax.scan`` of ``step``) and the same pool made again and stepped through the
Python API, from the same seed with the same actions, must give the same result at every step:
the same structure (keys, tuple shapes), every leaf (obs, reward, terminated, truncated, every
info key) with the same value, and with the dtype jax gives the Python API's dtype (float64 as
float32, int64 as int32 without x64). Families: classic control, toy text, MuJoCo, multi-agent
(agents as rows, whose jitted results must be rows too), and the dm and gym front ends. Atari is
in tests/xla/test_atari.py (its plugin is installed only in scripts/ci_atari.sh).

Also here: the checks that no info array silently takes the place of another result name
(envpool/result_names.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import envpool
from envpool import tasks
from envpool.frontends.installed_gym import gym_front_end
from envpool.result_names import check_field_names, check_front_end_names, check_spec_names

pytestmark = pytest.mark.integration

jax = pytest.importorskip("jax", reason="envs.xla() needs jax: pip install 'envpool-ng[jax]'")
jnp = jax.numpy
lax = jax.lax
JaxRuntimeError = getattr(jax.errors, "JaxRuntimeError", Exception)

from support.xla_compare import (  # noqa: E402 - needs jax, skipped above without it
    assert_same_result,
    compare_with_python,
    ended,
    jitted_rollout,
    random_actions,
)

try:
    import mujoco  # noqa: F401

    HAS_MUJOCO = "Hopper-v5" in envpool.list_all_envs()
except ImportError:  # pragma: no cover - depends on the environment
    HAS_MUJOCO = False
needs_mujoco = pytest.mark.skipif(not HAS_MUJOCO, reason="MuJoCo tasks need mujoco-core at build and run time")


SINGLE_AGENT = [
    # task, envs, steps, kwargs, (needs terminations, needs truncations)
    pytest.param("CartPole-v1", 4, 300, {}, (True, False), id="CartPole-v1"),
    pytest.param("Pendulum-v1", 3, 200, {"max_episode_steps": 40}, (False, True), id="Pendulum-v1"),
    pytest.param("MountainCarContinuous-v0", 2, 200, {"max_episode_steps": 50}, (False, True), id="MountainCarCont"),
    pytest.param("Acrobot-v1", 2, 200, {"max_episode_steps": 60}, (False, True), id="Acrobot-v1"),
    pytest.param("FrozenLake-v1", 4, 300, {}, (True, False), id="FrozenLake-v1"),  # info prob (float64)
    pytest.param("Taxi-v4", 3, 300, {"max_episode_steps": 50}, (False, True), id="Taxi-v4"),  # info action_mask
    pytest.param("Blackjack-v1", 4, 300, {}, (True, False), id="Blackjack-v1"),  # a Tuple observation
    pytest.param("CliffWalking-v1", 3, 300, {"max_episode_steps": 40}, (False, True), id="CliffWalking-v1"),
    pytest.param("Hopper-v5", 3, 300, {}, (True, False), id="Hopper-v5", marks=needs_mujoco),
    pytest.param("Ant-v5", 2, 200, {"max_episode_steps": 60}, (False, True), id="Ant-v5", marks=needs_mujoco),
    pytest.param("Reacher-v5", 2, 150, {}, (False, True), id="Reacher-v5", marks=needs_mujoco),
]


@pytest.mark.parametrize("task,n,steps,kwargs,ends", SINGLE_AGENT)
def test_single_agent_families_equal_python_field_for_field(task, n, steps, kwargs, ends):
    wants = compare_with_python(task, n, steps, **kwargs)
    terminated, truncated = ended(wants)
    assert (terminated > 0, truncated > 0) >= ends, (terminated, truncated)  # episode ends were compared too


@pytest.mark.parametrize("task", ["FrozenLake-v1", pytest.param("Hopper-v5", marks=needs_mujoco)])
@pytest.mark.parametrize("env_type", ["gym", "dm"])
def test_gym_and_dm_front_ends_equal_python_field_for_field(task, env_type):
    if env_type == "dm":
        pytest.importorskip("dm_env")
    compare_with_python(task, 3, 120, env_type=env_type, max_episode_steps=30)


MULTI_AGENT = [
    # Every multi-agent task, with episodes short enough to end (and autoreset) several times.
    pytest.param("SimpleSpread-v3", {"max_cycles": 20}, id="SimpleSpread-v3"),
    pytest.param("SimpleTag-v3", {"max_cycles": 20}, id="SimpleTag-v3"),
    pytest.param("SimpleAdversary-v3", {"max_cycles": 20}, id="SimpleAdversary-v3"),
    pytest.param("TicTacToe-v3", {}, id="TicTacToe-v3"),
    pytest.param("ConnectFour-v3", {}, id="ConnectFour-v3"),
]


@pytest.mark.parametrize("task,kwargs", MULTI_AGENT)
def test_multi_agent_rows_equal_python_field_for_field(task, kwargs):
    """Agents as rows inside jit: obs (num_agents, ...), per-agent reward and flags, info with
    agent_id and all_done, as the Python front end."""
    wants = compare_with_python(task, 3, 200, **kwargs)
    obs, reward, terminated, truncated, info = wants[0]
    envs = envpool.make_spec(task, **kwargs).agents.num_slots * 3
    assert reward.shape == (envs,) and {"agent_id", "all_done", "active"} <= set(info)
    assert sum(int(w[4]["all_done"].sum()) for w in wants) > 0  # episodes ended and restarted


def test_multi_agent_actions_as_env_blocks_and_ids_per_row():
    """The front end's other action layout, (envs, agents, ...), and env_id per agent row
    (recv()'s info["env_id"]) or per env, as its Python step takes them."""
    a = envpool.make("SimpleSpread-v3", num_envs=2, seed=1)
    b = envpool.make("SimpleSpread-v3", num_envs=2, seed=1)
    a.reset(), b.reset()
    handle, _, _, step = a.xla()
    f = jax.jit(step)
    actions = random_actions(b.action_space, 12, seed=1)
    per_row, per_env = np.repeat([0, 1], 3), np.array([0, 1])
    for t, act in enumerate(actions):
        blocks = act.reshape(2, 3)
        env_id = (None, per_row, per_env)[t % 3]
        handle, got = f(handle, jnp.asarray(blocks)) if env_id is None else f(handle, jnp.asarray(blocks), env_id)
        want = b.step(blocks) if env_id is None else b.step(blocks, env_id)
        assert_same_result(got, want, f"step {t}: ")
    a.close(), b.close()


def test_multi_agent_shape_errors_name_the_rows_layout():
    envs = envpool.make("SimpleSpread-v3", num_envs=2)
    handle, _, send, step = envs.xla()
    envs.reset()
    with pytest.raises(ValueError, match=r"one row per agent row: shape \(6,\) for 2 envs of 3 agents \(or \(2, 3\)\)"):
        jax.jit(step)(handle, jnp.zeros(2, jnp.int32))
    with pytest.raises(ValueError, match=r"got \(6, 1\)"):
        jax.jit(step)(handle, jnp.zeros((6, 1), jnp.int32))
    # Per-row ids whose agent rows name different envs: refused when the call runs, sending nothing.
    bad = jnp.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(JaxRuntimeError, match=r"rows 0-2 \(the 3 agents of one env\) must name one env"):
        jax.block_until_ready(jax.jit(send)(handle, jnp.zeros(6, jnp.int32), bad))
    obs, *_ = envs.step(np.zeros(6, np.int64))  # nothing was sent: the pool steps on
    assert obs.shape == (6, 18)
    envs.close()


def _per_env(rows_by_step) -> dict[int, list]:
    """{env: [its rows' (obs, reward, terminated, truncated, agent_id) per batch]} in order."""
    out: dict[int, list] = {}
    for obs, reward, term, trunc, info in rows_by_step:
        ids = np.asarray(info["env_id"])
        for env in np.unique(ids):
            rows = ids == env
            parts = (obs, reward, term, trunc, info["agent_id"], info["all_done"])
            out.setdefault(int(env), []).append(tuple(np.asarray(p)[rows] for p in parts))
    return out


def test_multi_agent_async_recv_send_with_row_ids():
    """batch_size < num_envs: recv gives agent rows, send takes recv's per-row env ids back.
    Batches fill in finish order, so each env's own trajectory is compared (the policy reads
    only the observation)."""
    n, batch, steps, m = 6, 2, 60, 3
    kw = dict(num_envs=n, batch_size=batch, num_threads=2, seed=4, max_cycles=10)
    a = envpool.make("SimpleSpread-v3", **kw)
    b = envpool.make("SimpleSpread-v3", **kw)
    handle, recv, send, _ = a.xla()

    def body(h, _):
        h, result = recv(h)
        obs, info = result[0], result[4]
        h = send(h, (jnp.argmax(obs[:, :5], axis=1)).astype(jnp.int32), info["env_id"])
        return h, result

    a.async_reset()
    _, got = jax.jit(lambda h: lax.scan(body, h, None, length=steps))(handle)
    got_steps = [jax.tree_util.tree_map(lambda x, t=t: np.asarray(x[t]), got) for t in range(steps)]
    assert got_steps[0][0].shape == (batch * m, 18)
    b.async_reset()
    want_steps = []
    for _ in range(steps):
        result = b.recv()
        b.send(np.argmax(result[0][:, :5], axis=1), result[4]["env_id"])
        want_steps.append(result)
    for g, w in zip(got_steps[:3], want_steps[:3]):
        assert jax.tree_util.tree_structure(g) == jax.tree_util.tree_structure(w)
    got_env, want_env = _per_env(got_steps), _per_env(want_steps)
    assert sorted(got_env) == list(range(n))
    compared = 0
    for env in range(n):
        for g, w in zip(got_env[env], want_env.get(env, [])):
            for gi, wi in zip(g, w):
                np.testing.assert_array_equal(gi, wi.astype(gi.dtype))
            compared += 1
    assert compared >= steps * batch // 2
    a.close(), b.close()


def test_multi_agent_same_step_autoreset_rows():
    """Same-step autoreset: the ended step's per-agent rewards and flags, final_obs per agent
    row (dense inside jit, gymnasium's object array in Python: equal where the mask is set)."""
    kw = dict(num_envs=2, seed=3, max_cycles=6, autoreset_mode="same_step")
    a, b = envpool.make("SimpleSpread-v3", **kw), envpool.make("SimpleSpread-v3", **kw)
    a.reset(), b.reset()
    actions = random_actions(b.action_space, 30, seed=3)
    got = jitted_rollout(a, actions)
    finals = 0
    for t in range(len(actions)):
        want = b.step(actions[t])
        g = jax.tree_util.tree_map(lambda x, t=t: np.asarray(x[t]), got)
        g_info, w_info = g[4], want[4]
        plain = {k: v for k, v in g_info.items() if not k.endswith(("final_obs", "final_info"))}
        assert_same_result((*g[:4], plain), (*want[:4], {k: w_info[k] for k in plain}), f"step {t}: ")
        mask = g_info["_final_obs"]
        np.testing.assert_array_equal(mask, w_info.get("_final_obs", np.zeros_like(mask)))
        if mask.any():
            finals += 1
            np.testing.assert_array_equal(g_info["final_obs"][mask], np.stack(w_info["final_obs"][mask]))
            for key, value in w_info["final_info"].items():
                np.testing.assert_array_equal(
                    g_info["final_info"][key][mask], np.asarray(value)[mask].astype(g_info["final_info"][key].dtype)
                )
    assert finals >= 4
    a.close(), b.close()


def test_pettingzoo_views_are_refused():
    envs = envpool.make("SimpleSpread-v3", env_type="pettingzoo", num_envs=2)
    with pytest.raises(TypeError, match="env_type='gymnasium' \\(agents as rows"):
        envs.xla()
    envs.close()


# -- names: no info array silently hides another result ----------------------------------------------


def _raw(obs=("obs",), action=("action",), info=()):
    array = {"dtype": "float32", "shape": (), "low": [], "high": [], "discrete": False}
    return {
        kind: [dict(array, name=n) for n in names] for kind, names in (("obs", obs), ("action", action), ("info", info))
    }


@pytest.mark.parametrize(
    "raw,message",
    [
        (_raw(info=("lives", "lives")), "two info arrays named 'lives'"),
        (_raw(obs=("a", "a")), "two obs arrays named 'a'"),
        (_raw(action=("x", "x")), "two action arrays named 'x'"),
        (_raw(info=("env_id",)), "info array 'env_id' has the name of a key the pool's info holds itself"),
        (_raw(info=("final_info",)), "info array 'final_info' has the name of a key"),
        (_raw(info=("x", "_x")), "'_x' has the name of the mask that same-step autoreset's final_info gives 'x'"),
        (_raw(info=("_elapsed_step",)), "'_elapsed_step' has the name of the mask"),
    ],
)
def test_spec_names_that_would_hide_another_are_refused(raw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_spec_names("T-v0", raw)


def test_names_beside_the_pools_own_fields_are_fine():
    # Atari's info reward/terminated are not the pool's reward/terminated: both are kept.
    check_spec_names("T-v0", _raw(info=("lives", "reward", "terminated", "truncated", "obs", "_y")))


def test_make_spec_refuses_a_task_whose_names_collide(monkeypatch):
    real = tasks._core.env_spec

    def doubled(task_id, kwargs):
        raw = real(task_id, kwargs)
        raw["info"] = [*raw["info"], *raw["info"]]
        return raw

    monkeypatch.setattr(tasks._core, "env_spec", doubled)
    with pytest.raises(ValueError, match="FrozenLake-v1's spec has two info arrays named 'prob'"):
        envpool.make("FrozenLake-v1", num_envs=1)


@pytest.mark.parametrize("env_type", ["gym", "dm"])
def test_front_ends_refuse_info_arrays_named_as_their_own_keys(monkeypatch, env_type):
    """A front end that adds keys to info refuses a task with an info array of such a name (and
    closes the pool it opened); checked with FrozenLake's info ``prob`` posing as that key."""
    if env_type == "dm":
        pytest.importorskip("dm_env")
        from envpool.frontends import dm

        real = dm.check_front_end
        monkeypatch.setattr(
            dm, "check_front_end", lambda envs, added, fields: real(envs, (*added, "prob"), fields=fields)
        )
        match = "'prob' has the name of a key EnvPoolDmEnv adds to info itself"
    else:
        # The class env_type="gym" makes: EnvPoolGymEnv, or with gym installed one that follows
        # gym's API (gym 0.23.1 for CleanRL's scripts: LegacyGymEnvPool, which adds TimeLimit.truncated).
        front_end = gym_front_end()
        added = (*front_end._added_info_keys, "prob")
        monkeypatch.setattr(front_end, "_added_info_keys", added)
        match = f"'prob' has the name of a key {front_end.__name__} adds to info itself"
    with pytest.raises(ValueError, match=match):
        envpool.make("FrozenLake-v1", env_type=env_type, num_envs=1)
    with pytest.raises(ValueError, match="has the name of a key rows adds"):
        check_front_end_names("T-v0", ("env_id", "elapsed_step", "agent_id"), ("all_done", "agent_id"), "rows")
    check_front_end_names("T-v0", ("env_id", "elapsed_step"), ("env_id", "players", "elapsed_step"), "gym")


@pytest.mark.parametrize("name", ["_x", "1x", "class", "a-b"])
def test_dm_state_fields_must_be_identifiers(name):
    with pytest.raises(ValueError, match=f"info array {name!r} cannot be a field of dm's observation namedtuple"):
        check_field_names("T-v0", ("env_id", "elapsed_step", name), "dm")
    check_field_names("T-v0", ("env_id", "elapsed_step", "lives", "reward"), "dm")
