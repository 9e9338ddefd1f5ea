#pragma once
// A fixed set of helper threads that run the parts of one job at a time
// beside the thread that asks: run(n, part) calls part(0) on the caller and
// part(1), ..., part(n - 1) on helpers, and returns once every part has.
// For work cut into pieces of a millisecond or so, again and again (a
// replicated host's minibatches), where a thread started per piece would
// cost more than the piece: the helpers wait between jobs, and are joined
// when the crew is destroyed.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gridvec {

class thread_crew {
public:
  /// `helpers` threads besides the caller's.
  explicit thread_crew(size_t helpers);
  ~thread_crew();
  thread_crew(const thread_crew&) = delete;
  thread_crew& operator=(const thread_crew&) = delete;

  size_t helpers() const { return threads_.size(); }
  /// Runs part(0) here and part(i) for 0 < i < n on helper i - 1 (n is at
  /// most helpers() + 1), and waits for all. An exception from a part is
  /// rethrown here, once every part has ended.
  void run(size_t n, const std::function<void(size_t)>& part);

private:
  void serve(size_t helper);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(size_t)>* part_ = nullptr;
  uint64_t job_ = 0;      // which job the helpers are asked to run
  size_t parts_ = 0;      // of the current job, the caller's included
  size_t running_ = 0;    // helpers' parts not yet ended
  bool stopping_ = false; // the crew is being destroyed
  std::exception_ptr error_;
};

} // namespace gridvec
