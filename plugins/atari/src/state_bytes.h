// An env state as envpool's get_state/set_state carry it (a vector of doubles), built from
// bytes: one byte per value (0..255), framed by a magic number, the payload's length and an
// FNV-1a hash of it, so that set_state refuses anything get_state did not produce for this
// configuration before the emulator parses it.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool_atari {

class StateWriter {
 public:
  void Int(int64_t v) { Raw(&v, sizeof v); }
  void Text(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Bytes(const std::vector<uint8_t>& b) {
    Int(static_cast<int64_t>(b.size()));
    Raw(b.data(), b.size());
  }

  std::vector<double> Finish() const {
    std::vector<double> out;
    out.reserve(kHeader + bytes_.size());
    for (uint64_t word : {kMagic, static_cast<uint64_t>(bytes_.size()), Hash(bytes_)}) {
      for (int i = 0; i < 8; ++i) out.push_back(static_cast<double>((word >> (8 * i)) & 0xff));
    }
    for (uint8_t b : bytes_) out.push_back(b);
    return out;
  }

  static constexpr uint64_t kMagic = 0x31415441'4c45504eULL;  // "NPELATA1"
  static constexpr std::size_t kHeader = 24;

  static uint64_t Hash(const std::vector<uint8_t>& bytes) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
    return h;
  }

 private:
  void Raw(const void* p, std::size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  std::vector<uint8_t> bytes_;
};

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
    uint64_t header[3];
    std::memcpy(header, bytes_.data(), sizeof header);
    bytes_.erase(bytes_.begin(), bytes_.begin() + StateWriter::kHeader);
    if (header[0] != StateWriter::kMagic) Fail("not an Atari state");
    if (header[1] != bytes_.size()) Fail("wrong length");
    if (header[2] != StateWriter::Hash(bytes_)) Fail("checksum mismatch (the state was altered)");
  }

  int64_t Int() {
    int64_t v;
    Take(&v, sizeof v);
    return v;
  }
  std::string Text() {
    const auto n = Length();
    std::string s(n, '\0');
    Take(s.data(), n);
    return s;
  }
  std::vector<uint8_t> Bytes(std::size_t expected) {
    const auto n = Length();
    if (n != expected) Fail("frame buffers of another size (a state of another configuration?)");
    std::vector<uint8_t> b(n);
    Take(b.data(), n);
    return b;
  }
  void End() const {
    if (pos_ != bytes_.size()) Fail("trailing bytes");
  }

 private:
  std::size_t Length() {
    const int64_t n = Int();
    if (n < 0 || static_cast<uint64_t>(n) > bytes_.size() - pos_) Fail("truncated");
    return static_cast<std::size_t>(n);
  }
  void Take(void* dst, std::size_t n) {
    if (n > bytes_.size() - pos_) Fail("truncated");
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
  }
  [[noreturn]] static void Fail(const char* why) {
    throw std::invalid_argument(std::string("Atari state: ") + why + " (pass what get_state returned)");
  }

  std::vector<uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace envpool_atari
