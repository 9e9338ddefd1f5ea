#include "src/util/atomic_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridvec {

namespace {
std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
} // namespace

expected<atomic_file> atomic_file::create(const std::string& path) {
  if (path.empty())
    return failure{"no output path given"};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return failure{"cannot write " + path + ": it is a directory"};
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return failure{"cannot write " + path + ": " + std::strerror(errno)};
  ::fchmod(fd, 0644);
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    ::unlink(temp.c_str());
    return failure{"cannot write " + path + ": " + std::strerror(errno)};
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  return atomic_file{path, temp, f};
}

atomic_file::atomic_file(atomic_file&& o) noexcept
  : path_(std::move(o.path_)), temp_(std::move(o.temp_)), file_(o.file_) {
  o.file_ = nullptr;
  o.temp_.clear();
}

atomic_file::~atomic_file() {
  if (file_)
    std::fclose(file_);
  if (!temp_.empty())
    ::unlink(temp_.c_str());
}

status atomic_file::commit() {
  auto fail = [&](const char* step) {
    std::string msg = "cannot write " + path_ + " (" + step + "): " + std::strerror(errno);
    if (file_)
      std::fclose(file_);
    file_ = nullptr;
    ::unlink(temp_.c_str());
    temp_.clear();
    return failure{msg};
  };
  if (std::ferror(file_) || std::fflush(file_) != 0)
    return fail("write");
  if (::fsync(::fileno(file_)) != 0)
    return fail("fsync");
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    return fail("close");
  }
  file_ = nullptr;
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    return fail("rename");
  temp_.clear();
  // Make the rename itself durable.
  int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

status atomic_file::check_writable(const std::string& path) {
  auto probe = create(path);
  if (!probe)
    return failure{probe.error()};
  return {}; // the probe's temporary file is removed here
}

} // namespace gridvec
