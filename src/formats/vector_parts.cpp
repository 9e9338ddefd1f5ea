#include "src/formats/vector_parts.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "src/access/guarded_open.hpp"
#include "src/access/path_policy.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace fs = std::filesystem;

namespace {

// Parts a directory may list: far more than there are vocabulary nodes,
// few enough that a damaged count allocates nothing large.
constexpr uint64_t max_parts = 1u << 20;

std::string partial_dir(const std::string& dir, uint64_t attempt) {
  return dir + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
}

} // namespace

namespace vector_parts {

std::string part_name(uint32_t part) {
  char name[32];
  std::snprintf(name, sizeof name, "part-%05u.vec", part);
  return name;
}

uint64_t begin_of(uint32_t part, uint32_t parts, uint64_t words) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(words) * part) / parts);
}

} // namespace vector_parts

bool is_vector_parts_dir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

status check_vector_parts_target(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return failure{"-output " + dir + " is a file; --output-parts 1 writes a directory of part files there"};
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec) && !fs::exists(vector_parts::manifest(dir), ec))
    return failure{"-output " + dir + " holds something other than vector parts (no PARTS file); not replacing it"};
  return {};
}

expected<std::string> begin_vector_parts(const std::string& dir, uint64_t attempt) {
  if (auto s = check_vector_parts_target(dir); !s)
    return failure{s.error()};
  if (auto s = access::check_write(dir, "the output directory (-output)"); !s)
    return failure{s.error()};
  const std::string partial = partial_dir(dir, attempt);
  std::error_code ec;
  fs::remove_all(partial, ec);
  if (auto s = access::make_directories(partial, "the output directory (-output)"); !s)
    return failure{s.error()};
  return partial;
}

status commit_vector_parts(const std::string& partial, const std::string& dir, const vector_parts_manifest& m) {
  if (m.names.size() != m.part_words.size())
    return failure{"vector parts: " + std::to_string(m.names.size()) + " names for " +
                   std::to_string(m.part_words.size()) + " parts"};
  auto file = atomic_file::create(vector_parts::manifest(partial), "the parts' list");
  if (!file)
    return failure{file.error()};
  std::fprintf(file->stream(), "gridvec-vector-parts 1\nwords %llu\ndim %u\nformat %s\nparts %zu\n",
               static_cast<unsigned long long>(m.words), m.dim, m.binary ? "binary" : "text", m.names.size());
  for (size_t k = 0; k < m.names.size(); ++k)
    std::fprintf(file->stream(), "%s %llu\n", m.names[k].c_str(), static_cast<unsigned long long>(m.part_words[k]));
  if (auto s = file->commit(); !s)
    return s;
  if (auto s = check_vector_parts_target(dir); !s)
    return s;
  return replace_directory(partial, dir, "vectors");
}

void abandon_vector_parts(const std::string& partial) {
  std::error_code ec;
  fs::remove_all(partial, ec);
}

expected<vector_parts_manifest> read_vector_parts_manifest(const std::string& dir) {
  if (auto s = access::process_policy()->may_read(dir, "the vectors"); !s)
    return failure{s.error()};
  const std::string path = vector_parts::manifest(dir);
  auto opened = access::istream_read(path, "the vector parts' PARTS");
  if (!opened)
    return failure{dir + " is not a directory of vector parts (no " + path +
                   "; an export that did not finish writes none)"};
  std::istream& in = **opened;
  auto damaged = [&](const std::string& why) { return failure{path + " is damaged: " + why}; };
  std::string magic, key, format;
  int version = 0;
  uint64_t parts = 0;
  vector_parts_manifest m;
  if (!(in >> magic >> version) || magic != "gridvec-vector-parts" || version != 1)
    return damaged("not a gridvec-vector-parts 1 header");
  if (!(in >> key >> m.words) || key != "words" || !(in >> key >> m.dim) || key != "dim" || m.dim == 0 ||
      m.dim > (1u << 20) || !(in >> key >> format) || key != "format" || (format != "text" && format != "binary") ||
      !(in >> key >> parts) || key != "parts" || parts == 0 || parts > max_parts)
    return damaged("its words, dim, format and parts lines are not all there");
  m.binary = format == "binary";
  uint64_t sum = 0;
  for (uint64_t k = 0; k < parts; ++k) {
    std::string name;
    uint64_t n = 0;
    if (!(in >> name >> n))
      return damaged("it lists fewer than its " + std::to_string(parts) + " parts");
    if (name != vector_parts::part_name(static_cast<uint32_t>(k)))
      return damaged("part " + std::to_string(k) + " is named " + name);
    if (n > m.words - sum)
      return damaged("its parts hold more than its " + std::to_string(m.words) + " words");
    sum += n;
    m.names.push_back(name);
    m.part_words.push_back(n);
  }
  if (sum != m.words)
    return damaged("its parts hold " + std::to_string(sum) + " words, not " + std::to_string(m.words));
  return m;
}

expected<embedding_table> read_vector_parts(const std::string& dir) {
  auto m = read_vector_parts_manifest(dir);
  if (!m)
    return failure{m.error()};
  embedding_table all;
  all.dim = m->dim;
  for (size_t k = 0; k < m->names.size(); ++k) {
    const std::string path = dir + "/" + m->names[k];
    if (is_vector_parts_dir(path))
      return failure{path + " is a directory, not a part file"};
    auto part = read_vectors(path);
    if (!part)
      return failure{"part " + std::to_string(k) + " of " + dir + ": " + part.error()};
    if (part->dim != m->dim || part->words.size() != m->part_words[k])
      return failure{"part " + std::to_string(k) + " of " + dir + " (" + path + ") holds " +
                     std::to_string(part->words.size()) + " vectors of " + std::to_string(part->dim) +
                     " numbers; PARTS says " + std::to_string(m->part_words[k]) + " of " + std::to_string(m->dim)};
    if (all.words.empty()) {
      all.data.reserve(m->words * m->dim);
      all.words.reserve(m->words);
    }
    all.data.insert(all.data.end(), part->data.begin(), part->data.end());
    for (auto& w : part->words)
      all.words.push_back(std::move(w));
  }
  return all;
}

status concatenate_vector_parts(const std::string& dir, const std::string& path) {
  auto m = read_vector_parts_manifest(dir);
  if (!m)
    return failure{m.error()};
  auto out = atomic_file::create(path, "the vectors file");
  if (!out)
    return failure{out.error()};
  std::fprintf(out->stream(), "%llu %u\n", static_cast<unsigned long long>(m->words), m->dim);
  std::vector<char> buf(size_t{1} << 16);
  for (size_t k = 0; k < m->names.size(); ++k) {
    const std::string part = dir + "/" + m->names[k];
    auto in = access::fopen_read(part, "a vector part");
    if (!in)
      return failure{"part " + std::to_string(k) + " of " + dir + ": " + in.error()};
    // Its own header must be the one PARTS implies; the rows follow it.
    const std::string want = std::to_string(m->part_words[k]) + " " + std::to_string(m->dim) + "\n";
    std::string header;
    for (int c; header.size() <= want.size() && (c = std::fgetc(in->get())) != EOF;) {
      header.push_back(static_cast<char>(c));
      if (c == '\n')
        break;
    }
    if (header != want)
      return failure{"part " + std::to_string(k) + " of " + dir + " (" + part + ") does not start with \"" +
                     want.substr(0, want.size() - 1) + "\" as PARTS says"};
    for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), in->get())) > 0;)
      std::fwrite(buf.data(), 1, n, out->stream());
    if (std::ferror(in->get()))
      return failure{"cannot read " + part};
  }
  return out->commit();
}

} // namespace gridvec
