// embedded-train: a CAF application that spawns a whole gridvec (shards,
// learners, vocabulary, exporter and a controller) in its own actor system,
// trains on a small corpus, prints the progress lines the job sends it, asks
// the controller for the nearest neighbours of a few words and stops.
//
//   embedded-train [--corpus FILE] [--output FILE] [--query W1,W2,...]
//                  [--timeout SECONDS] [gridvec train options...]
//
// Without --corpus it writes a corpus with planted topics (fruits, animals,
// colours, vehicles) to a temporary directory, so the neighbours of "apple"
// should be fruits. Without --query it asks about the three most frequent
// words (the first rows of the vectors file). Exits 0 once everything is
// printed and gridvec has stopped; 1 with one error line otherwise.
#include <caf/all.hpp>

#include <gridvec/gridvec.hpp>

#include <algorithm>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

struct arguments {
  std::string corpus;
  std::string output;
  std::vector<std::string> query;
  int timeout_seconds = 600;
  std::vector<std::string> train_args; // passed on to parse_train_options
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in{text};
  for (std::string word; std::getline(in, word, ',');)
    if (!word.empty())
      out.push_back(word);
  return out;
}

std::optional<arguments> parse_arguments(int argc, char** argv) {
  arguments a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--corpus" && (v = value()))
      a.corpus = v;
    else if (arg == "--output" && (v = value()))
      a.output = v;
    else if (arg == "--query" && (v = value()))
      a.query = split_commas(v);
    else if (arg == "--timeout" && (v = value()))
      a.timeout_seconds = std::atoi(v);
    else if (arg == "--corpus" || arg == "--output" || arg == "--query" || arg == "--timeout")
      return std::nullopt; // missing value
    else
      a.train_args.push_back(arg);
  }
  if (a.timeout_seconds <= 0)
    return std::nullopt;
  return a;
}

// Sentences of words from one topic at a time, with some filler words: the
// words of a topic share their contexts, so they end up close.
void write_topic_corpus(const std::string& path) {
  const std::vector<std::vector<std::string>> topics = {
    {"apple", "pear", "plum", "cherry", "mango", "banana", "grape", "peach"},
    {"dog", "cat", "horse", "cow", "sheep", "goat", "rabbit", "mouse"},
    {"red", "green", "blue", "yellow", "purple", "orange", "white", "black"},
    {"car", "bus", "train", "truck", "bicycle", "tram", "ship", "plane"},
  };
  const std::vector<std::string> fillers = {"the", "a", "and", "of", "with", "some"};
  std::mt19937 random{42};
  std::ofstream out{path};
  for (int s = 0; s < 20000; ++s) {
    const auto& topic = topics[random() % topics.size()];
    const int length = 6 + static_cast<int>(random() % 6);
    for (int w = 0; w < length; ++w) {
      out << (w ? " " : "");
      out << (random() % 4 == 0 ? fillers[random() % fillers.size()] : topic[random() % topic.size()]);
    }
    out << '\n';
  }
}

// The first words of a word2vec text vectors file: the most frequent ones.
std::vector<std::string> most_frequent_words(const std::string& vectors, size_t n) {
  std::vector<std::string> words;
  std::ifstream in{vectors};
  std::string line;
  std::getline(in, line); // "vocabulary-size dimension"
  while (words.size() < n && std::getline(in, line))
    words.push_back(line.substr(0, line.find(' ')));
  return words;
}

// Receives the job's progress lines (the controller's `submit` sends each
// one as (line_atom, text) to the actor given with the job).
caf::behavior progress_printer(caf::event_based_actor*) {
  return {
    [](gridvec::line_atom, const std::string& line) {
      std::printf("progress: %s\n", line.c_str());
      std::fflush(stdout);
    },
  };
}

int fail(const std::string& what) {
  std::fprintf(stderr, "embedded-train: %s\n", what.c_str());
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  auto args = parse_arguments(argc, argv);
  if (!args)
    return fail("usage: embedded-train [--corpus FILE] [--output FILE] [--query W1,W2,...] [--timeout SECONDS] "
                "[gridvec train options]");
  // Work files go to a temporary directory, removed at the end.
  std::error_code ec;
  auto tmp = std::filesystem::temp_directory_path(ec) / ("embedded-train-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp, ec);
  if (ec)
    return fail("cannot create " + tmp.string() + ": " + ec.message());
  struct remove_at_exit {
    std::filesystem::path dir;
    ~remove_at_exit() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{tmp};
  bool generated = false;
  if (args->corpus.empty()) {
    args->corpus = (tmp / "topics.txt").string();
    write_topic_corpus(args->corpus);
    generated = true;
  }
  if (args->output.empty())
    args->output = (tmp / "vectors.txt").string();

  // A small model that trains in seconds; any gridvec train option given on
  // the command line comes later and wins.
  std::vector<std::string> train_args = {"-train",     args->corpus, "-output",     args->output, "-size",    "32",
                                         "-min-count", "2",          "-iter",       "3",          "-threads", "2",
                                         "--shards",   "2",          "--log-every", "1"};
  train_args.insert(train_args.end(), args->train_args.begin(), args->train_args.end());
  auto options = gridvec::parse_train_options(train_args);
  if (!options)
    return fail(options.error());

  // gridvec's own log lines to stderr, warnings only: the progress lines
  // come to this program as messages.
  gridvec::configure_logging(gridvec::log_level::warn);

  caf::actor_system_config cfg;
  // One shared scheduler queue with bounded turns, so that the controller
  // answers while the learners train (see configure_scheduler).
  gridvec::configure_scheduler(cfg, std::max(2u, std::thread::hardware_concurrency()));
  caf::actor_system sys{cfg};
  auto gv = gridvec::start_local_gridvec(sys);
  if (!gv)
    return fail(gv.error());
  auto printer = sys.spawn(progress_printer);
  int status = 0;
  {
    caf::scoped_actor self{sys};
    // submit answers once the vectors are written, or with the job's error.
    self
      ->request(gv->controller, std::chrono::seconds(args->timeout_seconds), gridvec::submit_atom::value, *options,
                caf::actor_cast<caf::actor>(printer))
      .receive(
        [&](const gridvec::job_summary& s) {
          std::printf("trained: %llu words in %.1f s, %llu vectors of %u written to %s\n",
                      static_cast<unsigned long long>(s.raw_words), s.seconds,
                      static_cast<unsigned long long>(s.vocab_size), s.dim, options->output.c_str());
        },
        [&](caf::error& err) { status = fail("training failed: " + gridvec::error_text(err)); });

    // The job's shards stay up after it: ask them for neighbours.
    std::vector<std::string> words = args->query;
    if (words.empty())
      words = generated ? std::vector<std::string>{"apple", "dog", "blue"} : most_frequent_words(args->output, 3);
    for (size_t i = 0; status == 0 && i < words.size(); ++i)
      self->request(gv->controller, std::chrono::seconds(60), gridvec::nearest_atom::value, words[i], uint32_t{5})
        .receive(
          [&](const std::vector<gridvec::neighbour>& neighbours) {
            std::printf("nearest to %s:", words[i].c_str());
            for (const auto& n : neighbours)
              std::printf(" %s %.3f", n.word.c_str(), n.score);
            std::printf("\n");
          },
          [&](caf::error& err) { status = fail("nearest " + words[i] + ": " + gridvec::error_text(err)); });
  }
  // Everything spawned must stop, or the actor system's destructor waits.
  caf::anon_send_exit(printer, caf::exit_reason::user_shutdown);
  gridvec::stop_local_gridvec(*gv);
  return status;
}
