#include "src/shard/shard_service.hpp"

#include "src/model/similarity.hpp"

namespace gridvec {

shard_service::shard_service(std::shared_ptr<shard_store> store, slice_header header, uint64_t init_seed,
                             initial_rows init)
  : store_(std::move(store)), header_(header), init_seed_(init_seed), init_(std::move(init)) {}

status shard_service::start_from(const std::string& checkpoint) {
  if (!checkpoint.empty())
    return read_slice_file(checkpoint, header_, store_->input_data(), store_->output_data());
  if (init_)
    return init_(*store_);
  return {};
}

expected<wire_bytes> shard_service::read_rows(uint32_t begin, uint32_t end, bool output) const {
  // Output rows go on past the vocabulary with -hs 1 (the tree's nodes).
  if (begin > end || end > (output ? store_->output_rows() : store_->vocab_size()))
    return failure{"rows [" + std::to_string(begin) + ", " + std::to_string(end) + ") are outside the vocabulary"};
  wire_bytes out(size_t{store_->rows_held_in(begin, end)} * store_->slice().width * sizeof(float));
  auto* into = reinterpret_cast<float*>(out.data());
  if (output)
    store_->read_output_rows(begin, end, into);
  else
    store_->read_input_rows(begin, end, into);
  return out;
}

expected<file_digest> shard_service::save(const std::string& path, uint64_t vocab_crc) const {
  if (vocab_crc != header_.vocab_crc)
    return failure{"shard " + std::to_string(header_.shard) + " holds another vocabulary"};
  return write_slice_file(path, header_, store_->input_data(), store_->output_data());
}

status shard_service::load(const std::string& path, uint64_t vocab_crc) {
  slice_header expect = header_;
  expect.vocab_crc = vocab_crc;
  return read_slice_file(path, expect, store_->input_data(), store_->output_data());
}

status shard_service::reset() {
  store_->reset(init_seed_);
  return init_ ? init_(*store_) : status{};
}

status shard_service::check_words(const std::vector<uint32_t>& words) const {
  for (uint32_t w : words)
    if (w >= store_->vocab_size())
      return failure{"word id " + std::to_string(w) + " is outside the vocabulary"};
  return {};
}

} // namespace gridvec
