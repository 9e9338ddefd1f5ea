#pragma once
// A file that appears only when complete: written under a temporary name in
// the target's directory, flushed, fsynced and renamed over the target. If
// anything fails, or the object is destroyed before commit(), the temporary
// is removed and an existing target is left untouched.
#include <cstdio>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class atomic_file {
public:
  static expected<atomic_file> create(const std::string& path);
  atomic_file(atomic_file&& other) noexcept;
  atomic_file& operator=(atomic_file&&) = delete;
  ~atomic_file();

  std::FILE* stream() { return file_; }
  const std::string& path() const { return path_; }
  status commit();

  /// Fails with create()'s one line if `path` cannot be written: a check
  /// made before hours of training. Leaves nothing behind.
  static status check_writable(const std::string& path);

private:
  atomic_file(std::string path, std::string temp, std::FILE* f)
    : path_(std::move(path)), temp_(std::move(temp)), file_(f) {}

  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
};

} // namespace gridvec
