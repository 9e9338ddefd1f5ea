#pragma once
// A learner's minibatches, from its corpus parts to (input, outputs)
// examples: the parts' word-id files walked sentence by sentence
// (src/corpus/part_walker.hpp), frequent words subsampled, sentences
// gathered into passages whose examples are visited interleaved
// (src/corpus/passage.hpp), and each example cut from word2vec's random
// window (src/sgns/minibatch.hpp). It keeps the window of minibatches in
// flight (sent, not yet trained), counts what is trained, and knows where
// each part can restart without skipping a word.
//
// Plain C++, the same on every path: the learner's path asks it for the next
// minibatch and trains or sends it the way its shards' layout does.
#include <deque>
#include <memory>
#include <utility>
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

/// What a learner trained: input words (after subsampling) and pairs.
struct trained_count {
  uint64_t words = 0;
  uint64_t pairs = 0;
};

/// An interleaved passage holds about this many words per unit of stride,
/// so that each phase of the stride spans more examples than a learner keeps
/// in flight by default (10 x 64), and a pause or rollback re-does at most
/// 64 x 1024 words.
inline constexpr uint32_t passage_words_per_stride = 1024;

/// How a learner's windows become pairs. Skip-gram with -hs 1 trains in
/// word2vec.c's direction where each pair's update lands before the next
/// pair's dot products (`pair_by_pair`: the fused and replicated paths),
/// and there it trains better vectors. Where a minibatch's dot products
/// are all taken before its updates (the protocol path, a cluster), the
/// centre's path would then be met stale by each of its contexts, and the
/// centre predicting its contexts trains better (docs/quality.md,
/// "Hierarchical softmax"). With negative sampling alone the centre's
/// direction trains as well as word2vec.c on every path, and its one input
/// row a window keeps minibatches a third smaller on the wire. HogBatch's
/// window kernel (train_options::window_kernel()) takes these windows whole
/// and turns them itself, on every path: their minibatches say so
/// (minibatch::shared_negatives).
example_form example_form_for(const train_options& opt, bool pair_by_pair);

class minibatch_source {
public:
  /// Learner `learner_id`'s source: its random numbers are its own, drawn
  /// from the job's seed; its windows become pairs as `form` says.
  minibatch_source(const train_options& opt, uint32_t learner_id, const vocabulary_counts& counts,
                   std::shared_ptr<const huffman_tree> tree, example_form form);

  /// Its parts: add, reset, the cursors, whether any work is left.
  part_walker& walker() { return walker_; }
  const part_walker& walker() const { return walker_; }
  const subsampler& sampler() const { return sampler_; }

  /// Whether a passage is being trained (its sentences not all visited).
  bool mid_sentence() const { return current_.pending(); }
  /// Whether anything is left to train: a passage or a part.
  bool has_work() const { return mid_sentence() || walker_.has_work(); }

  /// Fills `b` with the next minibatch from the current passage onwards,
  /// up to --minibatch examples. It never mixes parts; while `pausing` it
  /// does not start a new passage, so that a pause ends on a sentence
  /// boundary. `read` carries a part that cannot be read.
  void fill(batch_state& b, bool pausing, status& read);

  /// The next minibatch to send, entered in the window of minibatches in
  /// flight; nullptr when none may start now: the window holds `limit`
  /// (not counting `releasing` ones that leave it with the message this one
  /// rides in), or the pause point (`pausing`, a sentence end) or the end of
  /// the work is reached. A minibatch with nothing to train (a part ended,
  /// or words without context) is counted on the spot.
  batch_ptr next_in_flight(size_t limit, size_t releasing, bool pausing, uint64_t generation, status& read);
  /// A minibatch of the window is trained: it leaves the window, counted.
  void retire(const batch_state& b);
  /// A minibatch trained outside the window (the paths that train in
  /// place, one at a time): counted.
  void count_trained(const batch_state& b);
  /// The minibatches in flight, in the order they were formed.
  const std::deque<batch_ptr>& in_flight() const { return in_flight_; }
  /// Forgets the window and the passage being trained (a halt or a
  /// rollback restarts from safe_cursors()).
  void drop_in_flight() {
    in_flight_.clear();
    current_.clear();
  }
  /// Trained since the last take (the learner's progress reports).
  trained_count take_trained() { return std::exchange(unreported_, trained_count{}); }
  bool has_untaken() const { return unreported_.pairs > 0; }
  /// Input words trained in all.
  uint64_t trained_words() const { return trained_words_; }

  /// Where each part can be restarted without skipping anything: the start
  /// of the passage of its oldest minibatch in flight, or of the passage
  /// being trained, or its read position.
  std::vector<part_cursor> safe_cursors() const;

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
  bool shared_negatives_; // skip-gram windows trained whole (train_options::window_kernel())
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
  std::deque<batch_ptr> in_flight_;
  trained_count unreported_;
  uint64_t trained_words_ = 0;
};

} // namespace gridvec
