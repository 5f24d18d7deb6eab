"""External episodes in one command: a trainer serves actions to client processes that each
run their own CartPole loop and ask for actions (inverted control).

    python examples/external_cartpole.py --clients 4 --episodes 5

The trainer is `envpool.serve(...)`: a gymnasium VectorEnv whose recv() returns the client
episodes waiting for an action and whose send() answers them. Each client process uses
`envpool.PolicyClient`: start_episode, get_action, log_returns, end_episode. The "policy" here
is a fixed rule (push the cart the way the pole falls), so returns are long; swap in a network.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np


def client_main(address: str, episodes: int, seed: int) -> None:
    import gymnasium as gym

    import envpool

    env = gym.make("CartPole-v1")
    with envpool.PolicyClient(address) as client:
        for e in range(episodes):
            obs, _ = env.reset(seed=seed * 1000 + e)
            eid = client.start_episode()
            total, done = 0.0, False
            while not done:
                action = client.get_action(eid, obs)
                obs, reward, terminated, truncated, _ = env.step(int(action))
                client.log_returns(eid, reward)
                total += reward
                done = terminated or truncated
            client.end_episode(eid, obs, truncated=bool(truncated and not terminated))
            print(f"client {seed}: episode {e} return {total:.0f}", flush=True)


def trainer_main(clients: int, episodes: int) -> None:
    import gymnasium as gym

    import envpool

    spec = gym.make("CartPole-v1")
    server = envpool.serve(spec.observation_space, spec.action_space, batch_size=min(8, clients), wait_ms=1.0)
    print(f"serving on {server.address}; starting {clients} client processes", flush=True)
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, "--client", server.address, "--episodes", str(episodes), "--seed", str(i)]
        )
        for i in range(clients)
    ]
    running: dict[str, float] = {}  # episode id -> return so far, as the trainer sees it
    finished: list[float] = []
    rows, start = 0, time.monotonic()
    try:
        while len(finished) < clients * episodes:
            try:
                obs, reward, terminated, truncated, info = server.recv(timeout=1.0)
            except TimeoutError:
                if all(p.poll() is not None for p in procs):
                    break  # every client left
                continue
            rows += len(obs)
            for i, eid in enumerate(info["episode_id"]):
                running[eid] = running.get(eid, 0.0) + reward[i]
                if terminated[i] or truncated[i]:
                    finished.append(running.pop(eid))
            actions = (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)  # the policy
            server.send(actions, info["env_id"])  # ignored for rows that ended an episode
    finally:
        for p in procs:
            p.wait(timeout=30)
        server.close()
    elapsed = time.monotonic() - start
    print(
        f"{len(finished)} episodes from {clients} clients, {rows} actions served in {elapsed:.2f} s "
        f"({rows / elapsed:,.0f}/s); mean return {np.mean(finished):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument("--episodes", type=int, default=3, help="episodes per client")
    parser.add_argument("--client", metavar="ADDRESS", help=argparse.SUPPRESS)  # run as a client
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client_main(args.client, args.episodes, args.seed)
    else:
        trainer_main(args.clients, args.episodes)


if __name__ == "__main__":
    main()
