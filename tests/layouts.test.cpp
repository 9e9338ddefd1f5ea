// The layouts' registry: each layout's entry spawns real shards whose
// geometry is the one the readers of rows assume, and read through that
// geometry alone, every layout's shards hold the same starting model.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <vector>

#include <gridvec/roles/shard.hpp>
#include "actors/layouts/layouts.hpp"
#include "tests/test_util.hpp"

using namespace gridvec;

namespace layouts_test {

vocabulary vocab_of(uint32_t n) {
  word_counts c;
  for (uint32_t w = 0; w < n; ++w)
    for (uint32_t k = 0; k <= n - w; ++k)
      c.add("w" + std::to_string(w));
  return *vocabulary::build(c, 1, 0);
}

// Every shard's input rows [0, words), scattered by its geometry.
std::vector<float> model_of(caf::scoped_actor& self, const std::vector<shard_info>& shards, uint32_t words,
                            uint32_t dim) {
  std::vector<float> out(size_t{words} * dim, -99.0f);
  for (const auto& shard : shards) {
    wire_bytes bytes;
    self->request(shard.lanes.front(), std::chrono::seconds(10), rows_atom::value, uint32_t{0}, words)
      .receive([&](const wire_bytes& b) { bytes = b; }, [](caf::error& e) { FAIL(error_text(e)); });
    const shard_geometry shape = shard.geometry();
    const uint32_t rows = shape.rows_between(0, words);
    REQUIRE(bytes.size() == size_t{rows} * shape.columns.width * sizeof(float));
    const auto* f = reinterpret_cast<const float*>(bytes.data());
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < shape.columns.width; ++c)
        out[size_t{shape.word_of(r)} * dim + shape.columns.first + c] = f[size_t{r} * shape.columns.width + c];
  }
  return out;
}

} // namespace layouts_test

TEST_CASE("each layout's entry spawns shards that readers use through their geometry", "[layouts][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  constexpr uint32_t shards = 3, dim = 10;
  const auto vocab = std::make_shared<const vocabulary>(layouts_test::vocab_of(17));
  const auto words = static_cast<uint32_t>(vocab->size());
  std::vector<std::vector<float>> models;
  for (auto layout : {shard_layout::columns, shard_layout::rows, shard_layout::replica}) {
    CHECK(layout_entry_of(layout).layout == layout);
    std::vector<shard_info> infos;
    for (uint32_t s = 0; s < shards; ++s) {
      shard_spec spec;
      spec.layout = layout;
      spec.index = s;
      spec.count = shards;
      spec.dim = dim;
      spec.seed = 11;
      spec.lanes = 2;
      spec.word_partitions = shards;
      auto info = spawn_shard(sys, spec, vocab);
      REQUIRE(info);
      CHECK(info->layout == layout);
      CHECK(info->index == s);
      CHECK(info->lanes.size() == 2);
      CHECK(info->geometry() == shard_geometry::of(layout, s, shards, dim));
      infos.push_back(std::move(*info));
    }
    models.push_back(layouts_test::model_of(self, infos, words, dim));
    for (auto& info : infos)
      for (auto& lane : info.lanes)
        self->send_exit(lane, caf::exit_reason::user_shutdown);
  }
  // The same hash of (seed, word, column) starts every layout.
  for (float x : models[0])
    REQUIRE(x != -99.0f);
  CHECK(models[1] == models[0]);
  CHECK(models[2] == models[0]);
}

TEST_CASE("a shard spec of no known layout is refused with one line", "[layouts][actors]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  shard_spec spec;
  spec.layout = static_cast<shard_layout>(last_shard_layout + 1);
  spec.count = 1;
  spec.dim = 4;
  auto info = spawn_shard(sys, spec, std::make_shared<const vocabulary>(layouts_test::vocab_of(5)));
  REQUIRE_FALSE(info);
  CHECK(info.error().find("layout") != std::string::npos);
}
