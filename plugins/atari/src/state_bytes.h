// An env state as envpool's get_state/set_state carry it (a vector of doubles), built from
// bytes: one byte per value (0..255), framed by a magic number, the payload's length and a
// keyed hash of the payload (SipHash-2-4 under the process's state key, state_key.h).
//
// Why keyed: the payload holds the ALE's own serialized emulator state, and the ALE's loader
// trusts it (lengths, bank numbers, TIA positions are used as they are: a forged one fails with
// C++ errors, leaves the emulator half restored, or reads out of bounds at the next step). No
// check short of the emulator's whole semantics can tell a forged emulator state from a real
// one, so set_state accepts only payloads a get_state under the same key produced: an unkeyed
// checksum anyone can recompute would not do that. The key is shared by the processes of a user
// on a machine, or by whoever sets the same ENVPOOL_ATARI_STATE_KEY (state_key.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "state_key.h"

namespace envpool_atari {

// SipHash-2-4 (Aumasson and Bernstein), 64-bit output.
inline uint64_t SipHash24(uint64_t k0, uint64_t k1, const uint8_t* in, std::size_t len) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
    v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
    v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
    v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
  };
  auto word = [&](std::size_t at, std::size_t n) {
    uint64_t m = 0;
    for (std::size_t i = 0; i < n; ++i) m |= static_cast<uint64_t>(in[at + i]) << (8 * i);
    return m;
  };
  const std::size_t whole = len - len % 8;
  for (std::size_t at = 0; at < whole; at += 8) {
    const uint64_t m = word(at, 8);
    v3 ^= m, round(), round(), v0 ^= m;
  }
  const uint64_t last = (static_cast<uint64_t>(len) << 56) | word(whole, len % 8);
  v3 ^= last, round(), round(), v0 ^= last;
  v2 ^= 0xff, round(), round(), round(), round();
  return v0 ^ v1 ^ v2 ^ v3;
}

class StateWriter {
 public:
  void Int(int64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
  }
  void Text(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void Bytes(const std::vector<uint8_t>& b) {
    Int(static_cast<int64_t>(b.size()));
    bytes_.insert(bytes_.end(), b.begin(), b.end());
  }

  std::vector<double> Finish() const {
    std::vector<double> out;
    out.reserve(kHeader + bytes_.size());
    for (uint64_t word : {kMagic, static_cast<uint64_t>(bytes_.size()), Tag(bytes_)}) {
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<double>((word >> (8 * i)) & 0xff));
    }
    for (uint8_t b : bytes_) out.push_back(b);
    return out;
  }

  // "NPELATA2": version 2 of the layout (1 had no game/options descriptor and an unkeyed FNV-1a).
  static constexpr uint64_t kMagic = 0x32415441'4c45504eULL;
  static constexpr std::size_t kHeader = 24;

  static uint64_t Tag(const std::vector<uint8_t>& bytes) {
    const StateKey& key = ProcessStateKey();
    return SipHash24(key.k0, key.k1, bytes.data(), bytes.size());
  }

 private:
  std::vector<uint8_t> bytes_;
};

// Reads a state in the order StateWriter wrote it. The constructor checks the framing only, so
// that the caller can read the leading descriptor (which game, which options) and name a
// mismatch before Authenticate() says whether the payload is one get_state produced here.
class StateReader {
 public:
  explicit StateReader(const std::vector<double>& state) {
    if (state.size() < StateWriter::kHeader) Fail("too short");
    bytes_.reserve(state.size());
    for (double v : state) {
      if (!(v >= 0.0 && v <= 255.0) || v != static_cast<double>(static_cast<uint8_t>(v))) {
        Fail("values must be whole numbers in [0, 255]");
      }
      bytes_.push_back(static_cast<uint8_t>(v));
    }
    const uint64_t magic = Word(0), length = Word(8);
    tag_ = Word(16);
    bytes_.erase(bytes_.begin(), bytes_.begin() + StateWriter::kHeader);
    if (magic != StateWriter::kMagic) Fail("not an Atari state of this plugin version");
    if (length != bytes_.size()) Fail("wrong length (truncated or extended)");
  }

  void Authenticate() const {
    if (tag_ != StateWriter::Tag(bytes_)) {
      Fail("checksum mismatch: the state was altered, or " + ProcessStateKey().mismatch);
    }
  }

  int64_t Int() {
    if (8 > bytes_.size() - pos_) Fail("truncated");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(bytes_[pos_ + static_cast<std::size_t>(i)]) << (8 * i);
    pos_ += 8;
    return static_cast<int64_t>(v);
  }
  std::string Text() {
    const auto n = Length();
    std::string s(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                  bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return s;
  }
  std::vector<uint8_t> Bytes(std::size_t expected) {
    const auto n = Length();
    if (n != expected) Fail("frame buffers of another size (a state of another configuration?)");
    std::vector<uint8_t> b(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                           bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return b;
  }
  void End() const {
    if (pos_ != bytes_.size()) Fail("trailing bytes");
  }

  [[noreturn]] static void Fail(const std::string& why) {
    throw std::invalid_argument("Atari state: " + why + " (pass what get_state returned)");
  }

 private:
  uint64_t Word(std::size_t at) const {
    uint64_t w = 0;
    for (int i = 0; i < 8; ++i) w |= static_cast<uint64_t>(bytes_[at + static_cast<std::size_t>(i)]) << (8 * i);
    return w;
  }
  std::size_t Length() {
    const int64_t n = Int();
    if (n < 0 || static_cast<uint64_t>(n) > bytes_.size() - pos_) Fail("truncated");
    return static_cast<std::size_t>(n);
  }

  std::vector<uint8_t> bytes_;
  std::size_t pos_ = 0;
  uint64_t tag_ = 0;
};

}  // namespace envpool_atari
