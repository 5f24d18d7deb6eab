"""The MPE tasks (SimpleSpread-v3, SimpleTag-v3, SimpleAdversary-v3) against mpe2 1.1.1, bit for bit.

Trajectories from the same seeds (a pool's env i against mpe2 reset with seed + i, through
truncation at max_cycles and the autoreset after it), steps from the same written states
(overlapping entities: contact forces; fast agents: max_speed), the spec against mpe2's spaces,
and an out-of-range action. The envs are reached through the raw core pool, behind the small
adapter below (to be switched to the PettingZoo front end once it exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

mpe2 = pytest.importorskip("mpe2")
from mpe2 import simple_adversary_v3, simple_spread_v3, simple_tag_v3  # noqa: E402
from pettingzoo.utils.env_logger import EnvLogger  # noqa: E402

from envpool.frontends.sources import NativeSource, PoolOptions  # noqa: E402

EnvLogger.suppress_output()  # mpe2 warns on every clipped continuous action


# ---------------------------------------------------------------------------------------------
# Adapter: our envs as batched arrays (num_envs, num_agents, ...), one row per env id.


@dataclass
class Batch:
    obs: np.ndarray  # (num_envs, num_agents, max_obs_dim) float32
    reward: np.ndarray  # (num_envs,) the env-level reward
    terminated: np.ndarray  # (num_envs,)
    truncated: np.ndarray  # (num_envs,)
    agent_reward: np.ndarray  # (num_envs, num_agents)
    agent_terminated: np.ndarray
    agent_truncated: np.ndarray
    active: np.ndarray
    needs_action: np.ndarray


AGENT_INFO = ("agent_reward", "agent_terminated", "agent_truncated", "active", "needs_action")


class OurEnvs:
    def __init__(self, task_id: str, num_envs: int, seed: int, **kwargs: Any) -> None:
        options = PoolOptions(num_envs=num_envs, seed=seed, num_threads=1)
        opened = NativeSource(task_id, options, **kwargs).open_pool()
        self.pool = opened.pool
        self.spec = self.pool.spec
        self.num_envs = num_envs

    def _batch(self, result) -> Batch:
        obs, rew, term, trunc, info = result
        order = np.argsort(info["env_id"])
        return Batch(
            obs[order],
            rew[order],
            term[order],
            trunc[order],
            *(info[key][order] for key in AGENT_INFO),
        )

    def reset(self) -> Batch:
        self.pool.send_reset(None, None, None, True)
        return self._batch(self.pool.recv(-1.0))

    def step(self, actions: np.ndarray) -> Batch:
        return self._batch(self.pool.step(actions, None, -1.0))

    def get_state(self, env_id: int) -> np.ndarray:
        return np.asarray(self.pool.get_state(env_id))

    def set_state(self, env_id: int, state) -> None:
        self.pool.set_state(env_id, [float(v) for v in state])


# ---------------------------------------------------------------------------------------------
# The reference and the configurations tested.

MODULES = {
    "SimpleSpread-v3": simple_spread_v3,
    "SimpleTag-v3": simple_tag_v3,
    "SimpleAdversary-v3": simple_adversary_v3,
}

# (task, kwargs): defaults and non-default sizes, each with discrete and continuous actions.
CONFIGS = [
    ("SimpleSpread-v3", {}),
    ("SimpleSpread-v3", {"N": 5, "local_ratio": 0.25, "max_cycles": 12}),
    ("SimpleTag-v3", {}),
    ("SimpleTag-v3", {"num_good": 2, "num_adversaries": 2, "num_obstacles": 1, "max_cycles": 15}),
    ("SimpleAdversary-v3", {}),
    ("SimpleAdversary-v3", {"N": 4, "max_cycles": 10, "dynamic_rescaling": False}),
    # Sizes at their extremes, as mpe2 takes them (issue 35: SimpleTag-v3 without adversaries
    # wrote its rows 14 wide, the adversaries' width, into 12-wide rows: a heap overflow).
    ("SimpleSpread-v3", {"N": 1, "max_cycles": 3}),
    ("SimpleTag-v3", {"num_good": 2, "num_adversaries": 0}),
    ("SimpleTag-v3", {"num_good": 1, "num_adversaries": 0, "num_obstacles": 0}),
    ("SimpleTag-v3", {"num_good": 0, "num_adversaries": 2, "num_obstacles": 5, "max_cycles": 4}),
    ("SimpleAdversary-v3", {"N": 1}),
]
CASES = [(task, {**kwargs, "continuous_actions": cont}) for task, kwargs in CONFIGS for cont in (False, True)]


def case_id(task_id: str, kwargs: dict) -> str:
    sizes = "-".join(f"{k}{v}" for k, v in kwargs.items() if k != "continuous_actions") or "default"
    return f"{task_id}-{'cont' if kwargs['continuous_actions'] else 'disc'}-{sizes}"


IDS = [case_id(task, kw) for task, kw in CASES]


def make_ref(task_id: str, **kwargs: Any):
    return MODULES[task_id].parallel_env(**kwargs)


def random_actions(rng: np.random.Generator, num_envs: int, num_agents: int, continuous: bool) -> np.ndarray:
    if continuous:  # partly outside [0, 1]: both sides clip
        return rng.uniform(-0.25, 1.25, (num_envs, num_agents, 5)).astype(np.float32)
    return rng.integers(0, 5, (num_envs, num_agents), dtype=np.int64)


def ref_actions(ref, row: np.ndarray, continuous: bool) -> dict:
    if continuous:
        return {name: row[k].copy() for k, name in enumerate(ref.possible_agents)}
    return {name: int(row[k]) for k, name in enumerate(ref.possible_agents)}


def check_obs(ours: np.ndarray, ref_obs: dict, names: list[str], where: str) -> None:
    for k, name in enumerate(names):
        want = ref_obs[name]
        assert want.dtype == np.float32
        d = want.shape[0]
        assert np.array_equal(ours[k, :d], want), f"{where}: obs of {name}: {ours[k, :d]} != {want}"
        assert not ours[k, d:].any(), f"{where}: padding of {name} is not zero"


def ref_world_state(ref) -> np.ndarray:
    """The reference's state in our layout (see cpp/envs/mpe/world.h)."""
    env = ref.unwrapped
    values = [float(env.steps)]
    for e in env.world.entities:
        values += [*e.state.p_pos, *e.state.p_vel]
    if env.metadata["name"] == "simple_adversary_v3":
        values.append(float(env.world.landmarks.index(env.world.agents[0].goal_a)))
    return np.array(values)


# ---------------------------------------------------------------------------------------------
# (1) Same seeds: whole episodes, truncation, the autoreset and the next episode.


@pytest.mark.parametrize(("task_id", "kwargs"), CASES, ids=IDS)
def test_same_seeds(task_id: str, kwargs: dict) -> None:
    num_envs, seed = 3, 17
    continuous = kwargs["continuous_actions"]
    max_cycles = kwargs.get("max_cycles", 25)
    ours = OurEnvs(task_id, num_envs, seed, **kwargs)
    refs = [make_ref(task_id, **kwargs) for _ in range(num_envs)]
    names = refs[0].possible_agents
    n = len(names)
    assert ours.spec["agents"]["names"] == names

    first = ours.reset()
    for i, ref in enumerate(refs):
        ref_obs, _ = ref.reset(seed=seed + i)
        check_obs(first.obs[i], ref_obs, names, f"env {i} reset")
        np.testing.assert_array_equal(ours.get_state(i), ref_world_state(ref))
    assert first.active.all() and first.needs_action.all()

    rng = np.random.default_rng(1234)
    autoresets = 0
    # Two episodes and the autoreset step between them, plus a few steps of the third.
    for t in range(2 * (max_cycles + 1) + 3):
        actions = random_actions(rng, num_envs, n, continuous)
        got = ours.step(actions)
        episode_step = t % (max_cycles + 1)  # 0 .. max_cycles - 1: steps, max_cycles: autoreset
        for i, ref in enumerate(refs):
            where = f"env {i} step {t}"
            if episode_step == max_cycles:
                # The pool's next-step autoreset: the action is ignored, the new episode's first
                # observation comes back with zero rewards; the reference resets without a seed.
                ref_obs, _ = ref.reset()
                check_obs(got.obs[i], ref_obs, names, where)
                assert not got.agent_reward[i].any() and got.reward[i] == 0
                assert not got.truncated[i] and not got.agent_truncated[i].any()
                assert got.active[i].all() and got.needs_action[i].all()
                autoresets += 1
                continue
            ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(ref_actions(ref, actions[i], continuous))
            check_obs(got.obs[i], ref_obs, names, where)
            want_rew = np.array([ref_rew[name] for name in names], dtype=np.float64)
            assert np.array_equal(got.agent_reward[i], want_rew), f"{where}: {got.agent_reward[i]} != {want_rew}"
            assert got.reward[i] == sum(ref_rew[name] for name in names)
            want_trunc = np.array([ref_trunc[name] for name in names])
            assert want_trunc.all() == (episode_step == max_cycles - 1)
            assert np.array_equal(got.agent_truncated[i], want_trunc), where
            assert bool(got.truncated[i]) == bool(want_trunc.all()), where
            assert not any(ref_term.values()) and not got.terminated[i] and not got.agent_terminated[i].any()
            assert got.active[i].all()
            assert np.array_equal(got.needs_action[i], ~want_trunc), where
            np.testing.assert_array_equal(ours.get_state(i), ref_world_state(ref), err_msg=where)
    assert autoresets == 2 * num_envs


# ---------------------------------------------------------------------------------------------
# (2) Same states: random worlds with overlapping entities and fast agents, written into both.


def write_ref_state(ref, state: np.ndarray) -> None:
    env = ref.unwrapped
    env.steps = int(state[0])
    for k, e in enumerate(env.world.entities):
        e.state.p_pos = np.array(state[1 + 4 * k : 3 + 4 * k])
        e.state.p_vel = np.array(state[3 + 4 * k : 5 + 4 * k])
    if env.metadata["name"] == "simple_adversary_v3":
        goal = env.world.landmarks[int(state[-1])]
        for a in env.world.agents:
            a.goal_a = goal


def random_state(rng: np.random.Generator, ref, steps: int) -> np.ndarray:
    """Positions in [-1.3, 1.3] (simple_tag's out-of-bounds penalty, its exp included), fast
    velocities (beyond simple_tag's max_speed), and entities piled onto others (contact forces,
    from deep overlap to just touching)."""
    env = ref.unwrapped
    entities = env.world.entities
    m = len(entities)
    pos = rng.uniform(-1.3, 1.3, (m, 2))
    vel = rng.uniform(-2.0, 2.0, (m, 2))
    for k in range(1, m):
        if rng.random() < 0.6:
            j = int(rng.integers(k))
            reach = entities[k].size + entities[j].size
            angle = rng.uniform(0, 2 * np.pi)
            pos[k] = pos[j] + rng.uniform(0.0, 1.2 * reach) * np.array([np.cos(angle), np.sin(angle)])
    state = [float(steps)]
    for k, e in enumerate(entities):
        state += [*pos[k], *(vel[k] if e.movable else (0.0, 0.0))]
    if env.metadata["name"] == "simple_adversary_v3":
        state.append(float(rng.integers(len(env.world.landmarks))))
    return np.array(state)


@pytest.mark.parametrize(("task_id", "kwargs"), CASES, ids=IDS)
def test_same_states(task_id: str, kwargs: dict) -> None:
    continuous = kwargs["continuous_actions"]
    max_cycles = kwargs.get("max_cycles", 25)
    ours = OurEnvs(task_id, 1, 3, **kwargs)
    ref = make_ref(task_id, **kwargs)
    names = ref.possible_agents
    n = len(names)
    ours.reset()
    ref.reset(seed=3)
    rng = np.random.default_rng(99)
    world = ref.unwrapped.world
    clipped = touching = 0
    for trial in range(6):
        # The last trial starts two steps before the end: truncation from a written state.
        steps = max_cycles - 2 if trial == 5 else int(rng.integers(max_cycles - 2))
        state = random_state(rng, ref, steps)
        write_ref_state(ref, state)
        ours.set_state(0, state)
        np.testing.assert_array_equal(ours.get_state(0), state)
        np.testing.assert_array_equal(ref_world_state(ref), state)
        for t in range(2):
            where = f"trial {trial} step {t}"
            touching += sum(
                np.linalg.norm(a.state.p_pos - b.state.p_pos) < a.size + b.size
                for i, a in enumerate(world.entities)
                for b in world.entities[i + 1 :]
                if a.collide and b.collide
            )
            actions = random_actions(rng, 1, n, continuous)
            got = ours.step(actions)
            ref_obs, ref_rew, _, ref_trunc, _ = ref.step(ref_actions(ref, actions[0], continuous))
            check_obs(got.obs[0], ref_obs, names, where)
            want_rew = np.array([ref_rew[name] for name in names])
            assert np.array_equal(got.agent_reward[0], want_rew), f"{where}: {got.agent_reward[0]} != {want_rew}"
            assert np.array_equal(got.agent_truncated[0], [ref_trunc[name] for name in names]), where
            assert bool(got.truncated[0]) == all(ref_trunc.values()), where
            np.testing.assert_array_equal(ours.get_state(0), ref_world_state(ref), err_msg=where)
            clipped += sum(
                a.max_speed is not None and abs(np.hypot(*a.state.p_vel) - a.max_speed) < 1e-12 for a in world.agents
            )
        if trial == 5:
            assert got.truncated[0] and got.agent_truncated[0].all()
    # The states exercised what they were written for.
    if sum(e.collide for e in world.entities) > 1 and task_id != "SimpleAdversary-v3":  # nothing collides there
        assert touching > 0
    if task_id == "SimpleTag-v3":
        assert clipped > 0


def test_set_state_checks_its_input() -> None:
    ours = OurEnvs("SimpleAdversary-v3", 1, 0)
    ours.reset()
    state = ours.get_state(0)
    assert state.shape == (1 + 4 * (3 + 2) + 1,)
    with pytest.raises(ValueError, match="values"):
        ours.set_state(0, state[:-1])
    bad_goal = state.copy()
    bad_goal[-1] = 2  # N = 2 landmarks
    with pytest.raises(ValueError, match="goal"):
        ours.set_state(0, bad_goal)


# ---------------------------------------------------------------------------------------------
# (3) The spec: agents, groups, observation sizes and spaces as mpe2's.


@pytest.mark.parametrize(("task_id", "kwargs"), CASES, ids=IDS)
def test_spec(task_id: str, kwargs: dict) -> None:
    spec = OurEnvs(task_id, 1, 0, **kwargs).spec
    ref = make_ref(task_id, **kwargs)
    names = ref.possible_agents
    n = len(names)
    agents = spec["agents"]
    assert agents["names"] == names and not agents["turn_based"]
    dims = [ref.observation_space(name).shape[0] for name in names]
    for name in names:
        space = ref.observation_space(name)
        assert space.dtype == np.float32 and np.all(space.low == -np.inf) and np.all(space.high == np.inf)
    (obs,) = spec["obs"]
    assert obs["name"] == "obs" and obs["dtype"] == "float32" and obs["shape"] == (n, max(dims))
    assert obs["low"] == [] and obs["high"] == []
    groups = agents["groups"]
    if len(set(dims)) == 1:
        assert [(g["name"], g["first_slot"], g["num_slots"]) for g in groups] == [("agent", 0, n)]
    else:
        want = []
        for k, name in enumerate(names):
            group = name.rsplit("_", 1)[0]
            if want and want[-1][0] == group:
                want[-1][2] += 1
            else:
                want.append([group, k, 1, [dims[k]]])
        assert [[g["name"], g["first_slot"], g["num_slots"], g["obs_size"]] for g in groups] == want
        assert {g["name"] for g in groups} == {"adversary", "agent"}
    (action,) = spec["action"]
    if kwargs["continuous_actions"]:
        for name in names:
            space = ref.action_space(name)
            assert space.shape == (5,) and space.dtype == np.float32
            assert np.all(space.low == 0) and np.all(space.high == 1)
        assert action["dtype"] == "float32" and action["shape"] == (n, 5) and not action["discrete"]
        assert action["low"] == [0.0] and action["high"] == [1.0]
    else:
        for name in names:
            assert ref.action_space(name).n == 5
        assert action["dtype"] == "int64" and action["shape"] == (n,) and action["discrete"]
        assert action["low"] == [0.0] and action["high"] == [4.0]
    assert spec["render_shape"][:2] == (700, 700)  # mpe2's frames (test_render.py)
    assert [i["name"] for i in spec["info"]][:5] == [
        "agent_reward",
        "agent_terminated",
        "agent_truncated",
        "active",
        "needs_action",
    ]


# ---------------------------------------------------------------------------------------------
# (4) An out-of-range discrete action is refused, naming the env; the pool steps on.


@pytest.mark.parametrize("task_id", list(MODULES))
def test_out_of_range_action(task_id: str) -> None:
    ours = OurEnvs(task_id, 2, 0)
    ours.reset()
    n = len(ours.spec["agents"]["names"])
    bad = np.zeros((2, n), dtype=np.int64)
    bad[1, n - 1] = 5
    with pytest.raises(ValueError, match=r"env 1\b.*Discrete\(5\)"):
        ours.step(bad)
    bad[1, n - 1] = -1
    with pytest.raises(ValueError, match=r"env 1\b"):
        ours.step(bad)
    got = ours.step(np.full((2, n), 4, dtype=np.int64))
    assert got.obs.shape[:2] == (2, n) and got.active.all()


# ---------------------------------------------------------------------------------------------
# (5) Sizes mpe2 cannot run are refused at make, naming the kwarg; the reproduction runs.


@pytest.mark.parametrize(
    ("task_id", "kwargs", "message"),
    [
        ("SimpleTag-v3", {"num_good": 0, "num_adversaries": 0}, "needs at least one agent"),
        ("SimpleTag-v3", {"num_adversaries": -1}, "num_adversaries must be in"),
        ("SimpleTag-v3", {"num_obstacles": 1001}, "num_obstacles must be in"),
        ("SimpleSpread-v3", {"N": 0}, "N must be in"),
        ("SimpleAdversary-v3", {"N": 0}, "N must be in"),
    ],
)
def test_sizes_mpe2_cannot_run_are_refused(task_id: str, kwargs: dict, message: str) -> None:
    import envpool

    with pytest.raises(ValueError, match=f"{task_id}.*{message}|{message}"):
        envpool.make(task_id, num_envs=2, **kwargs)


def test_simple_tag_without_adversaries_in_a_fresh_process() -> None:
    """Issue 35's reproduction as it was reported, in a process of its own (it aborted with a
    corrupted heap): the rows are the spec's 12 wide and hold mpe2's observations."""
    import subprocess
    import sys

    script = """
import numpy as np, envpool
from mpe2 import simple_tag_v3
envs = envpool.make("SimpleTag-v3", num_envs=2, num_good=2, num_adversaries=0, seed=5)
obs, info = envs.reset()
assert obs.shape == (4, 12), obs.shape
obs, *_ = envs.step(np.zeros(4, dtype=np.int64))
ref = simple_tag_v3.parallel_env(num_good=2, num_adversaries=0)
ref.reset(seed=6)
want, *_ = ref.step({"agent_0": 0, "agent_1": 0})
assert np.array_equal(obs[2], want["agent_0"]) and np.array_equal(obs[3], want["agent_1"])
envs.close()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
