// The row guard of debug builds: an env that writes outside its obs or info rows is caught at
// once, never left to corrupt a neighbour's row or the heap.
//
// An env writes its rows through raw pointers into the batch buffers (Output), where env i's
// row is followed by env i + 1's: a row written too wide overruns the next env's row, which no
// sanitizer sees (it is the same allocation), and only the last row's overrun reaches the heap
// (a crash far from its cause). So where ENVPOOL_ROW_GUARD is 1 (the default when NDEBUG is not
// defined: Debug builds and the sanitizer builds of scripts/sanitize.sh), every reset and step
// runs against scratch copies of its rows, each an allocation of its own with guard bytes on
// both sides. Under ASan the guard bytes are poisoned, so the stray write itself is reported
// (with the env's stack); otherwise they hold a pattern that is checked after the call, and a
// changed byte fails the env's reset or step with a std::logic_error naming the array, which
// the pool reports as that env's EnvError. Release builds (NDEBUG) compile none of this.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/buffers.h"
#include "core/env.h"

#ifndef ENVPOOL_ROW_GUARD
#ifdef NDEBUG
#define ENVPOOL_ROW_GUARD 0
#else
#define ENVPOOL_ROW_GUARD 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define ENVPOOL_ROW_GUARD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENVPOOL_ROW_GUARD_ASAN 1
#endif
#endif
#ifdef ENVPOOL_ROW_GUARD_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace envpool {

class RowGuard {
 public:
  static constexpr std::size_t kGuardBytes = 64;
  static constexpr unsigned char kPattern = 0xA5;

  // Runs `call(out)` with `out`'s obs and info rows (their sizes from `layout`) replaced by
  // guarded copies, and copies what the call wrote back into the rows (also when it throws).
  template <class Call>
  static void Run(const BatchLayout& layout, Output& out, Call&& call) {
    // One set of scratch rows per thread and nesting depth: an env's call may, through a
    // callback, run another env on the same thread.
    thread_local std::vector<std::unique_ptr<RowGuard>> stack;
    thread_local std::size_t depth = 0;
    if (stack.size() <= depth) stack.push_back(std::make_unique<RowGuard>());
    RowGuard& guard = *stack[depth];
    ++depth;
    struct Depth {
      std::size_t& depth;
      ~Depth() { --depth; }
    } scope{depth};

    void* obs[kMaxArraysPerKind];
    void* info[kMaxArraysPerKind];
    const std::size_t n = layout.num_obs + layout.num_info;
    guard.Prepare(n);
    for (std::size_t f = 0; f < layout.num_obs; ++f) {
      obs[f] = guard.Enter(f, out.Obs<void>(f), layout.fields[f]);
    }
    for (std::size_t f = 0; f < layout.num_info; ++f) {
      info[f] = guard.Enter(layout.num_obs + f, out.Info<void>(f), layout.fields[layout.first_info + f]);
    }
    Output guarded(obs, info, &out.reward(), &out.terminated(), &out.truncated());
    try {
      call(guarded);
    } catch (...) {
      guard.Leave(n);  // a stray write still wins over the env's own exception
      throw;
    }
    guard.Leave(n);
  }

 private:
  struct Scratch {
    std::unique_ptr<unsigned char[]> bytes;  // guard, row, guard
    std::size_t row_bytes = 0;
    void* real = nullptr;  // the batch row it stands for
    const FieldLayout* field = nullptr;
    unsigned char* Row() const { return bytes.get() + kGuardBytes; }
  };

  void Prepare(std::size_t n) {
    if (scratch_.size() < n) scratch_.resize(n);
  }

  void* Enter(std::size_t k, void* real, const FieldLayout& field) {
    Scratch& s = scratch_[k];
    if (!s.bytes || s.row_bytes != field.row_bytes) {
      s.bytes = std::make_unique<unsigned char[]>(field.row_bytes + 2 * kGuardBytes);
      s.row_bytes = field.row_bytes;
    }
    s.real = real;
    s.field = &field;
    std::memset(s.bytes.get(), kPattern, kGuardBytes);
    std::memcpy(s.Row(), real, s.row_bytes);  // the env sees the row as it was
    std::memset(s.Row() + s.row_bytes, kPattern, kGuardBytes);
#ifdef ENVPOOL_ROW_GUARD_ASAN
    ASAN_POISON_MEMORY_REGION(s.bytes.get(), kGuardBytes);
    ASAN_POISON_MEMORY_REGION(s.Row() + s.row_bytes, kGuardBytes);
#endif
    return s.Row();
  }

  // Copies every row back, then throws if a guard byte changed.
  void Leave(std::size_t n) {
    const FieldLayout* overrun = nullptr;
    for (std::size_t k = 0; k < n; ++k) {
      Scratch& s = scratch_[k];
#ifdef ENVPOOL_ROW_GUARD_ASAN
      ASAN_UNPOISON_MEMORY_REGION(s.bytes.get(), kGuardBytes);
      ASAN_UNPOISON_MEMORY_REGION(s.Row() + s.row_bytes, kGuardBytes);
#endif
      std::memcpy(s.real, s.Row(), s.row_bytes);
      if (overrun == nullptr && (!Intact(s.bytes.get()) || !Intact(s.Row() + s.row_bytes))) overrun = s.field;
    }
    if (overrun != nullptr) {
      throw std::logic_error(
          "the env wrote outside its row of '" + overrun->name + "' (" + std::to_string(overrun->row_bytes) +
          " bytes, as its spec declares): a bug in the env, caught by the row guard of debug builds");
    }
  }

  static bool Intact(const unsigned char* guard) {
    for (std::size_t i = 0; i < kGuardBytes; ++i) {
      if (guard[i] != kPattern) return false;
    }
    return true;
  }

  std::vector<Scratch> scratch_;
};

}  // namespace envpool
