#include "src/net/allowed_paths.hpp"

#include <filesystem>

#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/options.hpp>

namespace gridvec::net {

namespace fs = std::filesystem;

namespace {

// The path with links and ".." resolved as far as it exists (an output
// need not exist yet; its directory is what counts).
fs::path resolved(const std::string& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

// Whether `path` is `dir` or lies under it, component by component
// (/data/out2 is not under /data/out).
bool lies_under(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty()) // a trailing separator
      continue;
    if (p == path.end() || *p != *d)
      return false;
  }
  return true;
}

} // namespace

allowed_paths::allowed_paths(const cluster_config& cluster)
  : unrestricted_(cluster.insecure && cluster.allow_read.empty() && cluster.allow_write.empty()),
    read_(cluster.allow_read), write_(cluster.allow_write) {
  // Resolved once, not for every path checked against them.
  for (auto* dirs : {&read_, &write_})
    for (auto& d : *dirs)
      resolved_.emplace(d, resolved(d));
}

status allowed_paths::check(const std::string& path, const std::string& what, const std::vector<std::string>& dirs,
                            const char* verb, const char* key) const {
  if (unrestricted_ || path.empty())
    return {};
  const auto p = resolved(path);
  for (const auto& d : dirs)
    if (lies_under(p, resolved_.at(d)))
      return {};
  std::string listed;
  for (const auto& d : dirs)
    listed += (listed.empty() ? "" : ", ") + d;
  return failure{what + " " + path + (p.string() != path ? " (" + p.string() + ")" : "") +
                 " is outside the directories this cluster may " + verb + " (" + key +
                 " in the cluster config: " + (listed.empty() ? "none" : listed) + ")"};
}

status allowed_paths::may_read(const std::string& path, const std::string& what) const {
  return check(path, what, read_, "read", "allow-read");
}

status allowed_paths::may_write(const std::string& path, const std::string& what) const {
  return check(path, what, write_, "write", "allow-write");
}

status allowed_paths::check_job(const train_options& o) const {
  for (auto s :
       {may_read(o.train, "the corpus"), may_write(o.output, "the output"), may_write(o.report, "the report"),
        may_write(o.save_vocab, "the vocabulary (-save-vocab)"), may_read(o.read_vocab, "the vocabulary (-read-vocab)"),
        may_write(o.work_dir, "the work directory"), may_write(o.checkpoint_dir, "the checkpoint directory"),
        may_read(o.resume, "the checkpoint to resume"), may_write(o.resume, "the checkpoint to resume")})
    if (!s)
      return s;
  return {};
}

} // namespace gridvec::net
