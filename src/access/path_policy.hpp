#pragma once
// Which files a node may open. A node runs as its OS user, with paths that
// a peer chose (a client's job, a coordinator's placement, a checkpoint's
// manifest): without a limit, anyone holding the cluster secret could read
// any file that user can (a corpus's words come back in the vectors) and
// overwrite any file it can write. The cluster config lists the
// directories (allow-read, allow-write); a path is allowed if, with every
// symbolic link and ".." resolved, it lies under one of them. A node may
// read what it may write (a job reads back its vocabulary, its corpus
// parts, its checkpoints).
//
// path_policy::place is the one function that decides. Every node process
// installs its config's policy at start (set_process_policy), and every
// file a node opens or creates goes through src/access/guarded_open.hpp,
// which asks it and then opens the file under a descriptor of the allowed
// directory without leaving it (a link swapped in after the check cannot
// lead out). So the check holds whoever asked: the controller, a
// coordinator, a peer sending a node's internal messages directly.
//
// A refusal is one line that names the path as given and the lists, the
// same whether or not something exists at that path.
#include <memory>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {
struct cluster_config;
struct train_options;
} // namespace gridvec

namespace gridvec::access {

enum class intent { read, write };

class path_policy {
public:
  /// Everything allowed: a job in one process (gridvec train, an embedding
  /// application), or a cluster with insecure = true and no lists.
  path_policy() = default;
  explicit path_policy(const cluster_config& cluster);

  bool unrestricted() const { return unrestricted_; }

  /// Where an allowed path lies: one of the allowed directories (absolute,
  /// links resolved) and the path below it ("" for the directory itself).
  struct placement {
    std::string root;
    std::string below;
  };

  /// The decision. `what` names the path in the refusal ("the corpus").
  /// Unrestricted: the root is empty and `below` the path as given.
  expected<placement> place(const std::string& path, intent access, const std::string& what) const;

  /// The refusal line of place() for `path`.
  std::string refusal(const std::string& path, intent access, const std::string& what) const;

  status may_read(const std::string& path, const std::string& what) const;
  status may_write(const std::string& path, const std::string& what) const;

  /// Every path of a job: the corpus, the outputs (vectors, report,
  /// vocabulary, --save-model), the inputs (-read-vocab, --init), the work
  /// and checkpoint directories, the checkpoint to resume from.
  status check_job(const train_options& options) const;

  /// Where a node puts a job's temporary work directory when the job names
  /// none: the system's temporary directory if it may be written, else the
  /// first allow-write directory ("" if there is none).
  std::string scratch_root() const;

private:
  bool unrestricted_ = true;
  std::vector<std::string> read_, write_;             // as the config lists them (for messages)
  std::vector<std::string> read_roots_, write_roots_; // links and ".." resolved
};

/// The policy of every file this process opens through guarded_open.hpp.
/// A node process installs its cluster config's at start; until then (and
/// in processes that are no node) everything is allowed.
void set_process_policy(path_policy policy);
std::shared_ptr<const path_policy> process_policy();

/// Installs a policy for the lifetime of the object (tests), then restores
/// the previous one.
class scoped_policy {
public:
  explicit scoped_policy(path_policy policy);
  ~scoped_policy();
  scoped_policy(const scoped_policy&) = delete;
  scoped_policy& operator=(const scoped_policy&) = delete;

private:
  std::shared_ptr<const path_policy> previous_;
};

} // namespace gridvec::access
