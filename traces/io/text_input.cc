#include "traces/io/text_input.h"

#include <cerrno>
#include <cstring>

#ifdef GPUMUX_HAVE_ZLIB
#include <zlib.h>
#endif

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

constexpr std::size_t kBufferBytes = 1 << 16;

bool ends_with_gz(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

}  // namespace

bool gzip_supported() {
#ifdef GPUMUX_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

TextInput::TextInput(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
  gzip_ = ends_with_gz(path_);
  if (gzip_) {
#ifdef GPUMUX_HAVE_ZLIB
    gz_ = gzopen(path_.c_str(), "rb");
    if (gz_ == nullptr) throw InputError(path_, "", "cannot open file");
    gzbuffer(static_cast<gzFile>(gz_), kBufferBytes);
#else
    throw InputError(path_, "", "gzip input needs zlib, and this build has none: gunzip the file");
#endif
  } else {
    file_ = std::fopen(path_.c_str(), "rb");
    if (file_ == nullptr) throw InputError(path_, "", "cannot open file");
  }
}

TextInput::~TextInput() {
#ifdef GPUMUX_HAVE_ZLIB
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
#endif
  if (file_ != nullptr) std::fclose(file_);
}

bool TextInput::refill() {
  pos_ = end_ = 0;
  if (gzip_) {
#ifdef GPUMUX_HAVE_ZLIB
    auto* gz = static_cast<gzFile>(gz_);
    const int n = gzread(gz, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (n < 0) {
      int code = 0;
      const char* message = gzerror(gz, &code);
      throw InputError(where(), "", std::string("gzip error: ") + (message ? message : "unknown"));
    }
    if (n == 0) {
      // zlib reports a file cut short (no gzip trailer) only here, as Z_BUF_ERROR at the end:
      // without this check a truncated download would read as a complete, shorter trace.
      int code = Z_OK;
      const char* message = gzerror(gz, &code);
      if (code != Z_OK) {
        throw InputError(where(), "",
                         std::string("gzip file is truncated or damaged (") +
                             (message ? message : "unknown") + ")");
      }
    }
    end_ = static_cast<std::size_t>(n);
#endif
  } else {
    end_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (end_ == 0 && std::ferror(file_)) {
      // errno names the cause, e.g. "Is a directory" for a folder given as a file.
      throw InputError(where(), "", std::string("read error: ") + std::strerror(errno));
    }
  }
  return end_ > 0;
}

bool TextInput::next_line(std::string& line) {
  line.clear();
  if (pos_ == end_ && !refill()) return false;
  // Whole runs up to the next '\n' (memchr), not byte by byte: this is every CSV row's path.
  while (true) {
    const char* begin = buffer_.data() + pos_;
    const std::size_t available = end_ - pos_;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(newline - begin);
      line.append(begin, length);
      pos_ += length + 1;
      ++newlines_;
      break;
    }
    line.append(begin, available);
    pos_ = end_;
    if (line.size() > kMaxLineBytes) {
      throw InputError(where(), "",
                       "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                           " MiB: not a text trace (a binary or endless file?)");
    }
    if (!refill()) break;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (lines_read_++ == 0) {
    // A UTF-8 byte order mark (spreadsheet exports write one) is not part of the first cell.
    if (line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    // Old Mac line ends: the whole file reads as one line with '\r' inside, which the readers
    // would report as a garbled header with the raw '\r' in the message.
    if (line.find('\r') != std::string::npos) {
      throw InputError(path_ + ":1", "",
                       "line ends are CR only ('\\r' without '\\n'): convert the file to LF or "
                       "CRLF line ends (e.g. tr '\\r' '\\n')");
    }
  }
  return true;
}

bool TextInput::next_line(std::string_view& line) {
  if (pos_ < end_ && lines_read_ != 0) {
    const char* begin = buffer_.data() + pos_;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', end_ - pos_));
    if (newline != nullptr) {
      auto length = static_cast<std::size_t>(newline - begin);
      pos_ += length + 1;
      ++newlines_;
      ++lines_read_;
      if (length > 0 && begin[length - 1] == '\r') --length;
      line = std::string_view(begin, length);
      return true;
    }
  }
  // The first line (its byte order mark and line-end checks) or one crossing the buffer's end.
  if (!next_line(spill_)) return false;
  line = spill_;
  return true;
}

}  // namespace gpumux
