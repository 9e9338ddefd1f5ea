#pragma once
// A file that appears only when complete: written under a temporary name in
// the target's directory, flushed, fsynced and renamed over the target. If
// anything fails, or the object is destroyed before commit(), the temporary
// is removed and an existing target is left untouched. A target that is a
// device or a pipe (-output /dev/null, a FIFO a reader waits on) is written
// in place instead: renaming over it would replace the device node with a
// regular file.
//
// The target must be writable under the process's path policy
// (src/access/path_policy.hpp); the temporary is created with
// O_CREAT|O_EXCL and renamed, both under a descriptor of the target's
// directory opened without leaving the allowed directory
// (src/access/guarded_open.hpp).
#include <cstdio>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class atomic_file {
public:
  /// `what` names the file in errors ("the output").
  static expected<atomic_file> create(const std::string& path, const std::string& what = "the file");
  /// For a file the node's own config names (its table-dir), not a peer:
  /// whatever the path policy.
  static expected<atomic_file> create_own(const std::string& path, const std::string& what = "the file");
  atomic_file(atomic_file&& other) noexcept;
  atomic_file& operator=(atomic_file&&) = delete;
  ~atomic_file();

  std::FILE* stream() { return file_; }
  const std::string& path() const { return path_; }
  status commit();

  /// Fails with create()'s one line if `path` cannot be written: a check
  /// made before hours of training. Leaves nothing behind.
  static status check_writable(const std::string& path, const std::string& what = "the file");

private:
  static expected<atomic_file> create_in(const std::string& path, int dir, std::string name);
  atomic_file(std::string path, int dir, std::string name, std::string temp, std::FILE* f)
    : path_(std::move(path)), dir_(dir), name_(std::move(name)), temp_(std::move(temp)), file_(f) {}

  std::string path_;
  int dir_ = -1;     // the target's directory
  std::string name_; // the target's name in it
  std::string temp_; // the temporary's name in it, while it exists
  std::FILE* file_ = nullptr;
};

/// Puts the finished directory `partial` in place as `dir`: a directory
/// already there is moved aside first and removed only once `partial` has
/// taken its name (put back if that fails), so `dir` is always whole. The
/// error lines name `what` ("model", "vectors").
status replace_directory(const std::string& partial, const std::string& dir, const std::string& what);

} // namespace gridvec
