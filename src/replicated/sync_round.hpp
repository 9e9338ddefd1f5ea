#pragma once
// Where one host of --partition replicated stands in the synchronisation
// rounds (the GraphWord2Vec paper's RepModel-Opt), and the checks that keep
// the hosts in step:
//
//   loading --model loaded--> training --round's words done, a pause, or no
//   work--> syncing --every master's values--> training (or finished, once
//   every host had no work left)
//
// In a round each host sends every master the changes of the master's rows
// (receive_changes at the master); a master combines them once every host's
// are in (complete_changes) and sends the new values to every host
// (hear_values at each). Plain C++: the learner actor sends and receives
// (actors/layouts/replica/replicated_path.cpp); tests drive the rounds directly.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <gridvec/core/expected.hpp>
#include "src/replicated/row_block.hpp"

namespace gridvec {

class sync_round {
public:
  enum class phase { loading, training, syncing, finished };

  phase at() const { return at_; }
  void set(phase p) { at_ = p; }
  uint64_t round() const { return round_; }
  /// Whether a master said every host is out of work: the last round.
  bool finishing() const { return finishing_; }

  /// Round 0 again, nothing received (a host's first work, or a rollback).
  void restart();
  /// Forgets the round in progress (a halt); loading until the model is
  /// loaded again.
  void forget();

  /// A host's changes of rows this host is master of, kept until every
  /// host's of that round are in. No host can be more than a round ahead
  /// of another (each round waits for every host), nor send a round twice:
  /// either is one line.
  status receive_changes(row_block changes);
  /// Every host's changes of `round`, taken, if all `hosts` are in and
  /// this host is syncing that round; otherwise nothing.
  std::optional<std::vector<row_block>> complete_changes(uint64_t round, uint32_t hosts);

  /// Checks a master's new values against the round this host is syncing.
  status check_values(const row_block& values) const;
  /// A master's values of this round are applied (this host's own too);
  /// `stored`: the master wrote its rows to the shards in this round. Once
  /// all `hosts` masters' are, the round is complete: true, and the next
  /// round begins (training, or finished after the last).
  bool hear_values(bool last, bool stored, uint32_t hosts);
  /// Whether the shards held the whole model as of the last complete round
  /// (every master stored it), or as loaded: a pause may settle then.
  bool shards_current() const { return shards_current_; }

private:
  // Nothing received or heard of the round in progress (restart, forget).
  void clear_round();

  phase at_ = phase::loading;
  uint64_t round_ = 0;
  // As master: the changes received, by round (a fast host's next round
  // may come in before this one has ended).
  std::map<uint64_t, std::vector<row_block>> changes_;
  uint32_t masters_heard_ = 0; // this round's new values received
  bool finishing_ = false;
  bool all_stored_ = true;     // every master heard this round stored
  bool shards_current_ = true; // see shards_current()
};

} // namespace gridvec
