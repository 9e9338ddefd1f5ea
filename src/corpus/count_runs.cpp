#include "src/corpus/count_runs.hpp"

#include <cerrno>
#include <cstring>

namespace gridvec {

namespace {

constexpr char run_magic[8] = {'g', 'v', 'c', 'o', 'u', 'n', 't', '1'};
constexpr size_t write_buffer_bytes = size_t{1} << 20;
constexpr size_t read_buffer_bytes = size_t{64} << 10;

void put_varint(std::string& out, uint64_t x) {
  while (x >= 0x80) {
    out.push_back(static_cast<char>((x & 0x7F) | 0x80));
    x >>= 7;
  }
  out.push_back(static_cast<char>(x));
}

std::string cannot_write(const std::string& path, int error) {
  return "cannot write counts to " + path + ": " + std::strerror(error);
}

// A run file read through a buffer of its own (fread of whole blocks).
class run_reader final : public count_source {
public:
  run_reader(std::string path, access::file_ptr file)
    : path_(std::move(path)), file_(std::move(file)), buffer_(read_buffer_bytes) {}

  bool start() {
    char magic[sizeof run_magic];
    for (char& c : magic)
      if (!byte(c))
        return corrupt("it is not a run of counts");
    if (std::memcmp(magic, run_magic, sizeof magic) != 0)
      return corrupt("it is not a run of counts");
    return true;
  }

  bool next() override {
    char c;
    if (!byte(c)) {
      if (std::ferror(file_.get()))
        return corrupt(std::strerror(errno));
      return false; // the end
    }
    uint64_t length = 0;
    if (!varint(static_cast<unsigned char>(c), length) || length > read_buffer_bytes * 64)
      return corrupt("a damaged record");
    word_.resize(length);
    for (char& w : word_)
      if (!byte(w))
        return corrupt("a record cut short");
    if (!byte(c) || !varint(static_cast<unsigned char>(c), current_.count) || !byte(c) ||
        !varint(static_cast<unsigned char>(c), current_.first))
      return corrupt("a record cut short");
    current_.word = word_;
    return true;
  }
  const counted_word& current() const override { return current_; }
  const std::string& failed() const override { return error_; }

private:
  bool byte(char& c) {
    if (at_ == end_) {
      end_ = std::fread(buffer_.data(), 1, buffer_.size(), file_.get());
      at_ = 0;
      if (end_ == 0)
        return false;
    }
    c = buffer_[at_++];
    return true;
  }
  // The rest of a varint whose first byte is `b`.
  bool varint(unsigned char b, uint64_t& x) {
    x = b & 0x7Fu;
    for (unsigned shift = 7; b >= 0x80; shift += 7) {
      char c;
      if (shift > 63 || !byte(c))
        return false;
      b = static_cast<unsigned char>(c);
      x |= uint64_t{b & 0x7Fu} << shift;
    }
    return true;
  }
  bool corrupt(const std::string& why) {
    error_ = "cannot read counts back from " + path_ + ": " + why;
    return false;
  }

  std::string path_;
  access::file_ptr file_;
  std::vector<char> buffer_;
  size_t at_ = 0, end_ = 0;
  std::string word_;
  counted_word current_;
  std::string error_;
};

} // namespace

// A counter's runs lie in the directory its own process chose (a node's
// count-dir, the system's temporary directory), never a path a peer sent:
// they are opened without the path policy, which guards peers' paths.
expected<run_writer> run_writer::create(const std::string& path) {
  access::file_ptr file{std::fopen(path.c_str(), "wbx")};
  if (!file)
    return failure{cannot_write(path, errno), error_code::io};
  run_writer w{path, std::move(file)};
  w.buffer_.reserve(write_buffer_bytes);
  w.buffer_.append(run_magic, sizeof run_magic);
  return w;
}

void run_writer::add(std::string_view word, uint64_t count, uint64_t first) {
  put_varint(buffer_, word.size());
  buffer_.append(word);
  put_varint(buffer_, count);
  put_varint(buffer_, first);
  if (buffer_.size() >= write_buffer_bytes - 64)
    flush();
}

bool run_writer::flush() {
  if (errno_ == 0 && !buffer_.empty()) {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size())
      errno_ = errno != 0 ? errno : EIO;
  }
  written_ += buffer_.size();
  buffer_.clear();
  return errno_ == 0;
}

status run_writer::close() {
  flush();
  if (errno_ == 0 && std::fflush(file_.get()) != 0)
    errno_ = errno != 0 ? errno : EIO;
  if (std::fclose(file_.release()) != 0 && errno_ == 0)
    errno_ = errno != 0 ? errno : EIO;
  if (errno_ != 0)
    return failure{cannot_write(path_, errno_), error_code::io};
  return {};
}

std::unique_ptr<count_source> open_run(const std::string& path, std::string& error) {
  access::file_ptr file{std::fopen(path.c_str(), "rb")};
  if (!file) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  auto reader = std::make_unique<run_reader>(path, std::move(file));
  if (!reader->start()) {
    error = reader->failed();
    return nullptr;
  }
  return reader;
}

namespace detail {

source_heap::source_heap(std::vector<std::unique_ptr<count_source>>& sources) {
  for (auto& s : sources) {
    if (s->next())
      heap_.push_back(s.get());
    else if (!s->failed().empty()) {
      error_ = s->failed();
      heap_.clear();
      return;
    }
  }
  for (size_t i = heap_.size() / 2; i-- > 0;)
    sift_down(i);
}

bool source_heap::advance_top() {
  if (!heap_.front()->next()) {
    if (!heap_.front()->failed().empty()) {
      error_ = heap_.front()->failed();
      heap_.clear();
      return false;
    }
    heap_.front() = heap_.back();
    heap_.pop_back();
  }
  if (!heap_.empty())
    sift_down(0);
  return true;
}

void source_heap::sift_down(size_t i) {
  for (;;) {
    size_t smallest = i;
    const size_t l = 2 * i + 1, r = l + 1;
    if (l < heap_.size() && less(l, smallest))
      smallest = l;
    if (r < heap_.size() && less(r, smallest))
      smallest = r;
    if (smallest == i)
      return;
    std::swap(heap_[i], heap_[smallest]);
    i = smallest;
  }
}

} // namespace detail

} // namespace gridvec
