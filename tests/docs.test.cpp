// The docs' claims that are lists of the code: docs/actors.md lists every
// message of every actor, the README's layout section every folder. A
// message or folder added to the code and not to the docs fails here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string{GRIDVEC_SOURCE_DIR} + "/" + relative);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string without_comments(const std::string& code) { return std::regex_replace(code, std::regex{"//[^\n]*"}, ""); }

} // namespace

// Each message of a typed interface in include/gridvec/protocol.hpp must
// appear, as `name(`, in the section of its actor. The interfaces are read
// from the header's text, the same text the compiler reads.
TEST_CASE("docs/actors.md lists every message of every typed actor in protocol.hpp", "[docs]") {
  const std::string header = without_comments(read_source("include/gridvec/protocol.hpp"));
  const std::string page = read_source("docs/actors.md");

  // using NAME_atom = caf::atom_constant<caf::atom("text")>;
  std::map<std::string, std::string> atoms;
  const std::regex atom_rx{R"re(using (\w+_atom) = caf::atom_constant<caf::atom\("(\w+)"\)>;)re"};
  for (std::sregex_iterator it{header.begin(), header.end(), atom_rx}, end; it != end; ++it)
    atoms[(*it)[1]] = (*it)[2];
  REQUIRE(atoms.size() > 50);

  // using NAME_actor = caf::typed_actor<...>; or BASE_actor::extend<...>;
  std::map<std::string, std::set<std::string>> actors; // every message, inherited ones too
  std::map<std::string, std::string> base_of;          // BASE of BASE_actor::extend
  const std::regex actor_rx{R"re(using (\w+_actor) =\s*([^;]*);)re"};
  const std::regex message_rx{R"re((?:replies_to|reacts_to)<(\w+_atom))re"};
  const std::regex extend_rx{R"re(^\s*(\w+_actor)::extend)re"};
  for (std::sregex_iterator it{header.begin(), header.end(), actor_rx}, end; it != end; ++it) {
    const std::string body = (*it)[2];
    std::set<std::string> messages;
    std::smatch base;
    if (std::regex_search(body, base, extend_rx)) {
      messages = actors[base[1]];
      base_of[(*it)[1]] = base[1];
    }
    for (std::sregex_iterator m{body.begin(), body.end(), message_rx}; m != end; ++m)
      messages.insert((*m)[1]);
    actors[(*it)[1]] = messages;
  }
  REQUIRE(actors.count("shard_actor"));
  REQUIRE(actors.count("row_shard_actor"));
  REQUIRE(actors.count("node_actor"));

  // "## NAME_actor — ..." up to the next "## ".
  std::map<std::string, std::string> sections;
  const std::regex section_rx{R"re(\n## (\w+_actor)\b)re"};
  std::vector<std::pair<std::string, size_t>> starts;
  for (std::sregex_iterator it{page.begin(), page.end(), section_rx}, end; it != end; ++it)
    starts.emplace_back((*it)[1], static_cast<size_t>(it->position()));
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t from = starts[i].second + 1;
    const size_t to = page.find("\n## ", from);
    sections[starts[i].first] = page.substr(from, to == std::string::npos ? std::string::npos : to - from);
  }

  size_t checked = 0;
  for (const auto& [actor, messages] : actors) {
    if (actor == "job_commands_actor")
      continue; // the part coordinator and controller share: checked in theirs
    INFO("actor " << actor);
    REQUIRE(sections.count(actor));
    const std::string& section = sections[actor];
    for (const auto& atom : messages) {
      REQUIRE(atoms.count(atom));
      INFO("message " << atoms[atom]);
      // An inherited message may be left to its own interface's section,
      // if this one names that interface and it has a section.
      bool listed = section.find("`" + atoms[atom] + "(") != std::string::npos;
      for (auto b = base_of.find(actor); !listed && b != base_of.end(); b = base_of.find(b->second))
        listed = actors[b->second].count(atom) && sections.count(b->second) &&
                 section.find("`" + b->second + "`") != std::string::npos;
      CHECK(listed);
      ++checked;
    }
  }
  CHECK(checked > 60);
}

TEST_CASE("README's layout section names every folder of the source tree", "[docs]") {
  const std::string readme = read_source("README.md");
  const size_t from = readme.find("\n## Layout");
  REQUIRE(from != std::string::npos);
  const std::string layout = readme.substr(from, readme.find("\n## ", from + 1) - from);
  namespace fs = std::filesystem;
  const fs::path root{GRIDVEC_SOURCE_DIR};
  size_t checked = 0;
  auto check_folders = [&](const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      const std::string name = entry.path().filename().string();
      // Hidden folders (.git, .ci) and build trees are not the source's.
      if (!entry.is_directory() || name.front() == '.' || name.rfind("build", 0) == 0)
        continue;
      INFO("folder " << (dir / name).string());
      CHECK(layout.find("`" + name + "/") != std::string::npos);
      ++checked;
    }
  };
  check_folders(".");
  for (const char* floor : {"src", "actors", "apps", "include/gridvec"})
    check_folders(floor);
  CHECK(checked > 30);
}

// Comments and docs say what they mean, not which planning note asked for
// it: a numbered design document ("seed" and three digits) or a tracker
// number cited in the tree is defined nowhere in it. docs/papers.md names
// the papers by title.
TEST_CASE("no file of the tree cites a design document or a tracker issue by number", "[docs]") {
  namespace fs = std::filesystem;
  const fs::path root{GRIDVEC_SOURCE_DIR};
  const std::regex citation{R"re(\b[Ss]eeds? [0-9]{3}\b|\b[Ii]ssues? #?[0-9]+\b)re"};
  // The regex only where it can match: std::regex is slow, and unoptimised
  // under the sanitizers this case took half a minute.
  const auto cites = [&](const std::string& line) {
    return (line.find("eed") != std::string::npos || line.find("ssue") != std::string::npos) &&
           std::regex_search(line, citation);
  };
  const std::set<std::string> text_kinds{".cpp", ".hpp", ".md", ".sh", ".py", ".capnp", ".conf", ".txt", ".cmake", ""};
  size_t files = 0;
  for (const char* top : {"src", "actors", "apps", "include", "tests", "docs", "scripts", "schema", "benchmarks",
                          "examples", "python", "deploy", "cmake"}) {
    if (!fs::exists(root / top))
      continue;
    for (auto it = fs::recursive_directory_iterator(root / top); it != fs::recursive_directory_iterator(); ++it) {
      const std::string name = it->path().filename().string();
      // The test data (a corpus of real text) and fuzz inputs are not ours.
      const std::string relative = fs::relative(it->path(), root).string();
      if (it->is_directory() &&
          (relative == "tests/data" || relative == "tests/fuzz/corpus" || name == "__pycache__")) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file() || !text_kinds.count(it->path().extension().string()))
        continue;
      std::ifstream in(it->path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        if (cites(line))
          FAIL_CHECK(relative << ":" << number << ": " << line);
      }
      ++files;
    }
  }
  for (const char* file : {"README.md", "CMakeLists.txt"}) {
    std::ifstream in(root / file);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (cites(line))
        FAIL_CHECK(file << ":" << number << ": " << line);
    }
  }
  CHECK(files > 200);
}
