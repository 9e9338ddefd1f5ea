#pragma once
// -train, when it names more than one plain file (several files, a
// directory, .gz files, standard input): staged into one plain file before
// the job starts (src/corpus/corpus_inputs.hpp says why), and opt.train
// pointed at it; when it names one plain file (perhaps through a list or a
// directory), opt.train is that file. Shared by `gridvec train` and
// `gridvec submit`.
#include <optional>
#include <string>

#include <gridvec/core/options.hpp>
#include <gridvec/core/expected.hpp>

namespace gridvec {

class staged_corpus {
public:
  /// Resolves opt.train and, unless it is one plain file, stages it into
  ///   --work-dir DIR               DIR/corpus.txt
  ///   else --checkpoint-dir DIR    DIR/work/corpus.txt (a resumed job finds it)
  ///   else                         a new temporary directory (`gridvec train`
  ///                                only: a cluster's nodes read the corpus
  ///                                from a directory they share, so `submit`
  ///                                asks for --work-dir), removed afterwards.
  /// Fails with one line: an input missing or unreadable, nowhere to stage.
  static expected<staged_corpus> prepare(train_options& opt, bool for_cluster);

  staged_corpus(staged_corpus&& other) noexcept;
  staged_corpus& operator=(staged_corpus&&) = delete;
  ~staged_corpus();

  /// The staged file, if there is one.
  const std::optional<std::string>& path() const { return path_; }

private:
  staged_corpus() = default;
  std::optional<std::string> path_;
  std::string temp_dir_; // removed with this object, if set
};

} // namespace gridvec
