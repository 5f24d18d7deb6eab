"""RunnerGroup across the nodes of a Ray cluster on this machine, one node killed mid-sample.

``ray.cluster_utils.Cluster`` starts a head and two worker nodes as separate raylets on loopback
(each with its own processes and resources); each runner is placed on its own worker node. The
test kills one worker node (its raylet and every process of it) while ``sample`` runs: the call
completes from the other runner with nothing duplicated, and Ray restarts the lost runner on a
node that is still alive. Bounded: every Ray call has a timeout; the cluster is shut down after
(no raylet outlives the test). Needs ray: skipped without it; scripts/ci_ray.sh runs it.
"""

import sys
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs ray (pip install 'envpool-ng[ray]'; scripts/ci_ray.sh)")
if not hasattr(ray, "remote"):  # a folder named ray on sys.path (e.g. Ray's /tmp/ray from the cwd)
    pytest.skip(f"'ray' here is not Ray: {ray.__path__}", allow_module_level=True)
cluster_utils = pytest.importorskip("ray.cluster_utils")
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

import envpool.ray  # noqa: E402

pytestmark = pytest.mark.integration

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


class SlowRandomPolicy:
    """Random CartPole actions, 2 ms per batch, so that a sample() call lasts seconds."""

    def __call__(self, obs):
        time.sleep(0.002)
        return np.random.randint(0, 2, size=len(obs))


@pytest.fixture
def cluster():
    c = cluster_utils.Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            # Notice a dead node within ~2 s instead of the default ~30 s.
            "_system_config": {
                "health_check_initial_delay_ms": 0,
                "health_check_period_ms": 500,
                "health_check_failure_threshold": 4,
            },
        },
    )
    workers = [c.add_node(num_cpus=1, resources={f"worker{i}": 1}) for i in range(2)]
    c.wait_for_nodes(timeout=60)
    ray.init(address=c.address, log_to_driver=False)
    try:
        yield c, workers
    finally:
        ray.shutdown()
        c.shutdown()


def test_runners_on_different_nodes_survive_a_killed_node(cluster):
    c, workers = cluster
    node_ids = [w.node_id for w in workers]
    # soft=True: a runner whose node died may be restarted on any node that is alive.
    options = [{"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=True)} for node_id in node_ids]
    group = envpool.ray.RunnerGroup(
        "CartPole-v1", num_runners=2, policy=SlowRandomPolicy(), num_envs=4, actor_options=options, start_timeout=60
    )
    try:
        assert group.node_ids(timeout=30) == node_ids  # one runner per worker node
        warmup = group.sample(num_timesteps=200, timeout=60)
        assert {e.runner for e in warmup} == {0, 1}

        killer = threading.Timer(1.0, lambda: c.remove_node(workers[1], allow_graceful=False))
        killer.start()
        t0 = time.monotonic()
        # 6000 steps per runner, 4 envs each, 2 ms per batch: >= 3 s, the node dies at 1 s.
        episodes = group.sample(num_timesteps=12000, timeout=180)
        killer.join()
        assert time.monotonic() - t0 > 1.0
        assert 1 in group.last_dead, "runner 1 should have died with its node"
        assert sum(len(e) for e in episodes) == 12000
        assert {e.runner for e in episodes} == {0}
        keys = [(e.id, e.t_started) for e in episodes]
        assert len(keys) == len(set(keys))

        # Ray restarts runner 1 on a node still alive (the head: its CPU is free).
        later = group.sample(num_timesteps=400, timeout=120)
        assert {e.runner for e in later} == {0, 1}
        assert sum(len(e) for e in later) == 400
        alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert set(group.node_ids(timeout=30)) <= alive and node_ids[1] not in alive
        seen = {e.id for e in warmup + episodes}
        assert not {e.id for e in later if e.runner == 1} & seen
    finally:
        group.stop()
