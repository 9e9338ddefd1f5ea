#include "src/access/private_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gridvec::access {

status check_private_file(const std::string& path, const std::string& what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return failure{"cannot read " + what + " " + path + ": " + std::strerror(errno) +
                   (errno == ELOOP ? " (a symbolic link; name the file itself)" : "")};
  struct stat st {};
  const bool stated = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (!stated || !S_ISREG(st.st_mode))
    return failure{what + " " + path + " is not a regular file"};
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return failure{what + " " + path + " can be read or written by other users (mode " + mode + "); run: chmod 600 " +
                   path};
  }
  return {};
}

} // namespace gridvec::access
