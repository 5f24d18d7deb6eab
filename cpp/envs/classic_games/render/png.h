// A small PNG reader for the board games' sprites (PettingZoo's img/*.png, read at make): zlib's
// inflate (RFC 1950 / 1951: stored, fixed and dynamic Huffman blocks) and PNG's chunks, filters
// and pixel formats (non-interlaced; 8-bit grey, grey + alpha, RGB and RGBA; palettes of 1, 2, 4
// or 8 bits with tRNS), into 8-bit RGBA. Written here so that the extension links no zlib of the
// system's. Pixels are what pygame.image.load gives: colour values as stored (no gAMA / cHRM
// correction, as SDL_image applies none), a palette's tRNS as its entries' alpha.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace envpool::classic_games::render {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;  // height x width x 4, top row first
  const uint8_t* Pixel(int x, int y) const { return rgba.data() + 4 * (static_cast<std::size_t>(y) * width + x); }
};

namespace png {

// Deflate's bit order: bits are read from the least significant end of each byte.
class BitReader {
 public:
  BitReader(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  uint32_t Bits(int n) {  // n <= 24
    while (held_ < n) {
      if (pos_ >= size_) throw std::runtime_error("the deflate stream ends early");
      acc_ |= static_cast<uint32_t>(data_[pos_++]) << held_;
      held_ += 8;
    }
    const uint32_t v = acc_ & ((1u << n) - 1);
    acc_ >>= n;
    held_ -= n;
    return v;
  }
  // Drops the bits left in the current byte (a stored block starts on a byte boundary).
  void Align() {
    acc_ = 0;
    held_ = 0;
  }
  uint8_t Byte() {
    if (pos_ >= size_) throw std::runtime_error("the deflate stream ends early");
    return data_[pos_++];
  }
  std::size_t position() const { return pos_; }

 private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
  uint32_t acc_ = 0;
  int held_ = 0;
};

// A canonical Huffman code given by its code lengths: how many codes each length has and the
// symbols in code order.
struct Huffman {
  std::array<uint16_t, 16> count{};
  std::array<uint16_t, 320> symbol{};

  Huffman(const uint8_t* lengths, int n) {
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    count[0] = 0;
    int left = 1;  // codes of the current length not yet used: more used than exist is an error
    for (int len = 1; len < 16; ++len) {
      left = 2 * left - count[len];
      if (left < 0) throw std::runtime_error("a deflate Huffman code is over-subscribed");
    }
    std::array<uint16_t, 16> next{};
    for (int len = 1; len < 15; ++len) next[len + 1] = static_cast<uint16_t>(next[len] + count[len]);
    for (int s = 0; s < n; ++s) {
      if (lengths[s] != 0) symbol[next[lengths[s]]++] = static_cast<uint16_t>(s);
    }
  }

  // Reads one symbol, a bit at a time: codes of each length are consecutive numbers, the
  // first of a length following the last of the shorter one, doubled.
  int Decode(BitReader& in) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len < 16; ++len) {
      code |= static_cast<int>(in.Bits(1));
      const int n = count[len];
      if (code - first < n) return symbol[index + code - first];
      index += n;
      first = (first + n) << 1;
      code <<= 1;
    }
    throw std::runtime_error("a deflate stream holds a code its Huffman table lacks");
  }
};

inline constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
inline constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                             2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
inline constexpr uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                           33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                           1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
inline constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// The literal / length and distance symbols of one compressed block, appended to `out`.
inline void InflateBlock(BitReader& in, const Huffman& lit, const Huffman& dist, std::vector<uint8_t>& out,
                         std::size_t limit) {
  for (;;) {
    const int sym = lit.Decode(in);
    if (sym < 256) {
      out.push_back(static_cast<uint8_t>(sym));
    } else if (sym == 256) {
      return;
    } else {
      const int li = sym - 257;
      if (li >= 29) throw std::runtime_error("a deflate stream holds an invalid length code");
      const std::size_t length = kLengthBase[li] + in.Bits(kLengthExtra[li]);
      const int di = dist.Decode(in);
      if (di >= 30) throw std::runtime_error("a deflate stream holds an invalid distance code");
      const std::size_t distance = kDistBase[di] + in.Bits(kDistExtra[di]);
      if (distance > out.size()) throw std::runtime_error("a deflate stream refers back before its start");
      for (std::size_t k = 0; k < length; ++k) out.push_back(out[out.size() - distance]);
    }
    if (out.size() > limit) throw std::runtime_error("a deflate stream inflates beyond the image's size");
  }
}

// The code lengths of a dynamic block's two codes, then its symbols.
inline void InflateDynamic(BitReader& in, std::vector<uint8_t>& out, std::size_t limit) {
  static constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  const int nlit = static_cast<int>(in.Bits(5)) + 257;
  const int ndist = static_cast<int>(in.Bits(5)) + 1;
  const int ncode = static_cast<int>(in.Bits(4)) + 4;
  if (nlit > 286 || ndist > 30) throw std::runtime_error("a deflate block declares too many codes");
  uint8_t code_lengths[19] = {};
  for (int k = 0; k < ncode; ++k) code_lengths[kOrder[k]] = static_cast<uint8_t>(in.Bits(3));
  const Huffman lengths_code(code_lengths, 19);
  uint8_t lengths[286 + 30] = {};
  for (int k = 0; k < nlit + ndist;) {
    const int sym = lengths_code.Decode(in);
    if (sym < 16) {
      lengths[k++] = static_cast<uint8_t>(sym);
      continue;
    }
    uint8_t value = 0;
    int repeat;
    if (sym == 16) {
      if (k == 0) throw std::runtime_error("a deflate block repeats a code length before the first");
      value = lengths[k - 1];
      repeat = 3 + static_cast<int>(in.Bits(2));
    } else if (sym == 17) {
      repeat = 3 + static_cast<int>(in.Bits(3));
    } else {
      repeat = 11 + static_cast<int>(in.Bits(7));
    }
    if (k + repeat > nlit + ndist) throw std::runtime_error("a deflate block's code lengths overrun");
    while (repeat-- > 0) lengths[k++] = value;
  }
  if (lengths[256] == 0) throw std::runtime_error("a deflate block has no end-of-block code");
  InflateBlock(in, Huffman(lengths, nlit), Huffman(lengths + nlit, ndist), out, limit);
}

// zlib's stream: its two-byte header, deflate blocks, the Adler-32 of what they hold.
inline std::vector<uint8_t> Inflate(const std::vector<uint8_t>& z, std::size_t limit) {
  if (z.size() < 6 || (z[0] & 15) != 8 || ((z[0] << 8) | z[1]) % 31 != 0 || (z[1] & 32) != 0) {
    throw std::runtime_error("the image data is not a zlib stream");
  }
  BitReader in(z.data() + 2, z.size() - 2);
  std::vector<uint8_t> out;
  bool last = false;
  while (!last) {
    last = in.Bits(1) != 0;
    const uint32_t type = in.Bits(2);
    if (type == 0) {
      in.Align();
      const uint32_t len = in.Byte();
      const uint32_t len_high = in.Byte();
      const uint32_t nlen = in.Byte();
      const uint32_t nlen_high = in.Byte();
      if (((len | (len_high << 8)) ^ 0xffffu) != (nlen | (nlen_high << 8))) {
        throw std::runtime_error("a stored deflate block's length is corrupt");
      }
      const uint32_t length = len | (len_high << 8);
      if (out.size() + length > limit) throw std::runtime_error("a deflate stream inflates beyond the image's size");
      for (uint32_t k = 0; k < length; ++k) out.push_back(in.Byte());
    } else if (type == 1) {
      static const Huffman fixed_lit = [] {
        uint8_t l[288];
        std::fill(l, l + 144, 8);
        std::fill(l + 144, l + 256, 9);
        std::fill(l + 256, l + 280, 7);
        std::fill(l + 280, l + 288, 8);
        return Huffman(l, 288);
      }();
      static const Huffman fixed_dist = [] {
        uint8_t l[30];
        std::fill(l, l + 30, 5);
        return Huffman(l, 30);
      }();
      InflateBlock(in, fixed_lit, fixed_dist, out, limit);
    } else if (type == 2) {
      InflateDynamic(in, out, limit);
    } else {
      throw std::runtime_error("a deflate block has the reserved type 3");
    }
  }
  const std::size_t end = 2 + in.position();
  if (end + 4 > z.size()) throw std::runtime_error("the zlib stream lacks its checksum");
  uint32_t a = 1, b = 0;
  for (uint8_t byte : out) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const uint32_t want =
      (uint32_t{z[end]} << 24) | (uint32_t{z[end + 1]} << 16) | (uint32_t{z[end + 2]} << 8) | z[end + 3];
  if (((b << 16) | a) != want) throw std::runtime_error("the zlib stream's checksum does not match");
  return out;
}

inline uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// PNG's CRC-32 of a chunk's type and data.
inline uint32_t Crc32(const uint8_t* p, std::size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 255] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

// Undoes the per-row filters (None, Sub, Up, Average, Paeth) in place; `bpp` bytes per pixel
// (at least 1), `stride` bytes per row after its filter byte.
inline void Unfilter(std::vector<uint8_t>& raw, int height, std::size_t stride, std::size_t bpp,
                     std::vector<uint8_t>& rows) {
  rows.assign(static_cast<std::size_t>(height) * stride, 0);
  for (int y = 0; y < height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = raw.data() + y * (stride + 1) + 1;
    uint8_t* row = rows.data() + y * stride;
    const uint8_t* up = y > 0 ? row - stride : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? row[x - bpp] : 0;
      const int b = up ? up[x] : 0;
      const int c = up && x >= bpp ? up[x - bpp] : 0;
      int predicted;
      switch (filter) {
        case 0:
          predicted = 0;
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw std::runtime_error("a PNG row has an unknown filter type " + std::to_string(filter));
      }
      row[x] = static_cast<uint8_t>(in[x] + predicted);
    }
  }
}

}  // namespace png

// Decodes PNG file contents `data` (named `name` in errors) into RGBA.
inline Image DecodePng(const std::vector<uint8_t>& data, const std::string& name) {
  static constexpr uint8_t kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  const auto fail = [&](const std::string& what) { return std::runtime_error(name + ": " + what); };
  if (data.size() < 8 || !std::equal(kSignature, kSignature + 8, data.begin())) throw fail("not a PNG file");
  int width = 0, height = 0, depth = 0, color = -1;
  std::vector<uint8_t> zdata, palette, alpha;
  bool ended = false;
  for (std::size_t pos = 8; !ended;) {
    if (pos + 12 > data.size()) throw fail("the file ends inside a chunk");
    const uint32_t length = png::BigEndian32(&data[pos]);
    if (length > data.size() - pos - 12) throw fail("a chunk runs past the end of the file");
    const uint8_t* type = &data[pos + 4];
    const uint8_t* body = type + 4;
    if (png::Crc32(type, length + 4) != png::BigEndian32(body + length)) throw fail("a chunk's CRC does not match");
    const std::string tag(reinterpret_cast<const char*>(type), 4);
    if (tag == "IHDR") {
      if (length != 13) throw fail("IHDR is not 13 bytes");
      width = static_cast<int>(std::min<uint32_t>(png::BigEndian32(body), 1u << 16));
      height = static_cast<int>(std::min<uint32_t>(png::BigEndian32(body + 4), 1u << 16));
      depth = body[8];
      color = body[9];
      if (body[10] != 0 || body[11] != 0) throw fail("unknown compression or filter method");
      if (body[12] != 0) throw fail("interlaced PNGs are not supported");
    } else if (tag == "PLTE") {
      palette.assign(body, body + length);
    } else if (tag == "tRNS") {
      alpha.assign(body, body + length);
    } else if (tag == "IDAT") {
      zdata.insert(zdata.end(), body, body + length);
    } else if (tag == "IEND") {
      ended = true;
    }
    pos += 12 + length;
  }
  int channels;
  switch (color) {
    case 0:
      channels = 1;
      break;
    case 2:
      channels = 3;
      break;
    case 3:
      channels = 1;
      break;
    case 4:
      channels = 2;
      break;
    case 6:
      channels = 4;
      break;
    default:
      throw fail("no IHDR, or an unknown colour type");
  }
  const bool indexed = color == 3;
  if (!(depth == 8 || (indexed && (depth == 1 || depth == 2 || depth == 4)))) {
    throw fail("bit depth " + std::to_string(depth) + " of colour type " + std::to_string(color) + " is not supported");
  }
  if (width < 1 || height < 1 || width >= (1 << 16) || height >= (1 << 16)) throw fail("unsupported image size");
  if (indexed && (palette.empty() || palette.size() % 3 != 0)) throw fail("a palette image without a valid PLTE");
  // A grey or RGB image's tRNS is a colour key (SDL_image makes it the surface's): not read here.
  if (!indexed && !alpha.empty()) throw fail("tRNS colour keys of non-palette images are not supported");
  const std::size_t stride = (static_cast<std::size_t>(width) * channels * depth + 7) / 8;
  const std::size_t bpp = std::max<std::size_t>(1, static_cast<std::size_t>(channels) * depth / 8);
  std::vector<uint8_t> raw = png::Inflate(zdata, static_cast<std::size_t>(height) * (stride + 1));
  if (raw.size() != static_cast<std::size_t>(height) * (stride + 1)) throw fail("the image data has the wrong size");
  std::vector<uint8_t> rows;
  png::Unfilter(raw, height, stride, bpp, rows);
  Image image{width, height, std::vector<uint8_t>(static_cast<std::size_t>(width) * height * 4)};
  for (int y = 0; y < height; ++y) {
    const uint8_t* row = rows.data() + y * stride;
    for (int x = 0; x < width; ++x) {
      uint8_t* out = image.rgba.data() + 4 * (static_cast<std::size_t>(y) * width + x);
      if (indexed) {
        const int shift = 8 - depth - (x * depth) % 8;
        const std::size_t index = (row[x * depth / 8] >> shift) & ((1 << depth) - 1);
        if (3 * index + 2 >= palette.size()) throw fail("a pixel indexes past the palette");
        std::copy(&palette[3 * index], &palette[3 * index] + 3, out);
        out[3] = index < alpha.size() ? alpha[index] : 255;
      } else {
        const uint8_t* in = row + static_cast<std::size_t>(x) * channels;
        const bool grey = channels <= 2;
        out[0] = in[0];
        out[1] = grey ? in[0] : in[1];
        out[2] = grey ? in[0] : in[2];
        out[3] = channels == 2 ? in[1] : channels == 4 ? in[3] : 255;
      }
    }
  }
  return image;
}

}  // namespace envpool::classic_games::render
