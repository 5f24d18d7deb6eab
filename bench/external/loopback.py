"""Loopback load test of external episodes (envpool.serve): get_action round trips.

    python -m bench.external.loopback                      # defaults: 256 episodes, 4 client processes
    python -m bench.external.loopback --seconds 3 --repeat 3

Rows (each measured for --seconds after a warm-up, alternated A B A B ... --repeat times,
medians reported; every client process stops by itself at its deadline):
  pipelined   256 concurrent episodes in --procs client processes, each process keeping all its
              episodes' get_action requests outstanding on one ZeroMQ connection (a raw
              protocol client, docs/external_protocol.md): what the server + trainer sustain.
  threads     the same 256 episodes driven by envpool.PolicyClient, one thread per episode.
  one client  one PolicyClient in its own process, one episode, sequential get_action.
  gymnasium   the comparison: gymnasium.vector.AsyncVectorEnv of --gym-envs CartPole-v1 worker
              processes, step() round trips (RLlib's PolicyServerInput, the issue's first choice,
              no longer exists in ray 2.60: ray/rllib/env has policy_client.py but no
              policy_server_input.py).
The trainer is a thread in this process answering with recv()/send() (a constant action), so
the numbers are the transport, the server thread and the core's batching, not a policy.
"server CPU us/rt" is this process's CPU time (server thread + trainer thread) per round trip,
"client CPU us/rt" the client processes' (sum over processes, per round trip they completed):
together they bound what a quiet machine of N cores can reach (N * 1e6 / their sum).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time

import numpy as np

OBS = np.zeros(4, np.float32)


# -- client processes ---------------------------------------------------------------------------


def ready_then_window() -> tuple[float, float]:
    """Tells the parent this client is set up; returns the (warm-up end, deadline) it sends:
    every client measures the same window, however long each took to start."""
    print("ready", flush=True)
    warmup, deadline = map(float, sys.stdin.readline().split())
    return warmup, deadline


def client_pipelined(address: str, episodes: int) -> dict:
    import msgpack
    import zmq

    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://{address}")
    rid = 0
    # The load generator is kept cheap, so that the row measures the server: frames are read
    # without copy (Frame.more, where recv_multipart's getsockopt(RCVMORE) costs an enum lookup
    # a frame) and sent with plain int flags.
    more = int(zmq.SNDMORE)

    def send(header, *frames):
        nonlocal rid
        rid += 1
        if frames:
            sock.send(msgpack.packb({**header, "rid": rid}), more)
            for frame in frames[:-1]:
                sock.send(frame, more)
            sock.send(frames[-1])
        else:
            sock.send(msgpack.packb({**header, "rid": rid}))
        return rid

    def recv():
        frame = sock.recv(copy=False)
        frames = [frame.bytes]
        while frame.more:
            frame = sock.recv(copy=False)
            frames.append(frame.bytes)
        return msgpack.unpackb(frames[0]), frames[1:]

    send({"op": "hello", "client": f"bench-{id(sock)}"})
    version = recv()[0]["v"]  # the server's protocol version (an older build's may differ)
    eids = []
    for _ in range(episodes):
        send({"v": version, "op": "start_episode"})
        eids.append(recv()[0]["episode_id"])
    desc = {"dtype": "float32", "shape": [4]}
    obs = OBS.tobytes()
    warmup, deadline = ready_then_window()
    cpu0, total = _cpu_s(), 0
    started = {}
    for eid in eids:
        started[send({"v": version, "op": "get_action", "episode_id": eid, "obs": desc}, obs)] = (
            eid,
            time.perf_counter(),
        )
    lat, count, t_first = [], 0, None
    while started:
        if not sock.poll(5000):
            break
        reply, _ = recv()
        eid, t0 = started.pop(reply["rid"])
        total += 1
        now = time.perf_counter()
        if now >= warmup:
            if t_first is None:
                t_first = now
            lat.append(now - t0)
            count += 1
        if now < deadline:
            started[send({"v": version, "op": "get_action", "episode_id": eid, "obs": desc}, obs)] = (
                eid,
                time.perf_counter(),
            )
    t_last = time.perf_counter()
    cpu = _cpu_s() - cpu0
    send({"op": "bye"})
    return {"count": count, "start": t_first, "end": min(t_last, deadline), "lat": lat, "cpu_s": cpu, "total": total}


def client_threads(address: str, episodes: int) -> dict:
    import envpool

    client = envpool.PolicyClient(address)
    lats: list[list[float]] = []
    firsts: list[float] = []
    window: list[float] = []
    go = threading.Event()
    started = threading.Barrier(episodes + 1)

    def run():
        eid = client.start_episode()
        client.get_action(eid, OBS)  # connected and authenticated before the window
        started.wait()
        go.wait()
        warmup, deadline = window
        lat, first = [], None
        while True:
            t0 = time.perf_counter()
            if t0 >= deadline:
                break
            client.get_action(eid, OBS)
            now = time.perf_counter()
            if now >= warmup:
                first = first or now
                lat.append(now - t0)
        lats.append(lat)
        if first:
            firsts.append(first)

    ts = [threading.Thread(target=run) for _ in range(episodes)]
    for t in ts:
        t.start()
    started.wait()
    window.extend(ready_then_window())
    cpu0 = _cpu_s()
    go.set()
    for t in ts:
        t.join()
    cpu = _cpu_s() - cpu0
    deadline = window[1]
    client.close()
    lat = [x for lst in lats for x in lst]
    # Warm-up calls are not counted per thread: the window's calls stand for the whole span (an
    # overestimate of the CPU per call by at most the warm-up's share).
    return {
        "count": len(lat),
        "start": min(firsts) if firsts else None,
        "end": deadline,
        "lat": lat,
        "cpu_s": cpu,
        "total": len(lat),
    }


def client_main(argv: list[str]) -> None:
    mode, address, episodes = argv[0], argv[1], int(argv[2])
    fn = client_pipelined if mode == "pipelined" else client_threads
    print(json.dumps(fn(address, episodes)), flush=True)


# -- the trainer side ---------------------------------------------------------------------------


def run_envpool(mode: str, episodes: int, procs: int, seconds: float, batch_size: int, wait_ms: float) -> dict:
    import gymnasium as gym

    import envpool

    spec = gym.make("CartPole-v1")
    server = envpool.serve(
        spec.observation_space,
        spec.action_space,
        batch_size=batch_size,
        max_episodes=max(episodes, batch_size),
        wait_ms=wait_ms,
    )
    stop = threading.Event()
    batches = []

    def trainer():
        zeros = np.zeros(batch_size, np.int64)
        while not stop.is_set():
            try:
                obs, reward, terminated, truncated, info = server.recv(timeout=0.05)
            except TimeoutError:
                continue
            batches.append(len(obs))
            server.send(zeros[: len(obs)], info["env_id"])

    t = threading.Thread(target=trainer)
    t.start()
    per = [episodes // procs + (i < episodes % procs) for i in range(procs)]
    ps = [
        subprocess.Popen(
            [sys.executable, __file__, "--client", mode, server.address, str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in per
        if n
    ]
    try:
        for p in ps:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError("a client process failed to start")
        # perf_counter is CLOCK_MONOTONIC on Linux: the same clock in every process.
        cpu0, rows0 = _cpu_s(), sum(batches)
        now = time.perf_counter()
        for p in ps:
            p.stdin.write(f"{now + 0.5!r} {now + 0.5 + seconds!r}\n")  # 0.5 s warm-up, then the window
            p.stdin.flush()
        outs = [json.loads(p.communicate(timeout=seconds + 60)[0]) for p in ps]
        cpu_us = (_cpu_s() - cpu0) / max(1, sum(batches) - rows0) * 1e6
    finally:
        for p in ps:
            p.kill()
        stop.set()
        t.join()
        server.close()
    lat = np.concatenate([np.asarray(o["lat"]) for o in outs]) * 1e3
    starts = [o["start"] for o in outs if o["start"] is not None]
    span = max(o["end"] for o in outs) - min(starts)
    return {
        "rt_per_s": sum(o["count"] for o in outs) / span,
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        "mean_batch": float(np.mean(batches)) if batches else 0.0,
        "server_cpu_us": cpu_us,
        "client_cpu_us": sum(o["cpu_s"] for o in outs) / max(1, sum(o["total"] for o in outs)) * 1e6,
    }


def _cpu_s() -> float:
    """CPU seconds of this process (the server and trainer threads), user + system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_gymnasium(num_envs: int, seconds: float) -> dict:
    import gymnasium as gym

    envs = gym.vector.AsyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(num_envs)])
    envs.reset(seed=0)
    actions = np.zeros(num_envs, np.int64)
    lat = []
    end_warm = time.perf_counter() + 0.5
    while time.perf_counter() < end_warm:
        envs.step(actions)
    start = time.perf_counter()
    while (now := time.perf_counter()) < start + seconds:
        envs.step(actions)
        lat.append(time.perf_counter() - now)
    span = time.perf_counter() - start
    envs.close()
    lat_ms = np.asarray(lat) * 1e3
    return {
        "rt_per_s": len(lat) * num_envs / span,
        "p50_ms": float(np.percentile(lat_ms, 50)),
        "p99_ms": float(np.percentile(lat_ms, 99)),
        "mean_batch": float(num_envs),
        "server_cpu_us": float("nan"),
        "client_cpu_us": float("nan"),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        client_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--procs", type=int, default=4, help="client processes")
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per run")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--wait-ms", type=float, default=1.0)
    parser.add_argument("--gym-envs", type=int, default=4)
    args = parser.parse_args()
    rows = {
        "pipelined": lambda: run_envpool(
            "pipelined", args.episodes, args.procs, args.seconds, args.batch_size, args.wait_ms
        ),
        "threads": lambda: run_envpool(
            "threads", args.episodes, args.procs, args.seconds, args.batch_size, args.wait_ms
        ),
        "one client": lambda: run_envpool("threads", 1, 1, args.seconds, 1, 0.0),
        f"gymnasium AsyncVectorEnv x{args.gym_envs}": lambda: run_gymnasium(args.gym_envs, args.seconds),
    }
    results: dict[str, list[dict]] = {name: [] for name in rows}
    for r in range(args.repeat):
        for name, fn in rows.items():  # A B C D A B C D: the machine's drift hits every row alike
            results[name].append(fn())
            print(
                f"run {r + 1}/{args.repeat} {name}: "
                + ", ".join(f"{k} {v:,.3f}" for k, v in results[name][-1].items()),
                file=sys.stderr,
                flush=True,
            )
    print(
        f"\n{'row':34s} {'round trips/s':>14s} {'p50 ms':>8s} {'p99 ms':>8s} {'mean batch':>10s} "
        f"{'server CPU us/rt':>16s} {'client CPU us/rt':>16s}   (medians of {args.repeat})"
    )
    for name, runs in results.items():
        med = {k: float(np.median([run[k] for run in runs])) for k in runs[0]}
        print(
            f"{name:34s} {med['rt_per_s']:14,.0f} {med['p50_ms']:8.3f} {med['p99_ms']:8.3f} {med['mean_batch']:10.1f} "
            f"{med['server_cpu_us']:16.1f} {med['client_cpu_us']:16.1f}"
        )


if __name__ == "__main__":
    main()
