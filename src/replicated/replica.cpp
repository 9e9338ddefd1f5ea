#include "src/replicated/replica.hpp"

#include <algorithm>
#include <cstring>

#include "src/util/rng.hpp"

namespace gridvec {

namespace {

bool test_and_set(std::vector<uint64_t>& bits, uint32_t i) {
  uint64_t& word = bits[i / 64];
  const uint64_t bit = uint64_t{1} << (i % 64);
  const bool was = word & bit;
  word |= bit;
  return was;
}

} // namespace

void replica::row_set::size_for(uint32_t input_rows, uint32_t output_rows) {
  input_bits.assign((size_t{input_rows} + 63) / 64, 0);
  output_bits.assign((size_t{output_rows} + 63) / 64, 0);
}

void replica::row_set::add(bool output, uint32_t id) {
  if (!test_and_set(output ? output_bits : input_bits, id))
    (output ? outputs : inputs).push_back(id);
}

void replica::row_set::clear() {
  for (uint32_t u : inputs)
    input_bits[u / 64] = 0;
  for (uint32_t v : outputs)
    output_bits[v / 64] = 0;
  inputs.clear();
  outputs.clear();
}

replica::replica(uint32_t dim, std::vector<uint64_t> word_keys, uint64_t init_seed,
                 std::shared_ptr<const noise_sampler> noise, std::shared_ptr<const huffman_tree> tree)
  : dim_(dim), word_keys_(std::move(word_keys)),
    store_(std::make_shared<shard_store>(0, 1, dim, static_cast<uint32_t>(word_keys_.size()), init_seed,
                                         std::move(noise), std::move(tree))) {
  touched_.size_for(store_->vocab_size(), store_->output_rows());
  unstored_.size_for(store_->vocab_size(), store_->output_rows());
  set_hosts(1);
}

void replica::set_hosts(uint32_t hosts) {
  hosts_ = std::max<uint32_t>(1, hosts);
  // A lone host's model is the agreed one after every round: it keeps no
  // base until there are others to send changes to (hosts are set before
  // a round, and after a rollback, which loads both copies again).
  if (hosts_ > 1 && !base_inputs_) {
    const size_t inputs = size_t{store_->vocab_size()} * dim_, outputs = size_t{store_->output_rows()} * dim_;
    base_inputs_ = allocate_floats(inputs);
    base_outputs_ = allocate_floats(outputs);
    std::memcpy(base_inputs_.get(), store_->input_data(), inputs * sizeof(float));
    std::memcpy(base_outputs_.get(), store_->output_data(), outputs * sizeof(float));
  }
  masters_.resize(word_keys_.size());
  for (size_t w = 0; w < word_keys_.size(); ++w)
    masters_[w] = static_cast<uint32_t>(mix64(word_keys_[w], 0x5EED6A57E2ull) % hosts_);
  node_masters_.resize(store_->node_rows());
  for (size_t n = 0; n < node_masters_.size(); ++n)
    node_masters_[n] = static_cast<uint32_t>(mix64(n, 0x40DE5ull) % hosts_);
}

float* replica::base_row(bool output, uint32_t id) const {
  return (output ? base_outputs_.get() : base_inputs_.get()) + size_t{id} * dim_;
}

float* replica::store_row(bool output, uint32_t id) const {
  return output ? store_->output_row(id) : store_->input_row(id);
}

void replica::mark(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& targets) {
  for (uint32_t u : inputs)
    touched_.add(false, u);
  for (uint32_t v : targets)
    touched_.add(true, v);
}

std::vector<row_block> replica::changes(uint32_t self) const {
  std::vector<row_block> blocks(hosts_);
  // Each block's size first: a round's changes are most of the model, and
  // vectors grown a row at a time would copy them over and over.
  std::vector<size_t> rows(blocks.size(), 0);
  for (uint32_t id : touched_.inputs)
    ++rows[master_of(false, id)];
  for (uint32_t id : touched_.outputs)
    ++rows[master_of(true, id)];
  for (size_t m = 0; m < blocks.size(); ++m) {
    blocks[m].width = dim_;
    if (m != self)
      blocks[m].values.reserve(rows[m] * dim_);
  }
  // Inputs first, as a block lays out its values.
  std::vector<float> row(dim_);
  for (bool output : {false, true})
    for (uint32_t id : output ? touched_.outputs : touched_.inputs) {
      const uint32_t m = master_of(output, id);
      if (m == self) // read from the model when this host combines
        continue;
      row_block& b = blocks[m];
      (output ? b.outputs : b.inputs).push_back(id);
      // Appended, not resized and overwritten: a round's changes are
      // tens of megabytes, and zeroing them first is a pass of its own.
      const float* now = store_row(output, id);
      const float* then = base_row(output, id);
      for (uint32_t c = 0; c < dim_; ++c)
        row[c] = now[c] - then[c];
      b.values.insert(b.values.end(), row.begin(), row.end());
    }
  return blocks;
}

status replica::check_row(bool output, uint32_t id) const {
  const uint32_t limit = output ? store_->output_rows() : store_->vocab_size();
  if (id >= limit)
    return failure{std::string{"row block: "} + (output ? "output" : "input") + " row " + std::to_string(id) +
                   " is out of range (" + std::to_string(limit) + " rows)"};
  return {};
}

status replica::check_changes(const row_block& b, uint32_t self) const {
  const std::string from = "row block from host " + std::to_string(b.host);
  if (b.width != dim_)
    return failure{from + ": rows of " + std::to_string(b.width) + " floats, the model has " + std::to_string(dim_)};
  if (b.host == self && b.rows() > 0)
    return failure{from + ": this master's own changes are read from its model, not sent"};
  if (b.host >= hosts_ && b.rows() > 0)
    return failure{from + ": there are " + std::to_string(hosts_) + " hosts"};
  for (size_t i = 0; i < b.rows(); ++i) {
    const bool output = i >= b.inputs.size();
    const uint32_t id = output ? b.outputs[i - b.inputs.size()] : b.inputs[i];
    if (auto s = check_row(output, id); !s)
      return failure{s.error()};
    if (master_of(output, id) != self)
      return failure{from + ": row " + std::to_string(id) + " belongs to another master"};
  }
  return {};
}

expected<row_block> replica::combine(const std::vector<row_block>& changes, combiner kind, uint32_t self) {
  // Every block checked before any row is combined: a refused block leaves
  // the model as it was.
  for (const auto& b : changes)
    if (auto s = check_changes(b, self); !s)
      return failure{s.error()};
  if (hosts_ == 1) { // alone: what it trained is the model; no one to send it to
    for (bool output : {false, true})
      for (uint32_t id : output ? touched_.outputs : touched_.inputs)
        unstored_.add(output, id);
    row_block none;
    none.width = dim_;
    return none;
  }
  // Host order, whatever order the blocks came in: the model combiner is
  // not symmetric, and every run should combine alike. This host's own
  // changes take its place in that order.
  std::vector<const row_block*> others;
  for (const auto& b : changes)
    if (b.host != self)
      others.push_back(&b);
  std::sort(others.begin(), others.end(), [](auto* a, auto* b) { return a->host < b->host; });

  constexpr uint32_t none = 0xFFFFFFFFu;
  if (input_slot_.empty()) { // once: a slot per row, V + the output rows
    input_slot_.assign(store_->vocab_size(), none);
    output_slot_.assign(store_->output_rows(), none);
  }
  // The combination is built where the new values go: a row's slot in
  // `synced` holds its combined change until the last pass turns it into
  // the row's value. Inputs first, as every block lays out its values.
  row_block synced;
  synced.width = dim_;
  size_t most = touched_.size(); // rows, at most: nothing below reallocates
  for (const row_block* b : others)
    most += b->rows();
  synced.values.reserve(most * dim_);
  counts_.clear();   // per row: changes in it
  only_own_.clear(); // per row: changed here only
  // Every slot back to none however this ends: the last pass frees each
  // row's, and this whatever an exception left.
  struct slots_reset {
    replica& r;
    const row_block& synced;
    bool armed = true;
    ~slots_reset() {
      if (!armed)
        return;
      for (uint32_t u : synced.inputs)
        r.input_slot_[u] = none;
      for (uint32_t v : synced.outputs)
        r.output_slot_[v] = none;
    }
  } reset{*this, synced};

  std::vector<float> own(dim_);
  for (bool output : {false, true}) {
    auto& slot_of = output ? output_slot_ : input_slot_;
    auto& ids = output ? synced.outputs : synced.inputs;
    const size_t first = output ? synced.inputs.size() : 0; // the slots' place in the values
    auto add = [&](uint32_t id, const float* change, bool mine) {
      uint32_t& slot = slot_of[id];
      if (slot == none) { // a first change is the combination so far
        slot = static_cast<uint32_t>(ids.size());
        ids.push_back(id);
        synced.values.insert(synced.values.end(), change, change + dim_);
        counts_.push_back(1);
        only_own_.push_back(mine);
        return;
      }
      const size_t k = first + slot;
      if (!mine)
        only_own_[k] = 0;
      add_change(kind, synced.values.data() + k * dim_, counts_[k], change, dim_);
    };
    auto add_own = [&] {
      for (uint32_t id : output ? touched_.outputs : touched_.inputs) {
        if (master_of(output, id) != self)
          continue;
        const float* now = store_row(output, id);
        const float* then = base_row(output, id);
        for (uint32_t c = 0; c < dim_; ++c)
          own[c] = now[c] - then[c];
        add(id, own.data(), true);
      }
    };
    bool own_added = false;
    for (const row_block* b : others) {
      if (!own_added && b->host > self) {
        add_own();
        own_added = true;
      }
      const size_t begin = output ? b->inputs.size() : 0;
      const auto& rows = output ? b->outputs : b->inputs;
      for (size_t i = 0; i < rows.size(); ++i)
        add(rows[i], b->values.data() + (begin + i) * dim_, false);
    }
    if (!own_added)
      add_own();
  }

  // The new values, into the block, the store and the base.
  for (size_t k = 0; k < synced.rows(); ++k) {
    const bool output = k >= synced.inputs.size();
    const uint32_t id = output ? synced.outputs[k - synced.inputs.size()] : synced.inputs[k];
    float* g = synced.values.data() + k * dim_;
    float* now = store_row(output, id);
    float* base = base_row(output, id);
    if (only_own_[k]) { // exactly as trained here: base + (row - base) may round
      std::memcpy(g, now, dim_ * sizeof(float));
      std::memcpy(base, now, dim_ * sizeof(float));
    } else {
      finish_changes(kind, g, counts_[k], dim_);
      for (uint32_t c = 0; c < dim_; ++c) {
        const float value = base[c] + g[c];
        g[c] = value;
        now[c] = value;
        base[c] = value;
      }
    }
    (output ? output_slot_ : input_slot_)[id] = none;
    unstored_.add(output, id);
  }
  reset.armed = false; // (synced is about to be moved out)
  return synced;
}

row_block replica::unstored_values() {
  row_block b;
  b.width = dim_;
  b.inputs = unstored_.inputs;
  b.outputs = unstored_.outputs;
  b.values.reserve(b.rows() * dim_);
  for (bool output : {false, true}) // inputs first, as every block lays out its values
    for (uint32_t id : output ? b.outputs : b.inputs) {
      const float* now = store_row(output, id);
      b.values.insert(b.values.end(), now, now + dim_);
    }
  forget_unstored();
  return b;
}

void replica::forget_unstored() { unstored_.clear(); }

status replica::apply(row_block_ref synced) {
  if (synced.width != dim_)
    return failure{"row block: rows of " + std::to_string(synced.width) + " floats, the model has " +
                   std::to_string(dim_)};
  for (size_t i = 0; i < synced.rows(); ++i) {
    const bool output = i >= synced.inputs.size();
    const uint32_t id = output ? synced.outputs[i - synced.inputs.size()] : synced.inputs[i];
    if (auto s = check_row(output, id); !s)
      return s;
    const float* value = synced.values + i * dim_;
    std::memcpy(store_row(output, id), value, dim_ * sizeof(float));
    if (base_inputs_)
      std::memcpy(base_row(output, id), value, dim_ * sizeof(float));
  }
  return {};
}

void replica::load(bool outputs, uint32_t begin, uint32_t count, uint32_t first, uint32_t width, const float* values) {
  for (uint32_t r = 0; r < count; ++r) {
    const float* from = values + size_t{r} * width;
    std::memcpy(store_row(outputs, begin + r) + first, from, width * sizeof(float));
    if (base_inputs_)
      std::memcpy(base_row(outputs, begin + r) + first, from, width * sizeof(float));
  }
}

void replica::next_round() { touched_.clear(); }

} // namespace gridvec
