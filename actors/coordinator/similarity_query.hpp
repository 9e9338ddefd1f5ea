#pragma once
// (Internal to the coordinator and the layouts' `similar`.) The parts of a
// `nearest` query every layout shares: the shards answer with partial
// similarities (src/model/similarity.hpp), summed here, so no vector is
// shipped.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/coordinator/phases.hpp"
#include "src/model/similarity.hpp"

namespace gridvec {

/// How long a nearest/analogy/rows query waits on the shards.
inline constexpr auto shard_query_timeout = std::chrono::seconds(60);

/// A query's error handler: the first error of its requests answers it,
/// the later ones (and replies after it) are dropped.
template <class Promise>
auto first_error(Promise rp, std::shared_ptr<bool> failed) {
  return [rp, failed](caf::error& err) mutable {
    if (*failed)
      return;
    *failed = true;
    rp.deliver(err);
  };
}

/// Every shard's partial similarities (similarity.hpp's layout), summed,
/// then the k nearest words but `ids`. `ask(lane)` sends one shard its
/// request; `query_norm`, if set, is |q|^2, which shards of whole rows
/// leave to the caller.
template <class Ask>
void sum_similarities(coordinator_ptr self, Ask ask, std::vector<uint32_t> ids, uint32_t k,
                      caf::typed_response_promise<std::vector<neighbour>> rp, std::shared_ptr<bool> failed,
                      std::optional<float> query_norm) {
  auto& st = self->state;
  auto summed = std::make_shared<std::vector<float>>();
  auto pending = std::make_shared<size_t>(st.shards.size());
  for (const auto& shard : st.shards)
    ask(shard.lanes.front())
      .then(
        [self, rp, ids, k, summed, pending, failed, query_norm](const wire_bytes& bytes) mutable {
          if (*failed)
            return;
          auto part = floats_of(bytes);
          if (!part) {
            *failed = true;
            rp.deliver(make_job_error(part.error()));
            return;
          }
          add_partials(*summed, *part);
          if (--*pending > 0)
            return;
          if (query_norm && !summed->empty())
            (*summed)[0] = *query_norm;
          const auto nearest = top_cosine(*summed, k, ids);
          std::vector<uint32_t> found;
          for (const auto& sw : nearest)
            found.push_back(sw.id);
          auto words = query_words_of(self->state, found);
          if (!words) {
            rp.deliver(make_job_error(words.error()));
            return;
          }
          std::vector<neighbour> out;
          for (size_t i = 0; i < nearest.size(); ++i)
            out.push_back({std::move((*words)[i]), nearest[i].score});
          rp.deliver(std::move(out));
        },
        first_error(rp, failed));
}

} // namespace gridvec
