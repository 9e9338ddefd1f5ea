#pragma once
// Cap'n Proto messages to and from wire_bytes, shared by the codecs of the
// training traffic (wire.cpp) and of the tables (src/table/table_wire.cpp).
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/exception.h>
#include <kj/io.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "src/formats/wire_bytes.hpp"
#include "src/util/expected.hpp"

namespace gridvec {

inline wire_bytes to_bytes(capnp::MessageBuilder& builder) {
  wire_bytes out(capnp::computeSerializedSizeInWords(builder) * sizeof(capnp::word));
  kj::ArrayOutputStream stream(kj::arrayPtr(reinterpret_cast<kj::byte*>(out.data()), out.size()));
  capnp::writeMessage(stream, builder);
  return out;
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
