#pragma once
// What the binding files of the Python module (_gridvec) share: how a C++
// failure becomes a Python exception, how a blocking call runs without the
// GIL yet stays interruptible by Ctrl-C, and the conversions of the client
// types to Python values.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/report.hpp>
#include <gridvec/job_types.hpp>

namespace gridvec::python {

namespace py = pybind11;

/// A failure of gridvec itself (not of the caller's arguments): raised in
/// Python as gridvec.GridvecError, a RuntimeError, with gridvec's one line.
struct gridvec_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value, or gridvec_error with the failure's line.
template <class T>
T take(expected<T> result) {
  if (!result)
    throw gridvec_error(result.error());
  return std::move(*result);
}
inline void check(const status& s) {
  if (!s)
    throw gridvec_error(s.error());
}

/// Runs `work` on its own thread while this one waits without the GIL, so
/// that other Python threads run meanwhile; every 100 ms it takes the GIL
/// back to let Python handle signals. On Ctrl-C (KeyboardInterrupt, or any
/// exception a signal handler raises) it calls `interrupt` once, waits for
/// `work` to end and raises that exception. Called with the GIL held.
void run_interruptibly(const std::function<void()>& work, const std::function<void()>& interrupt);

py::dict to_dict(const job_summary& s);
py::dict to_dict(const job_status& s);
py::list to_list(const std::vector<neighbour>& neighbours);

/// A float32 array of `shape` (row-major) that owns `data` (moved, not copied).
py::array_t<float> owned_array(std::vector<float>&& data, const std::vector<size_t>& shape);
/// The same for rows x dim.
inline py::array_t<float> rows_array(std::vector<float>&& data, size_t rows, size_t dim) {
  return owned_array(std::move(data), {rows, dim});
}

void bind_train(py::module_& m);
void bind_cluster(py::module_& m);
void bind_tables(py::module_& m);

} // namespace gridvec::python
