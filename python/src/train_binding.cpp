// _gridvec.train: `gridvec train` in this process. The same steps as the
// command (apps/cli/cli_train.cpp): the options parsed by the same parser,
// paths made absolute, outputs checked, the corpus staged, then the same
// entry point, run_train_job, which runs every role in a local actor
// system; the vectors file it writes is read back into an array.
#include "python/src/bindings.hpp"

#include <pybind11/stl.h>

#include <caf/all.hpp>

#include <gridvec/local.hpp>
#include <gridvec/logging.hpp>
#include <gridvec/roles/coordinator.hpp> // request_cancel

#include "apps/cli/staged_corpus.hpp"
#include "src/formats/vectors_file.hpp"

namespace gridvec::python {

namespace {

struct trained {
  job_summary summary;
  embedding_table table; // empty for -classes and --explain: no vectors
};

trained train_here(train_options opt) {
  make_paths_absolute(opt);
  check(check_outputs(opt));
  configure_logging(opt.debug == 0 ? log_level::warn : log_level::info);
  auto staged = take(staged_corpus::prepare(opt, false));
  trained out;
  {
    caf::actor_system_config cfg;
    configure_scheduler(cfg, opt.threads);
    caf::actor_system sys{cfg};
    out.summary = take(run_train_job(sys, opt));
  }
  if (!opt.explain && opt.classes == 0)
    out.table = take(read_vectors(opt.output));
  return out;
}

py::tuple train(const std::vector<std::string>& args) {
  auto opt = parse_train_options(args);
  if (!opt)
    throw py::value_error(opt.error());
  if (opt->output.empty())
    throw py::value_error("missing -output FILE (the vectors file)");
  trained result;
  // Ctrl-C stops the job as in `gridvec train` (at its next progress
  // tick, nothing written): the coordinator takes the request.
  run_interruptibly([&] { result = train_here(*opt); }, [] { request_cancel(); });
  const size_t rows = result.table.words.size();
  const size_t dim = result.table.dim;
  py::list words;
  for (auto& w : result.table.words)
    words.append(py::str(w));
  return py::make_tuple(words, rows_array(std::move(result.table.data), rows, dim), to_dict(result.summary));
}

} // namespace

void bind_train(py::module_& m) {
  m.def("train", &train, py::arg("args"),
        "Runs `gridvec train ARGS...` in this process (the GIL released) and returns (words, vectors, summary); "
        "ValueError for a bad option, GridvecError if the job fails.");
  m.def("train_help", &train_help, "The options of `gridvec train`, with their defaults (its --help).");
}

} // namespace gridvec::python
