#include "src/net/cluster_secret.hpp"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gridvec::net {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

status write_key_file(const std::string& path, const secret_bytes& secret, const std::string& prefix) {
  static const char digits[] = "0123456789abcdef";
  std::string text = prefix;
  for (uint8_t b : secret) {
    text += digits[b >> 4];
    text += digits[b & 15];
  }
  text += '\n';
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST)
      return failure{path + " already exists; a new secret would lock its cluster's nodes out (remove it first "
                            "if that is what you want)"};
    return failure{"cannot create " + path + ": " + std::strerror(errno), error_code::io};
  }
  // The umask cannot widen 0600, but fchmod makes the mode explicit.
  bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return failure{"cannot write " + path + ": " + std::strerror(saved), error_code::io};
  }
  return {};
}

} // namespace

status write_new_secret(const std::string& path) {
  secret_bytes secret{};
  if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1)
    return failure{"cannot draw random bytes for the secret (OpenSSL RAND_bytes failed)"};
  return write_key_file(path, secret, "");
}

status write_client_key(const std::string& secret_path, const std::string& path) {
  auto secret = load_secret(secret_path);
  if (!secret)
    return failure{secret.error()};
  return write_key_file(path, derive_client_key(*secret), client_key_prefix);
}

expected<secret_bytes> load_secret(const std::string& path) {
  auto key = load_key(path);
  if (!key)
    return failure{key.error()};
  if (key->client_only)
    return failure{path + " is a client key: a node needs the cluster secret itself"};
  return key->bytes;
}

expected<loaded_key> load_key(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return failure{"cannot read the cluster secret " + path + ": " + std::strerror(errno) +
                   (errno == ELOOP ? " (a symbolic link; name the file itself)" : "")};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return failure{"the cluster secret " + path + " is not a regular file"};
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return failure{"the cluster secret " + path + " can be read or written by other users (mode " + mode +
                   "); run: chmod 600 " + path};
  }
  char buffer[129];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n < 0)
    return failure{"cannot read the cluster secret " + path + ": " + std::strerror(errno), error_code::io};
  std::string text(buffer, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  loaded_key out;
  if (text.rfind(client_key_prefix, 0) == 0) {
    out.client_only = true;
    text.erase(0, std::strlen(client_key_prefix));
  }
  const failure malformed{"the cluster secret " + path +
                          " is not 64 hexadecimal digits (write one with: gridvec keygen " + path + ")"};
  secret_bytes& secret = out.bytes;
  if (text.size() != 2 * secret.size())
    return malformed;
  for (size_t i = 0; i < secret.size(); ++i) {
    int hi = hex_value(text[2 * i]), lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return malformed;
    secret[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return out;
}

} // namespace gridvec::net
