#include "src/sgns/huffman_tree.hpp"

#include <algorithm>

namespace gridvec {

huffman_tree huffman_tree::from_counts(const std::vector<uint64_t>& counts) {
  huffman_tree t;
  const size_t v = counts.size();
  t.offsets_.assign(v + 1, 0);
  if (v < 2)
    return t; // no inner node: every path is empty
  // Nodes 0..v-1 are the words, v..2v-2 the inner nodes in the order they
  // are made. Words are taken from the end (least frequent first) and
  // inner nodes from the front: both queues stay sorted, so the two
  // smallest are at their heads (word2vec.c; on equal counts it prefers the
  // inner node, as here).
  std::vector<uint64_t> count(2 * v - 1, UINT64_MAX);
  std::copy(counts.begin(), counts.end(), count.begin());
  std::vector<uint32_t> parent(2 * v - 1, 0);
  std::vector<uint8_t> branch(2 * v - 1, 0);
  int64_t word = static_cast<int64_t>(v) - 1;
  size_t inner = v;
  auto take_smallest = [&]() -> size_t {
    if (word >= 0 && count[static_cast<size_t>(word)] < count[inner])
      return static_cast<size_t>(word--);
    return inner++;
  };
  for (size_t a = 0; a + 1 < v; ++a) {
    const size_t first = take_smallest(), second = take_smallest();
    count[v + a] = count[first] + count[second];
    parent[first] = parent[second] = static_cast<uint32_t>(v + a);
    branch[second] = 1;
  }
  // Each word's path, walked up from the word and stored root first.
  const size_t root = 2 * v - 2;
  std::vector<uint32_t> up;
  uint64_t total = 0, weighted = 0;
  for (size_t w = 0; w < v; ++w) {
    up.clear();
    for (size_t node = w; node != root; node = parent[node])
      up.push_back(static_cast<uint32_t>(node));
    for (size_t d = up.size(); d-- > 0;) {
      t.points_.push_back(parent[up[d]] - static_cast<uint32_t>(v));
      t.codes_.push_back(branch[up[d]]);
    }
    t.offsets_[w + 1] = t.points_.size();
    total += counts[w];
    weighted += counts[w] * up.size();
  }
  t.mean_length_ = total == 0 ? 0.0 : static_cast<double>(weighted) / static_cast<double>(total);
  return t;
}

} // namespace gridvec
