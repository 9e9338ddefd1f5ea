#pragma once
// Walks the corpus parts a learner is given, sentence by sentence and epoch
// after epoch, keeping each part's cursor (part_cursor.hpp) up to date so
// that the learner can report, checkpoint and hand over exactly where it is.
// Knows nothing of actors or minibatches.
#include <deque>
#include <optional>
#include <vector>

#include <gridvec/core/expected.hpp>
#include "src/corpus/id_stream.hpp"
#include <gridvec/core/part_cursor.hpp>

namespace gridvec {

class part_walker {
public:
  /// `vocabulary_size`: every word id must be below it. The id files lie
  /// in work and checkpoint directories without a checksum, and an id out
  /// of range would index past the vectors; such a file fails with a line.
  /// With `leases` (the coordinator's work queue, src/corpus/work_queue.hpp),
  /// every part given is trained to the end of the epoch it is in, then
  /// counts as done here: the coordinator hands it out again for the next.
  /// Without, the parts are walked epoch by epoch: one epoch of each part,
  /// fewest epochs first, then the next epoch of each. Each part's learning
  /// rate decays over its own words (part_cursor::fraction), so several
  /// parts give it the work queue's sawtooth, which trains better vectors
  /// than one decay over all (docs/quality.md).
  explicit part_walker(uint32_t iterations, uint64_t vocabulary_size = UINT64_MAX, bool leases = false)
    : iterations_(iterations), vocabulary_size_(vocabulary_size), leases_(leases) {}

  /// Adds parts to the end of the work (finished ones are kept for reports;
  /// with leases, a part given again replaces its ended lease).
  status add(const std::vector<part_cursor>& parts);
  /// Makes `parts` the whole work, from their cursors (a rollback).
  status reset(const std::vector<part_cursor>& parts);

  enum class step { sentence, epoch_end, part_end, no_work };
  /// Reads the next sentence of the current part into `out`. At the end of
  /// an epoch after which the same part goes on it rewinds and returns
  /// epoch_end (an interleaved passage ends there, src/corpus/passage.hpp);
  /// where another part comes next it moves on to it and returns part_end
  /// (so that no minibatch mixes parts); no_work once every part is done.
  step next(std::vector<uint32_t>& out, status& read);

  /// True while some part has epochs left.
  bool has_work() const;
  /// The part being read (valid while has_work()): its cursor points at the
  /// sentence after the last one returned.
  const part_cursor& current() const { return parts_[current_]; }
  /// The current part's cursor before the last sentence returned.
  const part_cursor& sentence_start() const { return sentence_start_; }
  /// Every part's cursor, in the order they were given.
  const std::deque<part_cursor>& parts() const { return parts_; }
  uint32_t iterations() const { return iterations_; }

private:
  status open_current();
  /// Makes current_ the part to read next, or parts_.size() if none is left.
  void choose_current();
  /// Whether parts_[i] has nothing left to train here.
  bool done(size_t i) const;

  uint32_t iterations_;
  uint64_t vocabulary_size_;
  bool leases_;
  std::deque<part_cursor> parts_;
  std::deque<uint32_t> until_; // per part: the epoch its training here ends at
  size_t current_ = 0;
  std::optional<id_reader> reader_; // on parts_[current_]
  part_cursor sentence_start_;
};

} // namespace gridvec
