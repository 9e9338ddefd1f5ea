#pragma once
// The stretch of corpus a learner is training: one or more whole sentences
// (after subsampling), and the order in which their words become examples.
//
// word2vec.c trains the words of a sentence in order. The message protocol
// keeps several minibatches in flight, all computed from vectors that do
// not yet hold each other's updates; if those minibatches come from one
// stretch of repetitive text (a wiki table: "style background lightblue
// style background cff ..."), the same few rows get hundreds of stale
// updates in a row, and their weights, computed before any of them landed,
// push the rows apart until they blow up (the default -sample 1e-3 with 10
// in flight diverged on the dev corpus, docs/quality.md). The Network-efficient word2vec paper (section
// 5.1) forms minibatches "interleaved" for this reason: a passage of many
// sentences is visited with a stride, so consecutive examples lie `stride`
// words apart and a repetitive stretch of L words puts about L / stride
// examples into the minibatches in flight instead of L. The fused path,
// which has nothing in flight, learns more per epoch this way too
// (docs/quality.md): consecutive updates no longer all pull on the rows of
// one paragraph.
//
// With a stride of 1 and one sentence per passage (--interleave 1),
// examples come in corpus order, as word2vec.c trains them.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gridvec {

class passage {
public:
  void clear();
  /// Appends a sentence (may be empty: it then adds nothing).
  void add_sentence(const std::vector<uint32_t>& words);
  /// Fixes the visiting order: positions p, p + stride, p + 2·stride, ...
  /// for p = 0, 1, ..., stride - 1. Call after the last add_sentence.
  void finish(uint32_t stride);

  size_t words() const { return words_.size(); }
  /// Examples still to visit.
  bool pending() const { return next_ < order_.size(); }

  /// The next position to train: the sentence holding it and the
  /// position's offset within that sentence.
  struct example {
    const uint32_t* sentence;
    size_t length;
    size_t offset;
  };
  example next();

private:
  std::vector<uint32_t> words_;
  std::vector<uint32_t> sentence_of_; // per word: index into starts_
  std::vector<uint32_t> starts_;      // first word of each sentence, then words_.size()
  std::vector<uint32_t> order_;
  size_t next_ = 0;
};

} // namespace gridvec
