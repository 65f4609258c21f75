#include "sim/base/sha256.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "sim/base/input_error.h"
#include "sim/base/sha256_blocks.h"

namespace gpumux {

Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::update(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_bytes_ += bytes;
  if (buffered_ > 0) {
    const std::size_t take = std::min(bytes, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    bytes -= take;
    if (buffered_ < buffer_.size()) return;
    sha256_blocks(state_.data(), buffer_.data(), 1);
    buffered_ = 0;
  }
  const std::size_t blocks = bytes / 64;
  sha256_blocks(state_.data(), p, blocks);
  p += 64 * blocks;
  bytes -= 64 * blocks;
  std::memcpy(buffer_.data(), p, bytes);
  buffered_ = bytes;
}

std::string Sha256::hex_digest() {
  const std::uint64_t bits = total_bytes_ * 8;
  const unsigned char one = 0x80;
  update(&one, 1);
  const unsigned char zero = 0;
  while (buffered_ != 56) update(&zero, 1);
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(length, 8);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (std::uint32_t word : state_) {
    for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(word >> shift) & 0xF];
  }
  return out;
}

std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file to record its digest");
  Sha256 h;
  std::vector<char> chunk(1 << 16);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (in.gcount() > 0) h.update(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(path, "", "read error while recording its digest");
  return h.hex_digest();
}

}  // namespace gpumux
