#pragma once
// The parameter server's tables from the command line (`gridvec table`)
// and the shell (`tables`, `table ...`): one set of subcommands, run on a
// table_client (docs/tables.md).
//
//   list                                   every table: spec, rows, memory
//   create NAME DIM [KEY=VALUE...]         rows=N (a matrix), layout=rows|columns,
//                                          storage=lazy|dense (a columns matrix),
//                                          init=zeros|uniform|normal, scale=S, seed=N,
//                                          optimizer=sgd|adagrad|adam, lr=X
//   info NAME                              each shard's rows, columns and memory
//   get NAME KEY...                        the rows' values, one line per key
//   put NAME KEY V1 ... Vdim               write one row
//   push NAME KEY G1 ... Gdim              one optimizer step with this gradient
//   fetch NAME KEY                         value, optimizer slots and step count
//   save NAME                              each shard writes its slice (table-dir)
//   export NAME FILE                       every row to FILE (word2vec text, key as word)
//   drop NAME                              remove the table (and its saved slices)
//
// A KEY of digits only is that number (a matrix row, a map key); any other
// KEY is a string key, hashed as table_key() hashes it.
#include <iosfwd>
#include <string>
#include <vector>

#include <gridvec/core/expected.hpp>

namespace gridvec {

class table_client;

/// The usage lines above, for --help and the shell's `help table`.
extern const char* const table_commands_usage;

/// Runs one subcommand (words[0] is its name) and prints its result on
/// `out`; fails with one line.
status run_table_command(table_client& client, const std::vector<std::string>& words, std::ostream& out);

} // namespace gridvec
