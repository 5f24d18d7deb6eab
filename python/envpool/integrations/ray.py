"""Sample with envpool on many machines: :class:`RunnerGroup`, N Ray actors that each own a pool
and an :class:`envpool.EnvRunner`. Imports Ray only when a group is made.

Ray does the scheduling, transport and fault tolerance: each runner is a Ray actor (restarted by
Ray when it or its node dies), episodes come back through Ray's object store, and
``ray.init(address=...)`` before the group joins a cluster (without it, Ray starts a local one)::

    import envpool.ray

    group = envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, num_envs=8, seed=0)
    episodes = group.sample(num_timesteps=1000)          # 500 steps from each runner
    sum(len(e) for e in episodes), sorted({e.runner for e in episodes})   # (1000, [0, 1])
    group.get_metrics()["num_env_steps_sampled"]          # 1000
    group.stop()
"""

from __future__ import annotations

import secrets
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envpool.lifecycle import Lifecycle
from envpool.process.pool import make_python
from envpool.registration import make
from envpool.runner import EnvRunner, Episode
from envpool.runner.packed import PackedEpisodes
from envpool.tasks import list_all_envs

__all__ = ["RunnerEpisode", "RunnerGroup"]


class RunnerEpisode(Episode):
    """An :class:`envpool.Episode` that says which runner of a :class:`RunnerGroup` sampled it
    (``runner``: its index, 0 to ``num_runners - 1``). ``id`` stays unique across runners."""

    __slots__ = ("runner",)

    def __getstate__(self):
        return {name: getattr(self, name) for name in (*Episode.__slots__, "runner")}

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, runner={self.runner})"


def _is_native(env: Any) -> bool:
    return isinstance(env, str) and env in list_all_envs()


class _Runner:
    """The body of one runner actor: a pool, an EnvRunner over it, and the policy's weights."""

    def __init__(self, index: int, env: Any, native: bool, make_kwargs: dict, policy: Any, callbacks: Any, seed: int):
        import ray

        self.index = index
        kwargs = dict(make_kwargs)
        # Distinct seeds for every env of every runner: runner i's env j gets seed + i*num_envs + j.
        # A restarted runner must not replay the episodes its predecessor already returned.
        num_envs = int(kwargs.get("num_envs", 1))
        with warnings.catch_warnings():  # Ray 2.60 warns about its own use of actor_id in here
            warnings.simplefilter("ignore")
            reconstructed = ray.get_runtime_context().was_current_actor_reconstructed
        if reconstructed:
            seed = secrets.randbelow(2**31)
        else:
            seed = seed + index * num_envs
        kwargs["seed"] = seed
        self.envs = (make if native else make_python)(env, **kwargs)
        self.policy = policy
        self.weights_version = -1
        self.runner = EnvRunner(self.envs, policy=policy, callbacks=callbacks, seed=seed)

    def sample(self, weights: tuple[int, Any] | None, **sample_kwargs: Any) -> PackedEpisodes:
        self._update_weights(weights)
        # Packed: a few arrays for the whole call instead of three or four per episode.
        return PackedEpisodes(self.runner.sample(**sample_kwargs))

    def set_weights(self, weights: tuple[int, Any]) -> None:
        self._update_weights(weights)

    def _update_weights(self, weights: tuple[int, Any] | None) -> None:
        # The weights come as (version, ObjectRef): fetched once per version, and a restarted
        # actor (version -1) catches up on its first call.
        if weights is None or weights[0] == self.weights_version:
            return
        import ray

        self.policy.set_weights(ray.get(weights[1]))
        self.weights_version = weights[0]

    def get_metrics(self) -> dict[str, float | int]:
        return self.runner.get_metrics()

    def get_state(self) -> dict[str, Any]:
        return self.runner.get_state()

    def ping(self) -> int:
        return self.index

    def node_id(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def close(self) -> None:
        self.envs.close()


class RunnerGroup:
    """``num_runners`` Ray actors, each owning a pool of ``env`` and an :class:`envpool.EnvRunner`.

    Args:
        env: an envpool task id (each runner's pool is ``envpool.make(env, **make_kwargs)``) or
            what :func:`envpool.make_python` takes (a gymnasium id or an env callable).
        num_runners: how many runner actors.
        policy: ``policy(obs) -> actions`` (or ``(actions, extras)``), as for ``EnvRunner``;
            shipped to every runner (so it must pickle). To broadcast new weights with
            :meth:`set_weights` it needs a ``set_weights(weights)`` method. ``None``: random
            actions.
        callbacks: RLlib-style callbacks, as for ``EnvRunner`` (run inside the runners).
        python: ``True``: pools of Python envs, ``envpool.make_python(env, ...)``; default:
            ``False`` for an envpool task id, ``True`` otherwise.
        num_cpus_per_runner: CPUs Ray reserves for each runner actor; also the default of
            ``num_threads`` (native pools) or ``num_workers`` (Python pools), so a pool uses
            what its actor reserved.
        max_restarts: how often Ray restarts a runner that died (its process or its node).
        actor_options: more ``ray.remote`` options for every runner (``resources``,
            ``scheduling_strategy``, ``runtime_env``, ...), or a list with one dict per runner.
        start_timeout: seconds to wait for every runner to start (``None``: wait); past it,
            ``TimeoutError`` (e.g. the cluster lacks the CPUs asked for).
        **make_kwargs: for ``make`` / ``make_python`` (``num_envs``, ``seed``, env kwargs...).
            ``seed`` (default 0) seeds runner ``i``'s env ``j`` with ``seed + i*num_envs + j``.

    A call that a runner cannot answer because it died (``ray.exceptions.RayActorError``) is
    completed by the others: its share of ``num_timesteps`` / ``num_episodes`` is sampled again
    by the runners that answered, and nothing it had sampled in that call is returned, so
    nothing is duplicated. Ray restarts it for later calls, with a fresh seed and the latest
    weights. Any other error (the policy or the env raised) is raised, naming the runner.

    Example::

        group = envpool.ray.RunnerGroup("CartPole-v1", num_runners=2, num_envs=16, num_cpus_per_runner=1)
        episodes = group.sample(num_episodes=10)
        len(episodes), all(e.is_done for e in episodes)   # (10, True)
        group.stop()
    """

    def __init__(
        self,
        env: str | Callable[..., Any],
        num_runners: int = 2,
        policy: Callable | None = None,
        *,
        callbacks: Any = None,
        python: bool | None = None,
        num_cpus_per_runner: float = 1,
        max_restarts: int = 3,
        actor_options: dict[str, Any] | Sequence[dict[str, Any]] | None = None,
        start_timeout: float | None = 120,
        **make_kwargs: Any,
    ):
        import ray

        if isinstance(num_runners, bool) or not isinstance(num_runners, (int, np.integer)) or num_runners < 1:
            raise ValueError(f"num_runners must be a positive int, got {num_runners!r}")
        if not (isinstance(num_cpus_per_runner, (int, float)) and num_cpus_per_runner > 0):
            raise ValueError(f"num_cpus_per_runner must be > 0, got {num_cpus_per_runner!r}")
        if policy is not None and not callable(policy):
            raise TypeError(f"policy must be callable or None, got {type(policy).__name__}")
        if make_kwargs.get("env_type", "gymnasium") != "gymnasium":
            raise ValueError(f"EnvRunner needs env_type='gymnasium', got {make_kwargs['env_type']!r}")
        if isinstance(actor_options, dict) or actor_options is None:
            per_runner = [dict(actor_options or {}) for _ in range(num_runners)]
        else:
            per_runner = [dict(o) for o in actor_options]
            if len(per_runner) != num_runners:
                raise ValueError(f"actor_options has {len(per_runner)} dicts for {num_runners} runners")
        native = _is_native(env) if python is None else not python
        if native and not _is_native(env):
            raise ValueError(
                f"{env!r} is not an envpool task (see envpool.list_all_envs()); pass python=True for a gymnasium id"
            )
        if isinstance(env, str) and not native and env.startswith("envpool/"):
            raise ValueError(f"{env!r}: pass the task id without 'envpool/' (see envpool.list_all_envs())")
        make_kwargs = dict(make_kwargs)
        threads_key = "num_threads" if native else "num_workers"
        make_kwargs.setdefault(threads_key, max(1, int(num_cpus_per_runner)))
        seed = make_kwargs.pop("seed", 0)
        self.env = env
        self.num_runners = int(num_runners)
        self.policy = policy
        self._weights: tuple[int, Any] | None = None
        self._state = Lifecycle.OPEN
        self.last_dead: dict[int, str] = {}  # runners that died during the last sample(): why
        actor_class = ray.remote(_Runner)
        self._actors = []
        for i, options in enumerate(per_runner):
            options.setdefault("num_cpus", num_cpus_per_runner)
            # Ray restarts a dead runner; a call in flight on it fails (max_task_retries=0) and
            # RunnerGroup has the others do its share instead of waiting for the restart.
            options.setdefault("max_restarts", max_restarts)
            options.setdefault("max_task_retries", 0)
            self._actors.append(
                actor_class.options(**options).remote(i, env, native, make_kwargs, policy, callbacks, seed)
            )
        # Surface a runner that cannot start (bad env kwargs, no resources) here, not mid-sample.
        try:
            ray.get([a.ping.remote() for a in self._actors], timeout=start_timeout)
        except BaseException as e:
            for actor in self._actors:
                ray.kill(actor, no_restart=True)
            self._state = Lifecycle.CLOSED
            if isinstance(e, ray.exceptions.GetTimeoutError):
                raise TimeoutError(
                    f"RunnerGroup: the runners did not start within {start_timeout} s (does the cluster "
                    f"have {num_cpus_per_runner} CPUs free for each of {num_runners} runners?)"
                ) from None
            raise RuntimeError(f"RunnerGroup: a runner could not start: {e}") from e

    # -- sampling ---------------------------------------------------------------------------

    def sample(
        self,
        num_timesteps: int | None = None,
        num_episodes: int | None = None,
        random_actions: bool = False,
        force_reset: bool = False,
        timeout: float | None = None,
    ) -> list[RunnerEpisode]:
        """Exactly ``num_timesteps`` env steps or ``num_episodes`` complete episodes in all,
        split evenly over the runners, which sample in parallel (each as
        :meth:`envpool.EnvRunner.sample`: ongoing episodes continue in the runner's next call).
        Returns the episodes, runner by runner, each tagged with ``runner``.

        ``timeout`` (seconds): raise ``TimeoutError`` if the runners have not all answered by
        then (``None``: wait).
        """
        self._check_open()
        if (num_timesteps is None) == (num_episodes is None):
            raise ValueError("sample() needs exactly one of num_timesteps and num_episodes")
        total = num_timesteps if num_episodes is None else num_episodes
        which = "num_timesteps" if num_episodes is None else "num_episodes"
        if isinstance(total, bool) or not isinstance(total, (int, np.integer)) or total < 1:
            raise ValueError(f"{which} must be a positive int, got {total!r}")
        import ray

        deadline = None if timeout is None else time.monotonic() + timeout
        flags = {"random_actions": random_actions, "force_reset": force_reset}
        results: dict[int, list[RunnerEpisode]] = {}
        alive = list(range(self.num_runners))
        missing = int(total)
        dead: dict[int, str] = {}
        while missing > 0:
            shares = _split(missing, len(alive))
            pending = {}
            for runner, share in zip(alive, shares):
                if share:
                    ref = self._actors[runner].sample.remote(self._weights, **{which: share}, **flags)
                    pending[ref] = (runner, share)
            for ref, (runner, share) in pending.items():
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    packed = ray.get(ref, timeout=left)
                except ray.exceptions.GetTimeoutError:
                    for other in pending:
                        ray.cancel(other)
                    raise TimeoutError(
                        f"RunnerGroup.sample: runner {runner} did not answer within {timeout} s"
                    ) from None
                except ray.exceptions.RayActorError as e:
                    # Died (process or node): its episodes of this call are lost; the others redo its share.
                    dead[runner] = str(e).splitlines()[0]
                    continue
                except ray.exceptions.RayTaskError as e:
                    raise RuntimeError(f"RunnerGroup.sample: runner {runner} failed: {e.cause!r}") from e.cause
                results.setdefault(runner, []).extend(packed.unpack(RunnerEpisode, runner=runner))
                missing -= share
            alive = [r for r in alive if r not in dead]
            if missing > 0 and not alive:
                raise RuntimeError(f"RunnerGroup.sample: every runner died during the call: {dead}")
        self.last_dead = dict(dead)
        return [e for runner in sorted(results) for e in results[runner]]

    def set_weights(self, weights: Any, timeout: float | None = None) -> None:
        """Broadcast ``weights`` to every runner's ``policy.set_weights``: put in Ray's object
        store once, fetched by each runner (and by a restarted one on its next call)."""
        self._check_open()
        if self.policy is None or not hasattr(self.policy, "set_weights"):
            raise TypeError("set_weights() needs a policy with a set_weights(weights) method")
        import ray

        version = 0 if self._weights is None else self._weights[0] + 1
        self._weights = (version, ray.put(weights))
        refs = [a.set_weights.remote(self._weights) for a in self._actors]
        # A runner that died meanwhile catches up on its next call after Ray restarts it.
        for ref in refs:
            try:
                ray.get(ref, timeout=timeout)
            except ray.exceptions.RayActorError:
                pass

    # -- metrics and lifecycle ----------------------------------------------------------------

    def get_metrics(self, timeout: float | None = None) -> dict[str, float | int]:
        """The runners' metrics since the last call, merged (RLlib's names, as
        :meth:`envpool.EnvRunner.get_metrics`): episode returns and lengths over all runners'
        finished episodes, counts and env steps/s summed, times summed over runners; plus
        ``num_healthy_runners`` (runners that answered)."""
        self._check_open()
        import ray

        parts = []
        for actor in self._actors:
            try:
                parts.append(ray.get(actor.get_metrics.remote(), timeout=timeout))
            except ray.exceptions.RayActorError:
                pass
        return merge_metrics(parts) | {"num_healthy_runners": len(parts)}

    def node_ids(self, timeout: float | None = None) -> list[str]:
        """The Ray node each runner lives on now."""
        import ray

        return ray.get([a.node_id.remote() for a in self._actors], timeout=timeout)

    def stop(self) -> None:
        """Close every pool and end the runner actors. Idempotent."""
        if self._state is not Lifecycle.OPEN:
            return
        self._state = Lifecycle.CLOSING
        import ray

        refs = [a.close.remote() for a in self._actors]
        try:
            ray.wait(refs, num_returns=len(refs), timeout=10)
        finally:
            for actor in self._actors:
                ray.kill(actor, no_restart=True)
            self._actors = []
            self._state = Lifecycle.CLOSED

    def _check_open(self) -> None:
        if self._state is not Lifecycle.OPEN:
            raise RuntimeError("RunnerGroup is stopped")

    def __enter__(self) -> RunnerGroup:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        stopped = ", stopped" if self._state is not Lifecycle.OPEN else ""
        return f"RunnerGroup({self.env!r}, num_runners={self.num_runners}{stopped})"


def _split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares that differ by at most one."""
    q, r = divmod(total, parts)
    return [q + (i < r) for i in range(parts)]


def merge_metrics(parts: list[dict[str, Any]]) -> dict[str, float | int]:
    """Merge per-runner ``EnvRunner.get_metrics()`` dicts: means weighted by episodes, min/max
    over runners, counts, rates and times summed.

    >>> a = {"episode_return_mean": 10.0, "episode_return_min": 5.0, "episode_return_max": 15.0,
    ...      "num_episodes": 2, "num_env_steps_sampled": 20}
    >>> b = {"episode_return_mean": 40.0, "episode_return_min": 40.0, "episode_return_max": 40.0,
    ...      "num_episodes": 1, "num_env_steps_sampled": 40}
    >>> m = merge_metrics([a, b])
    >>> m["episode_return_mean"], m["episode_return_min"], m["episode_return_max"], m["num_env_steps_sampled"]
    (20.0, 5.0, 40.0, 60)
    """
    out: dict[str, float | int] = {}
    episodes = [p.get("num_episodes", 0) for p in parts]
    n = sum(episodes)
    for key in {k for p in parts for k in p}:
        values = [p[key] for p in parts if key in p]
        if key.endswith("_mean"):
            weighted = [(v, w) for v, w in zip((p.get(key) for p in parts), episodes) if w and v is not None]
            out[key] = sum(v * w for v, w in weighted) / n if n else float("nan")
        elif key.endswith("_min"):
            finite = [v for v in values if not (isinstance(v, float) and np.isnan(v))]
            out[key] = min(finite) if finite else float("nan")
        elif key.endswith("_max"):
            finite = [v for v in values if not (isinstance(v, float) and np.isnan(v))]
            out[key] = max(finite) if finite else float("nan")
        else:
            out[key] = sum(values)
    return out
