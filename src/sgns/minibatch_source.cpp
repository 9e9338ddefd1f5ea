#include "src/sgns/minibatch_source.hpp"

#include "src/sgns/sgns.hpp"

namespace gridvec {

example_form example_form_for(const train_options& opt, bool pair_by_pair) {
  if (opt.cbow)
    return example_form::cbow;
  if (opt.hs && pair_by_pair && !opt.window_kernel())
    return example_form::contexts_predict_centre;
  return example_form::centre_predicts_contexts;
}

minibatch_source::minibatch_source(const train_options& opt, uint32_t learner_id, const vocabulary_counts& counts,
                                   std::shared_ptr<const huffman_tree> tree, example_form form)
  : minibatch_examples_(opt.minibatch), negatives_(opt.negative), iter_(opt.iter), cbow_(opt.cbow),
    shared_negatives_(opt.window_kernel() && form == example_form::centre_predicts_contexts),
    start_alpha_(opt.start_alpha()), walker_(opt.iter, counts.size(), opt.work_queue()),
    random_(mix64(opt.seed, 0x1EA27E5ull + learner_id)), builder_(opt.window, form),
    sampler_(counts.counts, counts.train_words, opt.sample), tree_(std::move(tree)) {
  // Examples are interleaved on every path: the protocol's minibatches in
  // flight then do not all come from one stretch of repetitive text, and
  // every path learns more per epoch than in corpus order (docs/quality.md).
  if (opt.interleave > 1) {
    stride_ = opt.interleave;
    passage_words_ = opt.interleave * passage_words_per_stride;
  }
}

bool minibatch_source::read_passage(status& read) {
  current_.clear();
  bool first = true;
  for (;;) {
    auto step = walker_.next(raw_sentence_, read);
    if (read && step == part_walker::step::epoch_end) {
      if (first)
        continue;
      break;
    }
    if (!read || step != part_walker::step::sentence) {
      current_.finish(stride_);
      return false;
    }
    if (first) {
      passage_start_ = walker_.sentence_start();
      first = false;
    }
    sentence_.clear();
    for (uint32_t w : raw_sentence_)
      if ((random_.next() >> 32) < sampler_.threshold(w))
        sentence_.push_back(w);
    current_.add_sentence(sentence_);
    if (current_.words() >= passage_words_)
      break;
  }
  current_.finish(stride_);
  return true;
}

void minibatch_source::fill(batch_state& b, bool pausing, status& read) {
  minibatch& mb = b.mb;
  mb.clear();
  mb.seed = random_.next();
  mb.negatives = negatives_;
  mb.mean_inputs = cbow_;
  mb.shared_negatives = shared_negatives_;
  mb.hierarchical = tree_ != nullptr;
  mb.tree = tree_.get();
  // A minibatch holds minibatch_examples_ windows, whatever the examples
  // each window makes.
  uint32_t windows = 0;
  while (windows < minibatch_examples_) {
    if (!mid_sentence()) {
      if (pausing)
        break;
      const bool more = read_passage(read);
      if (!read)
        break;
      if (!mid_sentence()) {
        if (!more && (mb.examples() > 0 || !walker_.has_work()))
          break; // a part ended (a minibatch never mixes parts), or the work
        continue;
      }
      if (mb.examples() > 0 && passage_start_.part != b.start.part)
        break; // a minibatch never mixes parts: the passage waits for the next
      continue;
    }
    if (!b.has_start) {
      b.start = passage_start_;
      b.has_start = true;
    }
    auto ex = current_.next();
    if (builder_.add(ex.sentence, ex.length, ex.offset, random_, mb)) {
      ++b.trained;
      ++windows;
    }
  }
}

batch_ptr minibatch_source::next_in_flight(size_t limit, size_t releasing, bool pausing, uint64_t generation,
                                           status& read) {
  while (in_flight_.size() - releasing < limit) {
    if ((pausing && !mid_sentence()) || !has_work())
      break;
    auto b = std::make_shared<batch_state>();
    b->generation = generation;
    fill(*b, pausing, read);
    if (!read)
      return nullptr;
    if (b->mb.pairs() == 0) {
      count_trained(*b);
      continue; // a part ended, the pause point was reached, or no context
    }
    in_flight_.push_back(b);
    return b;
  }
  return nullptr;
}

void minibatch_source::retire(const batch_state& b) {
  for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it)
    if (it->get() == &b) {
      in_flight_.erase(it);
      break;
    }
  count_trained(b);
}

void minibatch_source::count_trained(const batch_state& b) {
  unreported_.words += b.trained;
  unreported_.pairs += b.mb.pairs();
  trained_words_ += b.trained;
}

std::vector<part_cursor> minibatch_source::safe_cursors() const {
  std::vector<part_cursor> out(walker_.parts().begin(), walker_.parts().end());
  for (auto& c : out) {
    if (mid_sentence() && c.part == passage_start_.part)
      c = passage_start_;
    for (const auto& b : in_flight_)
      if (b->has_start && b->start.part == c.part) {
        c = b->start;
        break;
      }
  }
  return out;
}

float minibatch_source::alpha_for(const batch_state& b) const {
  return learning_rate(start_alpha_, b.start.processed, uint64_t{iter_} * b.start.words);
}

} // namespace gridvec
