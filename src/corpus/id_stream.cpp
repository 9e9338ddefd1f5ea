#include "src/corpus/id_stream.hpp"

#include <cerrno>
#include <cstring>
#include "src/access/guarded_open.hpp"

namespace gridvec {

namespace {
constexpr char magic[8] = {'G', 'V', 'I', 'D', 'S', '0', '1', '\n'};
constexpr size_t buffer_ids = 1 << 16;
} // namespace

expected<id_writer> id_writer::create(const std::string& path) {
  auto opened = access::fopen_write(path, "the word ids");
  if (!opened)
    return failure{opened.error()};
  std::FILE* f = opened->release();
  if (std::fwrite(magic, 1, sizeof magic, f) != sizeof magic) {
    std::fclose(f);
    return failure{"cannot write " + path + ": " + std::strerror(errno)};
  }
  id_writer w{path, f};
  w.buf_.reserve(buffer_ids);
  return w;
}

id_writer::id_writer(id_writer&& o) noexcept
  : path_(std::move(o.path_)), file_(o.file_), buf_(std::move(o.buf_)), words_(o.words_), sentences_(o.sentences_),
    in_sentence_(o.in_sentence_), failed_(o.failed_) {
  o.file_ = nullptr;
}

id_writer::~id_writer() {
  if (file_)
    std::fclose(file_);
}

void id_writer::put(uint32_t x) {
  buf_.push_back(x);
  if (buf_.size() == buffer_ids) {
    if (std::fwrite(buf_.data(), sizeof(uint32_t), buf_.size(), file_) != buf_.size())
      failed_ = true;
    buf_.clear();
  }
}

void id_writer::add(uint32_t id) {
  put(id);
  ++words_;
  if (++in_sentence_ == max_sentence_words)
    end_sentence();
}

void id_writer::end_sentence() {
  if (in_sentence_ == 0)
    return;
  put(sentence_end);
  ++sentences_;
  in_sentence_ = 0;
}

status id_writer::close() {
  end_sentence();
  if (!buf_.empty() && std::fwrite(buf_.data(), sizeof(uint32_t), buf_.size(), file_) != buf_.size())
    failed_ = true;
  buf_.clear();
  if (std::fclose(file_) != 0)
    failed_ = true;
  file_ = nullptr;
  if (failed_)
    return failure{"cannot write " + path_ + ": " + std::strerror(errno)};
  return {};
}

expected<id_reader> id_reader::open(const std::string& path) {
  auto opened = access::fopen_read(path, "the word ids");
  if (!opened)
    return failure{opened.error()};
  std::FILE* f = opened->release();
  char head[8];
  if (std::fread(head, 1, 8, f) != 8 || std::memcmp(head, magic, 8) != 0) {
    std::fclose(f);
    return failure{path + " is not a gridvec preprocessed corpus"};
  }
  id_reader r{f};
  r.buf_.resize(buffer_ids);
  return r;
}

id_reader::id_reader(id_reader&& o) noexcept
  : file_(o.file_), buf_(std::move(o.buf_)), base_(o.base_), pos_(o.pos_), len_(o.len_) {
  o.file_ = nullptr;
}

id_reader::~id_reader() {
  if (file_)
    std::fclose(file_);
}

bool id_reader::refill() {
  base_ += len_ * sizeof(uint32_t);
  len_ = std::fread(buf_.data(), sizeof(uint32_t), buf_.size(), file_);
  pos_ = 0;
  return len_ > 0;
}

bool id_reader::next_sentence(std::vector<uint32_t>& out) {
  out.clear();
  for (;;) {
    if (pos_ == len_ && !refill())
      return !out.empty();
    uint32_t x = buf_[pos_++];
    if (x == sentence_end) {
      if (!out.empty())
        return true;
    } else {
      out.push_back(x);
    }
  }
}

void id_reader::rewind() {
  std::fseek(file_, sizeof magic, SEEK_SET);
  base_ = first_offset;
  pos_ = len_ = 0;
}

status id_reader::seek(uint64_t offset) {
  if (offset < first_offset || (offset - first_offset) % sizeof(uint32_t) != 0)
    return failure{"position " + std::to_string(offset) + " is not a word boundary of the preprocessed corpus"};
  if (std::fseek(file_, 0, SEEK_END) != 0)
    return failure{"cannot seek in the preprocessed corpus"};
  const long size = std::ftell(file_);
  if (size < 0 || offset > static_cast<uint64_t>(size))
    return failure{"position " + std::to_string(offset) + " is past the end of the preprocessed corpus"};
  if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0)
    return failure{"cannot seek in the preprocessed corpus"};
  base_ = offset;
  pos_ = len_ = 0;
  return {};
}

} // namespace gridvec
