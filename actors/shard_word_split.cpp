#include "actors/shard_word_split.hpp"

#include <cstring>

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

word_split_part::word_split_part(shard_store& store, const std::vector<uint64_t>& counts, negatives_mode m)
  : layout{store.rows_layout().partitions},
    rows(store.rows_layout().partition, layout, store.dim(), store.vocab_size(), store.input_data(),
         store.output_data(), partition_rows::indexing::local),
    own(hierarchical_sampler::partition_masses(counts, layout.partitions), store.rows_layout().partition,
        own_counts(counts, layout, store.rows_layout().partition)),
    mode(m), vocab(store.vocab_size()) {}

std::shared_ptr<const std::vector<shard_actor>> word_split_part::peers() const {
  std::lock_guard<std::mutex> lock(peers_mutex_);
  return peers_;
}

status word_split_part::set_peers(const std::vector<caf::actor>& all) {
  if (all.size() != partitions())
    return failure{"peers: " + std::to_string(all.size()) + " shards for a job of " + std::to_string(partitions())};
  std::vector<shard_actor> typed;
  for (const auto& a : all) {
    if (!a)
      return failure{"peers: a shard is missing"};
    typed.push_back(caf::actor_cast<shard_actor>(a));
  }
  std::lock_guard<std::mutex> lock(peers_mutex_);
  peers_ = std::make_shared<const std::vector<shard_actor>>(std::move(typed));
  return {};
}

status word_split_part::check_share(const minibatch& mb) const {
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

expected<wire_bytes> word_split_part::serve(const wire_bytes& request) {
  visit_message m;
  if (auto s = decode_visit_batch(request, rows.dim(), m); !s)
    return failure{s.error()};
  if (m.source >= partitions())
    return failure{"a visit batch from shard " + std::to_string(m.source) + " of " + std::to_string(partitions())};
  if (auto s = check_batch(rows, m.batch); !s)
    return failure{s.error()};
  std::vector<float> gradients(m.inputs.size());
  const auto w = serve_visits(rows, own, m.batch, m.inputs.data(), gradients.data(), m.seed, m.alpha);
  return encode_visit_reply(w, gradients.data(), gradients.size());
}

std::vector<float> word_split_part::norms(const std::vector<uint32_t>& words) const {
  std::vector<float> out;
  out.reserve(words.size());
  for (uint32_t w : words)
    out.push_back(rows.owns(w) ? dot(rows.input(w), rows.input(w), rows.dim()) : 0.0f);
  return out;
}

expected<std::vector<float>> word_split_part::similar(const wire_bytes& query) const {
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
  return out;
}

} // namespace gridvec
