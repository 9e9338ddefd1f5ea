# Wire format of gridvec's training traffic between learners and shards.
#
# One minibatch is a list of *examples*. Example i has an input set and an
# output set; every (input set, output word) pair is one *positive pair* and
# gets `negatives` noise words drawn on the shard from `seed`:
#   skip-gram: inputs = {centre word},      outputs = context words
#   CBOW:      inputs = context words,      outputs = {centre word}
#              (the input vector is the mean of the context vectors)
# Per positive pair the float layout of dot products and weights is
#   [positive, negative_1, ..., negative_n]                 (n + 1 floats)
# and pairs follow the order of examples, then of outputs within an example.
# With hierarchical softmax (-hs 1) a pair's floats begin with one per inner
# node on its output word's Huffman path, which both sides know from the
# vocabulary's counts; with n = 0 they are all it has.
# No vector crosses the wire here: only word ids, one seed, and n + 1 floats
# per pair and shard (the Network-efficient word2vec paper, section 5.2).
@0xd29466dac5fb6589;

$import "/capnp/c++.capnp".namespace("gridvec::wire");

struct Minibatch {
  seed @0 :UInt64;           # seeds the noise-word generator on every shard
  negatives @1 :UInt32;      # noise words per positive pair (-negative)
  meanInputs @2 :Bool;       # true for CBOW: the input is the mean of inputs
  inputs @3 :List(UInt32);   # input word ids, examples concatenated
  inputCounts @4 :List(UInt32);  # inputs per example; empty = one each
  outputs @5 :List(UInt32);  # output word ids, examples concatenated
  outputCounts @6 :List(UInt32); # outputs per example; empty = one each
  hierarchical @7 :Bool;     # -hs 1: the Huffman path's nodes are targets too
  sharedNegatives @8 :Bool;  # skip-gram windows trained whole (HogBatch):
                             # example i's outputs (context words) are the
                             # inputs of its dot products and its input (the
                             # centre) the positive target; its n noise words
                             # are drawn once for the window, and its floats
                             # are targets x contexts, target by target, the
                             # targets [Huffman nodes of the centre, centre,
                             # negative_1, ..., negative_n]
}

# learner -> every shard
struct DotprodRequest {
  batch @0 :Minibatch;
}

# shard -> learner: this shard's partial dot products u_s . v_s
struct DotprodReply {
  shard @0 :UInt32;
  dots @1 :List(Float32);    # (n + 1) per positive pair, layout above
}

# learner -> every shard: the same minibatch (negatives are regenerated from
# the same seed) and one weight per dot product, alpha * (label - sigmoid(f)).
struct AdjustRequest {
  batch @0 :Minibatch;
  weights @1 :List(Float32);
  alpha @2 :Float32;         # the learning rate the weights carry
  staleness @3 :UInt32;      # minibatches in flight beside this one; above
                             # 1 the shard refreshes the weights for its rows
                             # as they are now (src/sgns/weight_refresh.hpp)
}

# shard -> learner: the update is applied
struct AdjustReply {
  shard @0 :UInt32;
  pairs @1 :UInt32;          # positive pairs applied, for accounting
}

# The replicated mode (--partition replicated, the GraphWord2Vec paper): every learner host
# holds the whole model and trains its part of the corpus for one
# synchronisation round; then each host sends the rows it changed to their
# masters (host -> master: changes, row minus its value at the round's
# start), each master combines them and sends the rows' new values to every
# host (master -> host) and its columns to each shard (master -> shard), so
# that export, checkpoints and queries read the shards as in every mode.
# Only rows touched in the round travel (RepModel-Opt).
struct RowBlock {
  round @0 :UInt64;          # synchronisation rounds since training began
  generation @1 :UInt64;     # of the learners (a rollback starts a new one)
  host @2 :UInt32;           # the sender
  last @3 :Bool;             # host -> master: the sender has no work left
  width @4 :UInt32;          # floats per row
  inputRows @5 :List(UInt32);   # input vector ids (words)
  outputRows @6 :List(UInt32);  # output vector ids (words; -hs 1: then nodes)
  values @7 :Data;           # (inputs + outputs) x width float32,
                             # little-endian, inputs first
  firstColumn @8 :UInt32;    # master -> shard: the column of values[0]
  pausing @9 :Bool;          # host -> master: the sender is pausing (a
                             # checkpoint reads the shards next)
  stored @10 :Bool;          # master -> host: the shards hold the model
                             # as of this round
}

# The word split (--partition words, the Distributed negative sampling paper): each shard holds the whole
# rows of the words w with w mod S = its index. Vectors do travel here, but
# only between shards, and only input vectors and their gradients: never an
# output row (docs/word-partitions.md).
#
# learner -> the shard that owns the examples' input words (the source)
struct SplitTrainRequest {
  batch @0 :Minibatch;       # skip-gram examples, all inputs the source's
  alpha @1 :Float32;         # the learning rate
  perSkipgram @2 :Bool;      # --visits skipgram (src/model/word_split.hpp)
}

# source -> learner, once every peer it visited has answered
struct SplitTrainReply {
  shard @0 :UInt32;
  loss @1 :Float64;          # SGNS loss of the share's pairs
  pairs @2 :UInt64;
  diverged @3 :Bool;
  batches @4 :UInt32;        # visit batches sent to other shards
  batchBytes @5 :UInt64;     # their bytes and their replies'
}

# source -> peer: the input vectors its visits use, and per visit the input,
# the positive word the peer owns (or 0xffffffff) and how many noise words
# the peer draws from its own words (src/model/word_split.hpp).
struct VisitBatch {
  seed @0 :UInt64;           # of the peer's noise words
  alpha @1 :Float32;
  source @2 :UInt32;
  inputWords @3 :List(UInt32);
  visitInput @4 :List(UInt32);
  visitPositive @5 :List(UInt32);
  visitNoise @6 :List(UInt32);
  inputs @7 :Data;           # inputWords x dim float32, little-endian
}

# peer -> source: one summed gradient per input vector
struct VisitReply {
  loss @0 :Float64;
  pairs @1 :UInt64;
  diverged @2 :Bool;
  gradients @3 :Data;        # inputWords x dim float32, little-endian
}
