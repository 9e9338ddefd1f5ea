#include "src/access/guarded_open.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <vector>

#include <ext/stdio_filebuf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/access/path_policy.hpp"

namespace gridvec::access {

unique_fd& unique_fd::operator=(unique_fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

unique_fd::~unique_fd() {
  if (fd_ >= 0)
    ::close(fd_);
}

namespace {

// A symbolic link followed more often than this is a loop (the kernel's
// limit).
constexpr int max_links = 40;

std::deque<std::string> components(const std::string& path) {
  std::deque<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    auto slash = path.find('/', at);
    if (slash == std::string::npos)
      slash = path.size();
    if (slash > at)
      out.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

// Walks the directories of a path below an allowed directory, one
// component at a time, never through a link that leads out of it.
class walk {
public:
  walk(const path_policy& policy, const std::string& path, intent access, const std::string& what)
    : policy_(policy), path_(path), access_(access), what_(what) {}

  // Opens the allowed directory; `below` is what remains to walk.
  status start(const std::string& root, const std::string& below) {
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return cannot();
    dirs_.emplace_back(fd);
    todo_ = components(below);
    return {};
  }

  // Walks every component but the last (or all of them: `all`), creating
  // missing directories if asked. Leaves the last one's name in `name`.
  status directories(bool all, bool create, std::string* name) {
    while (!todo_.empty()) {
      if (!all && todo_.size() == 1 && todo_.front() != "." && todo_.front() != "..") {
        *name = todo_.front();
        todo_.pop_front();
        return {};
      }
      std::string c = std::move(todo_.front());
      todo_.pop_front();
      if (c == ".")
        continue;
      if (c == "..") {
        if (dirs_.size() == 1)
          return outside();
        dirs_.pop_back();
        continue;
      }
      int fd = ::openat(top(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT && create) {
        if (::mkdirat(top(), c.c_str(), 0755) != 0 && errno != EEXIST)
          return cannot();
        fd = ::openat(top(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      }
      if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
        const int why = errno;
        if (auto s = follow(c, why); !s)
          return s;
        continue;
      }
      if (fd < 0)
        return cannot();
      dirs_.emplace_back(fd);
    }
    if (name)
      name->clear();
    return {};
  }

  // Opens the last component with `flags` (O_NOFOLLOW added), following a
  // link there as the walk does.
  expected<unique_fd> last(int flags) {
    std::string name;
    for (;;) {
      if (auto s = directories(false, false, &name); !s)
        return failure{s.error()};
      int fd = ::openat(top(), name.empty() ? "." : name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0)
        return unique_fd{fd};
      if (errno != ELOOP || name.empty())
        return failure{cannot().error()};
      if (auto s = follow(name, ELOOP); !s)
        return failure{s.error()};
    }
  }

  int top() const { return dirs_.back().get(); }
  unique_fd take_top() {
    unique_fd fd = std::move(dirs_.back());
    dirs_.pop_back();
    return fd;
  }

  status outside() const { return failure{policy_.refusal(path_, access_, what_)}; }
  status cannot() const {
    return failure{"cannot " + std::string(access_ == intent::read ? "read " : "write ") + what_ + " " + path_ + ": " +
                   std::strerror(errno)};
  }

private:
  // `c` is not a directory we may enter: if it is a link, its target's
  // components take its place (relative ones only), else `why` stands.
  status follow(const std::string& c, int why) {
    char buf[PATH_MAX];
    auto n = ::readlinkat(top(), c.c_str(), buf, sizeof buf);
    if (n < 0) {
      errno = why;
      return cannot();
    }
    if (++links_ > max_links) {
      errno = ELOOP;
      return cannot();
    }
    std::string target(buf, static_cast<size_t>(n));
    if (target.empty() || target.front() == '/')
      return outside();
    auto parts = components(target);
    todo_.insert(todo_.begin(), parts.begin(), parts.end());
    return {};
  }

  const path_policy& policy_;
  const std::string& path_;
  intent access_;
  const std::string& what_;
  std::vector<unique_fd> dirs_;
  std::deque<std::string> todo_;
  int links_ = 0;
};

std::string cannot_line(const char* verb, const std::string& what, const std::string& path) {
  return std::string("cannot ") + verb + " " + what + " " + path + ": " + std::strerror(errno);
}

} // namespace

expected<unique_fd> open_read(const std::string& path, const std::string& what) {
  auto policy = process_policy();
  auto place = policy->place(path, intent::read, what);
  if (!place)
    return failure{place.error()};
  if (policy->unrestricted()) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return failure{cannot_line("read", what, path)};
    return unique_fd{fd};
  }
  walk w{*policy, path, intent::read, what};
  if (auto s = w.start(place->root, place->below); !s)
    return failure{s.error()};
  return w.last(O_RDONLY);
}

expected<file_ptr> fopen_read(const std::string& path, const std::string& what) {
  auto fd = open_read(path, what);
  if (!fd)
    return failure{fd.error()};
  std::FILE* f = ::fdopen(fd->get(), "rb");
  if (!f)
    return failure{cannot_line("read", what, path)};
  fd->release();
  return file_ptr{f};
}

namespace {
// An input stream over a descriptor it owns.
class fd_istream : public std::istream {
public:
  explicit fd_istream(int fd) : std::istream(nullptr), buf_(fd, std::ios::in | std::ios::binary, 1 << 16) {
    rdbuf(&buf_);
  }

private:
  __gnu_cxx::stdio_filebuf<char> buf_;
};
} // namespace

expected<std::unique_ptr<std::istream>> istream_read(const std::string& path, const std::string& what) {
  auto fd = open_read(path, what);
  if (!fd)
    return failure{fd.error()};
  auto in = std::make_unique<fd_istream>(fd->get());
  if (!in->rdbuf() || !static_cast<__gnu_cxx::stdio_filebuf<char>*>(in->rdbuf())->is_open())
    return failure{cannot_line("read", what, path)};
  fd->release();
  return std::unique_ptr<std::istream>{std::move(in)};
}

expected<parent_dir> open_parent_for_write(const std::string& path, const std::string& what) {
  auto policy = process_policy();
  auto place = policy->place(path, intent::write, what);
  if (!place)
    return failure{place.error()};
  if (policy->unrestricted())
    return open_parent_of_own_file(path, what);
  walk w{*policy, path, intent::write, what};
  if (auto s = w.start(place->root, place->below); !s)
    return failure{s.error()};
  std::string name;
  if (auto s = w.directories(false, false, &name); !s)
    return failure{s.error()};
  if (name.empty()) { // the allowed directory itself
    errno = EISDIR;
    return failure{w.cannot().error()};
  }
  return parent_dir{w.take_top(), name};
}

expected<parent_dir> open_parent_of_own_file(const std::string& path, const std::string& what) {
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    errno = EISDIR;
    return failure{cannot_line("write", what, path)};
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return failure{cannot_line("write", what, path)};
  return parent_dir{unique_fd{fd}, name};
}

expected<file_ptr> fopen_write(const std::string& path, const std::string& what) {
  auto parent = open_parent_for_write(path, what);
  if (!parent)
    return failure{parent.error()};
  int fd =
    ::openat(parent->dir.get(), parent->name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return failure{cannot_line("write", what, path)};
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    return failure{cannot_line("write", what, path)};
  }
  return file_ptr{f};
}

status make_directories(const std::string& path, const std::string& what) {
  auto policy = process_policy();
  auto place = policy->place(path, intent::write, what);
  if (!place)
    return failure{place.error()};
  if (policy->unrestricted()) {
    std::string at;
    for (const auto& c : components(path)) {
      at += (at.empty() && path.front() != '/' ? "" : "/") + c;
      if (::mkdir(at.c_str(), 0755) != 0 && errno != EEXIST)
        return failure{cannot_line("create", what, path)};
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return failure{cannot_line("create", what, path)};
    }
    return {};
  }
  walk w{*policy, path, intent::write, what};
  if (auto s = w.start(place->root, place->below); !s)
    return s;
  return w.directories(true, true, nullptr);
}

status check_write(const std::string& path, const std::string& what) {
  auto place = process_policy()->place(path, intent::write, what);
  if (!place)
    return failure{place.error()};
  return {};
}

} // namespace gridvec::access
