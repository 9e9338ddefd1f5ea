// Checkpoint files: slice files and manifests round-trip, and every kind of
// damage (truncation, a flipped byte, another shard's or vocabulary's file,
// a half-written directory) is detected with one clear line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "src/formats/checkpoint.hpp"
#include "src/formats/manifest_key.hpp"
#include <gridvec/core/options.hpp>
#include "tests/test_util.hpp"

using namespace gridvec;
using gridvec::test::contains;
using gridvec::test::temp_dir;
namespace fs = std::filesystem;

namespace {

slice_header header() { return slice_header{1, 3, 10, 3, 4, 7, 0xABCDEF}; }

std::vector<float> pattern(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = base + static_cast<float>(i) * 0.25f;
  return v;
}

void flip_byte(const std::string& path, long offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekg(offset);
  char c = 0;
  f.get(c);
  f.seekp(offset);
  f.put(static_cast<char>(c ^ 0x5A));
}

checkpoint_manifest sample_manifest() {
  checkpoint_manifest m;
  m.sequence = 7;
  train_options o;
  o.train = "/data/my corpus.txt";
  o.output = "/out/vectors.bin";
  o.size = 64;
  o.sample = 1e-4;
  o.checkpoint_dir = "/ck";
  o.checkpoint_seconds = 90;
  m.options = to_args(o);
  m.vocabulary_file = "vocabulary.txt";
  m.vocab_size = 1234;
  m.vocab_crc = 0xDEADBEEF;
  m.raw_words = 100000;
  m.trained_words = 54321;
  m.pairs = 99999;
  m.training_seconds = 12.5;
  m.alpha = 0.0123f;
  m.parts = {part_cursor{0, "/ck/work/part-0.ids", 500, 1, 1028, 700},
             part_cursor{1, "/ck/work/part 1.ids", 400, 2, 8, 800}};
  m.ranges = {byte_range{0, 5000}, byte_range{5000, 9000}};
  m.shards = {shard_file{0, "shard-0.bin", {1000, 17}}, shard_file{1, "shard-1.bin", {1000, 18}}};
  m.loss_history = {{100, 3.5}, {200, 2.75}};
  return m;
}

} // namespace

TEST_CASE("checkpoint: crc32 is the IEEE CRC-32 and continues across pieces", "[checkpoint]") {
  const std::string s = "123456789";
  CHECK(crc32(s.data(), s.size()) == 0xCBF43926u);
  CHECK(crc32(s.data() + 4, 5, crc32(s.data(), 4)) == 0xCBF43926u);
  CHECK(crc32(nullptr, 0) == 0u);
}

TEST_CASE("checkpoint: a slice file round-trips and names what is wrong with a damaged one", "[checkpoint]") {
  temp_dir dir;
  const auto h = header();
  const size_t n = h.vocab_size * h.width;
  auto u = pattern(n, 1.0f), v = pattern(n, -3.0f);
  const std::string path = dir.file("shard-1.bin");
  auto digest = write_slice_file(path, h, u.data(), v.data());
  REQUIRE(digest);
  CHECK(digest->bytes == fs::file_size(path));
  auto file_crc = file_crc32(path);
  REQUIRE(file_crc);

  std::vector<float> u2(n), v2(n);
  REQUIRE(read_slice_file(path, h, u2.data(), v2.data()));
  CHECK(u2 == u);
  CHECK(v2 == v);

  SECTION("another shard, width or vocabulary is refused") {
    auto other = h;
    other.shard = 2;
    auto s = read_slice_file(path, other, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "holds shard 1/3"));
    other = h;
    other.vocab_crc = 1;
    s = read_slice_file(path, other, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "another vocabulary"));
    other = h;
    other.vocab_size = 8; // a different size is a different file length
    s = read_slice_file(path, other, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "truncated or damaged"));
  }
  SECTION("-hs 1's node rows follow the words' output rows") {
    auto hs = h;
    hs.node_rows = h.vocab_size - 1;
    const std::string hs_path = dir.file("shard-hs.bin");
    auto v_nodes = pattern((h.vocab_size + hs.node_rows) * h.width, 5.0f);
    REQUIRE(write_slice_file(hs_path, hs, u.data(), v_nodes.data()));
    std::vector<float> v3(v_nodes.size());
    REQUIRE(read_slice_file(hs_path, hs, u2.data(), v3.data()));
    CHECK(v3 == v_nodes);
    // A slice file without nodes is not one with them, and back.
    CHECK_FALSE(read_slice_file(path, hs, u2.data(), v3.data()));
    CHECK_FALSE(read_slice_file(hs_path, h, u2.data(), v2.data()));
  }
  SECTION("a flipped byte in the data fails the checksum") {
    flip_byte(path, 60);
    auto s = read_slice_file(path, h, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "corrupt (checksum mismatch)"));
  }
  SECTION("a truncated file is named as such") {
    fs::resize_file(path, fs::file_size(path) - 10);
    auto s = read_slice_file(path, h, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "truncated"));
  }
  SECTION("a missing file") {
    auto s = read_slice_file(dir.file("nope.bin"), h, u2.data(), v2.data());
    REQUIRE_FALSE(s);
    CHECK(contains(s.error(), "cannot read checkpoint file"));
  }
  SECTION("no temporary file is left next to it") {
    size_t files = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir.path()))
      ++files;
    CHECK(files == 1);
  }
}

TEST_CASE("checkpoint: a manifest round-trips, paths with spaces included", "[checkpoint]") {
  temp_dir dir;
  auto m = sample_manifest();
  REQUIRE(write_manifest(dir.file("MANIFEST"), m));
  auto r = read_manifest(dir.file("MANIFEST"));
  REQUIRE(r);
  CHECK(r->sequence == 7);
  CHECK(r->options == m.options);
  CHECK(r->vocabulary_file == "vocabulary.txt");
  CHECK(r->vocab_size == 1234);
  CHECK(r->vocab_crc == 0xDEADBEEFu);
  CHECK(r->raw_words == 100000);
  CHECK(r->trained_words == 54321);
  CHECK(r->pairs == 99999);
  CHECK(r->training_seconds == Approx(12.5));
  CHECK(r->alpha == Approx(0.0123f));
  REQUIRE(r->parts.size() == 2);
  CHECK(r->parts[1].ids_path == "/ck/work/part 1.ids");
  CHECK(r->parts[1].epoch == 2);
  CHECK(r->parts[0].offset == 1028);
  CHECK(r->parts[0].processed == 700);
  CHECK(r->parts[1].words == 400);
  CHECK(r->ranges[1].begin == 5000);
  CHECK(r->ranges[1].end == 9000);
  REQUIRE(r->shards.size() == 2);
  CHECK(r->shards[1].digest.crc == 18u);
  CHECK(r->loss_history.size() == 2);
  CHECK(r->processed_words() == 1500);
  // The options parse back into the same job.
  auto o = parse_train_options(r->options);
  REQUIRE(o);
  CHECK(o->train == "/data/my corpus.txt");
  CHECK(o->size == 64u);
  CHECK(o->sample == 1e-4);
  CHECK(o->checkpoint_seconds == 90.0);
}

TEST_CASE("checkpoint: a damaged manifest is detected", "[checkpoint]") {
  temp_dir dir;
  const auto path = dir.file("MANIFEST");
  REQUIRE(write_manifest(path, sample_manifest()));
  SECTION("a flipped byte") {
    flip_byte(path, 40);
    auto r = read_manifest(path);
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "checksum mismatch"));
  }
  SECTION("truncated") {
    fs::resize_file(path, fs::file_size(path) / 2);
    auto r = read_manifest(path);
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "damaged"));
  }
  SECTION("empty") {
    fs::resize_file(path, 0);
    CHECK_FALSE(read_manifest(path));
  }
}

namespace {

// What someone without the secret can do to a manifest: change its text
// and write a matching CRC-32 (it is no secret how).
void tamper(const std::string& path, const std::string& from, const std::string& to) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  auto end_at = text.rfind("\nend ");
  text.resize(end_at + 1);
  text += "end " + std::to_string(crc32(text.data(), text.size())) + "\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

struct key_scope {
  explicit key_scope(std::optional<manifest_key> k) { set_manifest_key(k); }
  ~key_scope() { set_manifest_key(std::nullopt); }
};

} // namespace

TEST_CASE("checkpoint: under a cluster secret a manifest is authenticated; a tampered one is refused", "[checkpoint]") {
  temp_dir dir;
  const auto path = dir.file("MANIFEST");
  manifest_key key{};
  key.fill(0x42);
  SECTION("round trip under the key") {
    key_scope k{key};
    REQUIRE(write_manifest(path, sample_manifest()));
    auto r = read_manifest(path);
    REQUIRE(r);
    CHECK(r->vocab_size == 1234);
  }
  SECTION("a changed size or path with a matching CRC-32") {
    key_scope k{key};
    REQUIRE(write_manifest(path, sample_manifest()));
    for (auto [from, to] : {std::pair{"vocabulary 1234 ", "vocabulary 4000000000 "},
                            std::pair{"/ck/work/part-0.ids", "/etc/cron.d/gridvec"}}) {
      REQUIRE(write_manifest(path, sample_manifest()));
      tamper(path, from, to);
      auto r = read_manifest(path);
      REQUIRE_FALSE(r);
      CHECK(contains(r.error(), "does not carry this cluster's authentication code"));
      CHECK(r.error().find('\n') == std::string::npos);
    }
  }
  SECTION("another cluster's key") {
    {
      manifest_key other{};
      other.fill(0x17);
      key_scope k{other};
      REQUIRE(write_manifest(path, sample_manifest()));
    }
    key_scope k{key};
    CHECK(contains(read_manifest(path).error(), "does not carry this cluster's authentication code"));
  }
  SECTION("a manifest without a code, read under a key") {
    REQUIRE(write_manifest(path, sample_manifest())); // no key: CRC-32 only
    key_scope k{key};
    CHECK(contains(read_manifest(path).error(), "is not authenticated by this cluster's secret"));
  }
  SECTION("an authenticated manifest read without a key") {
    {
      key_scope k{key};
      REQUIRE(write_manifest(path, sample_manifest()));
    }
    CHECK(contains(read_manifest(path).error(), "resume it with that cluster's config"));
  }
  SECTION("file names that leave the checkpoint directory") {
    REQUIRE(write_manifest(path, sample_manifest()));
    tamper(path, "shard-1.bin", "../../etc/passwd");
    CHECK(contains(read_manifest(path).error(), "is not a name inside the checkpoint directory"));
  }
}

TEST_CASE("checkpoint: a malformed record after a longer line fails cleanly", "[checkpoint]") {
  // Found by tests/fuzz/fuzz_manifest.cpp: a 'part' (or 'vocabulary',
  // 'shard') record with too few fields copied the path field from a view
  // into an earlier line's buffer, freed when the line buffer grew
  // (heap-use-after-free; AddressSanitizer builds report it here).
  temp_dir dir;
  for (const char* key : {"part 0 1 2 ", "vocabulary ", "shard 0 "}) {
    INFO(key);
    std::string text =
      "gridvec-checkpoint 1\noption -window 3 and some more words\n" + std::string{key} + std::string(100, 'x') + "\n";
    text += "end " + std::to_string(crc32(text.data(), text.size())) + "\n";
    auto r = read_manifest(dir.write("MANIFEST", text));
    REQUIRE_FALSE(r);
    CHECK(contains(r.error(), "malformed"));
  }
}

TEST_CASE("checkpoint: the store keeps the two newest complete checkpoints", "[checkpoint]") {
  temp_dir dir;
  checkpoint_store store{dir.file("ck")};
  CHECK(store.complete().empty());
  CHECK_FALSE(store.latest());
  auto write_one = [&](uint64_t seq) {
    REQUIRE(store.prepare(seq));
    auto m = sample_manifest();
    m.sequence = seq;
    const auto h = header();
    auto u = pattern(h.vocab_size * h.width, 1.0f);
    for (auto& s : m.shards) {
      auto d = write_slice_file(store.partial_dir(seq) + "/" + s.file, h, u.data(), u.data());
      REQUIRE(d);
      s.digest = *d;
    }
    REQUIRE(write_manifest(store.partial_dir(seq) + "/MANIFEST", m));
    REQUIRE(store.commit(seq));
  };
  write_one(1);
  write_one(2);
  write_one(3);
  CHECK(store.complete() == std::vector<uint64_t>{3, 2});
  CHECK_FALSE(fs::exists(store.final_dir(1)));

  // A crashed attempt leaves a .partial directory: it is not a checkpoint.
  REQUIRE(store.prepare(4));
  CHECK(store.complete() == std::vector<uint64_t>{3, 2});
  auto latest = store.latest();
  REQUIRE(latest);
  CHECK(latest->sequence == 3);

  // A truncated shard file makes latest() skip that checkpoint and say why.
  fs::resize_file(store.final_dir(3) + "/shard-1.bin", 10);
  std::vector<std::string> skipped;
  latest = store.latest(&skipped);
  REQUIRE(latest);
  CHECK(latest->sequence == 2);
  REQUIRE(skipped.size() == 1);
  CHECK(contains(skipped[0], "shard-1.bin"));

  // An attempt given up (a shard lost while it saved) is discarded; one
  // that stayed (the process died) goes at the next commit.
  REQUIRE(store.prepare(5));
  store.discard(5);
  CHECK_FALSE(fs::exists(store.partial_dir(5)));
  CHECK(fs::exists(store.partial_dir(4)));
  write_one(6);
  CHECK_FALSE(fs::exists(store.partial_dir(4)));
  CHECK(store.complete() == std::vector<uint64_t>{6, 3});
}
