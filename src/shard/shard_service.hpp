#pragma once
// One shard's model and the requests every shard answers, whatever its
// layout (shard_actor in include/gridvec/protocol.hpp): rows, save, load,
// reset, norms and the request count. Plain C++, shared by the shard's lanes
// (Hogwild): a lane actor only receives, calls one of these and replies.
//
// Each layout's service adds its own requests:
//   column_service.hpp    columns: dotprod, adjust, step; similar by ids
//   replica_service.hpp   replicated: storerows (on a column slice)
//   row_service.hpp       rows: the word split's visits; similar by vector
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>
#include <gridvec/core/file_digest.hpp>
#include <gridvec/core/wire_bytes.hpp>
#include "src/formats/checkpoint.hpp"
#include "src/model/shard_store.hpp"

namespace gridvec {

class shard_service {
public:
  /// Puts a saved model's rows over the initial vectors (--init).
  using initial_rows = std::function<status(shard_store&)>;

  shard_service(std::shared_ptr<shard_store> store, slice_header header, uint64_t init_seed, initial_rows init = {});
  virtual ~shard_service() = default;
  shard_service(const shard_service&) = delete;
  shard_service& operator=(const shard_service&) = delete;

  shard_store& store() { return *store_; }
  const shard_store& store() const { return *store_; }
  const std::shared_ptr<shard_store>& shared_store() const { return store_; }
  const slice_header& header() const { return header_; }

  /// Where a new shard starts: its checkpoint file if given, else the
  /// --init model's rows if any, else the initial vectors.
  status start_from(const std::string& checkpoint);

  /// Words [begin, end)'s input (or output) rows that it holds, its
  /// columns, row-major float32 bytes.
  expected<wire_bytes> read_rows(uint32_t begin, uint32_t end, bool output) const;
  expected<file_digest> save(const std::string& path, uint64_t vocab_crc) const;
  status load(const std::string& path, uint64_t vocab_crc);
  /// Back to the initial vectors (and the --init rows over them).
  status reset();
  /// Partial squared norms of the words' input vectors, float32 bytes; 0
  /// for a word it does not hold.
  virtual expected<wire_bytes> norms(const std::vector<uint32_t>& words) const = 0;

  void count_requests(uint64_t n) { requests_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }

protected:
  status check_words(const std::vector<uint32_t>& words) const;

private:
  std::shared_ptr<shard_store> store_;
  slice_header header_; // the identity of its checkpoint files
  uint64_t init_seed_;
  initial_rows init_;
  std::atomic<uint64_t> requests_{0};
};

} // namespace gridvec
