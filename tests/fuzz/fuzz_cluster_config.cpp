// Reached by: a cluster config file (docs/cluster-config.md), which
// `gridvec node`, `gridvec submit` and the shell read from the path they are
// given (include/gridvec/core/cluster_config.hpp, parse_cluster_config behind
// load_cluster_config). A parsed config is also queried as the nodes do.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <gridvec/core/cluster_config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gridvec;
  auto c = parse_cluster_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.conf");
  if (!c)
    return 0;
  (void)c->coordinator();
  (void)c->total_shards();
  (void)c->total_learners();
  for (const auto& n : c->nodes) {
    (void)c->find(n.name);
    (void)n.worker_threads(2);
    (void)n.shards_on_network_thread(2);
  }
  return 0;
}
