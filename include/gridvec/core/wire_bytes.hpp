#pragma once
// The bytes of one encoded training message (src/formats/wire.hpp), as
// actors carry them: a plain buffer, the same in a process and across one.
#include <vector>

namespace gridvec {

using wire_bytes = std::vector<char>;

} // namespace gridvec
