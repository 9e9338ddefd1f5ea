#include "src/formats/vectors_file.hpp"

#include <charconv>

#include "src/formats/vector_parts.hpp"
#include "src/formats/vectors_reader.hpp"

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
  auto reader = vectors_reader::open_guarded(path);
  if (!reader)
    return failure{reader.error()};
  embedding_table t;
  t.dim = reader->dim();
  t.words.reserve(reader->count());
  t.data.resize(reader->count() * t.dim);
  for (uint64_t i = 0; i < reader->count(); ++i) {
    std::string word;
    if (auto s = reader->next(word, t.data.data() + i * t.dim); !s)
      return failure{s.error()};
    t.words.push_back(std::move(word));
  }
  return t;
}

} // namespace gridvec
