// A fresh directory under the system's temp directory, removed with everything in it when
// the object goes: tests leave nothing behind, whether they pass, fail an assertion (which
// returns from the test body) or throw.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace bugcam::test_support {

class TempDir {
 public:
  // The directory is named "bugcam-<prefix>-XXXXXX" (mkdtemp: unique across processes).
  explicit TempDir(const std::string& prefix) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("bugcam-" + prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(pattern + ": cannot create a temporary directory");
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // nothing to do about a directory that cannot go
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace bugcam::test_support
