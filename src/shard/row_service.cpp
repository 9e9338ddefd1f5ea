#include "src/shard/row_service.hpp"

#include <cstring>

#include "src/formats/split_wire.hpp"
#include "src/model/similarity.hpp"
#include "src/sgns/vector_math.hpp"

namespace gridvec {

namespace {

std::vector<uint64_t> own_counts(const std::vector<uint64_t>& counts, word_layout layout, uint32_t k) {
  std::vector<uint64_t> own;
  own.reserve(layout.rows_of(k, static_cast<uint32_t>(counts.size())));
  for (size_t w = k; w < counts.size(); w += layout.partitions)
    own.push_back(counts[w]);
  return own;
}

} // namespace

row_service::row_service(std::shared_ptr<shard_store> shared, slice_header header, uint64_t init_seed,
                         const std::vector<uint64_t>& counts, negatives_mode m)
  : shard_service(std::move(shared), header, init_seed), layout{store().rows_layout().partitions},
    rows(store().rows_layout().partition, layout, store().dim(), store().vocab_size(), store().input_data(),
         store().output_data(), partition_rows::indexing::local),
    own(hierarchical_sampler::partition_masses(counts, layout.partitions), store().rows_layout().partition,
        own_counts(counts, layout, store().rows_layout().partition)),
    mode(m), vocab(store().vocab_size()) {}

status row_service::check_share(const minibatch& mb) const {
  if (mb.mean_inputs || mb.hierarchical)
    return failure{"the word split trains skip-gram with negative sampling only"};
  if (mb.negatives == 0 || mb.negatives > max_negatives)
    return failure{"a share asks for " + std::to_string(mb.negatives) + " noise words per pair (1 to " +
                   std::to_string(max_negatives) + ")"};
  for (uint32_t w : mb.inputs)
    if (w >= vocab || layout.owner(w) != index())
      return failure{"input word " + std::to_string(w) + " is not shard " + std::to_string(index()) + "'s"};
  for (uint32_t w : mb.outputs)
    if (w >= vocab)
      return failure{"output word id " + std::to_string(w) + " is out of range"};
  uint64_t outputs = 0;
  for (uint32_t c : mb.output_counts) {
    if (c == 0)
      return failure{"a share has an example with no output"};
    outputs += c;
  }
  if (mb.output_counts.empty() ? mb.outputs.size() != mb.inputs.size() : outputs != mb.outputs.size())
    return failure{"a share's output counts do not add up to its outputs"};
  if (!mb.input_counts.empty())
    for (uint32_t c : mb.input_counts)
      if (c != 1)
        return failure{"the word split trains skip-gram only: an example has " + std::to_string(c) + " inputs"};
  if (mb.inputs.size() != mb.examples())
    return failure{"a share's input counts do not add up to its inputs"};
  return {};
}

expected<wire_bytes> row_service::serve(const wire_bytes& request) {
  count_requests(1);
  visit_message m;
  if (auto s = decode_visit_batch(request, rows.dim(), m); !s)
    return failure{s.why()};
  if (m.source >= partitions())
    return failure{"a visit batch from shard " + std::to_string(m.source) + " of " + std::to_string(partitions())};
  if (auto s = check_batch(rows, m.batch); !s)
    return failure{s.why()};
  std::vector<float> gradients(m.inputs.size());
  const auto w = serve_visits(rows, own, m.batch, m.inputs.data(), gradients.data(), m.seed, m.alpha);
  return encode_visit_reply(w, gradients.data(), gradients.size());
}

expected<wire_bytes> row_service::norms(const std::vector<uint32_t>& words) const {
  if (auto s = check_words(words); !s)
    return failure{s.why()};
  std::vector<float> out;
  out.reserve(words.size());
  for (uint32_t w : words)
    out.push_back(rows.owns(w) ? dot(rows.input(w), rows.input(w), rows.dim()) : 0.0f);
  return float_bytes(out);
}

expected<wire_bytes> row_service::similar(const wire_bytes& query) const {
  const uint32_t d = rows.dim();
  if (query.size() != size_t{d} * sizeof(float))
    return failure{"similar: a query of " + std::to_string(query.size()) + " bytes for vectors of " +
                   std::to_string(d) + " floats"};
  std::vector<float> q(d);
  std::memcpy(q.data(), query.data(), query.size());
  std::vector<float> out(1 + 2 * size_t{vocab}, 0.0f);
  float* dots = out.data() + 1;
  float* norms = dots + vocab;
  for (uint32_t x = index(); x < vocab; x += partitions()) {
    const float* row = rows.input(x);
    dots[x] = dot(q.data(), row, d);
    norms[x] = dot(row, row, d);
  }
  return float_bytes(out);
}

} // namespace gridvec
