// The Python module gridvec._gridvec (python/gridvec/__init__.py wraps it):
// in-process training, a running cluster's controller and its tables.
#include "python/src/bindings.hpp"

#include <pybind11/stl.h>

#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <thread>

namespace gridvec::python {

void run_interruptibly(const std::function<void()>& work, const std::function<void()>& interrupt) {
  std::exception_ptr failed;
  std::promise<void> done;
  auto finished = done.get_future();
  std::thread worker{[&] {
    try {
      work();
    } catch (...) {
      failed = std::current_exception();
    }
    done.set_value();
  }};
  bool interrupted = false;
  std::optional<py::error_already_set> signal_error;
  for (;;) {
    std::future_status state;
    {
      py::gil_scoped_release unlocked;
      state = finished.wait_for(std::chrono::milliseconds(interrupted ? 1000 : 100));
    }
    if (state == std::future_status::ready)
      break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      signal_error.emplace(); // takes the pending Python exception
      interrupted = true;
      interrupt();
    }
  }
  worker.join();
  if (signal_error)
    throw std::move(*signal_error);
  if (failed)
    std::rethrow_exception(failed);
}

py::dict to_dict(const job_summary& s) {
  py::dict d;
  d["raw_words"] = s.raw_words;
  d["trained_words"] = s.trained_words;
  d["processed_words"] = s.processed_words;
  d["pairs"] = s.pairs;
  d["seconds"] = s.seconds;
  d["training_seconds"] = s.training_seconds;
  d["words_per_second"] = s.words_per_second();
  d["vocab_size"] = s.vocab_size;
  d["dim"] = s.dim;
  d["iterations"] = s.iterations;
  d["shards"] = s.shards;
  d["learners"] = s.learners;
  d["peak_rss_bytes"] = s.peak_rss_bytes;
  d["final_loss"] = s.final_loss;
  d["recoveries"] = s.recoveries;
  d["checkpoints"] = s.checkpoints;
  d["partition"] = s.replicated ? "replicated" : (s.word_split ? "words" : "columns");
  if (!s.explanation.empty())
    d["explanation"] = s.explanation;
  return d;
}

py::dict to_dict(const job_status& s) {
  py::dict d;
  d["job"] = s.job;
  d["phase"] = s.phase;
  d["message"] = s.message;
  d["epoch"] = s.epoch;
  d["iterations"] = s.iterations;
  d["progress"] = s.progress;
  d["words_per_second"] = s.words_per_second;
  d["eta_seconds"] = s.eta_seconds;
  d["alpha"] = s.alpha;
  d["loss"] = s.loss;
  d["bytes_per_word"] = s.bytes_per_word;
  d["processed_words"] = s.processed_words;
  d["total_words"] = s.total_words;
  d["shards"] = s.shards;
  d["learners"] = s.learners;
  d["vocab_size"] = s.vocab_size;
  d["last_checkpoint"] = s.last_checkpoint;
  d["recoveries"] = s.recoveries;
  d["seconds"] = s.seconds;
  return d;
}

py::list to_list(const std::vector<neighbour>& neighbours) {
  py::list out;
  for (const auto& n : neighbours)
    out.append(py::make_tuple(n.word, n.score));
  return out;
}

py::array_t<float> owned_array(std::vector<float>&& data, const std::vector<size_t>& shape) {
  auto* owned = new std::vector<float>(std::move(data));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  std::vector<py::ssize_t> extents(shape.begin(), shape.end()), strides(shape.size());
  py::ssize_t stride = sizeof(float);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= extents[i];
  }
  return py::array_t<float>(extents, strides, owned->data(), free_when_done);
}

} // namespace gridvec::python

PYBIND11_MODULE(_gridvec, m) {
  using namespace gridvec::python;
  m.doc() = "gridvec's C++ core: training, a cluster's controller, the tables (use the gridvec package)";
  py::register_exception<gridvec_error>(m, "GridvecError", PyExc_RuntimeError);
  bind_train(m);
  bind_cluster(m);
  bind_tables(m);
}
