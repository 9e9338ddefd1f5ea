#pragma once
// (Public header of actors/table/table_client.cpp.)
// The client of the parameter server's tables (docs/tables.md), as an
// application uses it: blocking calls from plain code (main, a thread; not
// from inside an actor), each split over the table shards and put back
// together. One client per thread (it owns a scoped_actor).
//
//   auto shards = gridvec::connect_table_shards(sys, cluster);   // or spawn_table_shards(sys, 2)
//   gridvec::table_client client{sys, *shards};
//   gridvec::table_spec spec;  spec.name = "weights"; spec.dim = 64;
//   spec.init = gridvec::table_init::normal; spec.init_scale = 0.01f;
//   spec.optimizer = gridvec::table_optimizer::adagrad; spec.learning_rate = 0.1f;
//   auto t = client.open(spec);                                  // expected<gridvec::table>
//   auto rows = t->get(keys);                                    // keys.size() x 64 floats
//   t->push(keys, gradients);                                    // Adagrad on the shards
//
// Every call returns its result or one error line (a shard's own, naming
// the table and shard, or "no answer within ..." when a shard is gone).
#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gridvec/protocol.hpp>
#include <gridvec/core/cluster_config.hpp>
#include <gridvec/core/table_operations.hpp>
#include <gridvec/core/table_spec.hpp>
#include <gridvec/core/table_wire.hpp>

namespace gridvec {

/// Connects to every table shard of a running cluster (its non-standby shard
/// nodes, in config order). Blocks; `sys` must be configured with
/// configure_cluster_system. One error line if a node cannot be reached.
expected<std::vector<table_shard_actor>> connect_table_shards(caf::actor_system& sys, const cluster_config& cluster);

/// Asks the standby shard node `standby` of a running cluster to host table
/// shard `index` of `count` in place of a lost one: its spare table shard
/// loads that shard's slices from the cluster's table-dir (their last save)
/// within `load_timeout`. Blocks; one error line if the node cannot be
/// reached, is no standby shard node, or has taken over another shard.
expected<table_shard_actor> take_over_table_shard(caf::actor_system& sys, const cluster_config& cluster,
                                                  const node_spec& standby, uint32_t index, uint32_t count,
                                                  std::chrono::milliseconds load_timeout);

/// One key's value and optimizer slots, as table::fetch returns them.
struct table_row {
  std::vector<float> value; // dim floats
  std::vector<float> slots; // adagrad: G (dim); adam: m then s (2 dim); sgd: none
  uint32_t step = 0;        // adam's step count
};

class table;

class table_client {
public:
  table_client(caf::actor_system& sys, std::vector<table_shard_actor> shards,
               std::chrono::milliseconds timeout = std::chrono::seconds(60));

  uint32_t shards() const;
  /// Creates the table on every shard, or opens it if it exists with the
  /// same spec (another spec is an error).
  expected<table> open(const table_spec& spec);
  /// An existing table by name, with the spec its shards hold.
  expected<table> find(const std::string& name);
  /// Every table, as each shard sees it: one table_info per table and shard.
  expected<std::vector<table_info>> list();

  /// What this client (and its tables) sent and received so far: requests,
  /// and the Cap'n Proto bytes of requests and replies (the messages' own
  /// bytes, without the transport's framing).
  struct traffic_count {
    uint64_t requests = 0, bytes_sent = 0, bytes_received = 0;
  };
  traffic_count traffic() const;

  /// The shards this client has seen go down (their process ended, or their
  /// node became unreachable), by index, in order.
  std::vector<uint32_t> lost_shards();

  struct core; // the shards and the scoped actor, shared with the tables (table_client.cpp)

private:
  std::shared_ptr<core> core_;
};

/// A table open through a client (copies share the client). Keys are row
/// ids of a matrix or any 64-bit key of a map (table_key("text") for a
/// string). Values are row-major: keys.size() x dim floats.
class table {
public:
  const table_spec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  /// The shards it is spread over (its client's).
  uint32_t shards() const;

  // --- map API (the Spark + parameter server talk) ---------------------------------------------------
  /// Multi-get: rows never written start with the table's initializer.
  expected<std::vector<float>> get(std::span<const uint64_t> keys);
  status put(std::span<const uint64_t> keys, std::span<const float> values);
  /// Sets the rows that do not exist; [i] is whether key i was set.
  expected<std::vector<bool>> set_if_absent(std::span<const uint64_t> keys, std::span<const float> values);
  /// [i] is whether key i existed.
  expected<std::vector<bool>> remove(std::span<const uint64_t> keys);
  /// Several multi-gets at once, all in flight together (pipelined).
  expected<std::vector<std::vector<float>>> get_batches(const std::vector<std::vector<uint64_t>>& batches);
  status put_batches(const std::vector<std::vector<uint64_t>>& batches, const std::vector<std::vector<float>>& values);

  // --- optimizer (the Distributed embedding layer design) -------------------------------------------------
  /// One step of the table's optimizer per key, on the shards.
  status push(std::span<const uint64_t> keys, std::span<const float> gradients);
  /// Value, slots and step count per key.
  expected<std::vector<table_row>> fetch(std::span<const uint64_t> keys);

  // --- matrix API (the Spark + parameter server talk); dot, axpy, copy need the columns layout ----------
  expected<std::vector<double>> dot(std::span<const uint64_t> a, std::span<const uint64_t> b);
  status axpy(float alpha, std::span<const uint64_t> x, std::span<const uint64_t> y); // y += alpha x
  status scal(float alpha, std::span<const uint64_t> keys);
  status copy(std::span<const uint64_t> from, std::span<const uint64_t> to);
  status add(std::span<const uint64_t> keys, std::span<const float> deltas); // increment

  // --- sparse access by column (any layout) ---------------------------------
  // Column numbers are global (0..dim-1); the client sends each shard the
  // ones it holds. A dense matrix in the columns layout may have rows of up
  // to max_vector_dim floats: one distributed vector per row, read and
  // written this way and combined on the shards with dot/axpy/scal/copy.
  /// Columns `indices` of row `row`: one float per index, in order.
  expected<std::vector<float>> fetch(uint64_t row, std::span<const uint32_t> indices);
  /// Columns `indices` of each of `rows`: rows.size() x indices.size() floats.
  expected<std::vector<float>> fetch_rows(std::span<const uint64_t> rows, std::span<const uint32_t> indices);
  /// Sparse increment: row[indices[j]] += values[j] (repeats add up). A
  /// nonzero `writer` token is refused by a shard where the table is
  /// fenced above it (fence()).
  status increment(uint64_t row, std::span<const uint32_t> indices, std::span<const float> values, uint64_t writer = 0);
  /// Raises the table's fence to `fence` on every shard, and returns once
  /// every shard has: from then on an increment whose writer token is
  /// nonzero and below it is refused. A client that gives a writer up (a
  /// lost learner) raises the fence above that writer's token before it
  /// resets what the writer wrote, so that none of the writer's increments
  /// still on their way lands after the reset. A fence never falls: the
  /// result is the highest fence of the table's shards after the call
  /// (fence(0) only reads it, for a writer that starts its tokens above an
  /// earlier one's).
  expected<uint64_t> fence(uint64_t fence);

  // --- an embedding layer's lookup ------------------------------------------
  /// Row e of the result (dim floats) combines the rows of examples[e]'s
  /// ids: their sum, mean or sum / sqrt(count) (TensorFlow's and
  /// ElasticDL's combiners; an empty example gives zeros). Each distinct id
  /// is sent, and read on its shard, once; the combining runs on the shards.
  expected<std::vector<float>> lookup(const std::vector<std::vector<uint64_t>>& examples, table_combiner combiner);

  // --- over the whole table -------------------------------------------------
  /// "sum" (dim column sums), "sumsq" (1), "count" (rows; 1).
  expected<std::vector<double>> reduce(const std::string& what);
  /// Runs a user operation (table_operations.hpp) on every shard; one
  /// result per shard, in shard order, to combine as the caller likes.
  expected<std::vector<wire_bytes>> call(const std::string& operation, const wire_bytes& args = {});
  /// Calls visit(key, row) for every row of the table (dim floats), shard by
  /// shard, `page` rows per request (the Spark + parameter server talk's export). Rows added or
  /// removed meanwhile may or may not be visited; the others are, once.
  status for_each_row(const std::function<void(uint64_t key, const float* row)>& visit, uint32_t page = 4096);
  /// One table_info per shard: rows held, memory.
  expected<std::vector<table_info>> info();
  /// Every shard writes its slice to its table directory (table-dir), in
  /// save slot `slot` (below max_table_slots; 0 is the plain save). A
  /// client that checkpoints alternates two slots, so that a save cut short
  /// by a lost shard leaves the checkpoint before it whole in the other.
  status save(uint32_t slot = 0);
  /// Every shard puts its slice back as save slot `slot` left it (a
  /// rollback to a checkpoint); a shard without a whole saved slice of this
  /// very table there fails the call and keeps what it holds.
  status load(uint32_t slot = 0);
  /// Removes the table from every shard (and its saved slices).
  status drop();

private:
  friend class table_client;
  table(std::shared_ptr<table_client::core> core, table_spec spec) : core_(std::move(core)), spec_(std::move(spec)) {}
  std::shared_ptr<table_client::core> core_;
  table_spec spec_;
};

} // namespace gridvec
