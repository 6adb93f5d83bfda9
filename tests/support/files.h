// Files and directories of a test: reading text, private temporary directories, a private compile cache.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace uf::testing {

// The whole file, byte for byte; empty when it cannot be read (a log not yet written, say).
std::string read_text(const std::filesystem::path& path);
// The file's lines, without their '\n'. Throws std::runtime_error when the file cannot be read.
std::vector<std::string> read_lines(const std::filesystem::path& path);
// "\n  a\n  b": a list for a failure message.
std::string bulleted(const std::vector<std::string>& items);

// A fresh directory under the system's temporary directory (mkdtemp), removed with everything in it
// (read-only subdirectories included) when the object dies, unless keep() was called.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "uopfuzz-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& rel) const { return path_ / rel; }
  void keep() { keep_ = true; }  // leave it for inspection

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// A private compile cache (UOPFUZZ_CACHE_DIR) for the life of the object: tests never touch the user's
// cache and never depend on what an earlier run left behind. `dir` does not exist yet: the code under
// test must create it.
struct TempCache {
  TempDir root{"uopfuzz-test-cache"};
  std::string dir = (root / "cache").string();
  TempCache();
};

}  // namespace uf::testing
