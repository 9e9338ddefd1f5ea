#include "src/formats/vectors_reader.hpp"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "src/access/guarded_open.hpp"

namespace gridvec {

expected<vectors_reader> vectors_reader::open_guarded(const std::string& path, const std::string& what,
                                                      size_t max_word_bytes) {
  auto opened = access::istream_read(path, what);
  if (!opened)
    return failure{opened.error()};
  std::istream& in = **opened;
  std::string header;
  std::getline(in, header);
  std::istringstream hs(header);
  uint64_t count = 0;
  uint32_t dim = 0;
  if (!(hs >> count >> dim) || dim == 0)
    return failure{path + " is not a word2vec vectors file (bad header)"};
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
    if (numbers == dim && row.eof())
      binary = false;
    in.clear();
    in.seekg(start);
  }
  // The header's figures size nothing before the rows are there: a damaged
  // count ("-1" reads as 2^64 - 1) or dimension would otherwise allocate
  // (or throw) at once. The file's size bounds how many rows it can hold.
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(path, size_error);
  if (size_error || dim > (uint64_t{1} << 20) || count > bytes / 2 || count * dim > bytes)
    return failure{path + " is not a word2vec vectors file (its header announces " + std::to_string(count) +
                   " vectors of " + std::to_string(dim) + " numbers; the file has " + std::to_string(bytes) +
                   " bytes)"};
  return vectors_reader{std::move(*opened), path, count, dim, binary, max_word_bytes};
}

status vectors_reader::next(std::string& word, float* row) {
  std::istream& in = *in_;
  const auto bad = [&] { return failure{path_ + ": malformed vector at row " + std::to_string(read_ + 1)}; };
  if (read_ >= count_)
    return bad();
  // A bounded word is read one byte past its bound, to tell it was longer.
  if (max_word_bytes_ > 0)
    in >> std::setw(static_cast<int>(max_word_bytes_ + 1));
  if (!(in >> word) || (max_word_bytes_ > 0 && word.size() > max_word_bytes_))
    return bad();
  in.get();
  if (binary_) {
    if (!in.read(reinterpret_cast<char*>(row), dim_ * sizeof(float)))
      return bad();
  } else {
    for (uint32_t j = 0; j < dim_; ++j)
      if (!(in >> row[j]))
        return bad();
  }
  ++read_;
  return {};
}

} // namespace gridvec
