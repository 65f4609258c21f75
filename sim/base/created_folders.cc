#include "sim/base/created_folders.h"

#include <unistd.h>

#include <filesystem>

#include "sim/base/signal_cleanup.h"

namespace gpumux {

namespace fs = std::filesystem;

void CreatedFolders::create(const std::string& folder, std::error_code& ec) {
  ec.clear();
  if (folder.empty()) return;
  std::vector<std::string> missing;
  std::error_code status_ec;
  for (fs::path p(folder); !p.empty() && !fs::exists(fs::symlink_status(p, status_ec));
       p = p.parent_path()) {
    missing.push_back(p.string());
    if (!p.has_parent_path() || p.parent_path() == p) break;
  }
  fs::create_directories(folder, ec);
  created_.insert(created_.end(), missing.begin(), missing.end());
  if (ec) {
    remove();
    return;
  }
  if (!missing.empty()) {
    unregister_signal_cleanup(cleanup_);
    cleanup_ = register_signal_cleanup_of_parents(created_.front(),
                                                  static_cast<int>(created_.size()));
  }
}

void CreatedFolders::remove() {
  unregister_signal_cleanup(cleanup_);
  cleanup_ = -1;
  for (const std::string& folder : created_) {
    if (::rmdir(folder.c_str()) != 0) break;
  }
  created_.clear();
}

CreatedFolders::~CreatedFolders() {
  if (keep_) {
    unregister_signal_cleanup(cleanup_);
  } else {
    remove();
  }
}

}  // namespace gpumux
