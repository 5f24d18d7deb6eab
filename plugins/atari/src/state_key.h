// The key of the checksum that frames an Atari state (state_bytes.h), found once per process.
//
// Why a key: set_state hands the state's emulator part to the ALE's loader, which trusts it, so
// only states some get_state produced may reach it. A checksum anyone can recompute would not
// tell those apart from forged ones; a keyed one does, for whoever lacks the key. Processes that
// share the key take each other's states (a checkpoint restored in a new run, states moved
// between workers); the key comes from, in this order:
//   1. ENVPOOL_ATARI_STATE_KEY (any non-empty text): set the same value on every process and
//      machine that exchange states;
//   2. the per-user key file ${XDG_CACHE_HOME:-~/.cache}/envpool-ng-atari/state-key (32 random
//      bytes, mode 0600), created at the first use: the processes of one user on one machine
//      share it;
//   3. a key drawn at random for this process alone, when the file can be neither read nor
//      created (the checksum message then says so, naming the file and the error).
#pragma once

#include <cstdint>
#include <string>

namespace envpool_atari {

struct StateKey {
  uint64_t k0 = 0, k1 = 0;
  // What a checksum mismatch means besides an altered state: where this process's key comes
  // from and which states it takes ("the state was altered, or <this>").
  std::string mismatch;
};

// This process's key, found at the first call (thread-safe) and kept for the process's life.
const StateKey& ProcessStateKey();

}  // namespace envpool_atari
