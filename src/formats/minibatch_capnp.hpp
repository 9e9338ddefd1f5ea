#pragma once
// A minibatch to and from its Cap'n Proto struct (schema/minibatch.capnp),
// for the codecs that carry one (wire.cpp, split_wire.cpp).
#include "schema/minibatch.capnp.h"
#include "src/sgns/minibatch.hpp"

namespace gridvec {

void fill_batch(wire::Minibatch::Builder b, const minibatch& mb);
/// Copies the lists as they are; the receiver checks them (shard_store::validate).
void read_batch(wire::Minibatch::Reader b, minibatch& mb);

} // namespace gridvec
