"""Every test (and every process a test starts) finds its Atari state key in a temporary cache.

The plugin keys state checksums with ENVPOOL_ATARI_STATE_KEY if set, else with a per-user key
file under ${XDG_CACHE_HOME:-~/.cache} that the first get_state/set_state creates: the tests must
neither create nor depend on the real one, nor on a key set in the caller's environment. The key
is found once per process, so this must hold before the first test.
"""

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_state_key_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        cache = tmp_path_factory.mktemp("xdg-cache")
        mp.setenv("XDG_CACHE_HOME", str(cache))
        mp.delenv("ENVPOOL_ATARI_STATE_KEY", raising=False)
        yield cache
