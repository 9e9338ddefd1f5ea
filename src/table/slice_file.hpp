#pragma once
// A table slice on disk: what a table shard's checkpoint writes and a
// restarted shard reads back, slots and step counts included (the Distributed embedding layer design).
//
//   DIR/TABLE/shard-I-of-S.slice          save slot 0, a plain save
//   DIR/TABLE/shard-I-of-S.slot-K.slice   save slot K (checkpoints alternate two)
// (written through atomic_file)
//
// Format (little-endian):
//   "GVTABLE2"                                   8 bytes
//   name length, name                            uint32, bytes (<= 64)
//   kind, layout, init, optimizer                4 x uint8
//   flags (bit 0: dense)                         uint8 (absent in "GVTABLE1")
//   rows, dim, init_scale, seed                  uint64, uint32, float32, uint64
//   learning_rate, beta1, beta2, epsilon         4 x float32
//   shard, shards, first, width, stride          5 x uint32
//   row count                                    uint64
//   per row: key, step, stride floats            uint64, uint32, stride x float32
//   crc32 of every byte before it                uint32
#include <memory>
#include <string>

#include <gridvec/core/file_digest.hpp>
#include <gridvec/core/table_slice.hpp>

namespace gridvec {

/// DIR/TABLE/shard-I-of-S.slice for slot 0, else DIR/TABLE/shard-I-of-S.slot-K.slice.
std::string table_slice_path(const std::string& dir, const std::string& table, uint32_t shard, uint32_t shards,
                             uint32_t slot = 0);

/// Writes the slice atomically (a crash leaves the previous file whole).
expected<file_digest> write_table_slice(const std::string& path, const table_slice& slice);

/// Reads a slice back. Fails with one line if the file is missing,
/// truncated, damaged (checksum), holds an invalid spec, or claims more
/// rows than it has bytes for; nothing is allocated beyond the file's size.
expected<std::unique_ptr<table_slice>> read_table_slice(const std::string& path);

} // namespace gridvec
