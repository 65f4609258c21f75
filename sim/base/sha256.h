// SHA-256 (FIPS 180-4) of bytes and of files, for the provenance of a run's inputs
// (summary.json `provenance`): one changed byte of a trace changes its digest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpumux {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest as 64 lowercase hex digits; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// The digest of a whole file, read in chunks. Throws InputError naming the file when it cannot
// be read.
std::string sha256_of_file(const std::string& path);

}  // namespace gpumux
