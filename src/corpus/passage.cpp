#include "src/corpus/passage.hpp"

namespace gridvec {

void passage::clear() {
  words_.clear();
  sentence_of_.clear();
  starts_.clear();
  order_.clear();
  next_ = 0;
}

void passage::add_sentence(const std::vector<uint32_t>& words) {
  if (words.empty())
    return;
  const auto index = static_cast<uint32_t>(starts_.size());
  starts_.push_back(static_cast<uint32_t>(words_.size()));
  words_.insert(words_.end(), words.begin(), words.end());
  sentence_of_.insert(sentence_of_.end(), words.size(), index);
}

void passage::finish(uint32_t stride) {
  const size_t n = words_.size();
  if (stride == 0)
    stride = 1;
  order_.clear();
  order_.reserve(n);
  for (size_t phase = 0; phase < stride && phase < n; ++phase)
    for (size_t p = phase; p < n; p += stride)
      order_.push_back(static_cast<uint32_t>(p));
  next_ = 0;
}

passage::example passage::next() {
  const uint32_t p = order_[next_++];
  const uint32_t s = sentence_of_[p];
  const uint32_t begin = starts_[s];
  const uint32_t end = s + 1 < starts_.size() ? starts_[s + 1] : static_cast<uint32_t>(words_.size());
  return {words_.data() + begin, size_t{end - begin}, size_t{p - begin}};
}

} // namespace gridvec
