#pragma once
// What a peer that knows the cluster secret can still make a node do
// through CAF 0.17.6's own decoder, and the fix (docs/security.md,
// "Bounds"):
//
//  - A byte buffer (std::vector<char>: CAF's built-in "@charbuf", and
//    gridvec's wire_bytes, alone or in vectors) is resized to its 32-bit
//    length prefix before CAF checks that so many bytes follow: a message of
//    a few dozen bytes made the node allocate and zero up to 4 GB. The
//    decoders here read such a buffer in chunks of at most 1 MiB, so that it
//    never holds more than the bytes that actually arrived plus one chunk
//    (and, from a binary_deserializer, refuse a length beyond what remains).
//  - A bad variant index of the built-in "@config_value" throws
//    std::runtime_error, which BASP does not catch: the node ended. Its
//    decoder here turns that into an error; the message is dropped.
//  - Values that hold values (a message in a message, an error's context,
//    a config_value list) are decoded by recursion, a few bytes of input a
//    level: a deep enough nest overflowed the network thread's stack. Here
//    every element a peer names, and every config_value list or dictionary,
//    is a level, and a message more than 32 levels deep is dropped.
//
// Each message a peer sends is at most max-message-mb (src/net/frame_guard),
// so with these a message costs a node at most its frame plus a small
// constant. Strings and every other sequence CAF decodes element by element,
// failing at the end of the data, so they are bounded by the frame already.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/deserializer.hpp>

#include <vector>

namespace gridvec::net {

/// Reads a std::vector<char> as CAF writes it (a length, then the bytes),
/// never allocating more than the bytes that follow plus 1 MiB.
caf::error load_bounded_bytes(caf::deserializer& source, std::vector<char>& bytes);

/// Registers bounded decoders for gridvec's own containers of byte buffers
/// (std::vector<wire_bytes> and the std::vector of it that CAF registers
/// along): call it after register_message_types(cfg).
void use_bounded_decoders(caf::actor_system_config& cfg);

/// Replaces the decoders of CAF's built-in "@charbuf" and "@config_value"
/// in `sys` (the built-in table is not configurable; see the .cpp) and
/// counts the nesting of every type, built-in or registered. Call it
/// once the system exists and before it talks to any peer; gridvec's
/// transport (guarded_transport.hpp) does, before every connect and publish.
void harden_builtin_decoders(caf::actor_system& sys);

} // namespace gridvec::net
