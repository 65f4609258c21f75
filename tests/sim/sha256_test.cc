// SHA-256 against the FIPS 180-4 examples, across chunk boundaries, and of files.
#include "sim/base/sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sim/base/input_error.h"
#include "sim/base/sha256_blocks.h"

namespace gpumux {
namespace {

std::string digest(const std::string& text) {
  Sha256 h;
  h.update(text);
  return h.hex_digest();
}

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(digest(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, UpdatesInPiecesGiveTheDigestOfTheWhole) {
  const std::string text(1000, 'x');
  for (std::size_t piece : {1u, 7u, 55u, 56u, 63u, 64u, 65u, 999u}) {
    Sha256 h;
    for (std::size_t i = 0; i < text.size(); i += piece) h.update(text.substr(i, piece));
    EXPECT_EQ(h.hex_digest(), digest(text)) << piece;
  }
}

// The padded one-block message "abc" (FIPS 180-4 B.1) through the portable compression alone: the
// class may use the hardware one, so this is what keeps the portable one checked everywhere.
TEST(Sha256, PortableBlocksGiveTheFipsDigestOfAbc) {
  unsigned char block[64] = {'a', 'b', 'c', 0x80};
  block[63] = 24;  // the message length in bits
  std::uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  sha256_blocks_portable(state, block, 1);
  const std::uint32_t expected[8] = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                     0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(state[i], expected[i]) << i;
}

TEST(Sha256, HardwareBlocksEqualPortableOnRandomData) {
  if (!sha256_hardware_available()) {
    GTEST_SKIP() << "this processor has no SHA extensions: only the portable blocks run here";
  }
  std::mt19937_64 rng(7);
  std::vector<unsigned char> data(64 * 40);
  for (auto& byte : data) byte = static_cast<unsigned char>(rng());
  for (std::size_t blocks = 0; blocks <= 40; ++blocks) {
    std::uint32_t portable[8], hardware[8];
    for (int i = 0; i < 8; ++i) portable[i] = hardware[i] = static_cast<std::uint32_t>(rng());
    sha256_blocks_portable(portable, data.data(), blocks);
    sha256_blocks_hardware(hardware, data.data(), blocks);
    for (int i = 0; i < 8; ++i)
      ASSERT_EQ(portable[i], hardware[i]) << blocks << " blocks, word " << i;
  }
}

TEST(Sha256, FilesAreDigestedWholeAndAMissingOneIsBadInput) {
  const auto path = std::filesystem::temp_directory_path() / "gpumux_sha256_test.bin";
  std::string bytes(200000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 % 251);
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(sha256_of_file(path.string()), digest(bytes));
  std::filesystem::remove(path);
  EXPECT_THROW(sha256_of_file(path.string()), InputError);
}

}  // namespace
}  // namespace gpumux
