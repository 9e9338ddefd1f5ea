#pragma once
// Opening files under the process's path policy (path_policy.hpp), without
// a race between the check and the open.
//
// The policy resolves the path and names the allowed directory it lies in;
// the file is then opened from a descriptor of that directory, one
// component at a time with O_NOFOLLOW (openat). A symbolic link met on the
// way is read and followed only while it stays below that directory (a
// relative target that does not climb out of it; an absolute target or a
// ".." above the directory is refused with the policy's line). So a link
// swapped into an allowed directory between the check and the open cannot
// lead out of it. (openat2's RESOLVE_BENEATH does the same in the kernel;
// the walk here needs no particular kernel and no fallback.) New files are
// created with O_CREAT|O_EXCL under the directory's descriptor and renamed
// into place there (src/util/atomic_file.hpp).
//
// With an unrestricted policy (gridvec train, a cluster with insecure =
// true and no lists) files are opened by path as they always were.
#include <cstdio>
#include <istream>
#include <memory>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec::access {

/// An owned file descriptor.
class unique_fd {
public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd();

  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

/// A file opened for reading. `what` names it in errors ("the corpus").
expected<unique_fd> open_read(const std::string& path, const std::string& what);

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

/// open_read as a stdio stream ("rb").
expected<file_ptr> fopen_read(const std::string& path, const std::string& what);

/// open_read as an input stream (binary).
expected<std::unique_ptr<std::istream>> istream_read(const std::string& path, const std::string& what);

/// The directory a new file `path` is to be created in, opened for
/// writing, and the file's name in it.
struct parent_dir {
  unique_fd dir;
  std::string name;
};
expected<parent_dir> open_parent_for_write(const std::string& path, const std::string& what);

/// The same for a file the node's own config names (its table-dir), not a
/// peer: opened by name, whatever the policy.
expected<parent_dir> open_parent_of_own_file(const std::string& path, const std::string& what);

/// A file opened for writing in place (created if missing, else
/// truncated; a link at its name is not followed). For files rewritten
/// while a job runs (its corpus parts' word ids); new outputs go through
/// atomic_file.
expected<file_ptr> fopen_write(const std::string& path, const std::string& what);

/// Creates the directory `path` and its missing parents below the allowed
/// directory it lies in (mode 0755).
status make_directories(const std::string& path, const std::string& what);

/// Whether `path` may be written (the policy's refusal otherwise); opens
/// nothing. For paths handled by name afterwards (directory renames and
/// removals inside a checked checkpoint directory).
status check_write(const std::string& path, const std::string& what);

} // namespace gridvec::access
