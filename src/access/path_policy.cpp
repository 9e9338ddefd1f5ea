#include "src/access/path_policy.hpp"

#include <filesystem>
#include <mutex>

#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/options.hpp>

namespace gridvec::access {

namespace fs = std::filesystem;

namespace {

// The path with links and ".." resolved as far as it exists (an output
// need not exist yet; its directory is what counts).
fs::path resolved(const std::string& path) {
  std::error_code ec;
  auto abs = fs::absolute(path, ec);
  if (ec)
    return fs::path(path).lexically_normal();
  auto p = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : p;
}

// The part of `path` below `dir`, component by component (/data/out2 is
// not under /data/out), or nothing.
std::optional<std::string> below(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d) {
    if (d->empty()) // a trailing separator
      continue;
    if (p == path.end() || *p != *d)
      return std::nullopt;
    ++p;
  }
  fs::path rest;
  for (; p != path.end(); ++p)
    if (!p->empty())
      rest /= *p;
  return rest.string();
}

std::string joined(const std::vector<std::string>& dirs) {
  std::string s;
  for (const auto& d : dirs)
    s += (s.empty() ? "" : ", ") + d;
  return s.empty() ? "none" : s;
}

std::mutex policy_mutex;
std::shared_ptr<const path_policy> current = std::make_shared<path_policy>();

} // namespace

path_policy::path_policy(const cluster_config& cluster)
  : unrestricted_(cluster.insecure && cluster.allow_read.empty() && cluster.allow_write.empty()),
    read_(cluster.allow_read), write_(cluster.allow_write) {
  // Resolved once, not for every path checked against them.
  for (auto& d : write_)
    write_roots_.push_back(resolved(d).string());
  // A node reads back what it writes.
  read_roots_ = write_roots_;
  for (auto& d : read_)
    read_roots_.push_back(resolved(d).string());
}

std::string path_policy::refusal(const std::string& path, intent access, const std::string& what) const {
  // The path as given, never what it resolves to: the line is the same
  // whether or not anything exists there.
  const bool read = access == intent::read;
  return what + " " + path + " is outside the directories this cluster may " + (read ? "read" : "write") + " (" +
         (read ? "allow-read in the cluster config: " + joined(read_) + "; and allow-write: " + joined(write_)
               : "allow-write in the cluster config: " + joined(write_)) +
         ")";
}

expected<path_policy::placement> path_policy::place(const std::string& path, intent access,
                                                    const std::string& what) const {
  if (path.empty())
    return failure{what + ": no path given"};
  // A NUL would cut the path short where the OS reads it; a line break
  // would forge a line in a manifest or log.
  if (path.find_first_of(std::string{"\0\n\r", 3}) != std::string::npos)
    return failure{refusal("(a path with a NUL or line break)", access, what)};
  if (unrestricted_)
    return placement{"", path};
  const auto p = resolved(path);
  for (const auto& root : access == intent::read ? read_roots_ : write_roots_)
    if (auto rest = below(p, fs::path(root)))
      return placement{root, *rest};
  return failure{refusal(path, access, what)};
}

status path_policy::may_read(const std::string& path, const std::string& what) const {
  if (auto p = place(path, intent::read, what); !p)
    return failure{p.error()};
  return {};
}

status path_policy::may_write(const std::string& path, const std::string& what) const {
  if (auto p = place(path, intent::write, what); !p)
    return failure{p.error()};
  return {};
}

status path_policy::check_job(const train_options& o) const {
  struct item {
    const std::string& path;
    intent access;
    const char* what;
  };
  const item items[] = {
    {o.train, intent::read, "the corpus"},
    {o.output, intent::write, "the output"},
    {o.report, intent::write, "the report"},
    {o.save_vocab, intent::write, "the vocabulary (-save-vocab)"},
    {o.read_vocab, intent::read, "the vocabulary (-read-vocab)"},
    {o.save_model, intent::write, "the model directory (--save-model)"},
    {o.init, intent::read, "the model to start from (--init)"},
    {o.work_dir, intent::write, "the work directory"},
    {o.checkpoint_dir, intent::write, "the checkpoint directory"},
    {o.resume, intent::read, "the checkpoint to resume"},
    {o.resume, intent::write, "the checkpoint to resume"},
  };
  for (const auto& i : items)
    if (!i.path.empty())
      if (auto p = place(i.path, i.access, i.what); !p)
        return failure{p.error()};
  return {};
}

std::string path_policy::scratch_root() const {
  std::error_code ec;
  auto temp = fs::temp_directory_path(ec);
  if (ec)
    temp = "/tmp";
  if (place(temp.string(), intent::write, "the temporary directory"))
    return temp.string();
  return write_roots_.empty() ? "" : write_roots_.front();
}

void set_process_policy(path_policy policy) {
  auto p = std::make_shared<const path_policy>(std::move(policy));
  std::lock_guard lock{policy_mutex};
  current = std::move(p);
}

std::shared_ptr<const path_policy> process_policy() {
  std::lock_guard lock{policy_mutex};
  return current;
}

scoped_policy::scoped_policy(path_policy policy) : previous_(process_policy()) {
  set_process_policy(std::move(policy));
}

scoped_policy::~scoped_policy() {
  std::lock_guard lock{policy_mutex};
  current = previous_;
}

} // namespace gridvec::access
