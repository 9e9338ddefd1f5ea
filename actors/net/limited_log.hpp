#pragma once
// Warnings about what peers do (refused connections, dropped messages): a
// peer that misbehaves in a loop must not fill the node's log, so at most
// ten lines a second are written, then a count of those left out.
#include <string>

namespace gridvec::net {

void warn_limited(const std::string& line);

} // namespace gridvec::net
