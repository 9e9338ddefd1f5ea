# Wire format of gridvec's parameter server: the tables of docs/tables.md.
#
# A client sends one TableRequest to a table shard (an actor on every shard
# node, or in-process) and gets one TableReply back. Keys are 64-bit; floats
# travel as little-endian float32 bytes (Data), row after row. A request
# names one table and one operation on it. In the rows layout the client
# sends each shard only its own keys; in the columns layout every shard gets
# every key and holds (and sends, and expects) its own columns only.
#
# A shard answers every request, a bad one with `error` (one line): unknown
# table or operation, wrong number of floats, too many keys, a key outside a
# matrix or on another shard. It never stops for a bad message.
@0xb5cc1b7a8e0f4d21;

$import "/capnp/c++.capnp".namespace("gridvec::wire");

enum TableKind { matrix @0; map @1; }
enum TableLayout { rows @0; columns @1; }
enum TableInit { zeros @0; uniform @1; normal @2; }
enum TableOptimizer { sgd @0; adagrad @1; adam @2; }

struct TableSpec {
  name @0 :Text;             # [A-Za-z0-9_.-], at most 64 characters
  kind @1 :TableKind;
  rows @2 :UInt64;           # matrix only
  dim @3 :UInt32;            # floats per row, 1..65536 (a dense matrix in the columns layout: 1..2^30)
  layout @4 :TableLayout;
  init @5 :TableInit;
  initScale @6 :Float32;
  seed @7 :UInt64;
  optimizer @8 :TableOptimizer;
  learningRate @9 :Float32;
  beta1 @10 :Float32;
  beta2 @11 :Float32;
  epsilon @12 :Float32;
  dense @13 :Bool;           # matrix only: all rows made at creation, stored contiguously
}

struct KeyValues {
  keys @0 :List(UInt64);
  values @1 :Data;           # keys x (this shard's) width float32
}

struct KeyPairs {
  a @0 :List(UInt64);
  b @1 :List(UInt64);        # as many as a
}

struct TableRequest {
  table @0 :Text;            # the table's name (unused by `list`)
  union {
    create @1 :TableSpec;    # -> done; an existing table with the same spec is kept
    get @2 :List(UInt64);    # -> floats: width per key (absent rows are created)
    put @3 :KeyValues;       # -> done
    setIfAbsent @4 :KeyValues;  # -> flags: 1 where the key was absent and is now set
    remove @5 :List(UInt64); # -> flags: 1 where the key existed
    push @6 :KeyValues;      # gradients -> done: one optimizer step per key
    add @7 :KeyValues;       # deltas -> done
    dot @8 :KeyPairs;        # -> sums: this shard's part of a_i . b_i
    axpy @9 :Axpy;           # -> done: b_i += alpha a_i
    scal @10 :Scal;          # -> done: v *= alpha
    copy @11 :KeyPairs;      # -> done: b_i = a_i
    reduce @12 :Text;        # "sum" | "sumsq" | "count" -> sums
    call @13 :Call;          # a user operation -> result
    fetch @14 :List(UInt64); # -> floats: value and slots (stride per key), steps
    info @15 :Void;          # -> tables: this one
    list @16 :Void;          # -> tables: all of this shard's
    drop @17 :Void;          # -> done
    save @18 :Void;          # -> done: written to the shard's table directory
    scan @19 :Scan;          # -> floats and keys: a page of this shard's rows, and next
    sparseGet @20 :SparseRows;  # -> floats: rows x indices, row after row
    sparseAdd @21 :SparseAdd;   # -> done: row[indices[j]] += values[j]
    lookup @22 :Lookup;         # -> floats: examples x width, each example's rows combined
    load @23 :Void;             # -> done: the table as its last `save` left it (a rollback)
    takeOver @24 :TakeOver;     # -> done: a standby's spare shard becomes a lost one (no table named)
    fence @27 :UInt64;          # -> done, with the table's fence then: it rises to this (it never falls)
  }
  # save and load: which of the table-dir's save slots (below
  # max_table_slots) to write or read; 0, the default, is the table's plain
  # save. Checkpoints alternate between two slots, so that a save cut short
  # leaves the one before it whole.
  slot @25 :UInt8;
  # sparseAdd: the writer's token. An increment whose token is nonzero and
  # below the table's fence is refused, so that a client that gives a
  # writer up (a lost learner) and raises the fence knows that none of
  # that writer's increments, even those still on their way, lands after
  # it. 0, the default, is never refused.
  writer @26 :UInt64;
}

# A page of the rows a shard holds, in its own order, from `cursor` (0 at
# first, then the reply's `next`) for at most `limit` rows. Rows added or
# removed while a scan goes on may or may not be seen; the others are seen
# exactly once.
struct Scan {
  cursor @0 :UInt64;
  limit @1 :UInt32;
}

# Columns of whole rows by their (global) column numbers, as many as a
# shard holds of them: in the columns layout the client sends each shard
# the indices inside its column range. Duplicates are allowed.
struct SparseRows {
  rows @0 :List(UInt64);
  indices @1 :List(UInt32);
}

# A sparse increment of one row: values[j] is added to column indices[j]
# (repeated indices add up).
struct SparseAdd {
  row @0 :UInt64;
  indices @1 :List(UInt32);
  values @2 :Data;           # indices x float32
}

enum Combiner { sum @0; mean @1; sqrtn @2; }

# An embedding layer's lookup: example e holds the rows keys[positions[j]]
# for j in [offsets[e], offsets[e+1]); each distinct key is sent (and read)
# once. The shard returns, per example, the sum of the rows it holds times
# the combiner's scale: 1 (sum), 1/counts[e] (mean) or 1/sqrt(counts[e])
# (sqrtn), counts[e] being the example's ids on all shards, so that the
# shards' parts add up (rows layout) or sit side by side (columns layout).
struct Lookup {
  combiner @0 :Combiner;
  keys @1 :List(UInt64);
  offsets @2 :List(UInt32);   # examples + 1, from 0 to positions' length
  positions @3 :List(UInt32); # indices into keys
  counts @4 :List(UInt32);    # one per example
}

# A standby node's spare table shard holds no tables and refuses every
# other request until it becomes table shard `shard` of `shards` in place
# of a lost one, loading that shard's slices from its table directory; it
# does so once (the same request again is answered `done`).
struct TakeOver {
  shard @0 :UInt32;
  shards @1 :UInt32;
}

struct Axpy {
  alpha @0 :Float32;
  pairs @1 :KeyPairs;        # x = a, y = b
}

struct Scal {
  alpha @0 :Float32;
  keys @1 :List(UInt64);
}

struct Call {
  operation @0 :Text;
  args @1 :Data;
}

struct TableInfo {
  spec @0 :TableSpec;
  shard @1 :UInt32;
  shards @2 :UInt32;
  firstColumn @3 :UInt32;
  width @4 :UInt32;
  stride @5 :UInt32;         # floats per row with the slots
  rows @6 :UInt64;           # rows this shard holds
  memoryBytes @7 :UInt64;
}

struct TableReply {
  union {
    error @0 :Text;
    done @1 :Void;
    floats @2 :Data;
    flags @3 :Data;          # one byte per key
    sums @4 :List(Float64);
    result @5 :Data;
    tables @6 :List(TableInfo);
  }
  steps @7 :List(UInt32);    # fetch: adam's step count per key
  keys @8 :List(UInt64);     # scan: the keys of the rows in `floats`
  next @9 :UInt64;           # scan: the cursor of the next page; 2^64-1 at the end
  errorCode @10 :UInt8;      # with `error`: what kind of failure (gridvec::error_code; 0 failed)
  fence @11 :UInt64;         # fence: the table's fence after it (0 for the other requests)
}
