#pragma once
// Runs a few independent pieces of work at once, one thread each: the
// shards of a vocabulary partition, which share nothing.
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gridvec {

/// Calls f(i) for every i < n: i = 0 on this thread, the others on threads
/// of their own (and here, after the first, those a thread could not be
/// started for). Returns once every call has, and then rethrows the first
/// exception any call threw.
template <class F>
void on_threads(size_t n, F&& f) {
  std::vector<std::exception_ptr> failed(n);
  auto run = [&](size_t i) {
    try {
      f(i);
    } catch (...) {
      failed[i] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  size_t here_from = n;
  for (size_t i = 1; i < n; ++i) {
    try {
      helpers.emplace_back(run, i);
    } catch (const std::system_error&) {
      here_from = i;
      break;
    }
  }
  if (n > 0)
    run(0);
  for (size_t i = here_from; i < n; ++i)
    run(i);
  for (auto& t : helpers)
    t.join();
  for (auto& e : failed)
    if (e)
      std::rethrow_exception(e);
}

} // namespace gridvec
