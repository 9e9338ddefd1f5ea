#include "src/formats/vectors_file.hpp"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include "src/access/guarded_open.hpp"
#include "src/formats/vector_parts.hpp"

namespace gridvec {

expected<vectors_writer> vectors_writer::create(const std::string& path, bool binary, uint64_t count, uint32_t dim) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::fprintf(file->stream(), "%llu %u\n", static_cast<unsigned long long>(count), dim);
  return vectors_writer{std::move(*file), binary, dim};
}

void vectors_writer::add(std::string_view word, const float* vec) {
  line_.assign(word);
  line_.push_back(' ');
  if (binary_) {
    line_.append(reinterpret_cast<const char*>(vec), dim_ * sizeof(float));
  } else {
    char buf[32];
    for (uint32_t j = 0; j < dim_; ++j) {
      auto r = std::to_chars(buf, buf + sizeof buf, vec[j]);
      line_.append(buf, r.ptr);
      if (j + 1 < dim_)
        line_.push_back(' ');
    }
  }
  line_.push_back('\n');
  std::fwrite(line_.data(), 1, line_.size(), file_.stream());
}

status vectors_writer::commit() { return file_.commit(); }

status write_vectors(const std::string& path, const embedding_table& table, bool binary) {
  auto writer = vectors_writer::create(path, binary, table.words.size(), table.dim);
  if (!writer)
    return failure{writer.error()};
  for (size_t i = 0; i < table.words.size(); ++i)
    writer->add(table.words[i], table.row(i));
  return writer->commit();
}

expected<embedding_table> read_vectors(const std::string& path) {
  if (is_vector_parts_dir(path))
    return read_vector_parts(path);
  auto opened = access::istream_read(path, "vectors");
  if (!opened)
    return failure{opened.error()};
  std::istream& in = **opened;
  std::string header;
  std::getline(in, header);
  std::istringstream hs(header);
  uint64_t count = 0;
  embedding_table t;
  if (!(hs >> count >> t.dim) || t.dim == 0)
    return failure{path + " is not a word2vec vectors file (bad header)"};
  auto bad = [&](uint64_t row) { return failure{path + ": malformed vector at row " + std::to_string(row + 1)}; };
  // A text row is "word x1 ... xd" on one line; a binary row is "word "
  // and 4·d raw bytes. The first row is text if its line parses as exactly
  // d numbers, which raw float bytes practically never do.
  bool binary = true;
  {
    auto start = in.tellg();
    std::string first;
    std::getline(in, first);
    std::istringstream row(first);
    std::string word;
    row >> word;
    uint32_t numbers = 0;
    float x;
    while (row >> x)
      ++numbers;
    if (numbers == t.dim && row.eof())
      binary = false;
    in.clear();
    in.seekg(start);
  }
  // The header's figures size nothing before the rows are there: a damaged
  // count ("-1" reads as 2^64 - 1) or dimension would otherwise allocate
  // (or throw) at once. The file's size bounds how many rows it can hold.
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(path, size_error);
  if (size_error || t.dim > (uint64_t{1} << 20) || count > bytes / 2 || count * t.dim > bytes)
    return failure{path + " is not a word2vec vectors file (its header announces " + std::to_string(count) +
                   " vectors of " + std::to_string(t.dim) + " numbers; the file has " + std::to_string(bytes) +
                   " bytes)"};
  t.words.reserve(count);
  t.data.resize(count * t.dim);
  for (uint64_t i = 0; i < count; ++i) {
    std::string word;
    if (!(in >> word))
      return bad(i);
    in.get();
    float* dst = t.data.data() + i * t.dim;
    if (binary) {
      if (!in.read(reinterpret_cast<char*>(dst), t.dim * sizeof(float)))
        return bad(i);
    } else {
      for (uint32_t j = 0; j < t.dim; ++j)
        if (!(in >> dst[j]))
          return bad(i);
    }
    t.words.push_back(std::move(word));
  }
  return t;
}

} // namespace gridvec
