// gridvec: word2vec embeddings for vocabularies too large for one machine.
// Entry point: dispatches to the subcommands (cli_*.cpp).
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli.hpp"
#include "src/util/malloc_policy.hpp"

namespace {

const char* main_usage =
  "usage: gridvec COMMAND [options]\n\n"
  "commands:\n"
  "  train     train word vectors on a text corpus in this process\n"
  "  nearest   the nearest words of a vectors file to words, or to a query of\n"
  "            --positive and --negative words (gensim's most_similar)\n"
  "  analogy   A is to B as C is to ?: the words nearest to B - A + C\n"
  "  doesnt-match\n"
  "            the word of a list that does not match the others\n"
  "  eval      score a vectors file on analogies and word similarity\n"
  "  export    write the vectors of a saved model (--save-model) as a file\n"
  "  node      start one node of a cluster (gridvec node --config FILE --name NODE)\n"
  "  submit    run a training job on a cluster (gridvec submit --config FILE ...)\n"
  "  stop      stop every node of a cluster (gridvec stop --config FILE)\n"
  "  config    write a cluster config from a host list (gridvec config from-hosts ...)\n"
  "  shell     control a cluster and its job interactively (--config FILE)\n"
  "  table     the parameter server's tables on a cluster (gridvec table --config FILE list)\n"
  "  lbfgs     logistic regression by L-BFGS on the table shards (gridvec lbfgs --train DATA.svm)\n"
  "  keygen    write a new cluster secret (keygen FILE), or print the HTTP token\n\n"
  "`gridvec COMMAND --help` describes a command's options.\n";

} // namespace

int main(int argc, char** argv) {
  // Memory a phase frees goes back to the OS (src/util/malloc_policy.hpp).
  gridvec::use_phase_release();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(main_usage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::puts("gridvec 0.1.0");
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "train")
    return gridvec::cli_train(args);
  if (command == "nearest")
    return gridvec::cli_nearest(args);
  if (command == "analogy")
    return gridvec::cli_analogy(args);
  if (command == "doesnt-match")
    return gridvec::cli_doesnt_match(args);
  if (command == "node")
    return gridvec::cli_node(args);
  if (command == "submit")
    return gridvec::cli_submit(args);
  if (command == "stop")
    return gridvec::cli_stop(args);
  if (command == "config")
    return gridvec::cli_config(args);
  if (command == "shell")
    return gridvec::cli_shell(args);
  if (command == "table")
    return gridvec::cli_table(args);
  if (command == "lbfgs")
    return gridvec::cli_lbfgs(args);
  if (command == "export")
    return gridvec::cli_export(args);
  if (command == "eval")
    return gridvec::cli_eval(args);
  if (command == "keygen")
    return gridvec::cli_keygen(args);
  std::fprintf(stderr, "gridvec: unknown command '%s' (try gridvec --help)\n", command.c_str());
  return 2;
}
