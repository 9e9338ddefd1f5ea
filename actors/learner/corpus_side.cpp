// The learner's corpus side: word-id files from corpus parts, passages of
// subsampled sentences, minibatches cut from the window around each word,
// and where each part can safely restart.
#include "actors/learner/learner_state.hpp"

#include <spdlog/spdlog.h>

#include "src/corpus/id_stream.hpp"

namespace gridvec::learner {

namespace {

// Reads the next passage: whole sentences of the current part and epoch,
// subsampled, until it holds st.passage_words words or the epoch ends.
// Returns false at the end of a part (the passage may still hold words) or
// of the work.
bool read_passage(learner_state& st, status& read) {
  st.current.clear();
  bool first = true;
  for (;;) {
    auto step = st.walker->next(st.raw_sentence, read);
    if (read && step == part_walker::step::epoch_end) {
      if (first)
        continue;
      break;
    }
    if (!read || step != part_walker::step::sentence) {
      st.current.finish(st.stride);
      return false;
    }
    if (first) {
      st.passage_start = st.walker->sentence_start();
      first = false;
    }
    st.sentence.clear();
    for (uint32_t w : st.raw_sentence)
      if ((st.random->next() >> 32) < st.sampler->threshold(w))
        st.sentence.push_back(w);
    st.current.add_sentence(st.sentence);
    if (st.current.words() >= st.passage_words)
      break;
  }
  st.current.finish(st.stride);
  return true;
}

} // namespace

status preprocess(const vocabulary& vocab, const std::string& corpus, byte_range range, const std::string& ids_path,
                  invalid_utf8 mode, uint64_t& words) {
  auto writer = id_writer::create(ids_path);
  if (!writer)
    return failure{writer.error()};
  corpus_scanner scanner{corpus, mode};
  auto s = scanner.scan(
    range,
    [&](std::string_view w) {
      uint32_t id = vocab.id_of(w);
      if (id != vocabulary::npos)
        writer->add(id);
    },
    [&] { writer->end_sentence(); });
  if (!s)
    return s;
  words = writer->words();
  return writer->close();
}

// Where each part can be restarted without skipping anything: the start of
// the passage of its oldest unfinished minibatch, or of the passage being
// trained, or its read position.
std::vector<part_cursor> safe_cursors(const learner_state& st) {
  std::vector<part_cursor> out(st.walker->parts().begin(), st.walker->parts().end());
  for (auto& c : out) {
    if (st.mid_sentence() && c.part == st.passage_start.part)
      c = st.passage_start;
    for (const auto& b : st.in_flight)
      if (b->has_start && b->start.part == c.part) {
        c = b->start;
        break;
      }
  }
  return out;
}

// Fills the next minibatch from the current passage onwards. While pausing
// it does not start a new passage, so that a pause ends on a sentence
// boundary and the cursors are exact.
void fill(learner_state& st, batch_state& b, status& read) {
  minibatch& mb = b.mb;
  mb.clear();
  mb.seed = st.random->next();
  mb.negatives = st.cfg.negative;
  mb.mean_inputs = st.cfg.cbow;
  mb.hierarchical = st.tree != nullptr;
  mb.tree = st.tree.get();
  while (mb.examples() < st.cfg.minibatch) {
    if (!st.mid_sentence()) {
      if (st.state == mode::pausing)
        break;
      const bool more = read_passage(st, read);
      if (!read)
        break;
      if (!st.mid_sentence()) {
        if (!more && (mb.examples() > 0 || !st.walker->has_work()))
          break; // a part ended (a minibatch never mixes parts), or the work
        continue;
      }
      if (mb.examples() > 0 && st.passage_start.part != b.start.part)
        break; // a minibatch never mixes parts: the passage waits for the next
      continue;
    }
    if (!b.has_start) {
      b.start = st.passage_start;
      b.has_start = true;
    }
    auto ex = st.current.next();
    if (st.builder->add(ex.sentence, ex.length, ex.offset, *st.random, mb))
      ++b.trained;
  }
}

void count_trained(learner_state& st, const batch_state& b) {
  st.unreported.trained_words += b.trained;
  st.unreported.pairs += b.mb.pairs();
  st.trained_total += b.trained;
}

// Counts a minibatch as trained and forgets it.
void retire_batch(learner_state& st, const batch_state& b) {
  for (auto it = st.in_flight.begin(); it != st.in_flight.end(); ++it)
    if (it->get() == &b) {
      st.in_flight.erase(it);
      break;
    }
  count_trained(st, b);
}

// word2vec's learning rate for a minibatch: decayed linearly with the words
// processed before its first sentence.
float alpha_for(const learner_state& st, const batch_state& b) {
  return learning_rate(st.cfg.start_alpha(), b.start.processed, uint64_t{st.cfg.iter} * b.start.words);
}

// Forms the next minibatch to send, or returns nullptr when none may start
// now: not running, the window of in-flight minibatches is full (not
// counting `releasing` ones that end with the message this one will ride
// in), or the pause point or the end of the work is reached. A minibatch of
// words without context has nothing to send and is counted on the spot.
batch_ptr next_batch(learner_state& st, size_t releasing, status& read) {
  while ((st.state == mode::running || st.state == mode::pausing) &&
         st.in_flight.size() - releasing < st.cfg.in_flight) {
    if (st.state == mode::pausing && !st.mid_sentence())
      break;
    if (!st.walker->has_work() && !st.mid_sentence())
      break;
    auto b = std::make_shared<batch_state>();
    b->generation = st.generation;
    fill(st, *b, read);
    if (!read)
      return nullptr;
    if (b->mb.pairs() == 0) {
      retire_batch(st, *b);
      continue; // a part ended, the pause point was reached, or no context
    }
    return b;
  }
  return nullptr;
}

} // namespace gridvec::learner
