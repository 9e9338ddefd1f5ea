#include "src/util/thread_crew.hpp"

#include <stdexcept>

namespace gridvec {

thread_crew::thread_crew(size_t helpers) {
  threads_.reserve(helpers);
  for (size_t h = 0; h < helpers; ++h)
    threads_.emplace_back([this, h] { serve(h); });
}

thread_crew::~thread_crew() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_)
    t.join();
}

void thread_crew::run(size_t n, const std::function<void(size_t)>& part) {
  if (n > threads_.size() + 1)
    throw std::invalid_argument("thread_crew: more parts than threads");
  if (n == 0)
    return;
  {
    std::lock_guard lock(mutex_);
    part_ = &part;
    parts_ = n;
    running_ = n - 1;
    error_ = nullptr;
    ++job_;
  }
  if (n > 1)
    start_.notify_all();
  std::exception_ptr mine;
  try {
    part(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  part_ = nullptr;
  if (!mine)
    mine = error_;
  lock.unlock();
  if (mine)
    std::rethrow_exception(mine);
}

void thread_crew::serve(size_t helper) {
  uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return stopping_ || job_ != seen; });
    if (stopping_)
      return;
    seen = job_;
    if (helper + 1 >= parts_)
      continue; // not needed for this job
    const auto* part = part_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*part)(helper + 1);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_)
      error_ = error;
    if (--running_ == 0)
      done_.notify_one();
  }
}

} // namespace gridvec
