#pragma once
// The shell's commands, all in one table (shell_commands.cpp): name,
// arguments and how many, one-line help, details for `help NAME`, and the
// handler. The number of arguments is checked before the handler runs; a
// handler checks their values before it asks the controller anything, so a
// bad argument never reaches the cluster. It prints results on the
// context's output and returns a failure line for the caller to print.
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/options.hpp>
#include "apps/shell/shell_words.hpp"

namespace gridvec {

class controller_client;
class table_client;

/// What a command runs against.
struct shell_context {
  explicit shell_context(std::ostream& o, controller_client* c = nullptr) : out(o), client(c) {}

  std::ostream& out;
  /// The controller; null when there is none (then every command that
  /// needs it fails with "not connected").
  controller_client* client = nullptr;
  /// The parameter server's tables (`tables`, `table ...`): connects to the
  /// shard nodes on first use, and again when asked to (`reconnect`: after
  /// a table command failed, e.g. because a shard node was restarted);
  /// empty when the shell was started without a cluster config (then those
  /// commands say so).
  std::function<expected<table_client*>(bool reconnect)> tables;
  bool tables_failed = false; // the last table command failed
  /// Set by `quit`: the shell reads no more commands.
  bool quit = false;
  /// `out` is a terminal: progress lines are redrawn in place.
  bool terminal = false;
};

struct shell_command {
  std::string_view name;
  std::string_view args; // as in the usage line: "WORD [K]"
  size_t min_args;       // how many words may follow the name
  size_t max_args;
  std::string_view summary; // one line, for `help`
  std::string_view details; // more lines, for `help NAME`
  /// Called with min_args..max_args words (checked before).
  status (*run)(shell_context& ctx, const shell_words& args);
};

/// Every command, in the order `help` lists them.
const std::vector<shell_command>& shell_commands();

/// The command called `name`, or nullptr.
const shell_command* find_shell_command(std::string_view name);

/// Runs one command (words[0] is its name). Fails with one line on an
/// unknown command, bad arguments, or the controller's error.
status run_shell_command(shell_context& ctx, const shell_words& words);

/// The options of a job started from the shell: `gridvec train`'s flags,
/// with paths made absolute (the nodes resolve them, not the shell) and the
/// cluster kept running when the job ends.
expected<train_options> shell_job_options(const shell_words& args);

/// `help` (empty name) or `help NAME`.
expected<std::string> shell_help(std::string_view name);

/// The usage line "usage: NAME ARGS".
std::string shell_usage(const shell_command& c);

} // namespace gridvec
