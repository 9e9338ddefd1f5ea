#pragma once
// (Public header of actors/message_types.cpp.)
// Registers every gridvec type that crosses the network with CAF, under the
// same names on every node (CAF 0.17 needs this at run time: an
// unregistered type arrives as an empty message).
#include <caf/actor_system_config.hpp>

namespace gridvec {

void register_message_types(caf::actor_system_config& cfg);

} // namespace gridvec
