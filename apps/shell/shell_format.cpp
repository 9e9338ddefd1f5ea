#include "apps/shell/shell_format.hpp"

#include <algorithm>
#include <cstdio>

namespace gridvec {

namespace {

// printf into a std::string, for the few numeric formats used here.
template <class... Ts>
std::string print(const char* fmt, Ts... xs) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, xs...);
  return buf;
}

// Characters, not bytes: words are UTF-8 and should line up on a terminal.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

std::string percent(double fraction) { return print("%.1f%%", 100.0 * std::clamp(fraction, 0.0, 1.0)); }

} // namespace

std::string format_progress_line(const job_status& s) {
  return print("epoch %u/%u  %5.1f%%  %s words/s  eta %s  alpha %.5f  loss %.4f", s.epoch, s.iterations,
               100.0 * std::clamp(s.progress, 0.0, 1.0), human_count(s.words_per_second).c_str(),
               s.eta_seconds < 0 ? "-" : human_duration(s.eta_seconds).c_str(), static_cast<double>(s.alpha), s.loss);
}

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                         const std::vector<size_t>& right) {
  std::vector<size_t> width(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  };
  measure(header);
  for (const auto& row : rows)
    measure(row);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < row.size() ? row[c] : std::string{};
      const std::string pad(width[c] - display_width(cell), ' ');
      const bool is_right = std::find(right.begin(), right.end(), c) != right.end();
      if (c > 0)
        line += "  ";
      line += is_right ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') // no trailing blanks from the last column
      line.pop_back();
    out += line + '\n';
  };
  emit(header);
  for (const auto& row : rows)
    emit(row);
  return out;
}

std::string format_status(const job_status& s) {
  if (s.job == 0 && s.phase == "idle")
    return "no job has been run yet (start one with `train` or `submit`)\n";
  std::vector<std::vector<std::string>> rows;
  auto add = [&](std::string key, std::string value) { rows.push_back({std::move(key), std::move(value)}); };
  add("job", std::to_string(s.job));
  add("phase", s.phase);
  if (s.iterations > 0)
    add("epoch", std::to_string(s.epoch) + " of " + std::to_string(s.iterations));
  add("progress", percent(s.progress) + " (" + human_count(static_cast<double>(s.processed_words)) + " of " +
                    human_count(static_cast<double>(s.total_words)) + " words)");
  add("words/s", human_count(s.words_per_second));
  add("eta", s.eta_seconds >= 0 && s.words_per_second > 0 && s.progress < 1 ? human_duration(s.eta_seconds) : "-");
  add("alpha", print("%.6f", static_cast<double>(s.alpha)));
  add("loss", s.loss > 0 ? print("%.4f", s.loss) : "-");
  add("bytes/word", s.bytes_per_word > 0 ? print("%.1f", s.bytes_per_word) : "-");
  add("shards", std::to_string(s.shards));
  add("learners", std::to_string(s.learners));
  add("vocabulary", s.vocab_size > 0 ? std::to_string(s.vocab_size) + " words" : "-");
  add("checkpoint", s.last_checkpoint > 0 ? "#" + std::to_string(s.last_checkpoint) : "none");
  if (s.recoveries > 0)
    add("recoveries", std::to_string(s.recoveries));
  add("elapsed", human_duration(s.seconds));
  add("message", s.message.empty() ? "-" : s.message);
  // A key-value list: the table without its header row.
  std::string table = render_table({"", ""}, rows);
  return table.substr(table.find('\n') + 1);
}

std::string format_nodes(const std::vector<node_status>& nodes) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : nodes)
    rows.push_back({n.name, n.address, n.roles, n.up ? "up" : "down", n.up ? human_bytes(n.rss_bytes) : "-",
                    n.up ? std::to_string(n.shards) : "-", n.up ? std::to_string(n.learners) : "-"});
  return render_table({"NODE", "ADDRESS", "ROLES", "STATE", "MEMORY", "SHARD LANES", "LEARNERS"}, rows, {4, 5, 6});
}

std::string format_shards(const std::vector<shard_status>& shards) {
  if (shards.empty())
    return "the job has no shards yet\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : shards) {
    std::string columns = s.width > 0 ? std::to_string(s.first) + "-" + std::to_string(s.first + s.width - 1) : "-";
    if (s.row_shards > 0) // --partition words: all columns of its words' rows
      columns += " of words w%" + std::to_string(s.row_shards) + "=" + std::to_string(s.index);
    rows.push_back({std::to_string(s.index), s.node, columns, human_bytes(s.bytes), std::to_string(s.requests),
                    print("%.1f", s.requests_per_second), s.alive ? "alive" : "lost"});
  }
  return render_table({"SHARD", "NODE", "COLUMNS", "MEMORY", "REQUESTS", "REQUESTS/S", "STATE"}, rows, {0, 3, 4, 5});
}

std::string format_part(const part_cursor& c, uint32_t iterations) {
  std::string out = "p" + std::to_string(c.part);
  if (iterations > 0 && c.finished(iterations))
    return out + " done";
  if (c.words == 0)
    return out + " " + human_count(static_cast<double>(c.processed)) + " words";
  // `processed` counts every epoch; the remainder is this epoch's share.
  const double in_epoch =
    static_cast<double>(c.processed) - static_cast<double>(c.epoch) * static_cast<double>(c.words);
  out += " epoch " + std::to_string(c.epoch + 1);
  if (iterations > 0)
    out += "/" + std::to_string(iterations);
  return out + " " + print("%.0f%%", 100.0 * std::clamp(in_epoch / static_cast<double>(c.words), 0.0, 1.0));
}

std::string format_learners(const std::vector<learner_status>& learners, uint32_t iterations) {
  if (learners.empty())
    return "the job has no learners yet\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : learners) {
    std::string parts;
    for (const auto& c : l.parts)
      parts += (parts.empty() ? "" : ", ") + format_part(c, iterations);
    rows.push_back({std::to_string(l.id), l.node, l.state, std::to_string(l.in_flight), human_count(l.words_per_second),
                    parts.empty() ? "-" : parts});
  }
  return render_table({"LEARNER", "NODE", "STATE", "IN FLIGHT", "WORDS/S", "PARTS"}, rows, {0, 3, 4});
}

std::string format_neighbours(const std::vector<neighbour>& words) {
  if (words.empty())
    return "no neighbours\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < words.size(); ++i)
    rows.push_back({std::to_string(i + 1), words[i].word, print("%.4f", static_cast<double>(words[i].score))});
  return render_table({"#", "WORD", "COSINE"}, rows, {0, 2});
}

std::string format_summary(const job_summary& s) {
  std::string out = "job done in " + print("%.1f", s.seconds) + " s: " + human_count(s.words_per_second()) +
                    " words/s, " + std::to_string(s.vocab_size) + " vectors of " + std::to_string(s.dim) + ", " +
                    std::to_string(s.shards) + " shards, " + std::to_string(s.learners) + " learners";
  if (s.final_loss > 0)
    out += ", final loss " + print("%.4f", s.final_loss);
  if (s.checkpoints > 0)
    out += ", " + std::to_string(s.checkpoints) + " checkpoints";
  if (s.recoveries > 0)
    out += ", " + std::to_string(s.recoveries) + " recoveries";
  if (s.peak_rss_bytes > 0)
    out +=
      ", peak RSS " + human_bytes(s.peak_rss_bytes) + (s.peak_rss_node.empty() ? "" : " on node " + s.peak_rss_node);
  return out + "\n";
}

std::string format_checkpoint(const checkpoint_info& c) {
  return "checkpoint #" + std::to_string(c.sequence) + " written to " + c.path + " in " + print("%.2f", c.seconds) +
         " s\n";
}

} // namespace gridvec
