#include "src/corpus/vocabulary_counts.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "src/access/guarded_open.hpp"
#include "src/util/atomic_file.hpp"

namespace gridvec {

namespace {

constexpr char magic[16] = {'g', 'r', 'i', 'd', 'v', 'e', 'c', '-', 'c', 'o', 'u', 'n', 't', 's', ' ', '1'};
constexpr size_t header_bytes = sizeof(magic) + 3 * sizeof(uint64_t);

// The file's header, then `write_counts(f)` for its `size` counts;
// atomically, under the path policy.
template <class WriteCounts>
status write_counts_file(const std::string& path, uint64_t size, uint64_t train_words, uint64_t vocab_crc,
                         WriteCounts&& write_counts) {
  auto file = atomic_file::create(path, "the vocabulary's counts");
  if (!file)
    return failure{file.error()};
  std::FILE* f = file->stream();
  const uint64_t head[3] = {size, train_words, vocab_crc};
  if (std::fwrite(magic, 1, sizeof(magic), f) != sizeof(magic) || std::fwrite(head, sizeof(uint64_t), 3, f) != 3 ||
      !write_counts(f))
    return failure{"cannot write " + path};
  return file->commit();
}

} // namespace

status write_vocabulary_counts(const vocabulary_counts& counts, const std::string& path) {
  const auto& c = counts.counts;
  return write_counts_file(path, c.size(), counts.train_words, counts.vocab_crc, [&](std::FILE* f) {
    return std::fwrite(c.data(), sizeof(uint64_t), c.size(), f) == c.size();
  });
}

status write_vocabulary_counts(const count_histogram& runs, uint64_t train_words, uint64_t vocab_crc,
                               const std::string& path) {
  uint64_t size = 0;
  for (const auto& run : runs)
    size += run.words;
  return write_counts_file(path, size, train_words, vocab_crc, [&](std::FILE* f) {
    std::vector<uint64_t> block(std::min<uint64_t>(size, 65536));
    for (const auto& run : runs)
      for (uint64_t left = run.words; left > 0;) {
        const uint64_t n = std::min<uint64_t>(left, block.size());
        std::fill_n(block.begin(), n, run.count);
        if (std::fwrite(block.data(), sizeof(uint64_t), n, f) != n)
          return false;
        left -= n;
      }
    return true;
  });
}

namespace {

// Opens a counts file and reads its header, checked against the file's
// length (before anything is allocated for its counts); the file is left
// at the first count.
expected<vocabulary_counts_header> open_counts(const std::string& path, access::file_ptr& f) {
  auto opened = access::fopen_read(path, "the vocabulary's counts");
  if (!opened)
    return failure{opened.error()};
  f = std::move(*opened);
  struct stat st {};
  if (::fstat(::fileno(f.get()), &st) != 0)
    return failure{"cannot read " + path};
  char seen[sizeof(magic)];
  uint64_t head[3] = {0, 0, 0};
  if (std::fread(seen, 1, sizeof(seen), f.get()) != sizeof(seen) || std::memcmp(seen, magic, sizeof(magic)) != 0 ||
      std::fread(head, sizeof(uint64_t), 3, f.get()) != 3)
    return failure{path + " is not a gridvec counts file"};
  const uint64_t size = head[0];
  if (size > vocabulary::max_words || static_cast<uint64_t>(st.st_size) != header_bytes + size * sizeof(uint64_t))
    return failure{path + ": a header of " + std::to_string(size) + " words in a file of " +
                   std::to_string(st.st_size) + " bytes (truncated or damaged)"};
  return vocabulary_counts_header{size, head[1], head[2]};
}

} // namespace

expected<vocabulary_counts_header> read_vocabulary_counts_header(const std::string& path) {
  access::file_ptr f;
  return open_counts(path, f);
}

expected<vocabulary_counts> read_vocabulary_counts(const std::string& path) {
  access::file_ptr f;
  auto head = open_counts(path, f);
  if (!head)
    return failure{head.error()};
  const uint64_t size = head->size;
  vocabulary_counts out;
  out.train_words = head->train_words;
  out.vocab_crc = head->vocab_crc;
  out.counts.resize(size);
  if (std::fread(out.counts.data(), sizeof(uint64_t), size, f.get()) != size)
    return failure{"cannot read " + path};
  uint64_t sum = 0;
  for (uint64_t c : out.counts) {
    if (c == 0)
      return failure{path + ": a word counted 0 times"};
    sum += c;
  }
  if (sum != out.train_words)
    return failure{path + ": counts do not add up to the header's total"};
  return out;
}

} // namespace gridvec
