#pragma once
// How the replicated mode (the GraphWord2Vec paper) merges the updates that
// several hosts made to one row during a synchronisation round.
//
// Each host trains its own copy of the whole model; at the end of a round
// the master of a row receives every host's change of it, d_h = (the host's
// row) - (the row as all hosts had it at the round's start), and turns
// them into one change g:
//   average:  g = mean of the d_h of the hosts that touched the row -- what
//             a plain all-reduce does, and what converges slowly or not at
//             all with many hosts (the seed's Figure 6);
//   model combiner (the seed's section 3): in host order,
//             g = d_1;  g = g + d_h - (g . d_h / |g|^2) g
//             a change orthogonal to what is already in g is added in full
//             (the hosts moved the row independently), a parallel one adds
//             nothing beyond g (they made the same move), and anything in
//             between adds its part orthogonal to g. The result never has
//             a larger norm than the sum, and each step keeps a valid
//             descent direction for its host's loss (the seed's proof).
#include <cstddef>
#include <cstdint>
#include <string>

#include <gridvec/core/expected.hpp>

namespace gridvec {

enum class combiner { model_combiner, average };

/// "mc" or "avg" (the flag's spelling).
expected<combiner> parse_combiner(const std::string& text);
const char* combiner_name(combiner c);

/// Adds one host's change to `g`, the combination of the `count` changes
/// added before (the first sets it), and counts it; in host order.
void add_change(combiner kind, float* g, uint32_t& count, const float* change, size_t dim);
/// Ends a combination of `count` changes (average: divides by the count).
void finish_changes(combiner kind, float* g, uint32_t count, size_t dim);

} // namespace gridvec
