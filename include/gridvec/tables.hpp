#pragma once
// gridvec as a parameter server (docs/tables.md): named tables of float rows
// spread over shards, in this process or on a cluster's shard nodes, with
// the Spark + parameter server talk's map API (get, put, set-if-absent, remove, map-reduce), its
// matrix API (dot, axpy, scal, copy, add), user operations that run on the
// shards, and the Distributed embedding layer design's lazily created rows and optimizer slots (SGD,
// Adagrad, Adam, applied on the shards by push).
//
// In this process:
//   auto shards = gridvec::spawn_table_shards(sys, 2);               // or "dir" to save to
//   gridvec::table_client client{sys, shards};
// On a cluster (`gridvec node` processes; their shard nodes hold tables):
//   auto cluster = gridvec::load_cluster_config("cluster.conf");
//   ... configure_cluster_system(cfg, *cluster) before sys exists (gridvec/cluster.hpp) ...
//   auto shards = gridvec::connect_table_shards(sys, *cluster);      // expected<std::vector<...>>
//   gridvec::table_client client{sys, *shards};
// Then:
//   gridvec::table_spec spec;
//   spec.name = "features"; spec.dim = 16;
//   spec.init = gridvec::table_init::normal; spec.init_scale = 0.01f;
//   spec.optimizer = gridvec::table_optimizer::adagrad; spec.learning_rate = 0.1f;
//   auto t = client.open(spec);              // expected<gridvec::table>
//   auto w = t->get(keys);                   // keys.size() x 16 floats
//   t->push(keys, gradients);                // one Adagrad step per key, on the shards
//   t->save();                               // into the cluster's table-dir
// A user operation runs on each shard's slice (gridvec/table_operations.hpp):
//   gridvec::register_table_operation("norms", ...);   // in the shard's process
//   auto parts = t->call("norms", args);     // one result per shard
#include <gridvec/tables/async.hpp>
#include <gridvec/tables/client.hpp>
#include <gridvec/tables/shard.hpp>
#include <gridvec/core/table_operations.hpp>
#include <gridvec/core/table_spec.hpp>
