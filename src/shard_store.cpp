#include "src/shard_store.hpp"

#include <algorithm>
#include <cstring>

#include "src/vector_math.hpp"

namespace gridvec {

namespace {
constexpr uint32_t max_negatives = 1000;
}

shard_store::shard_store(column_slice slice, uint32_t dim, uint32_t vocab_size,
                         uint64_t init_seed, std::shared_ptr<const alias_sampler> noise)
  : slice_(slice), dim_(dim), vocab_size_(vocab_size), noise_(std::move(noise)),
    u_(new float[size_t{vocab_size} * slice.width]),
    v_(new float[size_t{vocab_size} * slice.width]()) {
  reset(init_seed);
}

void shard_store::reset(uint64_t init_seed) {
  const float scale = 1.0f / static_cast<float>(dim_);
  for (uint32_t w = 0; w < vocab_size_; ++w) {
    float* row = input_row(w);
    for (uint32_t j = 0; j < slice_.width; ++j) {
      uint64_t h = mix64(init_seed, uint64_t{w} * dim_ + slice_.first + j);
      float uniform = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
      row[j] = (uniform - 0.5f) * scale;
    }
  }
  std::fill(v_.get(), v_.get() + size_t{vocab_size_} * slice_.width, 0.0f);
}

status shard_store::validate(const minibatch& mb) const {
  if (mb.negatives > max_negatives)
    return failure{"minibatch asks for " + std::to_string(mb.negatives) + " negatives (at most " +
                   std::to_string(max_negatives) + ")"};
  for (uint32_t w : mb.inputs)
    if (w >= vocab_size_)
      return failure{"minibatch input word id " + std::to_string(w) + " is out of range"};
  for (uint32_t w : mb.outputs)
    if (w >= vocab_size_)
      return failure{"minibatch output word id " + std::to_string(w) + " is out of range"};
  // Counts must describe the lists exactly, with at least one entry each.
  auto check_counts = [](const std::vector<uint32_t>& counts, size_t items, const char* what) -> status {
    if (counts.empty())
      return {};
    uint64_t sum = 0;
    for (uint32_t c : counts) {
      if (c == 0)
        return failure{std::string{"minibatch has an example with no "} + what};
      sum += c;
    }
    if (sum != items)
      return failure{std::string{"minibatch "} + what + " counts do not add up to the list"};
    return {};
  };
  if (auto s = check_counts(mb.input_counts, mb.inputs.size(), "inputs"); !s)
    return s;
  if (auto s = check_counts(mb.output_counts, mb.outputs.size(), "outputs"); !s)
    return s;
  if (!mb.input_counts.empty() && !mb.output_counts.empty() &&
      mb.input_counts.size() != mb.output_counts.size())
    return failure{"minibatch input and output counts disagree on the number of examples"};
  size_t examples = mb.examples();
  if (mb.input_counts.empty() && mb.inputs.size() != examples)
    return failure{"minibatch has " + std::to_string(mb.inputs.size()) + " inputs for " +
                   std::to_string(examples) + " examples"};
  if (mb.output_counts.empty() && mb.outputs.size() != examples)
    return failure{"minibatch has " + std::to_string(mb.outputs.size()) + " outputs for " +
                   std::to_string(examples) + " examples"};
  return {};
}

uint32_t shard_store::draw_negative(rng& r, uint32_t positive) const {
  // word2vec draws noise words different from the positive output; a bounded
  // number of redraws keeps a one-word vocabulary from looping forever.
  uint32_t w = noise_->draw(r);
  for (int tries = 0; w == positive && tries < 8; ++tries)
    w = noise_->draw(r);
  return w;
}

// Walks the minibatch in wire order, calling
//   on_pair(input_vector, example, first_input, input_count, output)
// once per positive pair. For CBOW the input vector is the mean of the
// example's input rows, computed into `hidden`.
template <class OnPair>
void shard_store::for_each_pair(const minibatch& mb, std::vector<float>& hidden,
                                OnPair&& on_pair) const {
  const uint32_t width = slice_.width;
  hidden.resize(width);
  size_t in = 0, out = 0;
  const size_t examples = mb.examples();
  for (size_t e = 0; e < examples; ++e) {
    const uint32_t n_in = mb.input_counts.empty() ? 1 : mb.input_counts[e];
    const uint32_t n_out = mb.output_counts.empty() ? 1 : mb.output_counts[e];
    const float* h;
    if (n_in == 1 && !mb.mean_inputs) {
      h = input_row(mb.inputs[in]);
    } else {
      std::fill(hidden.begin(), hidden.end(), 0.0f);
      for (uint32_t k = 0; k < n_in; ++k)
        axpy(1.0f, input_row(mb.inputs[in + k]), hidden.data(), width);
      const float inv = 1.0f / static_cast<float>(n_in);
      for (float& x : hidden)
        x *= inv;
      h = hidden.data();
    }
    for (uint32_t k = 0; k < n_out; ++k)
      on_pair(h, e, in, n_in, mb.outputs[out + k]);
    in += n_in;
    out += n_out;
  }
}

void shard_store::dotprod(const minibatch& mb, float* dots, std::vector<float>& hidden) const {
  const uint32_t width = slice_.width;
  rng r(mb.seed);
  size_t k = 0;
  for_each_pair(mb, hidden, [&](const float* h, size_t, size_t, uint32_t, uint32_t output) {
    dots[k++] = dot(h, output_row(output), width);
    for (uint32_t n = 0; n < mb.negatives; ++n)
      dots[k++] = dot(h, output_row(draw_negative(r, output)), width);
  });
}

void shard_store::adjust(const minibatch& mb, const float* weights, adjust_scratch& s) {
  const uint32_t width = slice_.width;
  rng r(mb.seed);
  s.du.begin(mb.inputs.size());
  s.dv.begin(mb.outputs.size() * (mb.negatives + 1));
  size_t k = 0;
  // The input side's delta of an example collects in s.row (the same h for
  // all its outputs) and goes to s.du once the example's last pair is done.
  size_t current = ~size_t{0};
  size_t current_first = 0;
  uint32_t current_count = 0;
  auto flush_example = [&] {
    if (current == ~size_t{0})
      return;
    // CBOW adds the whole error to every context word, as word2vec.c does.
    for (uint32_t i = 0; i < current_count; ++i)
      axpy(1.0f, s.row.data(), s.du.row(mb.inputs[current_first + i]), width);
  };
  s.row.resize(width);
  for_each_pair(mb, s.hidden, [&](const float* h, size_t e, size_t first, uint32_t count, uint32_t output) {
    if (e != current) {
      flush_example();
      current = e;
      current_first = first;
      current_count = count;
      std::fill(s.row.begin(), s.row.end(), 0.0f);
    }
    float g = weights[k++];
    axpy(g, output_row(output), s.row.data(), width);
    axpy(g, h, s.dv.row(output), width);
    for (uint32_t n = 0; n < mb.negatives; ++n) {
      uint32_t neg = draw_negative(r, output);
      g = weights[k++];
      axpy(g, output_row(neg), s.row.data(), width);
      axpy(g, h, s.dv.row(neg), width);
    }
  });
  flush_example();
  s.du.apply_and_clear(u_.get());
  s.dv.apply_and_clear(v_.get());
}

void shard_store::read_input_rows(uint32_t begin, uint32_t end, float* out) const {
  std::memcpy(out, input_row(begin), size_t{end - begin} * slice_.width * sizeof(float));
}

} // namespace gridvec
