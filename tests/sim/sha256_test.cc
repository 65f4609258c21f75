// SHA-256 against the FIPS 180-4 examples, across chunk boundaries, and of files.
#include "sim/base/sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/base/input_error.h"

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
