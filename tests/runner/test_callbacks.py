"""envpool.RunnerCallbacks: the order and counts of the runner's callbacks."""

from __future__ import annotations

import pytest

import envpool

from .oracle import make_pool, policy


class Recorder(envpool.RunnerCallbacks):
    def __init__(self):
        self.events = []

    def on_episode_created(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == 0 and episode.env_id == env_index
        self.events.append(("created", episode.id, env_index))

    def on_episode_start(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == 1 and len(episode) == 0
        self.events.append(("start", episode.id, env_index))

    def on_episode_step(self, *, episode, env_runner, env_index):
        assert len(episode.observations) == len(episode) + 1
        self.events.append(("step", episode.id, env_index))

    def on_episode_end(self, *, episode, env_runner, env_index):
        assert episode.is_done
        self.events.append(("end", episode.id, env_index))

    def on_sample_end(self, *, env_runner, samples):
        self.events.append(("sample_end", len(samples), sum(len(e) for e in samples)))


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
@pytest.mark.parametrize("batch_size", [4, 2])
def test_callbacks_order_and_counts(mode, batch_size):
    rec = Recorder()
    with make_pool("native", 4, batch_size, mode) as envs:
        runner = envpool.EnvRunner(envs, policy, callbacks=[rec])
        samples = [runner.sample(num_timesteps=n) for n in (50, 77, 200)]
    # Per call: one on_sample_end, after everything else of the call, with the returned samples.
    ends = [i for i, e in enumerate(rec.events) if e[0] == "sample_end"]
    assert len(ends) == 3 and ends[-1] == len(rec.events) - 1
    assert [rec.events[i][1:] for i in ends] == [(len(s), sum(len(e) for e in s)) for s in samples]
    # Per episode id: created, start, steps..., end (chunks of one episode share one id).
    per_id: dict[str, list[str]] = {}
    for event in rec.events:
        if event[0] != "sample_end":
            per_id.setdefault(event[1], []).append(event[0])
    num_steps = num_ended = 0
    for seq in per_id.values():
        assert seq[0] == "created"
        body = seq[1:]
        if body:
            assert body[0] == "start"
            steps = body[1:]
            if steps and steps[-1] == "end":
                steps = steps[:-1]
                num_ended += 1
            assert set(steps) <= {"step"}
            num_steps += len(steps)
    assert num_steps == 327
    finished = [e for s in samples for e in s if e.is_done]
    assert num_ended == len(finished) > 0
    # Every env gets one episode at the start and a new one after each end.
    assert len(per_id) == 4 + num_ended
    # A steps' episode is the env's current one: events of one env never interleave ids.
    for env in range(4):
        ids = [e[1] for e in rec.events if e[0] != "sample_end" and e[2] == env]
        order = list(dict.fromkeys(ids))
        assert ids == sorted(ids, key=order.index)
