#include "src/util/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {

std::string temp_name(const std::string& name) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string t = name + ".tmp-";
  for (int i = 0; i < 8; ++i)
    t += letters[rng() % (sizeof letters - 1)];
  return t;
}

} // namespace

expected<atomic_file> atomic_file::create(const std::string& path, const std::string& what) {
  if (path.empty())
    return failure{"no output path given"};
  auto parent = access::open_parent_for_write(path, what);
  if (!parent)
    return failure{parent.error()};
  return create_in(path, parent->dir.release(), parent->name);
}

expected<atomic_file> atomic_file::create_own(const std::string& path, const std::string& what) {
  if (path.empty())
    return failure{"no output path given"};
  auto parent = access::open_parent_of_own_file(path, what);
  if (!parent)
    return failure{parent.error()};
  return create_in(path, parent->dir.release(), parent->name);
}

// Takes `dir`.
expected<atomic_file> atomic_file::create_in(const std::string& path, int dir, std::string name) {
  access::unique_fd owned{dir};
  struct stat st {};
  const bool exists = ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return failure{"cannot write " + path + ": it is a directory"};
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
    if (!f) {
      if (fd >= 0)
        ::close(fd);
      return failure{"cannot write " + path + ": " + std::strerror(errno), error_code::io};
    }
    return atomic_file{path, owned.release(), std::move(name), std::string{}, f};
  }
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = temp_name(name);
    fd = ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return failure{"cannot write " + path + ": " + std::strerror(errno), error_code::io};
  ::fchmod(fd, 0644);
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    ::unlinkat(dir, temp.c_str(), 0);
    return failure{"cannot write " + path + ": " + std::strerror(errno), error_code::io};
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  return atomic_file{path, owned.release(), std::move(name), temp, f};
}

atomic_file::atomic_file(atomic_file&& o) noexcept
  : path_(std::move(o.path_)), dir_(o.dir_), name_(std::move(o.name_)), temp_(std::move(o.temp_)), file_(o.file_) {
  o.file_ = nullptr;
  o.dir_ = -1;
  o.temp_.clear();
}

atomic_file::~atomic_file() {
  if (file_)
    std::fclose(file_);
  if (!temp_.empty() && dir_ >= 0)
    ::unlinkat(dir_, temp_.c_str(), 0);
  if (dir_ >= 0)
    ::close(dir_);
}

status atomic_file::commit() {
  auto fail = [&](const char* step) {
    std::string msg = "cannot write " + path_ + " (" + step + "): " + std::strerror(errno);
    if (file_)
      std::fclose(file_);
    file_ = nullptr;
    ::unlinkat(dir_, temp_.c_str(), 0);
    temp_.clear();
    return failure{msg};
  };
  if (std::ferror(file_) || std::fflush(file_) != 0)
    return fail("write");
  if (temp_.empty()) { // a device or a pipe, written in place: nothing to sync or rename
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!closed)
      return fail("close");
    return {};
  }
  if (::fsync(::fileno(file_)) != 0)
    return fail("fsync");
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    return fail("close");
  }
  file_ = nullptr;
  if (::renameat(dir_, temp_.c_str(), dir_, name_.c_str()) != 0)
    return fail("rename");
  temp_.clear();
  // Make the rename itself durable.
  ::fsync(dir_);
  return {};
}

status atomic_file::check_writable(const std::string& path, const std::string& what) {
  auto probe = create(path, what);
  if (!probe)
    return failure{probe.error()};
  return {}; // the probe's temporary file is removed here
}

status replace_directory(const std::string& partial, const std::string& dir, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string old = dir + ".old-" + std::to_string(::getpid());
  const bool had_one = fs::exists(dir, ec);
  if (had_one) {
    fs::rename(dir, old, ec);
    if (ec)
      return failure{"cannot move the previous " + what + " " + dir + " aside: " + ec.message()};
  }
  fs::rename(partial, dir, ec);
  if (ec) {
    std::error_code back;
    if (had_one)
      fs::rename(old, dir, back);
    return failure{"cannot put the " + what + " in place at " + dir + ": " + ec.message()};
  }
  if (had_one)
    fs::remove_all(old, ec);
  return {};
}

} // namespace gridvec
