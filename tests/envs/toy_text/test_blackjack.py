"""Blackjack against gymnasium: the exact distribution of a fixed policy's return (computed here
from gymnasium's rules and checked against gymnasium episodes) for each rule variant, the
returns of our episodes against it (the bounds of tests/envs/toy_text/oracle.py), and sticking
from set hands step for step."""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cache

import gymnasium as gym
import numpy as np
import pytest

import envpool

from .oracle import Z_BOUND, chi2_critical, reference_env

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
    assert chi2 < chi2_critical(len(exact) - 1), f"{what}: chi2 {chi2}"


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
    ref = reference_env("Blackjack-v1", **kwargs)
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
