#include "apps/shell/shell_commands.hpp"

#include "apps/shell/progress_lines.hpp"

#include <charconv>
#include <cstdint>
#include <chrono>
#include <cmath>
#include <ostream>
#include <thread>

#include "src/corpus/corpus_inputs.hpp"
#include "src/util/atomic_file.hpp"
#include <gridvec/controller_client.hpp>
#include <gridvec/roles/coordinator.hpp> // progress_prefix
#include "apps/shell/progress_lines.hpp"
#include "apps/shell/shell_format.hpp"
#include "apps/shell/table_commands.hpp"

namespace gridvec {

namespace {

constexpr uint32_t default_k = 10;
constexpr uint32_t max_k = 10000; // the coordinator's limit too
constexpr size_t any = SIZE_MAX;  // train and submit: parse_train_options checks

// --- argument values -----------------------------------------------------------

expected<uint32_t> parse_k(const std::string& text) {
  uint32_t k = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (ec != std::errc{} || end != text.data() + text.size() || k == 0 || k > max_k)
    return failure{"K must be a whole number from 1 to " + std::to_string(max_k) + ", not '" + text + "'"};
  return k;
}

// Runs `f` with the controller, or fails when there is none.
template <class F>
status with_client(shell_context& ctx, F f) {
  if (!ctx.client)
    return failure{"not connected to a controller"};
  return f(*ctx.client);
}

// Prints a reply with `format`, or passes its error on.
template <class T, class Format>
status show(shell_context& ctx, const expected<T>& reply, Format format) {
  if (!reply)
    return failure{reply.error()};
  ctx.out << format(*reply);
  return {};
}

// --- handlers: check argument values, then ask the controller and print -------

status run_help(shell_context& ctx, const shell_words& args) {
  return show(ctx, shell_help(args.empty() ? std::string_view{} : std::string_view{args[0]}),
              [](const std::string& text) { return text; });
}

status run_quit(shell_context& ctx, const shell_words& args) {
  ctx.quit = true;
  return {};
}

status run_nodes(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) { return show(ctx, c.nodes(), format_nodes); });
}

status run_status(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) { return show(ctx, c.current_status(), format_status); });
}

status run_shards(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) { return show(ctx, c.shards(), format_shards); });
}

status run_learners(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) {
    // The job's epochs tell how far each part is into its current epoch.
    auto job = c.current_status();
    const uint32_t iterations = job ? job->iterations : 0;
    return show(ctx, c.learners(),
                [iterations](const std::vector<learner_status>& l) { return format_learners(l, iterations); });
  });
}

// How long `train` watches a job it started for an early failure.
constexpr std::chrono::milliseconds start_grace{3000};

status run_train(shell_context& ctx, const shell_words& args) {
  auto opt = shell_job_options(args);
  if (!opt)
    return failure{opt.error()};
  return with_client(ctx, [&](controller_client& c) -> status {
    auto job = c.start(*opt);
    if (!job)
      return failure{job.error()};
    // Bad input (a corpus the nodes cannot read, a node that is not there)
    // fails a job within milliseconds. A short wait turns that into this
    // command's error instead of "started" and a failure found later in
    // `status`; a job still running after it is simply reported started.
    if (auto early = c.failure_within(start_grace); !early)
      return early;
    ctx.out << "job " << *job << " started (`status` shows its progress, `wait` waits for its end)\n";
    return {};
  });
}

status run_submit(shell_context& ctx, const shell_words& args) {
  auto opt = shell_job_options(args);
  if (!opt)
    return failure{opt.error()};
  return with_client(ctx, [&](controller_client& c) -> status {
    progress_lines lines{[&out = ctx.out](const std::string& text) { out << text << std::flush; }, ctx.terminal};
    auto summary = c.submit(*opt, [&lines](const std::string& line) { lines(line); });
    lines.close();
    if (!summary && summary.code() == error_code::interrupted)
      return failure{"interrupted; the job goes on (`wait` waits for it)", error_code::interrupted};
    return show(ctx, summary, [&](const job_summary& s) {
      return format_summary(s) + (opt->output.empty() ? "" : "vectors written to " + opt->output + "\n");
    });
  });
}

// A phase in which the job has not ended (nor has none started).
bool job_is_running(const std::string& phase) {
  return phase != "idle" && phase != "done" && phase != "failed" && phase != "cancelled";
}

status run_wait(shell_context& ctx, const shell_words& args) {
  std::chrono::milliseconds limit{0}; // none
  if (!args.empty()) {
    double seconds = 0;
    auto [end, ec] = std::from_chars(args[0].data(), args[0].data() + args[0].size(), seconds);
    if (ec != std::errc{} || end != args[0].data() + args[0].size() || !std::isfinite(seconds) || seconds <= 0 ||
        seconds > 1e7)
      return failure{"SECONDS must be a positive number, not '" + args[0] + "'"};
    limit = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
  }
  return with_client(ctx, [&](controller_client& c) -> status {
    // Until the job ends, its progress once a second (redrawn on a
    // terminal); then its summary, from `wait`.
    using clock = std::chrono::steady_clock;
    const auto deadline = limit.count() > 0 ? clock::now() + limit : clock::time_point::max();
    progress_lines lines{[&out = ctx.out](const std::string& text) { out << text << std::flush; }, ctx.terminal};
    for (;;) {
      auto now_status = c.current_status();
      if (!now_status || !job_is_running(now_status->phase))
        break; // wait() answers with the summary or the error
      const auto now = clock::now();
      if (now >= deadline)
        break; // wait() says the job is still running
      if (now_status->phase == "training" || now_status->phase == "paused")
        lines(std::string{progress_prefix} + format_progress_line(*now_status));
      const auto until = std::min(deadline, now + std::chrono::seconds(1));
      while (clock::now() < until && !c.interrupted())
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (c.interrupted()) {
        lines.close();
        return failure{"interrupted; the job goes on"};
      }
    }
    lines.close();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    auto summary = c.wait(limit.count() > 0 ? std::max(left, std::chrono::milliseconds(1)) : limit);
    if (!summary && summary.code() == error_code::interrupted)
      return failure{"interrupted; the job goes on", error_code::interrupted};
    if (!summary && limit.count() > 0 && summary.code() == error_code::timeout)
      return failure{"the job is still running after " + args[0] + (args[0] == "1" ? " second" : " seconds"),
                     error_code::timeout};
    return show(ctx, summary, format_summary);
  });
}

status run_pause(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) {
    return show(ctx, c.pause(), [](bool) { return std::string{"job paused (`resume` continues it)\n"}; });
  });
}

status run_resume(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) {
    return show(ctx, c.resume(), [](bool) { return std::string{"job resumed\n"}; });
  });
}

status run_checkpoint(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) { return show(ctx, c.checkpoint(), format_checkpoint); });
}

status run_cancel(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) {
    return show(ctx, c.cancel(), [](bool) { return std::string{"job cancelled; no vectors were written\n"}; });
  });
}

status run_export(shell_context& ctx, const shell_words& args) {
  bool binary = false;
  if (args.size() == 2) {
    if (args[1] == "binary")
      binary = true;
    else if (args[1] != "text")
      return failure{"the format is `binary` or `text`, not '" + args[1] + "'"};
  }
  if (args[0].empty())
    return failure{"PATH is empty"};
  const std::string path = absolute_path(args[0]);
  return with_client(ctx, [&](controller_client& c) {
    return show(ctx, c.export_vectors(path, binary), [&](uint64_t rows) {
      return std::to_string(rows) + " vectors written to " + path + (binary ? " (binary)" : "") + "\n";
    });
  });
}

status run_nearest(shell_context& ctx, const shell_words& args) {
  auto k = args.size() == 2 ? parse_k(args[1]) : expected<uint32_t>{default_k};
  if (!k)
    return failure{k.error()};
  return with_client(ctx, [&](controller_client& c) { return show(ctx, c.nearest(args[0], *k), format_neighbours); });
}

status run_analogy(shell_context& ctx, const shell_words& args) {
  auto k = args.size() == 4 ? parse_k(args[3]) : expected<uint32_t>{default_k};
  if (!k)
    return failure{k.error()};
  return with_client(
    ctx, [&](controller_client& c) { return show(ctx, c.analogy(args[0], args[1], args[2], *k), format_neighbours); });
}

status run_shutdown(shell_context& ctx, const shell_words& args) {
  return with_client(ctx, [&](controller_client& c) -> status {
    if (auto st = c.shutdown(); !st)
      return st;
    ctx.out << "the cluster is stopping: every node was told to stop\n";
    return {};
  });
}

status with_tables(shell_context& ctx, const std::vector<std::string>& words) {
  if (!ctx.tables)
    return failure{"tables need the cluster config (start the shell with --config CLUSTER.conf)"};
  auto client = ctx.tables(ctx.tables_failed);
  if (!client)
    return failure{client.error()};
  auto done = run_table_command(**client, words, ctx.out);
  ctx.tables_failed = !done;
  return done;
}

status run_tables(shell_context& ctx, const shell_words& args) { return with_tables(ctx, {"list"}); }

status run_table(shell_context& ctx, const shell_words& args) {
  return with_tables(ctx, std::vector<std::string>(args.begin(), args.end()));
}

} // namespace

// --- the table -----------------------------------------------------------------

const std::vector<shell_command>& shell_commands() {
  static const std::vector<shell_command> table = {
    {"help", "[COMMAND]", 0, 1, "list the commands, or describe one",
     "Without COMMAND, lists every command. Commands are separated by ';' or\n"
     "new lines; \"double quotes\" keep blanks and ';' inside one argument.\n",
     run_help},
    {"nodes", "", 0, 0, "the nodes: address, roles, up or down, memory",
     "One row per node of the cluster config. MEMORY is the node process's\n"
     "resident memory; SHARD LANES and LEARNERS are the actors it hosts now.\n",
     run_nodes},
    {"status", "", 0, 0, "the job: phase, epoch, progress, words/s, loss, ETA",
     "The current (or last) job: its phase, epoch, progress, training speed,\n"
     "learning rate, loss, time left, network bytes per trained word, last\n"
     "checkpoint and the last thing that happened.\n",
     run_status},
    {"shards", "", 0, 0, "the job's shards: node, columns, memory, requests/s",
     "One row per shard (a column slice of every vector). REQUESTS/S is the\n"
     "rate since the previous `shards`.\n",
     run_shards},
    {"learners", "", 0, 0, "the learners: node, state, parts, words/s",
     "One row per learner. PARTS lists the corpus parts it holds, with each\n"
     "one's epoch and how far into it the learner is.\n",
     run_learners},
    {"train", "TRAIN-OPTIONS...", 0, any, "start a job; tells within 3 s if it started",
     "Starts a training job on the cluster with the options of `gridvec train`\n"
     "(e.g. train -train corpus.txt -output vectors.txt -size 100 -iter 5) and\n"
     "returns (after at most 3 s, in which a job that fails at once -- e.g. on\n"
     "a corpus the nodes cannot read -- is reported as this command's error);\n"
     "`status` follows it, `wait` waits for it. Only one job runs at a\n"
     "time. Relative paths are taken from the shell's directory; the nodes\n"
     "read and write them. The cluster keeps running when the job ends.\n",
     run_train},
    {"submit", "TRAIN-OPTIONS...", 0, any, "run a job, showing its progress until it ends",
     "As `train`, but waits for the job's end and prints its progress lines\n"
     "meanwhile. Ctrl-C stops waiting; the job goes on.\n",
     run_submit},
    {"wait", "[SECONDS]", 0, 1, "wait for the job's end and show its summary",
     "Waits until the current job ends (at most SECONDS if given) and prints\n"
     "its summary; fails if the job failed or was cancelled. Ctrl-C stops\n"
     "waiting; the job goes on.\n",
     run_wait},
    {"pause", "", 0, 0, "pause training (the shards keep their vectors)",
     "Pauses a training job once the minibatches in flight are done.\n", run_pause},
    {"resume", "", 0, 0, "continue a paused job", "Continues a job paused with `pause`.\n", run_resume},
    {"checkpoint", "", 0, 0, "write a checkpoint now",
     "Writes a checkpoint of the job into its --checkpoint-dir (the job must have\n"
     "one); the job can later be resumed from it with --resume DIR.\n",
     run_checkpoint},
    {"cancel", "", 0, 0, "stop the job without writing vectors",
     "Cancels the current job: training stops and no vectors are written.\n", run_cancel},
    {"export", "PATH [binary|text]", 1, 2, "write the current vectors to PATH",
     "Writes the job's vectors as they are now (during or after training) to\n"
     "PATH, read back from the live shards, in word2vec text format or binary.\n",
     run_export},
    {"nearest", "WORD [K]", 1, 2, "the K (default 10) words most similar to WORD",
     "Cosine nearest neighbours of WORD, computed by the live shards from their\n"
     "column slices (no vector leaves a shard).\n",
     run_nearest},
    {"analogy", "A B C [K]", 3, 4, "the K (default 10) words closest to B - A + C",
     "Answers \"A is to B as C is to ?\" (e.g. analogy man king woman) with the\n"
     "words whose vectors are closest to B - A + C, as word2vec's word-analogy.\n",
     run_analogy},
    {"tables", "", 0, 0, "the parameter server's tables: spec, rows, memory",
     "Lists the tables of the parameter server (docs/tables.md) that the\n"
     "cluster's shard nodes hold, with their spec, rows and memory.\n",
     run_tables},
    {"table", "COMMAND [ARGS...]", 1, any, "work with a table: create, info, get, put, push, fetch, save, export, drop",
     table_commands_usage, run_table},
    {"shutdown", "", 0, 0, "stop every node of the cluster",
     "Stops the current job, every node of the cluster and its controller. The\n"
     "shell stays; later commands fail until the cluster is started again.\n",
     run_shutdown},
    {"quit", "", 0, 0, "leave the shell (the cluster keeps running)", "Leaves the shell; Ctrl-D does too.\n", run_quit},
    {"exit", "", 0, 0, "leave the shell, as quit", "Leaves the shell, as `quit`.\n", run_quit},
  };
  return table;
}

const shell_command* find_shell_command(std::string_view name) {
  for (const auto& c : shell_commands())
    if (c.name == name)
      return &c;
  return nullptr;
}

std::string shell_usage(const shell_command& c) {
  std::string out = "usage: " + std::string{c.name};
  if (!c.args.empty())
    out += " " + std::string{c.args};
  return out;
}

status run_shell_command(shell_context& ctx, const shell_words& words) {
  if (words.empty())
    return {};
  const shell_command* c = find_shell_command(words[0]);
  if (!c)
    return failure{"unknown command '" + words[0] + "' (`help` lists the commands)"};
  const shell_words args(words.begin() + 1, words.end());
  status st;
  if (args.size() < c->min_args || args.size() > c->max_args)
    st = c->max_args == 0 ? failure{"takes no arguments"} : failure{"wrong arguments; " + shell_usage(*c)};
  else
    st = c->run(ctx, args);
  // Errors name their command: in a script, several may fail.
  if (!st)
    return failure{words[0] + ": " + st.error()};
  return {};
}

expected<train_options> shell_job_options(const shell_words& args) {
  auto opt = parse_train_options(args);
  if (!opt) {
    std::string why = opt.error();
    // parse_train_options points at `gridvec train --help`; here it is `help train`.
    if (auto at = why.find("see gridvec train --help"); at != std::string::npos)
      why.replace(at, std::string_view{"see gridvec train --help"}.size(), "see `help train`");
    return failure{why};
  }
  make_paths_absolute(*opt);
  // The nodes read one plain file. Several -train values or a list are
  // resolved here: one plain file is that file; more are not staged by the
  // shell. (One path is left to the nodes: it may be on their disks only.)
  const auto items = corpus_spec_items(opt->train);
  if (items.size() > 1 || (!items.empty() && items[0].starts_with("@"))) {
    auto inputs = resolve_corpus_inputs(opt->train);
    if (!inputs)
      return failure{inputs.error()};
    if (!is_plain_file(*inputs))
      return failure{"-train " + corpus_spec_text(opt->train) +
                     " is not one plain file: the shell's jobs read one; stage several with gridvec submit "
                     "--work-dir DIR"};
    opt->train = (*inputs)[0].path;
  }
  opt->stop_cluster = false; // a shell's jobs never stop the cluster
  // A bad output path is found now, not after the whole training.
  if (auto s = check_outputs(*opt); !s)
    return failure{s.error()};
  return opt;
}

expected<std::string> shell_help(std::string_view name) {
  if (name.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : shell_commands())
      rows.push_back({std::string{c.name} + (c.args.empty() ? "" : " " + std::string{c.args}), std::string{c.summary}});
    std::string table = render_table({"", ""}, rows);
    std::string out = "commands:\n";
    // The table without its (empty) header row, indented.
    for (size_t at = table.find('\n') + 1; at < table.size();) {
      size_t end = table.find('\n', at);
      out += "  " + table.substr(at, end - at + 1);
      at = end + 1;
    }
    return out + "`help COMMAND` describes one. Separate commands with ';' or new lines.\n";
  }
  const shell_command* c = find_shell_command(name);
  if (!c)
    return failure{"no command '" + std::string{name} + "' (`help` lists them)"};
  std::string out = shell_usage(*c) + "\n" + std::string{c->summary} + ".\n\n" + std::string{c->details};
  if (c->name == "train" || c->name == "submit") {
    // The option table of `gridvec train --help`, without its usage lines.
    std::string all = train_help();
    if (auto at = all.find("Options"); at != std::string::npos)
      out += "\n" + all.substr(at);
  }
  return out;
}

} // namespace gridvec
