"""What the server of external episodes refuses, and how: bad observations, unknown and ended
episodes, malformed and oversized frames, a wrong token, a trainer's misuse; each answered with
an error that says what was wrong, and the other episodes go on."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("zmq", reason="external episodes need pyzmq (pip install envpool-ng[external])")
pytest.importorskip("msgpack", reason="external episodes need msgpack (pip install envpool-ng[external])")

from support.external import answer_in_background  # noqa: E402

import envpool  # noqa: E402

CARTPOLE = gym.make("CartPole-v1")
OBS_SPACE, ACT_SPACE = CARTPOLE.observation_space, CARTPOLE.action_space

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    "obs, code, words",
    [
        (np.zeros(5, np.float32), "bad_request", "shape"),
        (np.zeros(4, np.float64), "bad_request", "dtype"),
        (np.array([0, np.nan, 0, 0], np.float32), "bad_request", "non-finite"),
        (np.array([0, np.inf, 0, 0], np.float32), "bad_request", "non-finite"),
    ],
)
def test_bad_observations_get_an_error_reply_and_the_episode_goes_on(server, obs, code, words):
    client = envpool.PolicyClient(server.address)
    t, rows, stop = answer_in_background(server)
    try:
        eid = client.start_episode()
        # Send it raw (the client would refuse some locally): the server must say what is wrong.
        conn = client._conn()
        header = {
            "v": 2,
            "op": "get_action",
            "episode_id": eid,
            "obs": {"dtype": obs.dtype.name, "shape": list(obs.shape)},
        }
        with pytest.raises(envpool.ExternalError, match=words) as err:
            client._roundtrip(conn, header, [obs.tobytes()])
        assert err.value.code == code
        assert int(client.get_action(eid, np.zeros(4, np.float32))) == 0  # the episode goes on
        client.end_episode(eid, np.zeros(4, np.float32))
    finally:
        stop.set()
        t.join()
        client.close()


def test_unknown_and_ended_episodes_and_client_side_checks(server):
    client = envpool.PolicyClient(server.address)
    t, rows, stop = answer_in_background(server)
    try:
        with pytest.raises(envpool.ExternalError, match="unknown_episode"):
            client.get_action("nope", np.zeros(4, np.float32))
        eid = client.start_episode()
        client.get_action(eid, np.zeros(4, np.float32))
        client.end_episode(eid, np.zeros(4, np.float32))
        with pytest.raises(envpool.ExternalError, match="episode_ended"):
            client.log_action(eid, np.zeros(4, np.float32), 1)
        with pytest.raises(envpool.ExternalError, match="duplicate_episode"):
            client.start_episode(eid)
        other = client.start_episode()
        with pytest.raises(ValueError, match="shape"):
            client.get_action(other, np.zeros(3, np.float32))
        with pytest.raises(envpool.ExternalError, match="outside the space"):
            conn = client._conn()
            client._roundtrip(
                conn,
                {
                    "v": 2,
                    "op": "log_action",
                    "episode_id": other,
                    "obs": {"dtype": "float32", "shape": [4]},
                    "action": {"dtype": "int64", "shape": []},
                },
                [np.zeros(4, np.float32).tobytes(), np.int64(7).tobytes()],
            )
        with pytest.raises(envpool.ExternalError, match="finite"):
            client.log_returns(other, float("nan"))
        assert int(client.get_action(other, np.zeros(4, np.float32))) == 0
    finally:
        stop.set()
        t.join()
        client.close()


def raw_socket(address):
    import zmq

    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://{address}")
    return sock


def raw_call(sock, frames, timeout_ms=5000):
    import msgpack

    sock.send_multipart(frames)
    assert sock.poll(timeout_ms), "no reply"
    return msgpack.unpackb(sock.recv_multipart()[0], raw=False)


def _get_action_header(eid: str, rid: int) -> bytes:
    import msgpack

    return msgpack.packb(
        {"v": 2, "op": "get_action", "episode_id": eid, "rid": rid, "obs": {"dtype": "float32", "shape": [4]}}
    )


def test_malformed_and_oversized_frames_are_refused_and_others_go_on():
    import msgpack

    server = envpool.serve(OBS_SPACE, ACT_SPACE, max_frame_bytes=4096)
    client = envpool.PolicyClient(server.address)
    t, rows, stop = answer_in_background(server)
    sock = raw_socket(server.address)
    try:
        eid = client.start_episode()
        assert raw_call(sock, [b"\xc1 not msgpack"])["code"] == "bad_request"
        assert raw_call(sock, [msgpack.packb([1, 2])])["code"] == "bad_request"
        reply = raw_call(sock, [msgpack.packb({"op": "hello", "client": "raw", "rid": 1})])
        assert reply["ok"] and reply["rid"] == 1
        assert raw_call(sock, [msgpack.packb({"v": 2, "op": "fly", "rid": 2})])["code"] == "bad_request"
        r = raw_call(sock, [_get_action_header(eid, 3)])
        assert r["code"] == "unknown_episode"  # another client's episode: not reachable, not revealed
        mine = raw_call(sock, [msgpack.packb({"v": 2, "op": "start_episode", "rid": 4})])["episode_id"]
        r = raw_call(sock, [_get_action_header(mine, 5)])
        assert r["code"] == "bad_request" and "frame" in r["error"]  # the array frame is missing
        r = raw_call(sock, [_get_action_header(mine, 6), b"\0" * 20])
        assert r["code"] == "bad_request" and "20 bytes" in r["error"]
        # Over max_frame_bytes: dropped as it arrives (never buffered whole), answered too_large.
        r = raw_call(sock, [_get_action_header(mine, 7), b"\0" * 100_000])
        assert r["rid"] == 7 and r["code"] == "too_large" and "max_frame_bytes=4096" in r["error"]
        r = raw_call(sock, [_get_action_header(mine, 8), b"\0" * 16])
        assert r["rid"] == 8 and r["ok"]  # the same connection goes on: that row reached the trainer
        assert int(client.get_action(eid, np.zeros(4, np.float32))) == 0  # others go on
        with pytest.raises(ValueError, match="max_frame_bytes"):  # the client checks first
            client.log_returns(eid, 1.0, {"notes": "x" * 5000})
        with pytest.raises(ValueError, match="smaller than one observation"):
            envpool.serve(gym.spaces.Box(0, 1, (2000,)), ACT_SPACE, max_frame_bytes=4096)
    finally:
        sock.close()
        stop.set()
        t.join()
        client.close()
        server.close()


def test_token_auth_wrong_token_is_refused_and_nothing_leaks():
    import msgpack

    server = envpool.serve(OBS_SPACE, ACT_SPACE, token="s3cret")
    good = envpool.PolicyClient(server.address, token="s3cret")
    bad = envpool.PolicyClient(server.address, token="guess", timeout=5)
    sock = raw_socket(server.address)
    try:
        eid = good.start_episode()
        with pytest.raises(envpool.ExternalError, match="auth"):
            bad.start_episode()
        # Before hello nothing is read, whatever it asks; after a refused hello neither.
        for rid, header in enumerate(
            [{"v": 2, "op": "start_episode"}, {"v": 2, "op": "log_returns", "episode_id": eid, "reward": 1.0}]
        ):
            r = raw_call(sock, [msgpack.packb({**header, "rid": rid})])
            assert r == {
                "rid": rid,
                "ok": False,
                "code": "unauthenticated",
                "error": "send hello (with the server's token) first",
            }
        r = raw_call(sock, [msgpack.packb({"op": "hello", "client": "x", "token": "s3cre", "rid": 9})])
        assert r == {"rid": 9, "ok": False, "code": "auth", "error": "wrong token"}  # no spaces, no ids
        r = raw_call(sock, [msgpack.packb({"v": 2, "op": "start_episode", "rid": 10})])
        assert r["code"] == "unauthenticated"
        with pytest.raises(envpool.ExternalError, match="auth"):
            envpool.PolicyClient(server.address, timeout=5).start_episode()  # no token at all
    finally:
        sock.close()
        bad.close()
        good.close()
        server.close()


def test_trainer_side_misuse_raises_as_for_native_pools(server):
    with pytest.raises(TimeoutError):
        server.recv(timeout=0.05)
    client = envpool.PolicyClient(server.address)
    try:
        eid = client.start_episode()
        t = threading.Thread(target=lambda: client.get_action(eid, np.zeros(4, np.float32)))
        t.start()
        obs, reward, terminated, truncated, info = server.recv(timeout=5)
        with pytest.raises(ValueError, match="out of range|outside"):
            server.send(np.array([5]), info["env_id"])  # Discrete(2)
        with pytest.raises(TypeError):
            server.send(np.array([0.5]), info["env_id"])
        with pytest.raises(RuntimeError, match="still stepping"):
            server.send(np.array([0]), np.array([(int(info["env_id"][0]) + 1) % 64]))  # a slot nobody returned
        with pytest.raises(ValueError):
            server.reset(seed=1)
        server.send(np.array([1]), info["env_id"])
        t.join(5)
        assert not t.is_alive()
    finally:
        client.close()
