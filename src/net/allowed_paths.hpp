#pragma once
// Which files a cluster's jobs may touch. A job runs as the nodes' user,
// with paths that a client chose: without a limit, anyone allowed to submit
// could read any file that user can (its words come back in the vectors)
// and overwrite any file it can write. The cluster config lists the
// directories (allow-read, allow-write); a path is allowed if, with every
// symbolic link and ".." resolved, it lies under one of them. Checked on
// the node that takes the job, before anything is read or written.
//
// A link created under an allowed directory after the check still points
// outside: the lists keep honest clients in bounds and stop a remote one
// from naming /etc/shadow, not a local user who can write into the allowed
// directories (such a user already has the nodes' files).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {
struct cluster_config;
struct train_options;
} // namespace gridvec

namespace gridvec::net {

class allowed_paths {
public:
  /// Everything allowed: a job in one process (gridvec train), or a cluster
  /// with insecure = true and no lists.
  allowed_paths() = default;
  explicit allowed_paths(const cluster_config& cluster);

  /// `what` names the path in the error ("the corpus").
  status may_read(const std::string& path, const std::string& what) const;
  status may_write(const std::string& path, const std::string& what) const;

  /// Every path of a job: the corpus, the output, the report, the work
  /// and checkpoint directories, the checkpoint to resume from.
  status check_job(const train_options& options) const;

private:
  status check(const std::string& path, const std::string& what, const std::vector<std::string>& dirs, const char* verb,
               const char* key) const;

  bool unrestricted_ = true;
  std::vector<std::string> read_, write_;                 // as the config lists them (for messages)
  std::map<std::string, std::filesystem::path> resolved_; // each with links and ".." resolved
};

} // namespace gridvec::net
