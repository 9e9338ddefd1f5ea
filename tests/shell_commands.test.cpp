// The command table without a cluster: argument checks happen before any
// request, so every bad argument is answered here; a well-formed command
// with no controller to ask fails with "not connected".
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "apps/shell/shell_commands.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;

namespace {

struct outcome {
  bool ok;
  std::string error;
  std::string out;
  bool quit;
};

outcome run(const shell_words& words) {
  std::ostringstream out;
  shell_context ctx{out};
  auto st = run_shell_command(ctx, words);
  return {static_cast<bool>(st), st ? "" : st.error(), out.str(), ctx.quit};
}

} // namespace

TEST_CASE("every command has a name, help and a handler; names are unique", "[shell]") {
  const auto& table = shell_commands();
  for (const char* name : {"nodes", "status", "shards", "learners", "train", "submit", "wait", "pause", "resume",
                           "checkpoint", "cancel", "export", "nearest", "analogy", "help", "quit", "exit", "shutdown"})
    CHECK(find_shell_command(name) != nullptr);
  for (size_t i = 0; i < table.size(); ++i) {
    INFO(table[i].name);
    CHECK_FALSE(table[i].summary.empty());
    CHECK_FALSE(table[i].details.empty());
    CHECK(table[i].run != nullptr);
    CHECK(table[i].min_args <= table[i].max_args);
    // A command with arguments says which in its usage line.
    CHECK(table[i].args.empty() == (table[i].max_args == 0));
    for (size_t j = i + 1; j < table.size(); ++j)
      CHECK(table[i].name != table[j].name);
  }
  CHECK(find_shell_command("Status") == nullptr);
}

TEST_CASE("an unknown command is one error line", "[shell]") {
  auto r = run({"frobnicate", "x"});
  CHECK_FALSE(r.ok);
  CHECK(r.error == "unknown command 'frobnicate' (`help` lists the commands)");
  CHECK(r.out.empty());
}

TEST_CASE("bad arguments are refused before anything is asked", "[shell]") {
  struct bad {
    shell_words words;
    std::string error;
  };
  for (const auto& c : std::vector<bad>{
         {{"status", "now"}, "status: takes no arguments"},
         {{"nodes", "x"}, "nodes: takes no arguments"},
         {{"pause", "1"}, "pause: takes no arguments"},
         {{"nearest"}, "nearest: wrong arguments; usage: nearest WORD [K]"},
         {{"nearest", "a", "5", "b"}, "nearest: wrong arguments; usage: nearest WORD [K]"},
         {{"nearest", "king", "0"}, "nearest: K must be a whole number from 1 to 10000, not '0'"},
         {{"nearest", "king", "ten"}, "nearest: K must be a whole number from 1 to 10000, not 'ten'"},
         {{"nearest", "king", "10001"}, "nearest: K must be a whole number from 1 to 10000, not '10001'"},
         {{"nearest", "king", "5x"}, "nearest: K must be a whole number from 1 to 10000, not '5x'"},
         {{"analogy", "a", "b"}, "analogy: wrong arguments; usage: analogy A B C [K]"},
         {{"analogy", "a", "b", "c", "-1"}, "analogy: K must be a whole number from 1 to 10000, not '-1'"},
         {{"export"}, "export: wrong arguments; usage: export PATH [binary|text]"},
         {{"export", "v.bin", "bin"}, "export: the format is `binary` or `text`, not 'bin'"},
         {{"export", ""}, "export: PATH is empty"},
         {{"wait", "soon"}, "wait: SECONDS must be a positive number, not 'soon'"},
         {{"wait", "0"}, "wait: SECONDS must be a positive number, not '0'"},
         {{"wait", "1", "2"}, "wait: wrong arguments; usage: wait [SECONDS]"},
         {{"help", "a", "b"}, "help: wrong arguments; usage: help [COMMAND]"},
         {{"help", "nope"}, "help: no command 'nope' (`help` lists them)"},
         {{"quit", "now"}, "quit: takes no arguments"},
         {{"train"}, "train: missing -train FILE (the corpus); see `help train`"},
         {{"train", "-train", "c.txt", "-output", "v.txt", "-size", "big"}, "train: "},
         {{"submit", "-bogus", "1"}, "submit: "},
       }) {
    INFO(join_shell_words(c.words));
    auto r = run(c.words);
    CHECK_FALSE(r.ok);
    CHECK(r.error.rfind(c.error, 0) == 0);
    CHECK(r.error.find('\n') == std::string::npos);
    CHECK(r.out.empty());
    CHECK_FALSE(r.quit);
  }
}

TEST_CASE("well-formed commands without a controller say so", "[shell]") {
  for (const shell_words& words :
       {shell_words{"status"}, shell_words{"nearest", "king"}, shell_words{"nearest", "king", "3"},
        shell_words{"analogy", "a", "b", "c", "7"}, shell_words{"export", "v.bin", "binary"},
        shell_words{"wait", "2.5"}, shell_words{"shutdown"}}) {
    INFO(join_shell_words(words));
    auto r = run(words);
    CHECK_FALSE(r.ok);
    CHECK(r.error == words[0] + ": not connected to a controller");
  }
}

TEST_CASE("quit and exit end the shell", "[shell]") {
  CHECK(run({"quit"}).quit);
  CHECK(run({"exit"}).quit);
  CHECK(run({"quit"}).ok);
}

TEST_CASE("help lists every command; help COMMAND describes one", "[shell]") {
  auto all = run({"help"});
  REQUIRE(all.ok);
  for (const auto& c : shell_commands()) {
    INFO(c.name);
    CHECK(contains(all.out, "\n  " + std::string{c.name}));
    CHECK(contains(all.out, std::string{c.summary}));
  }
  for (const auto& c : shell_commands()) {
    auto one = shell_help(c.name);
    REQUIRE(one);
    CHECK(one->rfind(shell_usage(c) + "\n", 0) == 0);
    CHECK(contains(*one, std::string{c.details}));
  }
  CHECK(run({"help", "nearest"}).out.rfind("usage: nearest WORD [K]\n", 0) == 0);
  // train and submit list the options of gridvec train.
  auto train = shell_help("train");
  REQUIRE(train);
  CHECK(contains(*train, "-size"));
  CHECK(contains(*train, "-shards"));
  CHECK_FALSE(contains(*train, "usage: gridvec train"));
}

TEST_CASE("a shell's job: paths absolute, the cluster kept running", "[shell]") {
  test::temp_dir dir;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto opt = shell_job_options({"-train", "corpus.txt", "-output", "out/../v.txt", "-size", "50", "--report", "r.json",
                                "--checkpoint-dir", "ckpt"});
  std::filesystem::current_path(cwd);
  REQUIRE(opt);
  const std::string root = std::filesystem::canonical(dir.path()).string();
  CHECK(opt->train == root + "/corpus.txt");
  CHECK(opt->output == root + "/v.txt");
  CHECK(opt->report == root + "/r.json");
  CHECK(opt->checkpoint_dir == root + "/ckpt");
  CHECK(opt->size == 50);
  CHECK_FALSE(opt->stop_cluster);
  // Nothing is left behind by the check that the output can be written.
  CHECK_FALSE(std::filesystem::exists(dir.file("v.txt")));
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("a shell's job: a list of inputs is one plain file, or refused", "[shell]") {
  test::temp_dir dir;
  auto one = dir.write("one,file.txt", "a b c\n");
  auto two = dir.write("two.txt", "d e\n");
  auto list = dir.write("list.txt", "one,file.txt\n");
  auto opt = shell_job_options({"-train", "@" + list, "-output", dir.file("v.txt")});
  REQUIRE(opt);
  CHECK(opt->train == one); // the nodes get the file itself
  auto several = shell_job_options({"-train", one, "-train", two, "-output", dir.file("v.txt")});
  REQUIRE_FALSE(several);
  CHECK(contains(several.error(), "gridvec submit --work-dir"));
}

TEST_CASE("a job whose output cannot be written is refused at once", "[shell]") {
  auto r = run({"train", "-train", "c.txt", "-output", "/nonexistent-dir/v.txt"});
  CHECK_FALSE(r.ok);
  CHECK(contains(r.error, "/nonexistent-dir/v.txt"));
}
