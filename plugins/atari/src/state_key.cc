#include "state_key.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>  // renameat2, RENAME_NOREPLACE
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "state_bytes.h"

namespace envpool_atari {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kKeyBytes = 32;
using KeyBytes = std::array<uint8_t, kKeyBytes>;

// A failure to use the key file, as the checksum message will name it.
struct KeyFileError {
  std::string what;
};

std::string Errno(const std::string& doing) { return doing + ": " + std::strerror(errno); }

// Two 64-bit words from any number of key bytes: SipHash of them under two fixed, distinct keys
// (the derivation is public; the key's secrecy is that of the bytes).
StateKey FromBytes(const uint8_t* bytes, std::size_t n, std::string mismatch) {
  StateKey key;
  key.k0 = SipHash24(0x656e76706f6f6c2dULL, 0x61746172692d6b30ULL, bytes, n);
  key.k1 = SipHash24(0x656e76706f6f6c2dULL, 0x61746172692d6b31ULL, bytes, n);
  key.mismatch = std::move(mismatch);
  return key;
}

// ${XDG_CACHE_HOME:-~/.cache}/envpool-ng-atari (a relative XDG_CACHE_HOME is ignored, as the
// XDG spec says: it would give processes in other folders other key files).
std::optional<fs::path> KeyDir(std::string* error) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return fs::path(xdg) / "envpool-ng-atari";
  }
  std::string home;
  if (const char* env = std::getenv("HOME"); env != nullptr && env[0] == '/') {
    home = env;
  } else {
    std::vector<char> buffer(16384);
    passwd entry{}, *found = nullptr;
    if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
        found->pw_dir != nullptr) {
      home = found->pw_dir;
    }
  }
  if (home.empty()) {
    *error = "neither XDG_CACHE_HOME nor HOME is set to an absolute path, and the user has no home folder";
    return std::nullopt;
  }
  return fs::path(home) / ".cache" / "envpool-ng-atari";
}

// The key file's 32 bytes; nullopt if it does not exist; KeyFileError if it cannot be read or
// is not a key.
std::optional<KeyBytes> ReadKeyFile(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw KeyFileError{Errno("cannot open it")};
  }
  struct stat info{};
  KeyBytes key{};
  std::string problem;
  if (fstat(fd, &info) != 0) {
    problem = Errno("cannot stat it");
  } else if (!S_ISREG(info.st_mode)) {
    problem = "it is not a regular file";
  } else if (info.st_size != static_cast<off_t>(kKeyBytes)) {
    problem = "it has " + std::to_string(info.st_size) + " bytes, a key has " + std::to_string(kKeyBytes) +
              " (delete it, and a new key is made at the next use)";
  } else {
    std::size_t got = 0;
    while (got < kKeyBytes) {
      const ssize_t n = read(fd, key.data() + got, kKeyBytes - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        problem = n < 0 ? Errno("cannot read it") : "it ended early";
        break;
      }
      got += static_cast<std::size_t>(n);
    }
  }
  close(fd);
  if (!problem.empty()) throw KeyFileError{problem};
  return key;
}

void FillRandom(uint8_t* out, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw KeyFileError{Errno("getrandom failed")};
    got += static_cast<std::size_t>(r);
  }
}

// Makes the key file: 32 random bytes written to a temporary file in the same folder (mode
// 0600), which is then linked to the key file's name only if no file has that name yet. Of
// processes making it at the same time, one link succeeds and the others read that file, so
// all of them use the same key; a reader never sees a partly written key.
void CreateKeyFile(const fs::path& dir, const fs::path& path) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw KeyFileError{"cannot create the folder " + dir.string() + ": " + ec.message()};
  std::string temp = (dir / ".state-key.XXXXXX").string();
  const int fd = mkstemp(temp.data());  // mode 0600
  if (fd < 0) throw KeyFileError{Errno("cannot create a file in " + dir.string())};
  std::string problem;
  KeyBytes key{};
  try {
    FillRandom(key.data(), key.size());
  } catch (const KeyFileError& e) {
    problem = e.what;
  }
  for (std::size_t put = 0; problem.empty() && put < key.size();) {
    const ssize_t n = write(fd, key.data() + put, key.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) problem = Errno("cannot write " + temp);
    put += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  if (problem.empty() && fsync(fd) != 0) problem = Errno("cannot sync " + temp);
  if (close(fd) != 0 && problem.empty()) problem = Errno("cannot close " + temp);
  if (problem.empty() && link(temp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    // A file system without hard links: a rename that refuses to replace is as atomic.
    if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0 && errno != EEXIST) {
      problem = Errno("cannot link or rename " + temp + " to it");
    }
  }
  unlink(temp.c_str());  // gone already after a rename
  if (!problem.empty()) throw KeyFileError{problem};
}

StateKey FindKey() {
  if (const char* text = std::getenv("ENVPOOL_ATARI_STATE_KEY"); text != nullptr && text[0] != '\0') {
    return FromBytes(reinterpret_cast<const uint8_t*>(text), std::strlen(text),
                     "was taken under another key: this process's key is ENVPOOL_ATARI_STATE_KEY, and states move "
                     "between the processes and machines that set it to the same value");
  }
  std::string error;
  fs::path path;
  if (const auto dir = KeyDir(&error)) {
    path = *dir / "state-key";
    try {
      auto key = ReadKeyFile(path);
      if (!key) {
        CreateKeyFile(*dir, path);
        key = ReadKeyFile(path);
        if (!key) throw KeyFileError{"it vanished right after it was made"};
      }
      return FromBytes(key->data(), key->size(),
                       "was taken under another key: this process's key is the key file " + path.string() +
                           ", which this user's processes on this machine share; to exchange states with other "
                           "users or machines, set ENVPOOL_ATARI_STATE_KEY to the same value on every side");
    } catch (const KeyFileError& e) {
      error = e.what;
    }
  }
  KeyBytes key{};
  try {
    FillRandom(key.data(), key.size());
  } catch (const KeyFileError&) {
    // No getrandom: the C++ library's device (the key then is only as good as it is).
    std::random_device device;
    for (auto& b : key) b = static_cast<uint8_t>(device());
  }
  const std::string file = path.empty() ? std::string("the per-user key file") : "the key file " + path.string();
  return FromBytes(key.data(), key.size(),
                   "was taken in another process: states move only within this process, because " + file +
                       " could not be used (" + error +
                       "); make it usable, or set ENVPOOL_ATARI_STATE_KEY to the same value in every process "
                       "that exchanges states");
}

}  // namespace

const StateKey& ProcessStateKey() {
  static const StateKey key = FindKey();
  return key;
}

}  // namespace envpool_atari
