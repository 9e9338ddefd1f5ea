#include <gridvec/core/report.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "src/util/atomic_file.hpp"

namespace gridvec {

const char* message_kind_name(message_kind k) {
  switch (k) {
    case message_kind::dotprod_request: return "dotprod_request";
    case message_kind::dotprod_reply: return "dotprod_reply";
    case message_kind::adjust_request: return "adjust_request";
    case message_kind::adjust_reply: return "adjust_reply";
    case message_kind::round_changes: return "round_changes";
    case message_kind::round_values: return "round_values";
    case message_kind::round_store: return "round_store";
    case message_kind::word_split_batch: return "word_split_batch";
    case message_kind::split_train_request: return "split_train_request";
    case message_kind::split_train_reply: return "split_train_reply";
    default: return "unknown";
  }
}

namespace {
std::string json_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    out += c;
  }
  return out;
}
} // namespace

std::string to_json(const job_summary& s) {
  char buf[2048];
  std::string out = "{\n";
  auto field = [&](const char* name, const char* fmt, auto value) {
    std::snprintf(buf, sizeof buf, fmt, value);
    out += std::string{"  \""} + name + "\": " + buf + ",\n";
  };
  field("raw_words", "%llu", static_cast<unsigned long long>(s.raw_words));
  field("trained_words", "%llu", static_cast<unsigned long long>(s.trained_words));
  field("processed_words", "%llu", static_cast<unsigned long long>(s.processed_words));
  field("pairs", "%llu", static_cast<unsigned long long>(s.pairs));
  field("iterations", "%u", s.iterations);
  field("seconds", "%.3f", s.seconds);
  field("training_seconds", "%.3f", s.training_seconds);
  field("paused_seconds", "%.3f", s.paused_seconds);
  field("words_per_second", "%.1f", s.words_per_second());
  field("training_words_per_second", "%.1f", s.training_words_per_second);
  field("vocab_size", "%llu", static_cast<unsigned long long>(s.vocab_size));
  field("dim", "%u", s.dim);
  field("shards", "%u", s.shards);
  field("learners", "%u", s.learners);
  field("peak_rss_bytes", "%llu", static_cast<unsigned long long>(s.peak_rss_bytes));
  if (!s.peak_rss_node.empty())
    out += "  \"peak_rss_node\": \"" + json_escape(s.peak_rss_node) + "\",\n";
  if (!s.memory.empty()) {
    out += "  \"node_memory\": {\n";
    for (size_t n = 0; n < s.memory.size(); ++n) {
      const auto& m = s.memory[n];
      std::snprintf(buf, sizeof buf, "\"peak_rss_bytes\": %llu, \"planned_bytes\": %llu, \"budget_bytes\": %llu}%s\n",
                    static_cast<unsigned long long>(m.peak_rss_bytes), static_cast<unsigned long long>(m.planned_bytes),
                    static_cast<unsigned long long>(m.budget_bytes), n + 1 < s.memory.size() ? "," : "");
      out += "    \"" + json_escape(m.node) + "\": {" + buf;
    }
    out += "  },\n";
  }
  if (!s.error.empty())
    out += "  \"error\": \"" + json_escape(s.error) + "\",\n";
  // JSON has no inf or nan: a diverged run's loss is written as null.
  if (s.error.empty() && std::isfinite(s.final_loss))
    field("final_loss", "%.6f", s.final_loss);
  else
    out += "  \"final_loss\": null,\n";
  if (s.parts > 0) {
    field("parts", "%u", s.parts);
    std::string each;
    for (auto n : s.parts_trained)
      each += (each.empty() ? "" : ", ") + std::to_string(n);
    out += "  \"parts_trained_per_learner\": [" + each + "],\n";
  }
  field("checkpoints", "%u", s.checkpoints);
  field("recoveries", "%u", s.recoveries);
  field("redone_words", "%llu", static_cast<unsigned long long>(s.redone_words));
  out += std::string{"  \"partition\": \""} +
         (s.replicated   ? "replicated"
          : s.word_split ? "words"
                         : "columns") +
         "\",\n";
  out += std::string{"  \"partition_chosen_by\": \""} + (s.partition_auto ? "model" : "option") + "\",\n";
  if (!s.partition_reason.empty())
    out += "  \"partition_reason\": \"" + json_escape(s.partition_reason) + "\",\n";
  if (s.replicated) {
    uint64_t round_bytes = 0;
    for (auto k : {message_kind::round_changes, message_kind::round_values, message_kind::round_store})
      round_bytes += s.wire.bytes[static_cast<size_t>(k)];
    field("sync_rounds", "%llu", static_cast<unsigned long long>(s.sync_rounds));
    field("bytes_per_round", "%.0f", s.sync_rounds > 0 ? static_cast<double>(round_bytes) / s.sync_rounds : 0.0);
  }
  if (!s.replicated) {
    out += "  \"noise\": {\"negatives\": \"" + json_escape(s.negatives) + "\", \"sampler\": \"" +
           (s.hierarchical_sampler ? "hierarchical" : "alias") + "\", ";
    std::snprintf(buf, sizeof buf,
                  "\"word_partitions\": %u, \"sampling_bytes_per_shard\": %llu, "
                  "\"sampling_bytes_per_word_partition\": %llu},\n",
                  s.word_partitions, static_cast<unsigned long long>(s.sampling_bytes),
                  static_cast<unsigned long long>(s.partition_sampling_bytes));
    out += buf;
  }
  out += "  \"messages\": {\n";
  for (size_t i = 0; i < s.wire.messages.size(); ++i) {
    const double trained = s.trained_words > 0 ? static_cast<double>(s.trained_words) : 1.0;
    std::snprintf(buf, sizeof buf,
                  "    \"%s\": {\"count\": %llu, \"bytes\": %llu, \"bytes_per_trained_word\": %.3f}%s\n",
                  message_kind_name(static_cast<message_kind>(i)), static_cast<unsigned long long>(s.wire.messages[i]),
                  static_cast<unsigned long long>(s.wire.bytes[i]), static_cast<double>(s.wire.bytes[i]) / trained,
                  i + 1 < s.wire.messages.size() ? "," : "");
    out += buf;
  }
  out += s.nodes.empty() ? "  }\n" : "  },\n  \"nodes\": {\n";
  for (size_t n = 0; n < s.nodes.size(); ++n) {
    const auto& node = s.nodes[n];
    out += "    \"" + node.node + "\": {";
    for (int dir = 0; dir < 2; ++dir) {
      const traffic& t = dir == 0 ? node.sent : node.received;
      out += dir == 0 ? "\"sent\": {" : ", \"received\": {";
      uint64_t total = 0;
      for (size_t i = 0; i < t.bytes.size(); ++i) {
        std::snprintf(buf, sizeof buf, "\"%s\": %llu, ", message_kind_name(static_cast<message_kind>(i)),
                      static_cast<unsigned long long>(t.bytes[i]));
        out += buf;
        total += t.bytes[i];
      }
      out += "\"total\": " + std::to_string(total) + "}";
    }
    out += n + 1 < s.nodes.size() ? "},\n" : "}\n";
  }
  if (!s.nodes.empty())
    out += "  }\n";
  out += "}\n";
  return out;
}

status write_report(const std::string& path, const job_summary& s) {
  auto file = atomic_file::create(path);
  if (!file)
    return failure{file.error()};
  std::string json = to_json(s);
  std::fwrite(json.data(), 1, json.size(), file->stream());
  return file->commit();
}

status write_failure_report(const std::string& path, job_summary s, const std::string& error) {
  s.error = error;
  return write_report(path, s);
}

bool is_divergence(const std::string& error) { return error.find("training diverged") != std::string::npos; }

uint64_t peak_rss_bytes() {
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

} // namespace gridvec

namespace gridvec {

uint64_t peak_rss_since_reset() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %llu kB", &kib) == 1)
      break;
  std::fclose(f);
  return static_cast<uint64_t>(kib) * 1024;
}

bool reset_peak_rss() {
  // "5" resets the peak resident set to the current one (Linux 4.0 and later).
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f)
    return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

uint64_t current_rss_bytes() {
  // /proc/self/statm: size resident shared ... in pages.
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long long size = 0, resident = 0;
  int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

} // namespace gridvec
