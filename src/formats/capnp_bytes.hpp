#pragma once
// Cap'n Proto messages to and from wire_bytes, shared by the codecs of the
// training traffic (wire.cpp) and of the tables (src/table/table_wire.cpp).
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/exception.h>
#include <kj/io.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gridvec/core/wire_bytes.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

inline wire_bytes to_bytes(capnp::MessageBuilder& builder) {
  wire_bytes out(capnp::computeSerializedSizeInWords(builder) * sizeof(capnp::word));
  kj::ArrayOutputStream stream(kj::arrayPtr(reinterpret_cast<kj::byte*>(out.data()), out.size()));
  capnp::writeMessage(stream, builder);
  return out;
}

/// A message built straight into the bytes that carry it: its first
/// segment is the buffer after the 8-byte segment table, so a message is
/// written once, where building it in a segment of its own and copying it
/// out (to_bytes) zeroes and writes every byte three times, and takes
/// fresh pages twice for a large one. `words` bounds the message's size;
/// a message that outgrows it goes on in segments of its own and through
/// to_bytes, as before. (Not capnp::MallocMessageBuilder over a segment
/// of ours: its destructor zeroes that segment.)
class wire_message final : public capnp::MessageBuilder {
public:
  explicit wire_message(size_t words)
    : bytes_((std::max<size_t>(words, 1) + 1) * sizeof(capnp::word)), // zeroed, as a segment must be
      first_words_(std::max<size_t>(words, 1)) {}

  capnp::MessageBuilder& builder() { return *this; }

  kj::ArrayPtr<capnp::word> allocateSegment(unsigned minimum) override {
    if (!first_given_) {
      first_given_ = true;
      if (minimum <= first_words_)
        return kj::arrayPtr(first(), first_words_);
    }
    const size_t words = std::max<size_t>({minimum, first_words_, 1024});
    more_.emplace_back(new char[words * sizeof(capnp::word)]()); // zeroed
    return kj::arrayPtr(reinterpret_cast<capnp::word*>(more_.back().get()), words);
  }

  /// The message's bytes, as capnp::writeMessage writes them (one segment:
  /// a table of its count less one and its size, then its words).
  wire_bytes finish() {
    auto segments = getSegmentsForOutput();
    if (segments.size() != 1 || segments[0].begin() != first())
      return to_bytes(*this);
    const uint32_t table[2] = {0, static_cast<uint32_t>(segments[0].size())};
    std::memcpy(bytes_.data(), table, sizeof(table));
    const size_t size = (segments[0].size() + 1) * sizeof(capnp::word);
    const size_t reserved = bytes_.size();
    bytes_.resize(size);
    if (reserved > (size_t{64} << 10) && size < reserved / 2)
      bytes_.shrink_to_fit(); // a bound far too high: not kept in flight
    return std::move(bytes_);
  }

private:
  // operator new's blocks are 16-byte aligned: the segment after the
  // 8-byte table is word-aligned.
  capnp::word* first() { return reinterpret_cast<capnp::word*>(bytes_.data() + sizeof(capnp::word)); }

  wire_bytes bytes_;
  size_t first_words_;
  bool first_given_ = false;
  std::vector<std::unique_ptr<char[]>> more_; // segments beyond the first
};

/// Fills a list of numbers just initialised to xs.size() elements.
template <class Builder, class Range>
void set_list(Builder list, const Range& xs) {
  unsigned i = 0;
  for (auto x : xs)
    list.set(i++, x);
}

/// Reads a list of numbers into xs.
template <class Reader, class T>
void get_list(Reader list, std::vector<T>& xs) {
  xs.resize(list.size());
  for (unsigned i = 0; i < list.size(); ++i)
    xs[i] = list[i];
}

/// Copies n bytes into a Data field just initialised to n bytes. (Nothing
/// for n = 0: memcpy from the null pointer of an empty buffer is undefined.)
inline void copy_into(capnp::Data::Builder data, const void* from, size_t n) {
  if (n > 0)
    std::memcpy(data.begin(), from, n);
}

/// A Data field's bytes as elements of T (the caller has checked that its
/// size is a multiple of sizeof(T)).
template <class T>
void copy_from(capnp::Data::Reader data, std::vector<T>& out) {
  out.resize(data.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), data.begin(), out.size() * sizeof(T));
}

// Runs `read` on a reader over `bytes`; Cap'n Proto reports malformed input
// by throwing, which stops here.
template <class Root, class Read>
status with_reader(const wire_bytes& bytes, const char* what, Read&& read) {
  if (bytes.size() % sizeof(capnp::word) != 0 || bytes.empty())
    return failure{std::string{"malformed "} + what + ": " + std::to_string(bytes.size()) +
                   " bytes is not a whole number of words"};
  // The reader needs word-aligned data; heap buffers are, copies are cheap.
  // (A kj::Array, not a std::vector: capnp::word is not copyable under
  // clang, and std::vector<capnp::word> does not compile there.)
  kj::Array<capnp::word> aligned;
  kj::ArrayPtr<const capnp::word> words;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(capnp::word) == 0) {
    words = kj::arrayPtr(reinterpret_cast<const capnp::word*>(bytes.data()), bytes.size() / sizeof(capnp::word));
  } else {
    aligned = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
    std::memcpy(reinterpret_cast<char*>(aligned.begin()), bytes.data(), bytes.size());
    words = aligned.asPtr();
  }
  try {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = words.size() * 2 + 1024;
    capnp::FlatArrayMessageReader reader(words, options);
    return read(reader.getRoot<Root>());
  } catch (const kj::Exception& e) {
    return failure{std::string{"malformed "} + what + ": " + e.getDescription().cStr()};
  }
}

} // namespace gridvec
