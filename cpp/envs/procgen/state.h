// A Procgen env's state as get_state / set_state carry it: a vector of doubles, one byte per
// value (0..255), laid out as
//   magic (8 bytes) | payload length (8) | tag (8) | payload
// where the payload is this env's descriptor (game and options), its own flag, and the bytes of
// Procgen's get_state, and the tag is SipHash-2-4 of the payload under a key drawn at random
// once per process.
//
// Why a keyed tag: Procgen's set_state trusts its input (its reads are checked with fassert,
// which exits the process, and the games read grid sizes and counts from it), so only bytes its
// own get_state wrote may reach it. The tag proves a payload was made by a get_state in this
// process; a checksum anyone can recompute would not. States are therefore valid in the process
// that took them (where envs are compared, rewound or branched), not across processes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::procgen {

// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012), 64-bit tag.
inline uint64_t SipHash24(const uint64_t key[2], const uint8_t* data, std::size_t size) {
  uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL, key[0] ^ 0x6c7967656e657261ULL,
                   key[1] ^ 0x7465646279746573ULL};
  auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto sip_round = [&] {
    v[0] += v[1];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[2] = rotl(v[2], 32);
  };
  auto absorb = [&](uint64_t m) {
    v[3] ^= m;
    sip_round();
    sip_round();
    v[0] ^= m;
  };
  auto load = [&](std::size_t at, std::size_t n) {  // little-endian, n <= 8 bytes
    uint64_t m = 0;
    for (std::size_t i = 0; i < n; ++i) m |= static_cast<uint64_t>(data[at + i]) << (8 * i);
    return m;
  };
  const std::size_t full = size / 8 * 8;
  for (std::size_t at = 0; at < full; at += 8) absorb(load(at, 8));
  absorb((static_cast<uint64_t>(size & 0xff) << 56) | load(full, size - full));
  v[2] ^= 0xff;
  for (int i = 0; i < 4; ++i) sip_round();
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

class StateCodec {
 public:
  // Frames a payload as doubles.
  static std::vector<double> Encode(const std::vector<uint8_t>& payload) {
    std::vector<double> out;
    out.reserve(kHeader + payload.size());
    for (uint64_t word : {kMagic, static_cast<uint64_t>(payload.size()), Tag(payload)}) {
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<double>((word >> (8 * i)) & 0xff));
    }
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
  }

  // The payload of a framed state whose tag checks out; throws std::invalid_argument otherwise.
  static std::vector<uint8_t> Decode(const std::vector<double>& state) {
    if (state.size() < kHeader) Fail("too short");
    std::vector<uint8_t> bytes;
    bytes.reserve(state.size());
    for (double v : state) {
      if (!(v >= 0.0 && v <= 255.0) || v != static_cast<double>(static_cast<uint8_t>(v))) {
        Fail("values must be whole numbers in [0, 255]");
      }
      bytes.push_back(static_cast<uint8_t>(v));
    }
    auto word = [&](std::size_t at) {
      uint64_t w = 0;
      for (std::size_t i = 0; i < 8; ++i) w |= static_cast<uint64_t>(bytes[at + i]) << (8 * i);
      return w;
    };
    if (word(0) != kMagic) Fail("not a Procgen state of this envpool version");
    if (word(8) != bytes.size() - kHeader) Fail("wrong length (truncated or extended)");
    const uint64_t tag = word(16);
    bytes.erase(bytes.begin(), bytes.begin() + kHeader);
    if (tag != Tag(bytes)) {
      Fail(
          "checksum mismatch: the state was altered, or taken in another process (Procgen states are valid in "
          "the process that took them)");
    }
    return bytes;
  }

  [[noreturn]] static void Fail(const std::string& why) {
    throw std::invalid_argument("Procgen state: " + why + " (pass what get_state returned)");
  }

 private:
  static constexpr uint64_t kMagic = 0x3147'4e45'4743'4f52ULL;  // "ROCGENG1" read as little-endian bytes
  static constexpr std::size_t kHeader = 24;

  static uint64_t Tag(const std::vector<uint8_t>& payload) {
    static const std::array<uint64_t, 2> key = [] {
      std::random_device dev;
      std::array<uint64_t, 2> k{};
      for (auto& w : k) w = (static_cast<uint64_t>(dev()) << 32) ^ dev();
      return k;
    }();
    return SipHash24(key.data(), payload.data(), payload.size());
  }
};

}  // namespace envpool::procgen
