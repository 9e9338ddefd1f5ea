#include <gridvec/tables/async.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace gridvec {

// One thread per lane, each with its own client (a client's scoped actor
// belongs to one thread) and its own queue of calls, run in order.
struct async_table::lanes_type {
  struct lane {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void(table&)>> calls;
    bool stopping = false;
    std::thread thread;
  };
  std::vector<std::unique_ptr<lane>> all;
  std::mutex next_mutex;
  size_t next = 0;

  void stop() {
    for (auto& l : all) {
      {
        std::lock_guard lock(l->mutex);
        l->stopping = true;
      }
      l->wake.notify_all();
    }
    for (auto& l : all)
      if (l->thread.joinable())
        l->thread.join();
  }
};

async_table::async_table() : lanes_(std::make_unique<lanes_type>()) {}

async_table::~async_table() { lanes_->stop(); }

expected<std::unique_ptr<async_table>> async_table::open(caf::actor_system& sys, std::vector<table_shard_actor> shards,
                                                         const table_spec& spec, unsigned lanes,
                                                         std::chrono::milliseconds timeout) {
  std::unique_ptr<async_table> out{new async_table()};
  std::vector<std::future<status>> opened;
  for (unsigned i = 0; i < std::max(lanes, 1u); ++i) {
    auto l = std::make_unique<lanes_type::lane>();
    lanes_type::lane* self = l.get();
    auto ready = std::make_shared<std::promise<status>>();
    opened.push_back(ready->get_future());
    self->thread = std::thread([self, ready, &sys, shards, spec, timeout] {
      table_client client{sys, shards, timeout};
      auto t = client.open(spec);
      ready->set_value(t ? status{} : status{failure{t.error()}});
      if (!t)
        return;
      for (;;) {
        std::function<void(table&)> call;
        {
          std::unique_lock lock(self->mutex);
          self->wake.wait(lock, [&] { return self->stopping || !self->calls.empty(); });
          if (self->calls.empty())
            return; // stopping, and every call given has run
          call = std::move(self->calls.front());
          self->calls.pop_front();
        }
        call(*t);
      }
    });
    out->lanes_->all.push_back(std::move(l));
  }
  for (auto& f : opened)
    if (auto ok = f.get(); !ok)
      return failure{ok.error()}; // out's destructor stops the lanes
  return out;
}

unsigned async_table::lanes() const { return static_cast<unsigned>(lanes_->all.size()); }

void async_table::enqueue(std::function<void(table&)> call) {
  size_t i;
  {
    std::lock_guard lock(lanes_->next_mutex);
    i = lanes_->next++ % lanes_->all.size();
  }
  auto& l = *lanes_->all[i];
  {
    std::lock_guard lock(l.mutex);
    l.calls.push_back(std::move(call));
  }
  l.wake.notify_one();
}

std::future<expected<std::vector<float>>> async_table::get(std::vector<uint64_t> keys) {
  return submit([keys = std::move(keys)](table& t) { return t.get(keys); });
}

std::future<status> async_table::put(std::vector<uint64_t> keys, std::vector<float> values) {
  return submit([keys = std::move(keys), values = std::move(values)](table& t) { return t.put(keys, values); });
}

std::future<status> async_table::push(std::vector<uint64_t> keys, std::vector<float> gradients) {
  return submit(
    [keys = std::move(keys), gradients = std::move(gradients)](table& t) { return t.push(keys, gradients); });
}

std::future<status> async_table::add(std::vector<uint64_t> keys, std::vector<float> deltas) {
  return submit([keys = std::move(keys), deltas = std::move(deltas)](table& t) { return t.add(keys, deltas); });
}

std::future<expected<std::vector<float>>> async_table::fetch(uint64_t row, std::vector<uint32_t> indices) {
  return submit([row, indices = std::move(indices)](table& t) { return t.fetch(row, indices); });
}

std::future<expected<std::vector<float>>> async_table::fetch_rows(std::vector<uint64_t> rows,
                                                                  std::vector<uint32_t> indices) {
  return submit(
    [rows = std::move(rows), indices = std::move(indices)](table& t) { return t.fetch_rows(rows, indices); });
}

std::future<status> async_table::increment(uint64_t row, std::vector<uint32_t> indices, std::vector<float> values) {
  return submit([row, indices = std::move(indices), values = std::move(values)](table& t) {
    return t.increment(row, indices, values);
  });
}

std::future<expected<std::vector<double>>> async_table::dot(std::vector<uint64_t> a, std::vector<uint64_t> b) {
  return submit([a = std::move(a), b = std::move(b)](table& t) { return t.dot(a, b); });
}

} // namespace gridvec
