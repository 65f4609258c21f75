// Byte and line input for every text input: plain files, or gzip files (a path ending in ".gz")
// decompressed on the fly, with line numbers for error messages. The one CSV reader
// (traces/io/csv_reader.h) reads through it, so every CSV input accepts `file.csv.gz`; so do the
// JSON Lines trace (its lines) and the Philly loader (its bytes fed to the JSON parser through
// TextInputIterator).
#pragma once

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace gpumux {

// The longest line next_line reads, bytes: far above any real trace row (rows are under a few
// KiB), and a bound on what a line-oriented read holds in memory, so that an endless or binary
// file (/dev/zero, a gzip bomb of one line) fails at once instead of exhausting memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

// Whether this build reads ".gz" paths (zlib was found).
bool gzip_supported();

class TextInput {
 public:
  // Throws InputError naming `path` when it cannot be opened, or when it ends in ".gz" and the
  // build has no zlib.
  explicit TextInput(std::string path);
  ~TextInput();
  TextInput(const TextInput&) = delete;
  TextInput& operator=(const TextInput&) = delete;

  // The next byte (0-255), or -1 at the end. Throws InputError on a read or gzip error.
  int get() {
    if (pos_ == end_ && !refill()) return -1;
    const auto c = static_cast<unsigned char>(buffer_[pos_++]);
    if (c == '\n') ++newlines_;
    return c;
  }
  // Reads one line without its "\n" or "\r\n"; false at the end of the input. Throws
  // InputError naming the line when it is longer than kMaxLineBytes. The first line loses a
  // leading UTF-8 byte order mark; a '\r' left in it (a file with CR-only line ends) is an
  // InputError naming line 1.
  bool next_line(std::string& line);
  // The same line as a view, valid until the next call: into the read buffer when the line lies
  // wholly in it (no copy: every row of a large CSV), else assembled in a buffer of its own.
  bool next_line(std::string_view& line);

  const std::string& path() const { return path_; }
  // 1-based number of the line the next byte belongs to (the last byte read's line, unless that
  // byte was a '\n').
  std::uint64_t line() const { return newlines_ + 1; }
  std::string where() const { return path_ + ":" + std::to_string(line()); }

 private:
  bool refill();

  std::string path_;
  bool gzip_ = false;
  [[maybe_unused]] void* gz_ = nullptr;  // gzFile when gzip_ (unused in a build without zlib)
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t newlines_ = 0;
  std::uint64_t lines_read_ = 0;  // by next_line
  std::string spill_;             // a viewed line that crossed the buffer's end, or the first
};

// A byte iterator over a TextInput, for parsers that take an iterator pair (nlohmann::json).
class TextInputIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TextInputIterator() = default;  // the end
  explicit TextInputIterator(TextInput& in) : in_(&in) { advance(); }

  const char& operator*() const { return current_; }
  TextInputIterator& operator++() {
    advance();
    return *this;
  }
  TextInputIterator operator++(int) {
    TextInputIterator old = *this;
    advance();
    return old;
  }
  bool operator==(const TextInputIterator& o) const { return in_ == o.in_; }
  bool operator!=(const TextInputIterator& o) const { return in_ != o.in_; }

 private:
  void advance() {
    const int c = in_->get();
    if (c < 0) {
      in_ = nullptr;
    } else {
      current_ = static_cast<char>(c);
    }
  }
  TextInput* in_ = nullptr;
  char current_ = 0;
};

}  // namespace gpumux
