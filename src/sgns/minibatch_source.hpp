#pragma once
// A learner's minibatches, from its corpus parts to (input, outputs)
// examples: the parts' word-id files walked sentence by sentence
// (src/corpus/part_walker.hpp), frequent words subsampled, sentences
// gathered into passages whose examples are visited interleaved
// (src/corpus/passage.hpp), and each example cut from word2vec's random
// window (src/sgns/minibatch.hpp). It also knows where each part can restart
// without skipping a word, given the minibatches still in flight.
//
// Plain C++, the same on every path: the learner actor asks it for the next
// minibatch and trains or sends it the way its shards' layout does.
#include <deque>
#include <memory>
#include <vector>

#include <gridvec/core/options.hpp>
#include <gridvec/core/part_cursor.hpp>
#include <gridvec/core/vocabulary.hpp>
#include "src/corpus/part_walker.hpp"
#include "src/corpus/passage.hpp"
#include "src/sgns/huffman_tree.hpp"
#include "src/sgns/minibatch.hpp"
#include "src/util/rng.hpp"

namespace gridvec {

/// One minibatch from its forming until it is trained.
struct batch_state {
  minibatch mb;
  std::vector<float> sum; // summed partial dot products (the protocol path)
  uint64_t generation = 0;
  part_cursor start; // the passage its first example came from
  bool has_start = false;
  uint64_t trained = 0; // input words it trains
};
using batch_ptr = std::shared_ptr<batch_state>;

/// An interleaved passage holds about this many words per unit of stride,
/// so that each phase of the stride spans more examples than a learner keeps
/// in flight by default (10 x 64), and a pause or rollback re-does at most
/// 64 x 1024 words.
inline constexpr uint32_t passage_words_per_stride = 1024;

class minibatch_source {
public:
  /// Learner `learner_id`'s source: its random numbers are its own, drawn
  /// from the job's seed.
  minibatch_source(const train_options& opt, uint32_t learner_id, const vocabulary_counts& counts,
                   std::shared_ptr<const huffman_tree> tree);

  /// Its parts: add, reset, the cursors, whether any work is left.
  part_walker& walker() { return walker_; }
  const part_walker& walker() const { return walker_; }
  const subsampler& sampler() const { return sampler_; }

  /// Whether a passage is being trained (its sentences not all visited).
  bool mid_sentence() const { return current_.pending(); }
  /// Whether anything is left to train: a passage or a part.
  bool has_work() const { return mid_sentence() || walker_.has_work(); }
  /// Forgets the passage being trained (a halt or rollback restarts it).
  void drop_passage() { current_.clear(); }

  /// Fills `b` with the next minibatch from the current passage onwards,
  /// up to --minibatch examples. It never mixes parts; while `pausing` it
  /// does not start a new passage, so that a pause ends on a sentence
  /// boundary. `read` carries a part that cannot be read.
  void fill(batch_state& b, bool pausing, status& read);

  /// Where each part can be restarted without skipping anything: the start
  /// of the passage of its oldest minibatch of `in_flight`, or of the
  /// passage being trained, or its read position.
  std::vector<part_cursor> safe_cursors(const std::deque<batch_ptr>& in_flight) const;

  /// word2vec's learning rate for a minibatch: decayed linearly with the
  /// words of its part processed before its first sentence.
  float alpha_for(const batch_state& b) const;

private:
  // The next passage: whole sentences of the current part and epoch,
  // subsampled, until it holds passage_words_ words or the epoch ends.
  // False at the end of a part (the passage may still hold words) or of
  // the work.
  bool read_passage(status& read);

  uint32_t minibatch_examples_, negatives_, iter_;
  bool cbow_;
  float start_alpha_;
  part_walker walker_;
  rng random_;
  example_builder builder_;
  subsampler sampler_;
  std::shared_ptr<const huffman_tree> tree_; // -hs 1
  // The passage: sentences until it holds passage_words_ words, visited
  // with this stride (1 and 1 with --interleave 1: word2vec.c's order).
  uint32_t passage_words_ = 1;
  uint32_t stride_ = 1;
  std::vector<uint32_t> raw_sentence_;
  std::vector<uint32_t> sentence_; // after subsampling
  passage current_;
  part_cursor passage_start_; // its part's cursor before its first sentence
};

} // namespace gridvec
