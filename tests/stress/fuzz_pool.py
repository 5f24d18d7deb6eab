"""Stateful fuzzing of the pool's Python API (run by tests/core/test_fuzz.py in a subprocess, so a
crash shows up as a failed test rather than a dead test runner).

Random sequences of make / reset / step / send / recv / async_reset / close / state access,
with valid and invalid arguments. Invariants checked against a model of which envs are in
flight:
  * only documented exceptions (ValueError, TypeError, RuntimeError, TimeoutError, EnvError);
  * a rejected call changes nothing;
  * every env_id returned was in flight, appears once per batch, and results keep their
    shapes and dtypes (a full-batch step()'s rows are envs 0..n-1, its info has no env_id);
  * out-of-range action values are refused unless every env they are for starts a new
    episode instead (next-step autoreset ignores those actions, as gymnasium does).

    python tests/stress/fuzz_pool.py [max_examples]
"""

from __future__ import annotations

import sys

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import envpool
import envpool.testing

envpool.testing.load_step_counter()  # StepCounter-v0 is a test plugin

ALLOWED = (ValueError, TypeError, RuntimeError, TimeoutError)
TASKS = ["CartPole-v1", "Pendulum-v1", "StepCounter-v0"]

ids_strategy = st.lists(st.integers(min_value=-3, max_value=12), min_size=0, max_size=10)


class PoolMachine(RuleBasedStateMachine):
    @initialize(
        task=st.sampled_from(TASKS),
        num_envs=st.integers(1, 9),
        batch_frac=st.floats(0.1, 1.0),
        threads=st.integers(1, 3),
        mode=st.sampled_from(["next_step", "same_step", "disabled"]),
    )
    def make(self, task, num_envs, batch_frac, threads, mode):
        batch = max(1, int(round(num_envs * batch_frac)))
        kwargs = {"terminate_at": 3, "fail_at": 7} if task == "StepCounter-v0" else {}
        self.envs = envpool.make(
            task, num_envs=num_envs, batch_size=batch, num_threads=threads, autoreset_mode=mode, **kwargs
        )
        self.n, self.batch = num_envs, batch
        self.in_flight: set[int] = set()  # sent, not yet returned by recv
        self.send_order: list[int] = []  # the envs in flight, in the order they were sent
        self.started: set[int] = set()  # reset at least once
        self.needs_reset: set[int] = set()  # disabled mode: episode over
        self.autoresets: set[int] = set()  # next-step mode: episode over, the next step resets
        self.closed = False
        self.mode = mode

    # -- helpers ---------------------------------------------------------------------------------

    def actions(self, count, bad=None):
        space = self.envs.single_action_space
        acts = np.stack([space.sample() for _ in range(count)]) if count else np.zeros((0,) + space.shape, space.dtype)
        if bad == "shape":
            return acts[: max(0, count - 1)]
        if bad == "dtype":
            return acts.astype(np.complex64)
        if bad == "value":
            return np.full_like(acts, 99 if acts.dtype.kind == "i" else np.nan)
        return acts

    def check_result(self, result, expected_rows, full_batch=False):
        obs, rew, term, trunc, info = result
        if full_batch:  # step(): rows in env order; native pools' info names them too (as the reference's)
            ids = list(range(expected_rows))
            assert info["env_id"].tolist() == ids, sorted(info)
        else:
            ids = info["env_id"].tolist()
        assert len(ids) == expected_rows, (ids, expected_rows)
        assert len(set(ids)) == len(ids), f"env twice in one batch: {ids}"
        assert set(ids) <= self.in_flight, f"returned {ids} but in flight were {self.in_flight}"
        assert obs.shape == (expected_rows,) + self.envs.single_observation_space.shape
        assert obs.dtype == self.envs.single_observation_space.dtype
        assert rew.dtype == np.float64 and rew.shape == (expected_rows,)
        assert term.dtype == np.bool_ and trunc.dtype == np.bool_
        self.in_flight -= set(ids)
        self.send_order = [i for i in self.send_order if i in self.in_flight]
        if self.mode == "next_step":
            done = {i for i, t, u in zip(ids, term.tolist(), trunc.tolist()) if t or u}
            self.autoresets = (self.autoresets - set(ids)) | done
        if self.mode == "disabled":
            done = {i for i, t, u in zip(ids, term.tolist(), trunc.tolist()) if t or u}
            self.needs_reset |= done
            self.needs_reset -= set(ids) - done

    def receive(self, call):
        try:
            result = call()
        except envpool.EnvError as err:  # a failing env: the batch is in err.result
            result = err.result
        return result

    # -- rules -----------------------------------------------------------------------------------

    @precondition(lambda self: not self.closed)
    @rule(seed=st.one_of(st.none(), st.integers(0, 2**31)))
    def reset(self, seed):
        try:
            obs, info = self.envs.reset(seed=seed)
        except envpool.EnvError as err:
            info = err.result[4]
        except ALLOWED as exc:
            assert self.in_flight, f"reset refused with nothing in flight: {exc!r}"
            return
        assert not self.in_flight
        self.in_flight |= set(range(self.n))
        self.started |= set(range(self.n))
        self.needs_reset.clear()
        self.autoresets.clear()
        # A full batch comes back whole (gymnasium's info: no env_id); an async one names its envs.
        self.in_flight -= set(info["env_id"].tolist()) if self.batch < self.n else set(range(self.n))

    @precondition(lambda self: not self.closed)
    @rule(data=st.data(), bad=st.sampled_from([None, None, None, "shape", "dtype", "value"]))
    def send(self, data, bad):
        idle = sorted(self.started - self.in_flight - self.needs_reset)
        if idle and data.draw(st.booleans(), label="from idle envs"):
            ids = data.draw(st.lists(st.sampled_from(idle), min_size=1, max_size=len(idle), unique=True), label="ids")
        else:
            ids = data.draw(ids_strategy, label="ids")
        valid = (
            (bad is None or self.ignored_values(bad, ids))
            and len(ids) > 0
            and len(set(ids)) == len(ids)
            and all(0 <= i < self.n for i in ids)
            and not (set(ids) & self.in_flight)
            and set(ids) <= self.started
            and not (set(ids) & self.needs_reset)
        )
        try:
            self.envs.send(self.actions(len(ids), bad), np.array(ids, dtype=np.int64))
        except ALLOWED:
            assert not valid, f"valid send {ids} refused"
            return
        assert valid, f"invalid send {ids} (bad={bad}) accepted"
        self.in_flight |= set(ids)
        self.send_order += ids

    @precondition(lambda self: not self.closed)
    @rule()
    def recv(self):
        if self.batch == self.n and self.in_flight:
            # A full batch returns every env in flight, in the order they were sent (all of
            # them, or a subset sent by id, as the reference EnvPool's sync mode).
            order = self.send_order
            result = self.receive(lambda: self.envs.recv(timeout=30))
            assert result[4]["env_id"].tolist() == order, (result[4]["env_id"], order)
            self.check_result(result, len(order))
            return
        if len(self.in_flight) < self.batch:
            try:
                self.envs.recv(timeout=1.0)
            except RuntimeError as exc:
                assert "wait forever" in str(exc)
                return
            raise AssertionError("recv with too few envs in flight did not raise")
        self.check_result(self.receive(lambda: self.envs.recv(timeout=30)), self.batch)

    @precondition(lambda self: not self.closed and self.batch == self.n)
    @rule(bad=st.sampled_from([None, None, "shape", "value"]))
    def step(self, bad):
        valid = (
            (bad is None or self.ignored_values(bad, range(self.n)))
            and not self.in_flight
            and self.started == set(range(self.n))
            and not self.needs_reset
        )
        try:
            result = self.receive(lambda: self.envs.step(self.actions(self.n, bad), timeout=30))
        except ALLOWED:
            assert not valid, "valid step refused"
            return
        assert valid, f"invalid step (bad={bad}) accepted"
        self.in_flight |= set(range(self.n))
        self.check_result(result, self.n, full_batch=True)

    def ignored_values(self, bad, ids) -> bool:
        """Out-of-range values for envs that all start a new episode instead: not used, so fine."""
        return bad == "value" and self.mode == "next_step" and bool(ids) and set(ids) <= self.autoresets

    @precondition(lambda self: not self.closed)
    @rule(env_id=st.integers(-2, 12))
    def state_roundtrip(self, env_id):
        if self.envs.task_id == "StepCounter-v0":
            return  # exposes no state
        try:
            state = self.envs.get_state(env_id)
            self.envs.set_state(env_id, state)
        except ALLOWED:
            assert not (0 <= env_id < self.n) or env_id in self.in_flight or env_id not in self.started
            return
        assert 0 <= env_id < self.n and env_id not in self.in_flight
        # set_state puts the env mid-episode: it may step now, reset or not before.
        self.started.add(env_id)
        self.needs_reset.discard(env_id)

    @precondition(lambda self: not self.closed)
    @rule()
    def close(self):
        self.envs.close()
        self.closed = True

    @precondition(lambda self: self.closed)
    @rule()
    def use_after_close(self):
        for call in (self.envs.recv, lambda: self.envs.reset(), lambda: self.envs.send(self.actions(1), [0])):
            try:
                call()
            except RuntimeError as exc:
                assert "closed" in str(exc)
            else:
                raise AssertionError("call after close() succeeded")

    @invariant()
    def in_flight_bounded(self):
        if not self.closed:
            assert self.envs._pool.in_flight >= len(self.in_flight)

    def teardown(self):
        self.envs.close()


def main() -> int:
    max_examples = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    PoolMachine.TestCase.settings = settings(
        max_examples=max_examples,
        stateful_step_count=40,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    PoolMachine.TestCase().runTest()
    print("fuzz: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
