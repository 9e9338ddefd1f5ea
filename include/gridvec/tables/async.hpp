#pragma once
// (Public header of actors/table/table_async.cpp.)
// Asynchronous calls on a table: each returns a std::future at once, while
// its requests go out and its replies come back on a lane of its own (a
// thread with its own client of the shards), so that a program computes
// while the shards answer: fetch the next batch's rows while the current
// one is computed, send gradients without waiting for them.
//
//   auto weights = gridvec::async_table::open(sys, shards, spec);  // expected<unique_ptr<async_table>>
//   auto next = (*weights)->get(keys);                            // std::future<expected<std::vector<float>>>
//   ... compute ...
//   auto w = next.get();
//   auto pushed = (*weights)->push(keys, gradients);          // std::future<status>
//
// Calls given to one lane run in the order given; with several lanes,
// calls may overlap and finish in any order (a caller that needs one call
// to see another's effect waits for its future first). Any call of
// `table` can be made asynchronous with submit().
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <vector>

#include <gridvec/tables/client.hpp>

namespace gridvec {

class async_table {
public:
  /// Opens `spec` (as table_client::open) on each of `lanes` lanes; the
  /// first lane's error line if one cannot.
  static expected<std::unique_ptr<async_table>> open(caf::actor_system& sys, std::vector<table_shard_actor> shards,
                                                     const table_spec& spec, unsigned lanes = 1,
                                                     std::chrono::milliseconds timeout = std::chrono::seconds(60));
  ~async_table(); // runs the calls already given, then stops the lanes
  async_table(const async_table&) = delete;
  async_table& operator=(const async_table&) = delete;

  /// Runs f(table&) on the next lane (round robin); its result comes through the future.
  template <class F>
  auto submit(F f) -> std::future<decltype(f(std::declval<table&>()))> {
    using R = decltype(f(std::declval<table&>()));
    auto promise = std::make_shared<std::promise<R>>();
    auto future = promise->get_future();
    enqueue([promise, f = std::move(f)](table& t) mutable {
      try {
        promise->set_value(f(t));
      } catch (...) {
        promise->set_exception(std::current_exception());
      }
    });
    return future;
  }

  std::future<expected<std::vector<float>>> get(std::vector<uint64_t> keys);
  std::future<status> put(std::vector<uint64_t> keys, std::vector<float> values);
  std::future<status> push(std::vector<uint64_t> keys, std::vector<float> gradients);
  std::future<status> add(std::vector<uint64_t> keys, std::vector<float> deltas);
  std::future<expected<std::vector<float>>> fetch(uint64_t row, std::vector<uint32_t> indices);
  std::future<expected<std::vector<float>>> fetch_rows(std::vector<uint64_t> rows, std::vector<uint32_t> indices);
  std::future<status> increment(uint64_t row, std::vector<uint32_t> indices, std::vector<float> values);
  std::future<expected<std::vector<double>>> dot(std::vector<uint64_t> a, std::vector<uint64_t> b);

  unsigned lanes() const;

private:
  async_table();
  void enqueue(std::function<void(table&)> call);
  struct lanes_type;
  std::unique_ptr<lanes_type> lanes_;
};

} // namespace gridvec
