#include "core/process_channel.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "core/spin.h"

namespace envpool {

namespace {

std::size_t Align(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

ProcessLayout ProcessLayout::For(const EnvSpec& spec, int num_envs, const std::vector<int>& worker_start,
                                 std::size_t info_capacity, std::size_t error_capacity) {
  if (worker_start.size() < 2 || worker_start.front() != 0 || worker_start.back() != num_envs) {
    throw std::invalid_argument("worker_start must run from 0 to num_envs");
  }
  for (std::size_t w = 0; w + 1 < worker_start.size(); ++w) {
    if (worker_start[w + 1] <= worker_start[w]) throw std::invalid_argument("every worker must host at least one env");
  }
  ProcessLayout l;
  l.num_envs = static_cast<std::size_t>(num_envs);
  l.num_workers = worker_start.size() - 1;
  l.worker_start = worker_start;
  l.info_capacity = info_capacity;
  l.error_capacity = error_capacity;
  l.workers = kHeaderBytes;
  l.commands = l.workers + l.num_workers * kWorkerBytes;
  l.ring_start = RingStarts(worker_start);
  l.envs = Align(l.commands + 4 * l.ring_start.back(), 64);
  std::size_t off = kEnvFixedBytes;
  for (const auto& a : spec.action) {
    l.action.push_back(off);
    off = Align(off + a.RowBytes(), 8);
  }
  for (const auto& o : spec.obs) {
    l.obs_step.push_back(off);
    off = Align(off + o.RowBytes(), 8);
  }
  for (const auto& o : spec.obs) {
    l.obs_reset.push_back(off);
    off = Align(off + o.RowBytes(), 8);
  }
  l.info_step = off;
  l.info_reset = off + info_capacity;
  l.error = l.info_reset + info_capacity;
  l.env_stride = Align(l.error + error_capacity, 64);
  l.total_bytes = l.envs + l.num_envs * l.env_stride;
  return l;
}

std::vector<std::size_t> ProcessLayout::RingStarts(const std::vector<int>& worker_start) {
  std::vector<std::size_t> starts{0};
  for (std::size_t w = 0; w + 1 < worker_start.size(); ++w) {
    starts.push_back(starts.back() + std::bit_ceil(static_cast<std::size_t>(worker_start[w + 1] - worker_start[w])));
  }
  return starts;
}

int ProcessLayout::WorkerOf(int env_id) const {
  int lo = 0, hi = static_cast<int>(num_workers) - 1;
  while (lo < hi) {  // the last worker whose start is <= env_id
    const int mid = (lo + hi + 1) / 2;
    if (worker_start[static_cast<std::size_t>(mid)] <= env_id) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

SharedMapping SharedMapping::Create(std::size_t bytes) {
  SharedMapping m;
  m.fd_ = static_cast<int>(syscall(SYS_memfd_create, "envpool", 0));
  if (m.fd_ < 0) throw std::runtime_error(Errno("memfd_create"));
  if (ftruncate(m.fd_, static_cast<off_t>(bytes)) != 0) throw std::runtime_error(Errno("ftruncate"));
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m.fd_, 0);
  if (p == MAP_FAILED) throw std::runtime_error(Errno("mmap"));
  m.data_ = static_cast<char*>(p);
  m.size_ = bytes;
  return m;
}

SharedMapping SharedMapping::Open(const std::string& path, std::size_t bytes) {
  SharedMapping m;
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(Errno("open " + path));
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);  // the mapping keeps the memory alive
  if (p == MAP_FAILED) throw std::runtime_error(Errno("mmap " + path));
  m.data_ = static_cast<char*>(p);
  m.size_ = bytes;
  return m;
}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(fd_, other.fd_);
  return *this;
}

SharedMapping::~SharedMapping() {
  if (data_) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
}

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected, std::chrono::nanoseconds timeout) {
  if (timeout.count() <= 0) return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000000);
  ts.tv_nsec = static_cast<long>(timeout.count() % 1000000000);
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

WorkerChannel::WorkerChannel(const std::string& path, ProcessLayout layout, int worker)
    : map_(SharedMapping::Open(path, layout.total_bytes)),
      layout_(std::move(layout)),
      worker_(worker),
      owner_pid_(getpid()) {
  if (worker < 0 || static_cast<std::size_t>(worker) >= layout_.num_workers) throw std::invalid_argument("bad worker");
  // A replacement worker continues where its predecessor's commands were accounted for.
  next_ = map_.Atomic<uint32_t>(layout_.Worker(worker_) + ProcessLayout::kDone).load(std::memory_order_acquire);
}

// getpid() is a system call (~0.1 us); a worker checks once per Wait and per command, next to
// a Python env step of several microseconds at least.
bool WorkerChannel::IsFork() const { return getpid() != owner_pid_; }

int WorkerChannel::Wait(std::chrono::nanoseconds timeout, std::chrono::nanoseconds spin) {
  using Clock = std::chrono::steady_clock;
  if (IsFork()) {
    ReportFork(-1);
    return kForked;
  }
  const std::size_t w = layout_.Worker(worker_);
  auto& tail = map_.Atomic<uint32_t>(w + ProcessLayout::kCmdTail);
  auto& wake = map_.Atomic<uint32_t>(w + ProcessLayout::kWakeSeq);
  auto& sleeping = map_.Atomic<uint32_t>(w + ProcessLayout::kSleeping);
  auto& shutdown = map_.Atomic<uint32_t>(ProcessLayout::kShutdown);
  auto& dead = map_.Atomic<uint32_t>(w + ProcessLayout::kDead);
  const auto start = Clock::now();
  const auto spin_until = start + spin;
  for (unsigned i = 1;; ++i) {
    // Written off (the pool reported this worker failed and will kill it): take nothing more.
    if (shutdown.load(std::memory_order_acquire) != 0 || dead.load(std::memory_order_relaxed) != 0) return kShutdown;
    const uint32_t queued = tail.load(std::memory_order_acquire) - next_;
    if (queued != 0) return static_cast<int>(queued);
    if (i < 64 || ((i & 63) != 0) || Clock::now() < spin_until) {
      SpinWait(i);
      continue;
    }
    const auto now = Clock::now();
    if (now - start >= timeout) return 0;
    const uint32_t seen = wake.load();
    sleeping.store(1);  // seq_cst with the pool's load of `sleeping` after it bumps wake_seq
    if (tail.load() - next_ == 0 && shutdown.load() == 0) FutexWait(wake, seen, timeout - (now - start));
    sleeping.store(0);
    // Woken without commands: the pool has a control message for this worker.
    if (wake.load() != seen && tail.load(std::memory_order_acquire) == next_) return 0;
  }
}

int WorkerChannel::Next() {
  const uint32_t tail =
      map_.Atomic<uint32_t>(layout_.Worker(worker_) + ProcessLayout::kCmdTail).load(std::memory_order_acquire);
  if (tail == next_) throw std::logic_error("WorkerChannel::Next: no command is queued");
  const int env_id = map_.At<int32_t>(layout_.CommandSlot(worker_, next_));
  SetBusy(env_id);
  current_env_ = env_id;
  return env_id;
}

bool WorkerChannel::Done() {
  if (IsFork()) {
    ReportFork(current_env_);
    return false;
  }
  SetBusy(-1);
  current_env_ = -1;
  ++next_;
  map_.Atomic<uint32_t>(layout_.Worker(worker_) + ProcessLayout::kDone).store(next_, std::memory_order_release);
  auto& done_seq = map_.Atomic<uint32_t>(ProcessLayout::kDoneSeq);
  const uint32_t seq = done_seq.fetch_add(1) + 1;  // seq_cst: pairs with the collector's store to collector_waiting
  if (map_.Atomic<uint32_t>(ProcessLayout::kCollectorWaiting).load() != 0 &&
      static_cast<int32_t>(seq - map_.Atomic<uint32_t>(ProcessLayout::kWakeAt).load()) >= 0) {
    FutexWakeAll(done_seq);
  }
  return true;
}

void WorkerChannel::ReportFork(int env_id) {
  const std::size_t w = layout_.Worker(worker_);
  map_.Atomic<int32_t>(w + ProcessLayout::kForkEnv).store(env_id, std::memory_order_relaxed);
  // release: the collector that sees the pid sees the env id.
  map_.Atomic<int32_t>(w + ProcessLayout::kForkPid).store(static_cast<int32_t>(getpid()), std::memory_order_release);
  auto& done_seq = map_.Atomic<uint32_t>(ProcessLayout::kDoneSeq);
  done_seq.fetch_add(1);
  FutexWakeAll(done_seq);  // the collector, if it sleeps, settles the worker now
}

void WorkerChannel::SetBusy(int env_id) {
  const std::size_t w = layout_.Worker(worker_);
  map_.Atomic<int32_t>(w + ProcessLayout::kBusyEnv).store(env_id, std::memory_order_relaxed);
  const int64_t now =
      env_id < 0
          ? 0
          : std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
  map_.Atomic<int64_t>(w + ProcessLayout::kBusySince).store(now, std::memory_order_relaxed);
}

void EndProcessGroupWhenProcessExits(int pid, const std::string& remove_dir) {
#ifdef SYS_pidfd_open
  const long pidfd_open_nr = SYS_pidfd_open;
#else
  const long pidfd_open_nr = 434;  // the same number on every architecture
#endif
  const int fd = static_cast<int>(syscall(pidfd_open_nr, pid, 0));
  if (fd < 0 && errno == ESRCH) throw std::runtime_error("process " + std::to_string(pid) + " has already exited");
  const pid_t parent = getppid();
  // The watcher takes no signals: they stay with the threads that expect them (an env's
  // SIGALRM must interrupt the env's own thread). It inherits the mask it is created with.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  std::thread([fd, parent, remove_dir] {
    if (fd >= 0) {
      pollfd p{fd, POLLIN, 0};  // readable once the process has exited
      while (poll(&p, 1, -1) < 0 && errno == EINTR) {
      }
    } else {  // no pidfd (kernel < 5.3, or refused): the process's exit reparents this one
      while (getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!remove_dir.empty()) {
      // Every worker of the pool tries (any of them may be gone); a removal that raced with
      // another one's may stop early, hence a few tries. Errors leave the directory: nothing
      // else could remove it either.
      std::error_code ec;
      for (int tries = 0; tries < 3 && std::filesystem::exists(remove_dir, ec); ++tries) {
        std::filesystem::remove_all(remove_dir, ec);
      }
    }
    // Never signal a group this process does not lead: that could be the user's shell job.
    if (getpgrp() == getpid()) kill(0, SIGKILL);
    kill(getpid(), SIGKILL);
  }).detach();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace envpool
