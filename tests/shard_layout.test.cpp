// A shard's geometry: every layout's shards together hold each (word,
// column) of the model exactly once, and the geometry maps a shard's local
// rows back to their words as the readers of rows (exporter, checkpoints,
// queries) use it.
#include <catch2/catch.hpp>

#include <vector>

#include <gridvec/core/shard_layout.hpp>

using namespace gridvec;

TEST_CASE("every layout's shards cover each cell of the model once", "[shard_layout]") {
  constexpr uint32_t words = 17, dim = 10;
  for (auto layout : {shard_layout::columns, shard_layout::rows, shard_layout::replica})
    for (uint32_t shards : {1u, 2u, 3u}) {
      std::vector<int> held(size_t{words} * dim, 0);
      for (uint32_t s = 0; s < shards; ++s) {
        const auto shape = shard_geometry::of(layout, s, shards, dim);
        const uint32_t rows = shape.rows_between(0, words);
        for (uint32_t r = 0; r < rows; ++r) {
          const uint32_t w = shape.word_of(r);
          REQUIRE(w < words);
          CHECK(shape.holds(w));
          CHECK(shape.rows.local(w) == r);
          for (uint32_t c = 0; c < shape.columns.width; ++c)
            ++held[size_t{w} * dim + shape.columns.first + c];
        }
        // The rows of a range are those of its words the shard holds.
        uint32_t counted = 0;
        for (uint32_t w = 5; w < 12; ++w)
          counted += shape.holds(w);
        CHECK(shape.rows_between(5, 12) == counted);
      }
      for (int n : held)
        CHECK(n == 1);
    }
}

TEST_CASE("the layout follows --partition and the number of shards", "[shard_layout]") {
  CHECK(layout_of_shards(model_partition::columns, 4) == shard_layout::columns);
  CHECK(layout_of_shards(model_partition::words, 4) == shard_layout::rows);
  CHECK(layout_of_shards(model_partition::words, 1) == shard_layout::columns); // trained in place
  CHECK(layout_of_shards(model_partition::replicated, 1) == shard_layout::replica);
  const auto rows = shard_geometry::of(shard_layout::rows, 1, 3, 8);
  CHECK(rows.columns.first == 0);
  CHECK(rows.columns.width == 8);
  CHECK(rows.word_of(2) == 7);
  const auto columns = shard_geometry::of(shard_layout::columns, 1, 3, 8);
  CHECK(columns.rows.partitions == 1);
  CHECK(columns.word_of(2) == 2);
}
