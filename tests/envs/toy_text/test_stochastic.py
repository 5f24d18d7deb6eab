"""Stochastic toy-text transitions against gymnasium's own transition table ``env.unwrapped.P``
(an outcome is the tuple (next state, reward, terminated, info["prob"])), FrozenLake's start
tiles, and Taxi's initial states and fickle passenger against the uniform choice gymnasium makes.

Statistical bounds (``_Tally``): every outcome count within 5 binomial standard errors of its
expectation (two-sided p ~ 6e-7 per outcome, so even ~1000 outcomes give a false alarm below
1e-3; the seeds are fixed, so runs are reproducible anyway), and a global chi-square over all
(state, action) pairs with >= 5 expected counts per outcome at p = 1e-6. Sample sizes are chosen
so that the global test rejects a table perturbed by a real difference (success 1/3 -> 0.30,
rainy 0.8 -> 0.77): each stochastic test checks that too.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict

import numpy as np
import pytest

import envpool

from .oracle import CUSTOM_DESC, GYM_VERSION, Z_BOUND, chi2_critical, ours_kwargs, reference_env

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
    ref = reference_env(task, **kwargs)
    P = ref.P
    if starts is None:  # every state that is not terminal (FrozenLake's G and H only stay put)
        starts = [s for s in range(ref.observation_space.n) if len(P[s][0]) > 1 or not P[s][0][0][3]]
    env = envpool.make(task, num_envs=1024, seed=7, max_episode_steps=0, **ours_kwargs(kwargs))
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
    assert chi2 < chi2_critical(df), f"chi2 {chi2:.0f} with {df} dof"

    # Power: the same samples reject a table that differs by a real amount.
    _, chi2_true, df_true = tally.compare(P, with_prob=False)
    _, chi2_bad, df_bad = tally.compare(_perturbed(P, perturbed), with_prob=False)
    assert chi2_true < chi2_critical(df_true)
    assert chi2_bad > chi2_critical(df_bad), f"too few samples to tell {perturbed} apart ({chi2_bad:.0f}, {df_bad})"


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
    ref = reference_env("Taxi-v4", fickle_passenger=True)
    env = envpool.make("Taxi-v4", num_envs=1024, seed=11, fickle_passenger=True)
    obs = np.concatenate([env.reset()[0] for _ in range(60)])
    support = np.flatnonzero(ref.initial_state_distrib)
    counts = np.bincount(obs, minlength=500)
    assert set(np.flatnonzero(counts)) <= set(support.tolist())
    e = len(obs) / len(support)  # gymnasium's distribution is uniform on its support
    chi2 = float(((counts[support] - e) ** 2 / e).sum())
    assert chi2 < chi2_critical(len(support) - 1), chi2
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
    ref = reference_env("Taxi-v4", fickle_passenger=True)
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
