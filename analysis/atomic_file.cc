#include "analysis/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "sim/input_error.h"

namespace gpumux {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const fs::path target(path_);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw InputError(path_, "", "cannot create folder: " + ec.message());
  temp_path_ = (target.parent_path() /
                ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid())))
                   .string();
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw InputError(path_, "", "cannot write file");
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  fs::remove(temp_path_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) throw InputError(path_, "", "write failed (disk full?)");
  std::error_code ec;
  fs::rename(temp_path_, path_, ec);
  if (ec) throw InputError(path_, "", "cannot move the result into place: " + ec.message());
  committed_ = true;
}

}  // namespace gpumux
