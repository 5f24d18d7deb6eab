"""The native toy-text envs (FrozenLake, CliffWalking, Taxi, Blackjack) against gymnasium 1.4.

* Deterministic transitions are compared exhaustively: every state and action, set in both
  implementations (ours through ``set_state``, gymnasium's through ``env.unwrapped.s``), one
  step, then observation, reward, terminated, info and next state must be equal.
* Stochastic transitions are compared with gymnasium's own transition table ``env.unwrapped.P``
  (an outcome is the tuple (next state, reward, terminated, info["prob"])), Taxi's fickle
  passenger with the uniform choice gymnasium makes, Blackjack with the exact distribution of
  a fixed policy's return (computed here from gymnasium's rules and checked against gymnasium
  episodes). Statistical bounds (``_Tally``): every outcome count within 5 binomial standard
  errors of its expectation (two-sided p ~ 6e-7 per outcome, so even ~1000 outcomes give a
  false alarm below 1e-3; the seeds are fixed, so runs are reproducible anyway), and a global
  chi-square over all (state, action) pairs with >= 5 expected counts per outcome at p = 1e-6.
  Sample sizes are chosen so that the global test rejects a table perturbed by a real
  difference (success 1/3 -> 0.30, rainy 0.8 -> 0.77): each stochastic test checks that too.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from functools import cache

import gymnasium as gym
import numpy as np
import pytest

import envpool

TOY_TEXT = [
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Taxi-v4",
    "Blackjack-v1",
]
CUSTOM_DESC = ["SFFHF", "FHFFS", "FFGHF"]  # not square, two start tiles, goal inside the map
SCHEDULE = [5.0, -2.0, -0.25]  # reward_schedule: goal, hole, frozen
Z_BOUND = 5.0  # standard errors
CHI2_P = 1e-6
Z_CHI2 = 4.753424  # the standard normal's upper 1e-6 quantile


def _chi2_critical(df: int) -> float:
    """Upper 1e-6 quantile of chi-square(df) by Wilson-Hilferty: within 0.2% of the exact value
    for df >= 80, and a little above it for small df (true tail 2.7e-7 at df = 2), i.e. conservative."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + Z_CHI2 * math.sqrt(h)) ** 3


def _ours_kwargs(kwargs):
    """Our spelling of gymnasium kwargs: None has a typed stand-in (desc: the default, an empty
    list; map_name: "")."""
    out = dict(kwargs)
    if "desc" in out and out["desc"] is None:
        del out["desc"]
    if "map_name" in out and out["map_name"] is None:
        out["map_name"] = ""
    if "reward_schedule" in out:
        out["reward_schedule"] = list(out["reward_schedule"])
    return out


def _gym_spec(task):
    """gymnasium's spec of ``task``; skips the test when this gymnasium release lacks the task,
    so there is no oracle (Taxi-v4 arrived in gymnasium 1.3, CliffWalking-v1 and
    CliffWalkingSlippery-v1 in 1.2; envpool's own tasks still run there)."""
    if task not in gym.registry:
        pytest.skip(f"gymnasium {gym.__version__} has no {task} to compare with (a later release added it)")
    return gym.spec(task)


def _gym_make(task, **kwargs):
    _gym_spec(task)
    try:
        return gym.make(task, **kwargs)
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        # FrozenLake's success_rate and reward_schedule arrived in gymnasium 1.2.
        pytest.skip(f"gymnasium {gym.__version__}'s {task} has no such kwarg to compare with: {exc}")


# gymnasium < 1.2 gives FrozenLake's slippery moves info["prob"] 1/3 as 0.3333333333333333;
# from 1.2 on (success_rate) it is 1 - 2/3 = 0.33333333333333337, as envpool reports it. On
# older releases the transitions are still compared, without the prob float.
GYM_VERSION = tuple(int(p) for p in gym.__version__.split(".")[:2])


def _ref(task, **kwargs):
    env = _gym_make(task, **kwargs).unwrapped
    env.reset(seed=0)
    return env


# -- registry and spaces ------------------------------------------------------------------------


@pytest.mark.parametrize("task", TOY_TEXT)
def test_registry_matches_gymnasium(task):
    spec = envpool.make_spec(task)
    ref = _gym_spec(task)
    assert spec.max_episode_steps == ref.max_episode_steps
    assert spec.reward_threshold == ref.reward_threshold


SPACE_CASES = [
    ("FrozenLake-v1", {}),
    ("FrozenLake8x8-v1", {}),
    ("FrozenLake-v1", {"map_name": "8x8"}),
    ("FrozenLake-v1", {"desc": CUSTOM_DESC}),
    ("FrozenLake-v1", {"desc": None, "map_name": None}),  # a random 8x8 map
    ("CliffWalking-v1", {}),
    ("CliffWalkingSlippery-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True}),
    ("Blackjack-v1", {}),
    ("Blackjack-v1", {"natural": True, "sab": False}),
]


def _assert_space_equal(ours, ref, what):
    assert type(ours) is type(ref), f"{what}: {ours!r} vs {ref!r}"
    if isinstance(ref, gym.spaces.Tuple):
        assert len(ours) == len(ref), what
        for o, r in zip(ours, ref):
            _assert_space_equal(o, r, what)
    else:
        assert (int(ours.n), int(ours.start)) == (int(ref.n), int(ref.start)), f"{what}: {ours!r} vs {ref!r}"


@pytest.mark.parametrize(("task", "kwargs"), SPACE_CASES)
def test_spaces_match_gymnasium(task, kwargs):
    ref = _gym_make(task, **kwargs)
    env = envpool.make(task, num_envs=2, seed=0, **_ours_kwargs(kwargs))
    _assert_space_equal(env.single_observation_space, ref.observation_space, f"{task} observation space")
    _assert_space_equal(env.single_action_space, ref.action_space, f"{task} action space")
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)
    env.close()
    ref.close()


# -- deterministic transitions, exhaustively ----------------------------------------------------

DETERMINISTIC_CASES = [
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake8x8-v1", {"is_slippery": False}),
    ("FrozenLake-v1", {"is_slippery": False, "desc": CUSTOM_DESC, "reward_schedule": tuple(SCHEDULE)}),
    ("CliffWalking-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"fickle_passenger": True}),  # fickle_step 0: deterministic
]


def _ref_state(ref):
    return [int(ref.s), int(ref.fickle_step)] if hasattr(ref, "fickle_step") else [int(ref.s)]


@pytest.mark.parametrize(("task", "kwargs"), DETERMINISTIC_CASES)
def test_every_deterministic_transition_matches_gymnasium(task, kwargs):
    ref = _ref(task, **kwargs)
    n_states, n_actions = ref.observation_space.n, ref.action_space.n
    env = envpool.make(task, num_envs=n_states, seed=0, max_episode_steps=0, **_ours_kwargs(kwargs))
    env.reset()
    extra = [0] if task.startswith("Taxi") else []
    for a in range(n_actions):
        for s in range(n_states):
            env.set_state(s, [s, *extra])
        obs, rew, term, trunc, info = env.step(np.full(n_states, a, dtype=np.int64))
        for s in range(n_states):
            ref.s = s
            if extra:
                ref.fickle_step = False
            o, r, t, _, i = ref.step(a)
            got = (int(obs[s]), float(rew[s]), bool(term[s]), float(info["prob"][s]), list(env.get_state(s)))
            want = (int(o), float(r), bool(t), float(i["prob"]), _ref_state(ref))
            assert got == want, f"{task} {kwargs} s={s} a={a}: envpool {got} vs gymnasium {want}"
            if "action_mask" in i:
                assert info["action_mask"][s].tolist() == i["action_mask"].tolist(), f"{task} s={s} a={a}"
            assert not trunc[s]
    env.close()


def _steady_action(task):
    """An action that never ends an episode from the start (needs is_slippery=False for FrozenLake):
    FrozenLake: left at the top-left corner; Taxi: pickup (never terminates)."""
    return 0 if task.startswith("FrozenLake") else 4


@pytest.mark.parametrize("task", ["FrozenLake-v1", "FrozenLake8x8-v1", "Taxi-v4"])
def test_time_limit_truncates_like_gymnasium(task):
    kwargs = {"is_slippery": False} if task.startswith("FrozenLake") else {}
    ref = _gym_make(task, **kwargs)
    ref.reset(seed=0)
    env = envpool.make(task, num_envs=1, seed=0, **kwargs)
    env.reset()
    a = _steady_action(task)
    for t in range(1, gym.spec(task).max_episode_steps + 1):
        _, _, ref_term, ref_trunc, _ = ref.step(a)
        env.send(np.array([a]))  # the async API: its info counts the episode's steps
        _, _, term, trunc, info = env.recv()
        assert (bool(term[0]), bool(trunc[0])) == (bool(ref_term), bool(ref_trunc)), f"{task} step {t}"
        assert info["elapsed_step"][0] == t
    assert trunc[0]
    env.send(np.array([a]))  # next-step autoreset
    _, rew, term, trunc, info = env.recv()
    assert (rew[0], term[0], trunc[0], info["elapsed_step"][0]) == (0.0, False, False, 0)
    env.close()


# -- stochastic transitions against gymnasium's P -----------------------------------------------


def _outcomes(P, s, a, with_prob=True):
    """{(next state, reward, terminated[, prob]): probability} for one (state, action)."""
    out = defaultdict(float)
    for p, s2, r, t in P[s][a]:
        if p > 0:
            out[(int(s2), float(r), bool(t), float(p)) if with_prob else (int(s2), float(r), bool(t))] += p
    return out


def _perturbed(P, probs):
    """P with the three entries of every stochastic (state, action) reweighted to ``probs``
    (gymnasium lists them as (a - 1, a, a + 1) for FrozenLake / CliffWalking and as (forward,
    left, right) for Taxi)."""
    return {
        s: {a: [(probs[k], *e[1:]) for k, e in enumerate(es)] if len(es) == 3 else es for a, es in acts.items()}
        for s, acts in P.items()
    }


class _Tally:
    """Observed transitions (s, a, s', r, t, prob) and their comparison with a P table."""

    def __init__(self):
        self.rows = []

    def add(self, s, a, s2, r, t, p):
        self.rows.append(np.stack([s, a, s2, r, t, p], axis=1).astype(np.float64))

    def counts(self, with_prob=True):
        """{(s, a): {outcome: count}}; rows are coded as one integer each, so that counting is
        a 1-D np.unique."""
        rows = np.concatenate(self.rows)
        ints = rows[:, :3].astype(np.int64)
        r_vals, r_idx = np.unique(rows[:, 3], return_inverse=True)
        p_vals, p_idx = np.unique(rows[:, 5] if with_prob else np.zeros(len(rows)), return_inverse=True)
        dims = [
            int(ints[:, 0].max()) + 1,
            int(ints[:, 1].max()) + 1,
            int(ints[:, 2].max()) + 1,
            len(r_vals),
            2,
            len(p_vals),
        ]
        cols = [ints[:, 0], ints[:, 1], ints[:, 2], r_idx.ravel(), rows[:, 4].astype(np.int64), p_idx.ravel()]
        uniq, cnt = np.unique(np.ravel_multi_index(cols, dims), return_counts=True)
        by_pair = defaultdict(dict)
        for code, c in zip(uniq.tolist(), cnt.tolist()):
            s, a, s2, ri, t, pi = np.unravel_index(code, dims)
            key = (int(s2), float(r_vals[ri]), bool(t)) + ((float(p_vals[pi]),) if with_prob else ())
            by_pair[(int(s), int(a))][key] = c
        return by_pair

    def compare(self, P, with_prob=True):
        """(failures, chi2, df): outcomes gymnasium cannot produce, or counts beyond Z_BOUND
        standard errors; and the global chi-square over pairs with >= 5 expected per outcome."""
        failures, chi2, df = [], 0.0, 0
        for (s, a), seen in self.counts(with_prob).items():
            n = sum(seen.values())
            expected = _outcomes(P, s, a, with_prob)
            for key, c in seen.items():
                if key not in expected:
                    failures.append(f"s={s} a={a}: outcome {key} seen {c}x, gymnasium has {dict(expected)}")
            for key, p in expected.items():
                c = seen.get(key, 0)
                if p < 1 and abs(c - n * p) > Z_BOUND * math.sqrt(n * p * (1 - p)):
                    failures.append(f"s={s} a={a}: outcome {key} seen {c}/{n}, gymnasium's probability {p}")
            if len(expected) > 1 and n * min(expected.values()) >= 5:
                chi2 += sum((seen.get(k, 0) - n * p) ** 2 / (n * p) for k, p in expected.items())
                df += len(expected) - 1
        return failures, chi2, df

    def pair_counts(self):
        return {pair: sum(seen.values()) for pair, seen in self.counts(False).items()}


def _sample(env, start_states, to_state, n_actions, rounds, steps, seed):
    """Transitions from rollouts with uniform random actions; before each round every env is
    put in one of ``start_states`` (spread evenly), so that every (state, action) is sampled.
    Steps that autoreset (after an episode ended) are not transitions and are left out."""
    rng = np.random.default_rng(seed)
    tally = _Tally()
    n = env.num_envs
    env.reset()
    start_states = np.asarray(start_states)
    for k in range(rounds):
        prev = start_states[(np.arange(n) + k * n) % len(start_states)]
        for i in range(n):
            env.set_state(i, to_state(int(prev[i])))
        valid = np.ones(n, dtype=bool)
        for _ in range(steps):
            a = rng.integers(n_actions, size=n)
            obs, rew, term, trunc, info = env.step(a)
            tally.add(prev[valid], a[valid], obs[valid], rew[valid], term[valid], info["prob"][valid])
            valid = ~(term | trunc)
            prev = obs
    return tally


# (task, kwargs, start states (None: all), to_state, rounds, steps per round, perturbed probabilities)
STOCHASTIC_CASES = [
    ("FrozenLake-v1", {}, None, lambda s: [s], 10, 10, (0.35, 0.30, 0.35)),
    ("FrozenLake8x8-v1", {}, None, lambda s: [s], 20, 10, (0.35, 0.30, 0.35)),
    ("FrozenLake-v1", {"map_name": "8x8", "success_rate": 0.75}, None, lambda s: [s], 15, 10, (0.15, 0.7, 0.15)),
    ("CliffWalkingSlippery-v1", {}, None, lambda s: [s], 15, 10, (0.35, 0.30, 0.35)),
    ("Taxi-v4", {"is_rainy": True}, None, lambda s: [s, 0], 60, 10, (0.77, 0.115, 0.115)),
]


@pytest.mark.parametrize(("task", "kwargs", "starts", "to_state", "rounds", "steps", "perturbed"), STOCHASTIC_CASES)
def test_stochastic_transitions_follow_gymnasium_P(task, kwargs, starts, to_state, rounds, steps, perturbed):
    ref = _ref(task, **kwargs)
    P = ref.P
    if starts is None:  # every state that is not terminal (FrozenLake's G and H only stay put)
        starts = [s for s in range(ref.observation_space.n) if len(P[s][0]) > 1 or not P[s][0][0][3]]
    env = envpool.make(task, num_envs=1024, seed=7, max_episode_steps=0, **_ours_kwargs(kwargs))
    seed = zlib.crc32(repr((task, kwargs)).encode())
    tally = _sample(env, starts, to_state, ref.action_space.n, rounds, steps, seed=seed)
    env.close()

    counts = tally.pair_counts()
    pairs = [(s, a) for s in starts for a in range(ref.action_space.n)]
    thin = [(s, a, counts.get((s, a), 0)) for s, a in pairs if counts.get((s, a), 0) < 20]
    assert not thin, f"too few samples for {thin[:5]}"

    exact_prob = GYM_VERSION >= (1, 2) or not task.startswith("FrozenLake")
    failures, chi2, df = tally.compare(P, with_prob=exact_prob)
    assert not failures, "\n".join(failures[:10])
    assert chi2 < _chi2_critical(df), f"chi2 {chi2:.0f} with {df} dof"

    # Power: the same samples reject a table that differs by a real amount.
    _, chi2_true, df_true = tally.compare(P, with_prob=False)
    _, chi2_bad, df_bad = tally.compare(_perturbed(P, perturbed), with_prob=False)
    assert chi2_true < _chi2_critical(df_true)
    assert chi2_bad > _chi2_critical(df_bad), f"too few samples to tell {perturbed} apart ({chi2_bad:.0f}, {df_bad})"


def test_frozen_lake_start_tiles_are_uniform():
    env = envpool.make("FrozenLake-v1", num_envs=1000, seed=3, desc=CUSTOM_DESC)
    obs, _ = env.reset()
    starts = [i for i, c in enumerate("".join(CUSTOM_DESC)) if c == "S"]
    assert set(obs.tolist()) == set(starts)
    n, c = len(obs), int((obs == starts[0]).sum())
    assert abs(c - n / 2) <= Z_BOUND * math.sqrt(n / 4)
    env.close()


# -- Taxi: initial states and the fickle passenger ----------------------------------------------


def test_taxi_initial_states_match_gymnasium():
    ref = _ref("Taxi-v4", fickle_passenger=True)
    env = envpool.make("Taxi-v4", num_envs=1024, seed=11, fickle_passenger=True)
    obs = np.concatenate([env.reset()[0] for _ in range(60)])
    support = np.flatnonzero(ref.initial_state_distrib)
    counts = np.bincount(obs, minlength=500)
    assert set(np.flatnonzero(counts)) <= set(support.tolist())
    e = len(obs) / len(support)  # gymnasium's distribution is uniform on its support
    chi2 = float(((counts[support] - e) ** 2 / e).sum())
    assert chi2 < _chi2_critical(len(support) - 1), chi2
    # fickle_step is drawn at reset with probability fickle_probability.
    fickle = []
    for _ in range(10):
        env.reset()
        fickle += [env.get_state(i)[1] for i in range(env.num_envs)]
    fickle = np.array(fickle)
    n, p = len(fickle), ref.fickle_probability
    assert abs(fickle.sum() - n * p) <= Z_BOUND * math.sqrt(n * p * (1 - p))
    env.close()


def test_taxi_fickle_passenger_matches_gymnasium():
    ref = _ref("Taxi-v4", fickle_passenger=True)
    n_states = 500
    env = envpool.make("Taxi-v4", num_envs=n_states, seed=0, max_episode_steps=0, fickle_passenger=True)
    env.reset()
    for a in range(6):
        for s in range(n_states):
            env.set_state(s, [s, 1])
        obs, rew, term, _, _ = env.step(np.full(n_states, a, dtype=np.int64))
        for s in range(n_states):
            ref.s, ref.fickle_step = s, True
            o, r, t, _, _ = ref.step(a)
            o, ours = ref.decode(int(o)), ref.decode(int(obs[s]))
            switched = ref.decode(s)[2] == 4 and o[:2] != ref.decode(s)[:2]
            # Same taxi, passenger, reward and flags; the destination changes exactly when
            # gymnasium's does (to a random other one), and fickle_step clears then.
            assert (ours[:3], float(rew[s]), bool(term[s])) == (o[:3], float(r), bool(t)), f"s={s} a={a}"
            assert (ours[3] != ref.decode(s)[3]) == switched == (o[3] != ref.decode(s)[3]), f"s={s} a={a}"
            assert env.get_state(s)[1] == float(ref.fickle_step) == float(not switched)
    # The new destination is uniform over the three others: state (2, 2), passenger aboard, going to R.
    s0, a = ref.encode(2, 2, 4, 0), 0  # drive south
    dests = []
    for _ in range(40):
        for i in range(n_states):
            env.set_state(i, [s0, 1])
        obs, *_ = env.step(np.full(n_states, a, dtype=np.int64))
        dests.append(obs % 4)
    counts = np.bincount(np.concatenate(dests), minlength=4)
    n = counts.sum()
    assert counts[0] == 0
    for c in counts[1:]:
        assert abs(c - n / 3) <= Z_BOUND * math.sqrt(n * (1 / 3) * (2 / 3)), counts
    env.close()


# -- Blackjack ----------------------------------------------------------------------------------

CARD_P = {v: (4 if v == 10 else 1) / 13 for v in range(1, 11)}
BLACKJACK_VARIANTS = [{}, {"natural": True, "sab": False}, {"natural": False, "sab": False}]


def _sum_hand(raw, ace):
    return raw + 10 if ace and raw + 10 <= 21 else raw


@cache
def _dealer_final(raw, ace):
    """{score: probability} of the dealer's final hand (0: bust), drawing below 17."""
    s = _sum_hand(raw, ace)
    if s >= 17:
        return {0 if s > 21 else s: 1.0}
    out = defaultdict(float)
    for v, p in CARD_P.items():
        for score, q in _dealer_final(raw + v, ace or v == 1).items():
            out[score] += p * q
    return dict(out)


@cache
def _player_final(raw, ace):
    """{sum or 'bust': probability} for the policy 'hit below 17, else stick'."""
    s = _sum_hand(raw, ace)
    if s > 21:
        return {"bust": 1.0}
    if s >= 17:
        return {s: 1.0}
    out = defaultdict(float)
    for v, p in CARD_P.items():
        for end, q in _player_final(raw + v, ace or v == 1).items():
            out[end] += p * q
    return dict(out)


def _exact_returns(natural, sab):
    """Exact distribution of the episode return of 'hit below 17' under gymnasium's rules."""
    dist = defaultdict(float)
    for d1, pd1 in CARD_P.items():
        for d2, pd2 in CARD_P.items():
            dealer_nat = sorted((d1, d2)) == [1, 10]
            dealer = _dealer_final(d1 + d2, 1 in (d1, d2))
            for p1, pp1 in CARD_P.items():
                for p2, pp2 in CARD_P.items():
                    w = pd1 * pd2 * pp1 * pp2
                    player_nat = sorted((p1, p2)) == [1, 10]
                    for end, q in _player_final(p1 + p2, 1 in (p1, p2)).items():
                        if end == "bust":
                            dist[-1.0] += w * q
                            continue
                        for score, r in dealer.items():
                            ret = float(end > score) - float(end < score)
                            if sab and player_nat and not dealer_nat:
                                ret = 1.0
                            elif not sab and natural and player_nat and ret == 1.0:
                                ret = 1.5
                            dist[ret] += w * q * r
    return dict(dist)


def _assert_distribution(counts: dict, exact: dict, what: str):
    n = sum(counts.values())
    assert set(counts) <= set(exact), f"{what}: returns {set(counts) - set(exact)} are impossible"
    chi2 = 0.0
    for ret, p in exact.items():
        c = counts.get(ret, 0)
        assert abs(c - n * p) <= Z_BOUND * math.sqrt(n * p * (1 - p)), f"{what}: return {ret}: {c}/{n} vs p={p:.5f}"
        chi2 += (c - n * p) ** 2 / (n * p)
    assert chi2 < _chi2_critical(len(exact) - 1), f"{what}: chi2 {chi2}"


@pytest.mark.parametrize("kwargs", BLACKJACK_VARIANTS)
def test_blackjack_exact_returns_match_gymnasium_episodes(kwargs):
    """Checks the exact model used below against gymnasium itself (5000 episodes; the model's
    natural / sab rules are also what test_blackjack_stick_matches_gymnasium pins down)."""
    exact = _exact_returns(kwargs.get("natural", False), kwargs.get("sab", True))
    ref = gym.make("Blackjack-v1", **kwargs)
    counts = defaultdict(int)
    obs, _ = ref.reset(seed=5)
    for _ in range(5000):
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, _ = ref.step(int(obs[0] < 17))
            total += r
            done = term or trunc
        counts[total] += 1
        obs, _ = ref.reset()
    _assert_distribution(counts, exact, f"gymnasium {kwargs}")


@pytest.mark.parametrize("kwargs", BLACKJACK_VARIANTS)
def test_blackjack_returns_follow_exact_distribution(kwargs):
    """300k episodes: 5 standard errors are 0.0027 (p ~ 0.10) to 0.0046 (p ~ 0.49) on each
    return's probability. The sab rule moves P(return 0) by 0.0034 (6 SE, chi-square ~44 against
    a critical ~30 at 2 dof) and natural=True moves 4% of the mass to 1.5."""
    exact = _exact_returns(kwargs.get("natural", False), kwargs.get("sab", True))
    env = envpool.make("Blackjack-v1", num_envs=1024, seed=1, **kwargs)
    (player, dealer, ace), _ = env.reset()
    assert ((player >= 4) & (player <= 21)).all() and ((dealer >= 1) & (dealer <= 10)).all()
    counts = defaultdict(int)
    total = np.zeros(env.num_envs)
    n_episodes = 0
    while n_episodes < 300_000:
        (player, dealer, ace), rew, term, trunc, _ = env.step((player < 17).astype(np.int64))
        total += rew
        for r in total[term].tolist():
            counts[r] += 1
        n_episodes += int(term.sum())
        total[term] = 0.0
    env.close()
    _assert_distribution(counts, exact, f"envpool {kwargs}")


def _blackjack_hands():
    two = [[a, b] for a in range(1, 11) for b in range(1, 11)]
    return two + [[10, 1, 10], [5, 6, 10], [1, 1, 9], [2, 3, 4, 5], [10, 10, 5], [1, 5, 1, 4]]


@pytest.mark.parametrize("kwargs", BLACKJACK_VARIANTS)
def test_blackjack_stick_matches_gymnasium(kwargs):
    """Sticking against a dealer who draws no more (sum >= 17) is deterministic: compare every
    such dealer hand with many player hands, including naturals on both sides."""
    ref = _ref("Blackjack-v1", **kwargs)
    players = _blackjack_hands()
    dealers = [d for d in _blackjack_hands() if _sum_hand(sum(d), 1 in d) >= 17]
    env = envpool.make("Blackjack-v1", num_envs=len(players), seed=0, **kwargs)
    env.reset()
    for dealer in dealers:
        for i, player in enumerate(players):
            env.set_state(i, [len(dealer), *dealer, *player])
            assert env.get_state(i).tolist() == [len(dealer), *dealer, *player]
        (ps, dc, ace), rew, term, _, _ = env.step(np.zeros(len(players), dtype=np.int64))
        for i, player in enumerate(players):
            ref.dealer, ref.player = list(dealer), list(player)
            o, r, t, _, _ = ref.step(0)
            got = ((int(ps[i]), int(dc[i]), int(ace[i])), float(rew[i]), bool(term[i]))
            assert got == (tuple(int(x) for x in o), float(r), bool(t)), f"{kwargs} dealer {dealer} player {player}"
    env.close()


# -- random FrozenLake maps, per-env kwargs, bad input ------------------------------------------


def _probe_maps(env):
    """The tiles of every env's 8x8 map, read through set_state and non-slippery steps: a tile
    is G or H exactly when stepping left from it stays there and ends the episode."""
    tiles = [[] for _ in range(env.num_envs)]
    for s in range(64):
        for i in range(env.num_envs):
            env.set_state(i, [s])
        obs, _, term, _, _ = env.step(np.zeros(env.num_envs, dtype=np.int64))
        for i in range(env.num_envs):
            tiles[i].append("G" if s == 63 else "H" if (obs[i] == s and term[i]) else "F")
    return ["".join(t) for t in tiles]


def _reachable(tiles):
    seen, todo = {0}, [0]
    while todo:
        s = todo.pop()
        r, c = divmod(s, 8)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= rr < 8 and 0 <= cc < 8 and tiles[rr * 8 + cc] != "H" and rr * 8 + cc not in seen:
                seen.add(rr * 8 + cc)
                todo.append(rr * 8 + cc)
    return 63 in seen


def test_random_frozen_lake_maps():
    """map_name="" with no desc (gymnasium's map_name=None, desc=None): a valid random 8x8 map
    per env, gymnasium's generate_random_map(size=8, seed=s) for the env's seed s at its first
    reset, kept afterwards."""
    from gymnasium.envs.toy_text.frozen_lake import generate_random_map

    def maps(seed, first_reset_seed=None, reseed=None):
        env = envpool.make("FrozenLake-v1", num_envs=4, seed=seed, map_name="", is_slippery=False, max_episode_steps=0)
        env.reset(seed=first_reset_seed)
        if reseed is not None:
            env.reset(seed=reseed)
        out = _probe_maps(env)
        env.close()
        return out

    def gymnasium_maps(seed):  # S reads as F in _probe_maps
        return ["".join(generate_random_map(size=8, seed=seed + i)).replace("S", "F") for i in range(4)]

    first = maps(0)
    assert first == gymnasium_maps(0)
    assert first == maps(0) == maps(0, reseed=123)  # deterministic per seed, kept on reseeding
    assert maps(0, first_reset_seed=9) == gymnasium_maps(9)  # the seed of the first reset
    assert first != maps(1) and len(set(first)) == 4
    holes = []
    for m in first + maps(1) + maps(2):
        assert m[0] == "F" and m[63] == "G" and _reachable(m)  # S reads as F (left from S stays, no end)
        holes.append(m.count("H"))
    # gymnasium's generator gives the same hole count distribution (mean within 5 SE).

    ref_holes = [sum(row.count("H") for row in generate_random_map(seed=k)) for k in range(400)]
    se = math.sqrt(np.var(ref_holes) / len(ref_holes) + np.var(ref_holes) / len(holes))
    assert abs(np.mean(holes) - np.mean(ref_holes)) <= Z_BOUND * se


def test_per_env_kwargs():
    hole_at_1 = ["SHFF", "FHFH", "FFFH", "HFFG"]
    env = envpool.make(
        "FrozenLake-v1",
        num_envs=3,
        seed=0,
        is_slippery=False,
        desc=[hole_at_1, ["SFFF", "FHFH", "FFFH", "HFFG"], hole_at_1],
        reward_schedule=[[1, 0, 0], [1, 0, 0], [1, -7, 0]],
    )
    env.reset()
    _, rew, term, _, _ = env.step(np.full(3, 2))  # right from the start
    assert term.tolist() == [True, False, True] and rew.tolist() == [0.0, 0.0, -7.0]
    env.close()

    env = envpool.make("CliffWalking-v1", num_envs=2, seed=0, is_slippery=[False, True])
    env.reset()
    _, _, _, _, info = env.step(np.zeros(2, dtype=np.int64))
    assert info["prob"].tolist() == [1.0, 1 / 3]
    env.close()

    env = envpool.make("Blackjack-v1", num_envs=2, seed=0, natural=True, sab=[True, False])
    env.reset()
    for i in range(2):
        env.set_state(i, [2, 10, 8, 1, 10])  # player natural beats 18
    _, rew, _, _, _ = env.step(np.zeros(2, dtype=np.int64))
    assert rew.tolist() == [1.0, 1.5]
    env.close()


@pytest.mark.parametrize(
    "task, kwargs, match",
    [
        ("FrozenLake-v1", {"map_name": "5x5"}, "map_name must be '4x4' or '8x8'.*'5x5'"),
        ("FrozenLake-v1", {"desc": ["SFF", "FG"]}, "equal length"),
        ("FrozenLake-v1", {"desc": ["SFX", "FFG"]}, "only hold the letters S, F, H, G.*'X'"),
        ("FrozenLake-v1", {"desc": ["FFF", "FFG"]}, "no start tile"),
        ("FrozenLake-v1", {"success_rate": 1.5}, "success_rate must be in"),
        ("FrozenLake-v1", {"reward_schedule": [1, 0]}, "reward_schedule must have 3 values"),
        ("FrozenLake-v1", {"is_slippery": "yes"}, "'is_slippery' must be bool"),
        ("CliffWalking-v1", {"slippery": True}, "unexpected keyword argument 'slippery'.*is_slippery"),
        ("Taxi-v4", {"rainy_probability": -0.1}, "rainy_probability must be in"),
        ("Taxi-v4", {"fickle_probability": 2}, "fickle_probability must be in"),
        ("Blackjack-v1", {"natural": 1.5}, "'natural' must be bool"),
    ],
)
def test_bad_kwargs(task, kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make(task, num_envs=2, **kwargs)
    with pytest.raises(ValueError, match=match):
        envpool.make_spec(task, **kwargs)


@pytest.mark.parametrize(
    "task, state, match",
    [
        ("FrozenLake-v1", [16], r"integer in \[0, 16\)"),
        ("FrozenLake-v1", [1.5], "integer"),
        ("CliffWalking-v1", [48], r"integer in \[0, 48\)"),
        ("Taxi-v4", [3], "must have 2 values"),
        ("Taxi-v4", [500, 0], r"\[0, 500\)"),
        ("Taxi-v4", [5, 2], "fickle_step"),
        ("Blackjack-v1", [2, 10, 11, 5, 5], "card value"),
        ("Blackjack-v1", [0, 5, 5], "dealer needs 1 to 32 cards"),
        ("Blackjack-v1", [2, 10, 7], "player needs 1 to 32 cards"),
        ("Blackjack-v1", [2, 10, 7, 10, 10, 10, 5], "at most 31"),
    ],
)
def test_bad_states(task, state, match):
    env = envpool.make(task, num_envs=1, seed=0)
    env.reset()
    before = env.get_state(0)
    with pytest.raises(ValueError, match=match):
        env.set_state(0, state)
    assert env.get_state(0).tolist() == before.tolist()
    env.step(np.zeros(1, dtype=np.int64))  # still usable
    env.close()
