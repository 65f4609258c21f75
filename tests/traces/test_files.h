// Helpers shared by the traces, scenarios and models tests: temporary input files, paths inside
// the source tree, and a matcher-friendly way to capture an InputError's message.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "sim/base/input_error.h"
#include "traces/io/text_input.h"

namespace gpumux::testing {

// A file under the test's temporary directory holding `text` byte for byte; removed by the
// destructor. Names are made unique per test so that parallel CTest runs do not collide.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string prefix = info ? std::string(info->test_suite_name()) + "." + info->name() : "t";
    for (char& c : prefix) {
      if (c == '/') c = '_';
    }
    dir_ = std::filesystem::path(::testing::TempDir()) / ("gpumux_" + prefix);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    std::filesystem::remove(dir_, ec);  // only once the test's last file is gone
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

// The repository root: $GPUMUX_SOURCE_DIR, else the working directory (CTest runs there).
inline std::string source_dir() {
  const char* env = std::getenv("GPUMUX_SOURCE_DIR");
  return env && *env ? std::string(env) : std::filesystem::current_path().string();
}

inline std::string source_path(const std::string& relative) {
  return (std::filesystem::path(source_dir()) / relative).string();
}

// True when gzip files can be made (the gzip command) and read (zlib in this build).
inline bool can_test_gzip() {
  return gzip_supported() && std::system("gzip --version > /dev/null 2>&1") == 0;
}

// Writes `text` gzipped to `gz_path` through the gzip command (see can_test_gzip).
inline void write_gzip(const std::string& gz_path, const std::string& text) {
  const std::string plain = gz_path + ".plain";
  std::ofstream(plain, std::ios::binary) << text;
  std::filesystem::remove(gz_path);
  ASSERT_EQ(std::system(("gzip -c '" + plain + "' > '" + gz_path + "'").c_str()), 0);
  std::filesystem::remove(plain);
}

// Runs `f`, which must throw InputError, and returns its message. Fails the test (returning "")
// when `f` throws nothing or another exception type.
inline std::string input_error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected InputError, nothing was thrown";
  return "";
}

}  // namespace gpumux::testing
