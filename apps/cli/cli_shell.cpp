// gridvec shell: talks to the controller of a cluster (on its coordinator's
// node). On a terminal it is a prompt with line editing, completion and
// history (libedit, history in ~/.gridvec_history); with -c, or when
// standard input is not a terminal, it runs the commands it is given, so
// that they can be scripted. The commands are in shell_commands.cpp.
//
// Exit status: 0 if every command succeeded, 1 if one failed, 2 for a
// usage error (bad flags, a bad config, a coordinator that cannot be
// reached). An interactive session exits 0.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <editline/readline.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include <gridvec/cluster.hpp> // configure_cluster_system
#include <gridvec/tables.hpp>  // connect_table_shards, table_client

#include "apps/cli/cli.hpp"
#include <gridvec/core/cluster_config.hpp>
#include <gridvec/controller_client.hpp>
#include "apps/shell/shell_commands.hpp"
#include "apps/shell/shell_words.hpp"

namespace gridvec {

namespace {

constexpr const char* shell_usage_text =
  "usage: gridvec shell --config CLUSTER.conf [-c COMMANDS] [--timeout SECONDS]\n"
  "       gridvec shell --connect HOST:PORT [--secret FILE] [-c COMMANDS]\n"
  "                     [--timeout SECONDS]\n"
  "Talks to the controller on the cluster's coordinator node (--config: the\n"
  "config's coordinator, with the config's secret; --connect: the node at\n"
  "HOST:PORT, proving the cluster secret in FILE; without --secret, only a\n"
  "cluster with insecure = true answers). On a terminal it is\n"
  "an interactive prompt; with -c (commands separated by ';' or new lines), or\n"
  "when standard input is not a terminal, it runs the commands given and exits\n"
  "0 if all succeeded, 1 if one failed, 2 on a usage error or an unreachable\n"
  "coordinator. --timeout bounds each query (default 30 s). docs/shell.md\n"
  "describes the commands.\n";

// Set by SIGINT (Ctrl-C) in an interactive shell: a running command stops
// waiting, a line being typed is dropped.
std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int) { interrupted.store(true); }

struct shell_args {
  std::string config;
  std::string connect; // HOST:PORT
  std::string secret;  // with --connect
  std::optional<std::string> commands;
  double timeout_seconds = 30;
};

expected<shell_args> parse_shell_args(const std::vector<std::string>& args) {
  shell_args out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "--config" || a == "-config") && has_value) {
      out.config = args[++i];
    } else if ((a == "--connect" || a == "-connect") && has_value) {
      out.connect = args[++i];
    } else if ((a == "--secret" || a == "-secret") && has_value) {
      out.secret = args[++i];
    } else if (a == "-c" && has_value) {
      out.commands = out.commands ? *out.commands + "\n" + args[++i] : args[++i];
    } else if ((a == "--timeout" || a == "-timeout") && has_value) {
      const std::string& v = args[++i];
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out.timeout_seconds);
      if (ec != std::errc{} || end != v.data() + v.size() || !(out.timeout_seconds > 0) || out.timeout_seconds > 86400)
        return failure{"--timeout needs a number of seconds from 0 to 86400, not '" + v + "'"};
    } else {
      return failure{"unexpected argument '" + a + "' (gridvec shell --help shows the usage)"};
    }
  }
  if (out.config.empty() == out.connect.empty())
    return failure{"give either --config CLUSTER.conf or --connect HOST:PORT (gridvec shell --help)"};
  if (!out.secret.empty() && !out.config.empty())
    return failure{"--secret goes with --connect; with --config the config names the secret"};
  return out;
}

struct endpoint {
  std::string host;
  uint16_t port = 0;
};

// HOST:PORT, or [IPv6]:PORT.
expected<endpoint> parse_endpoint(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return failure{"--connect needs HOST:PORT, not '" + text + "'"};
  endpoint e;
  e.host = text.substr(0, colon);
  if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']')
    e.host = e.host.substr(1, e.host.size() - 2);
  const std::string port = text.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535)
    return failure{"--connect: the port must be from 1 to 65535, not '" + port + "'"};
  e.port = static_cast<uint16_t>(value);
  return e;
}

void print_error(const std::string& what) {
  std::cout.flush(); // keep stdout and stderr in order on one terminal or file
  std::fprintf(stderr, "error: %s\n", what.c_str());
}

// Runs every command in `text`; false if any failed.
bool run_text(shell_context& ctx, std::string_view text) {
  auto commands = split_shell_text(text);
  if (!commands) {
    print_error(commands.error());
    return false;
  }
  bool ok = true;
  for (const auto& words : *commands) {
    if (ctx.quit)
      break;
    interrupted.store(false);
    auto st = run_shell_command(ctx, words);
    std::cout.flush();
    if (!st) {
      if (interrupted.load())
        std::cout << '\n'; // past the ^C the terminal echoed
      print_error(st.error());
      ok = false;
    }
  }
  return ok;
}

// --- the interactive prompt --------------------------------------------------

bool blank_line(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

std::string history_file() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string{home} + "/.gridvec_history" : std::string{};
}

// Tab completion of command names in the first word; libedit completes
// file names elsewhere (train -train ..., export PATH).
char* command_name_generator(const char* text, int state) {
  static size_t next = 0;
  if (state == 0)
    next = 0;
  const auto& table = shell_commands();
  const std::string_view prefix{text};
  while (next < table.size()) {
    const auto& c = table[next++];
    if (c.name.substr(0, prefix.size()) == prefix)
      return ::strdup(std::string{c.name}.c_str()); // libedit frees it
  }
  return nullptr;
}

char** complete(const char* text, int start, int) {
  for (int i = 0; i < start; ++i)
    if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t')
      return nullptr; // not the first word
  return rl_completion_matches(text, command_name_generator);
}

void run_interactive(shell_context& ctx, const std::string& banner) {
  rl_readline_name = "gridvec"; // for ~/.editrc
  rl_attempted_completion_function = complete;
  using_history();
  stifle_history(1000);
  const std::string history = history_file();
  if (!history.empty())
    read_history(history.c_str());
  // No SA_RESTART: Ctrl-C must end libedit's read() at the prompt.
  struct sigaction on_int {};
  struct sigaction before {};
  on_int.sa_handler = on_interrupt;
  sigemptyset(&on_int.sa_mask);
  sigaction(SIGINT, &on_int, &before);

  std::cout << banner << std::flush;
  std::string previous;
  while (!ctx.quit) {
    interrupted.store(false);
    char* raw = readline("gridvec> ");
    if (interrupted.load()) {
      // Ctrl-C while typing: drop the line, as shells do.
      std::free(raw);
      std::cout << "^C\n" << std::flush;
      continue;
    }
    if (!raw) { // Ctrl-D
      std::cout << '\n';
      break;
    }
    std::string line{raw};
    std::free(raw);
    if (blank_line(line))
      continue;
    if (line != previous) {
      add_history(line.c_str());
      if (!history.empty())
        write_history(history.c_str());
      previous = line;
    }
    run_text(ctx, line);
  }
  sigaction(SIGINT, &before, nullptr);
}

// --- scripted use ----------------------------------------------------------------

int run_script(shell_context& ctx, const std::optional<std::string>& commands) {
  bool ok = true;
  if (commands) {
    ok = run_text(ctx, *commands);
  } else {
    // Line by line, so that a pipe can feed commands as it goes.
    std::string line;
    while (!ctx.quit && std::getline(std::cin, line))
      ok = run_text(ctx, line) && ok;
  }
  return ok ? 0 : 1;
}

} // namespace

int cli_shell(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::fputs(shell_usage_text, stdout);
    std::fputs(("\n" + *shell_help("")).c_str(), stdout);
    return 0;
  }
  auto opts = parse_shell_args(args);
  if (!opts) {
    std::fprintf(stderr, "error: %s\n", opts.error().c_str());
    return 2;
  }
  std::optional<cluster_config> cluster;
  endpoint where;
  std::string node_name;
  if (!opts->config.empty()) {
    auto loaded = load_cluster_config(opts->config);
    if (!loaded) {
      std::fprintf(stderr, "error: %s\n", loaded.error().c_str());
      return 2;
    }
    cluster = std::move(*loaded);
    where = {cluster->coordinator().host, cluster->coordinator().port};
    node_name = cluster->coordinator().name;
  } else {
    auto e = parse_endpoint(opts->connect);
    if (!e) {
      std::fprintf(stderr, "error: %s\n", e.error().c_str());
      return 2;
    }
    where = *e;
  }

  caf::actor_system_config cfg;
  // --connect: a heartbeat any node's config accepts.
  auto configured = cluster ? configure_cluster_system(cfg, *cluster) : configure_cluster_system(cfg, opts->secret);
  if (!configured) {
    std::fprintf(stderr, "error: %s\n", configured.error().c_str());
    return 2;
  }
  caf::actor_system sys{cfg};
  int code = 0;
  {
    // --connect: the connect timeout a config has by default.
    const auto connect_timeout =
      std::chrono::milliseconds(cluster ? cluster->connect_timeout_ms : cluster_config{}.connect_timeout_ms);
    const auto query_timeout = std::chrono::milliseconds(static_cast<int64_t>(opts->timeout_seconds * 1000));
    controller_client client{sys, where.host, where.port, connect_timeout, query_timeout};
    if (auto st = client.connect(); !st) {
      std::fprintf(stderr, "error: %s%s\n",
                   node_name.empty() ? "" : ("the coordinator's node " + node_name + ": ").c_str(), st.error().c_str());
      return 2;
    }
    shell_context ctx{std::cout, &client};
    // The tables live on the shard nodes, which only the config names.
    std::optional<table_client> tables;
    if (cluster)
      ctx.tables = [&](bool reconnect) -> expected<table_client*> {
        if (!tables || reconnect) {
          tables.reset();
          auto shards = connect_table_shards(sys, *cluster);
          if (!shards)
            return failure{shards.error()};
          tables.emplace(sys, *shards, query_timeout);
        }
        return &*tables;
      };
    ctx.terminal = ::isatty(STDOUT_FILENO) == 1;
    const bool interactive = !opts->commands && ::isatty(STDIN_FILENO) == 1;
    if (interactive) {
      client.set_interrupt_flag(&interrupted);
      run_interactive(ctx, "connected to the controller at " + client.where() +
                             (node_name.empty() ? "" : " (node " + node_name + ")") +
                             "; `help` lists the commands, `quit` leaves\n");
    } else {
      code = run_script(ctx, opts->commands);
    }
  }
  return code;
}

} // namespace gridvec
