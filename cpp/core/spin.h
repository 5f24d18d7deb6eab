// Wait-loop helpers shared by the threads that poll for work or for results.
#pragma once

#include <thread>

namespace envpool {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// One iteration of a wait loop: a pause instruction for the first iterations (the answer
// usually comes within a microsecond or two), then a yield of the core, so that a spinning
// thread gives way when there are more runnable threads than cores.
inline void SpinWait(unsigned iteration) {
  if (iteration < 2048) {
    CpuRelax();
  } else {
    std::this_thread::yield();
  }
}

}  // namespace envpool
