#pragma once
// The Huffman tree of hierarchical softmax (-hs 1), built as word2vec.c's
// CreateBinaryTree builds it: the two least frequent nodes are joined until
// one root is left, so a word's path is short in proportion to its
// frequency. Word w's path from the root is a list of inner nodes
// points(w)[0..length(w)) and the branch taken at each, codes(w)[d] (0 or
// 1); training w as an output trains each of those inner nodes' vectors to
// predict its branch (label 1 - code, as word2vec.c). The V - 1 inner nodes
// are numbered 0..V-2, the root V-2.
//
// Counts must be sorted by decreasing count (vocabulary ids are), as the
// reference's two-queue construction assumes; the codes are then exactly
// word2vec.c's for the same counts. Paths are kept in one flat array
// (a word's path is about log2 V long), not word2vec.c's 40 entries per word.
#include <cstdint>
#include <vector>

namespace gridvec {

class huffman_tree {
public:
  static huffman_tree from_counts(const std::vector<uint64_t>& counts);

  uint32_t words() const { return static_cast<uint32_t>(offsets_.size() - 1); }
  /// Inner nodes: words() - 1 (none for fewer than two words).
  uint32_t inner_nodes() const { return inner_nodes_for(words()); }
  /// The same for a vocabulary of `words`, without building the tree.
  static uint32_t inner_nodes_for(uint32_t words) { return words > 1 ? words - 1 : 0; }
  uint32_t length(uint32_t word) const { return static_cast<uint32_t>(offsets_[word + 1] - offsets_[word]); }
  const uint32_t* points(uint32_t word) const { return points_.data() + offsets_[word]; }
  const uint8_t* codes(uint32_t word) const { return codes_.data() + offsets_[word]; }
  /// The mean path length over the corpus: what one output word costs in
  /// dot products.
  double mean_length() const { return mean_length_; }
  uint64_t bytes() const {
    return offsets_.size() * sizeof(uint64_t) + points_.size() * sizeof(uint32_t) + codes_.size();
  }

private:
  std::vector<uint64_t> offsets_{0}; // word w's path: [offsets_[w], offsets_[w + 1])
  std::vector<uint32_t> points_;
  std::vector<uint8_t> codes_;
  double mean_length_ = 0;
};

} // namespace gridvec
