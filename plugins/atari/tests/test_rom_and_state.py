"""What a ROM check checks, and what set_state accepts (issue 35, items 2, 5 and 6).

ROMs: a ROM file is read once at make, its MD5 must be the one the ALE knows for that game, and
the env runs the checked bytes kept in memory, whatever happens to the file afterwards.
States: set_state takes only what a get_state under the same state key returned, for an env of
the same game and options; everything else is a ValueError that leaves the env as it was. The
key is ENVPOOL_ATARI_STATE_KEY if set, else the per-user key file (conftest.py points
XDG_CACHE_HOME at a temporary folder), else one drawn for the process alone.
"""

import json
import os
import pathlib
import stat
import subprocess
import sys
import textwrap
import time

import ale_py
import numpy as np
import pytest
from atari_oracles import ours, random_actions

import envpool
from envpool.plugins import loaded_plugins

ROMS = pathlib.Path(ale_py.__file__).parent / "roms"
PONG_MD5 = "60e0ea3cbe0913d39803477945e9e5ec"  # the ALE's Pong (ale_py/roms/md5.json)


def run_python(code: str, timeout: float, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ, **env),
        timeout=timeout,
    )


def play(envs, seeds, steps):
    """A digest of a pool of 2 envs: seeded resets (each reloads the ROM), random actions between."""
    out = []
    for k, seed in enumerate(seeds):
        obs, _ = envs.reset(seed=seed)
        out.append(int(obs.sum()))
        for actions in random_actions(6, 2, steps, k):
            obs, reward, terminated, truncated, info = envs.step(actions)
            out += [int(obs.sum()), float(reward.sum()), int(terminated.sum()), int(info["frame_number"].sum())]
    return out


SEEDS, STEPS = [3, 4, 5], 120

# Makes Pong from a copy of its ROM in ALE_ROMS_DIR, then changes the file in each way, plays
# (seeded resets reload the ROM) and closes; prints the digests, the close times and whether a
# new make was refused.
CHANGED_ROM_SCRIPT = """
import json, os, pathlib, sys, time
sys.path.insert(0, {tests!r})
import envpool
from test_rom_and_state import SEEDS, STEPS, play
rom = pathlib.Path(os.environ["ALE_ROMS_DIR"]) / "pong.bin"
good = pathlib.Path({good!r}).read_bytes()
other = pathlib.Path({other!r}).read_bytes()
changes = {{
    "truncated": lambda: rom.write_bytes(good[:100]),
    "emptied": lambda: rom.write_bytes(b""),
    "garbage": lambda: rom.write_bytes(bytes((i * 151 + 7) % 256 for i in range(len(good)))),
    "another game": lambda: rom.write_bytes(other),
    "deleted": lambda: rom.unlink(),
}}
report = {{}}
for name, change in changes.items():
    rom.write_bytes(good)
    envs = envpool.make("Pong-v5", num_envs=2, num_threads=2, seed=0)
    change()
    digest = play(envs, SEEDS, STEPS)
    t0 = time.monotonic()
    envs.close()
    closed_in = time.monotonic() - t0
    try:
        envpool.make("Pong-v5", num_envs=1).close()
        refused = None
    except Exception as exc:
        refused = str(exc)
    report[name] = dict(digest=digest, closed_in=closed_in, refused=refused)
print(json.dumps(report))
"""


def test_a_rom_file_changed_after_make_changes_nothing(tmp_path):
    (tmp_path / "pong.bin").write_bytes((ROMS / "pong.bin").read_bytes())
    code = CHANGED_ROM_SCRIPT.format(
        tests=str(pathlib.Path(__file__).parent), good=str(ROMS / "pong.bin"), other=str(ROMS / "breakout.bin")
    )
    # Before the ROM was kept in memory, each seeded reset reloaded the file: the emulator then
    # ran garbage forever and close() never returned. The timeout makes that a failure.
    proc = run_python(code, timeout=300, ALE_ROMS_DIR=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    envs = envpool.make("Pong-v5", num_envs=2, num_threads=2, seed=0)  # ale-py's own, untouched ROM
    try:
        expected = play(envs, SEEDS, STEPS)
    finally:
        envs.close()
    assert set(report) == {"truncated", "emptied", "garbage", "another game", "deleted"}
    for name, got in report.items():
        assert got["digest"] == expected, name
        assert got["closed_in"] < 5.0, name
        # The check happens at every make: the changed file itself is refused.
        assert got["refused"] is not None and "pong.bin" in got["refused"], (name, got["refused"])


def roms_dir_with(tmp_path, **files):
    for name, source in files.items():
        (tmp_path / f"{name}.bin").write_bytes((ROMS / f"{source}.bin").read_bytes())
    return str(tmp_path)


def test_another_games_rom_under_the_name_is_refused_naming_both(tmp_path, monkeypatch):
    monkeypatch.setenv("ALE_ROMS_DIR", roms_dir_with(tmp_path, pong="breakout"))
    with pytest.raises(RuntimeError) as err:
        envpool.make("Pong-v5", num_envs=1)
    msg = str(err.value)
    assert str(tmp_path / "pong.bin") in msg and "ALE_ROMS_DIR" in msg
    assert "'breakout' (Breakout-v5)" in msg and "'pong' (Pong-v5)" in msg and PONG_MD5 in msg
    with pytest.raises(RuntimeError, match="'breakout' \\(Breakout-v5\\)"):
        envpool.make_spec("Pong-v5")


def test_an_unknown_file_is_refused_saying_so(tmp_path, monkeypatch):
    (tmp_path / "pong.bin").write_bytes(bytes(4096))
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path))
    with pytest.raises(RuntimeError, match="is not a ROM the ALE supports.*is no game's.*'pong' \\(Pong-v5\\) has MD5"):
        envpool.make("Pong-v5", num_envs=1)
    (tmp_path / "pong.bin").write_bytes(bytes(600 * 1024))
    with pytest.raises(RuntimeError, match="larger than 524288 bytes"):
        envpool.make("Pong-v5", num_envs=1)


def test_each_games_own_rom_passes_the_check(tmp_path, monkeypatch):
    # The check asks the ALE which game a file's MD5 is and compares that with the task's ROM
    # id, so the two names must agree for every game. ale-py's isSupportedROM asks the ALE the
    # same way (without loading the emulator, which takes ~0.3 s a game): all 104 games there.
    (plugin,) = [p for p in loaded_plugins() if p["name"] == "atari"]
    # The task names are made from the ROM file names as cmake/gen_games.py makes them.
    by_task = {p.stem.title().replace("_", "") + "-v5": p.stem for p in ROMS.glob("*.bin")}
    roms = {task: by_task[task] for task in plugin["task_ids"]}
    assert len(roms) == 104
    for task, rom in roms.items():
        assert ale_py.ALEInterface.isSupportedROM(ROMS / f"{rom}.bin") == rom, task
    # Ours, on a sample whose names have underscores and digits (a copy under ALE_ROMS_DIR).
    sample = ["SpaceInvaders-v5", "Atlantis2-v5", "MontezumaRevenge-v5", "VideoPinball-v5"]
    monkeypatch.setenv("ALE_ROMS_DIR", roms_dir_with(tmp_path, **{roms[t]: roms[t] for t in sample}))
    for task in sample:
        assert envpool.make_spec(task).config["task"] == roms[task]


# --- set_state -------------------------------------------------------------------------------


def fnv_reframed(state: np.ndarray, payload: bytes) -> np.ndarray:
    """`payload` framed as the plugin's first state layout framed it: the same magic, the length and
    an FNV-1a hash anyone can recompute (what a forger would do)."""
    h = 0xCBF29CE484222325
    for b in payload:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    header = bytes(state[:8].astype(np.uint8)) + len(payload).to_bytes(8, "little") + h.to_bytes(8, "little")
    return np.frombuffer(header + payload, dtype=np.uint8).astype(np.float64)


def forgeries(state: np.ndarray) -> dict[str, np.ndarray]:
    payload = bytes(state[24:].astype(np.uint8))
    at = payload.find(PONG_MD5.encode())  # the emulator's own serialized state starts here
    assert at > 0
    garbled_ale = bytearray(payload)
    garbled_ale[at + 32 : at + 96] = b"\xff" * 64
    # ALEState::serialize: six 4-byte ints, then the emulator state as a string (a 4-byte length,
    # then the content, which starts with the MD5 as a string): a negative length made the ALE
    # throw std::length_error "basic_string::_M_replace_aux".
    huge_length = bytearray(payload)
    huge_length[at - 8 : at - 4] = (-16).to_bytes(4, "little", signed=True)
    pixels = bytearray(payload)
    pixels[len(payload) // 2 : len(payload) // 2 + 500] = bytes(500)
    return {
        "truncated": fnv_reframed(state, payload[: len(payload) // 2]),
        "garbled emulator state": fnv_reframed(state, bytes(garbled_ale)),
        "huge string length": fnv_reframed(state, bytes(huge_length)),
        "changed pixels": fnv_reframed(state, bytes(pixels)),
        "extended": fnv_reframed(state, payload + bytes(16)),
    }


def test_refused_states_name_what_differs_and_change_nothing():
    actions = random_actions(6, 2, 200, 1)
    pong, twin = ours("Pong", 2, 7), ours("Pong", 2, 7)
    breakout, pong_mode0, pong_mode1 = ours("Breakout", 1, 0), ours("Pong", 1, 0, mode=0), ours("Pong", 1, 0, mode=1)
    try:
        for envs in (pong, twin, breakout, pong_mode0, pong_mode1):
            envs.reset()
        for a in actions[:60]:
            pong.step(a)
            twin.step(a)
        state = pong.get_state(0)

        with pytest.raises(ValueError) as err:
            pong.set_state(0, breakout.get_state(0))
        msg = str(err.value)
        assert "Breakout-v5 env (ROM 'breakout')" in msg and "this env is Pong-v5 (ROM 'pong')" in msg
        with pytest.raises(ValueError, match="another configuration of Pong-v5: mode=0 there, 1 here"):
            pong_mode1.set_state(0, pong_mode0.get_state(0))
        with pytest.raises(ValueError, match="mode=-1 there, 0 here"):
            pong_mode0.set_state(0, state)
        sticky = ours("Pong", 1, 0, repeat_action_probability=0.25, frame_skip=3)
        try:
            sticky.reset()
            differ = "frame_skip=4 there, 3 here, .*repeat_action_probability=0 there, 0.25 here"
            with pytest.raises(ValueError, match=differ):
                sticky.set_state(0, state)
        finally:
            sticky.close()
        for name, forged in forgeries(state).items():
            with pytest.raises(ValueError, match="Atari state: checksum mismatch") as err:
                pong.set_state(1, forged)
            assert "basic_string" not in str(err.value), name

        # After all of that, env 0 and 1 go on exactly as their never-touched twins.
        for a in actions[60:]:
            x, y = pong.step(a), twin.step(a)
            np.testing.assert_array_equal(x[0], y[0])
            for i in (1, 2, 3):
                np.testing.assert_array_equal(x[i], y[i])
            for key in ("lives", "reward", "frame_number", "episode_frame_number"):
                np.testing.assert_array_equal(x[4][key], y[4][key])
        # A state this process took is still taken.
        pong.set_state(1, state)
    finally:
        for envs in (pong, twin, breakout, pong_mode0, pong_mode1):
            envs.close()


# --- states between processes ------------------------------------------------------------------

# Run in a fresh process, `STATE_TOOL what path [go]`, on Pong (seed 7) after its reset:
#   save: plays SAVE_PLAY actions, saves the state to path, plays AFTER_PLAY more and saves their
#         observations to path + ".after.npy";
#   save-at-go: writes path + ".ready", waits for the file `go`, saves the state (the first get_state
#         of the process, so the first use of its key: see the concurrency test);
#   load: set_state(path), prints {"taken": true} or {"taken": false, "error": message}.
SAVE_PLAY, AFTER_PLAY = (40, 1), (60, 2)  # (steps, seed of the random actions)
STATE_TOOL = f"""
import json, os, sys, time
import numpy as np
import envpool

def play(envs, steps, seed):
    actions = np.random.default_rng(seed).integers(0, 6, size=(steps, 1))
    return [envs.step(a)[0].copy() for a in actions]

what, path = sys.argv[1], sys.argv[2]
envs = envpool.make("Pong-v5", num_envs=1, seed=7)
envs.reset()
if what == "save":
    play(envs, *{SAVE_PLAY!r})
    np.save(path, envs.get_state(0))
    np.save(path + ".after.npy", np.stack(play(envs, *{AFTER_PLAY!r})))
elif what == "save-at-go":
    open(path + ".ready", "w").close()
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.001)
    np.save(path, envs.get_state(0))
else:
    try:
        envs.set_state(0, np.load(path))
        print(json.dumps({{"taken": True}}))
    except ValueError as exc:
        print(json.dumps({{"taken": False, "error": str(exc)}}))
envs.close()
"""


def state_tool(*args, **env) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", STATE_TOOL, *map(str, args)],
        capture_output=True,
        text=True,
        env=dict(os.environ, **env),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout) if args[0] == "load" else {}


def play_here(envs, steps, seed):
    actions = np.random.default_rng(seed).integers(0, 6, size=(steps, 1))
    return [envs.step(a)[0].copy() for a in actions]


def key_file(cache: pathlib.Path) -> pathlib.Path:
    return cache / "envpool-ng-atari" / "state-key"


def test_a_state_from_another_process_of_the_same_user_is_taken(tmp_path, private_state_key_cache):
    # A checkpoint written by one run and restored by another: both processes find the user's
    # key file (before: a key per process, and this state was refused).
    path = tmp_path / "state.npy"
    state_tool("save", path)
    saved = np.load(path)
    envs = ours("Pong", 1, 3)  # another seed: set_state replaces all of it
    try:
        envs.reset()
        envs.set_state(0, saved)
        np.testing.assert_array_equal(envs.get_state(0), saved)
        np.testing.assert_array_equal(np.stack(play_here(envs, *AFTER_PLAY)), np.load(f"{path}.after.npy"))
    finally:
        envs.close()
    key = key_file(private_state_key_cache).stat()
    assert key.st_size == 32 and stat.S_IMODE(key.st_mode) == 0o600


def altered(state: np.ndarray) -> dict[str, np.ndarray]:
    at = 24 + bytes(state[24:].astype(np.uint8)).find(PONG_MD5.encode())
    emulator, pixel = state.copy(), state.copy()
    emulator[at + 100] = (emulator[at + 100] + 1) % 256
    pixel[-1] = (pixel[-1] + 1) % 256
    return {"an emulator byte": emulator, "a pixel": pixel}


def test_a_state_key_in_the_environment_moves_states_and_another_key_refuses_them(tmp_path, private_state_key_cache):
    path = tmp_path / "alpha.npy"
    elsewhere = tmp_path / "elsewhere"  # another machine's cache: no key file in common
    state_tool("save", path, ENVPOOL_ATARI_STATE_KEY="alpha")
    assert state_tool("load", path, ENVPOOL_ATARI_STATE_KEY="alpha", XDG_CACHE_HOME=str(elsewhere)) == {"taken": True}
    assert not elsewhere.exists()  # a key from the environment needs no key file

    refused = state_tool("load", path, ENVPOOL_ATARI_STATE_KEY="beta")
    assert not refused["taken"]
    assert "checksum mismatch: the state was altered, or was taken under another key" in refused["error"]
    assert "this process's key is ENVPOOL_ATARI_STATE_KEY" in refused["error"]

    # Altered, under the right key: refused.
    for what, state in altered(np.load(path)).items():
        np.save(tmp_path / "altered.npy", state)
        refused = state_tool("load", tmp_path / "altered.npy", ENVPOOL_ATARI_STATE_KEY="alpha")
        assert not refused["taken"] and "checksum mismatch" in refused["error"], what

    # This process, keyed by the user's key file, refuses it naming the file; the env goes on.
    envs = ours("Pong", 1, 7)
    try:
        envs.reset()
        with pytest.raises(ValueError) as err:
            envs.set_state(0, np.load(path))
        assert f"this process's key is the key file {key_file(private_state_key_cache)}" in str(err.value)
        assert "set ENVPOOL_ATARI_STATE_KEY to the same value on every side" in str(err.value)
        envs.step(np.zeros(1, dtype=np.int64))
    finally:
        envs.close()


def test_an_altered_state_from_another_process_is_refused(tmp_path):
    path = tmp_path / "state.npy"
    state_tool("save", path)
    envs = ours("Pong", 1, 7)
    try:
        envs.reset()
        for state in altered(np.load(path)).values():
            with pytest.raises(ValueError, match="Atari state: checksum mismatch: the state was altered"):
                envs.set_state(0, state)
        envs.set_state(0, np.load(path))  # the unaltered one is taken
    finally:
        envs.close()


def test_processes_making_the_key_file_at_once_agree_on_it(tmp_path):
    cache = tmp_path / "cache"
    go = tmp_path / "go"
    paths = [tmp_path / f"state{i}.npy" for i in range(4)]
    code = ["-c", STATE_TOOL, "save-at-go"]
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    procs = [subprocess.Popen([sys.executable, *code, str(p), str(go)], env=env) for p in paths]
    try:
        # All four wait at their first get_state, which makes the key file; then all go at once.
        for p in paths:
            ready = pathlib.Path(f"{p}.ready")
            for _ in range(12000):
                if ready.exists():
                    break
                assert all(proc.poll() is None for proc in procs), "a process ended early"
                time.sleep(0.01)
            assert ready.exists()
        go.touch()
        assert [proc.wait(timeout=120) for proc in procs] == [0] * 4
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    files = sorted(q.name for q in (cache / "envpool-ng-atari").iterdir())
    assert files == ["state-key"]  # no temporary file left behind
    # One key: a fifth process takes the states of all four.
    for p in paths:
        assert state_tool("load", p, XDG_CACHE_HOME=str(cache)) == {"taken": True}, p


def test_an_unusable_key_file_keeps_states_in_their_process_and_says_why(tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_bytes(b"")
    short_key = tmp_path / "short"
    key_file(short_key).parent.mkdir(parents=True)
    key_file(short_key).write_bytes(b"12345")
    path = tmp_path / "state.npy"
    state_tool("save", path)  # under this test session's key file
    for cache, why in ((not_a_folder, "Not a directory"), (short_key, "it has 5 bytes, a key has 32")):
        code = textwrap.dedent(
            f"""
            import json, numpy as np, envpool
            envs = envpool.make("Pong-v5", num_envs=1, seed=7)
            envs.reset()
            own = envs.get_state(0)
            envs.step(np.zeros(1, dtype=np.int64))
            envs.set_state(0, own)  # this process's own states still go back in
            try:
                envs.set_state(0, np.load({str(path)!r}))
                print(json.dumps(None))
            except ValueError as exc:
                print(json.dumps(str(exc)))
            """
        )
        proc = run_python(code, timeout=120, XDG_CACHE_HOME=str(cache))
        assert proc.returncode == 0, proc.stderr[-2000:]
        error = json.loads(proc.stdout)
        assert error is not None and "was taken in another process: states move only within this process" in error
        assert f"because the key file {key_file(cache)} could not be used" in error and why in error, error
    assert key_file(short_key).read_bytes() == b"12345"  # a bad key file is reported, not replaced
