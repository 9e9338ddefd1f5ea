#pragma once
// Prometheus' text exposition format (version 0.0.4), which /metrics
// serves: every metric family gets its `# HELP` and `# TYPE` line once,
// before its first sample; label values are escaped; values that are not
// finite are written as Prometheus spells them (NaN, +Inf, -Inf).
//
//   prometheus_text out;
//   out.family("gridvec_job_loss", "gauge", "mean SGNS loss per positive pair");
//   out.sample("gridvec_job_loss", {}, 2.31);
//   out.sample("gridvec_shard_memory_bytes", {{"shard", "0"}}, 1.2e6); // after its family()
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gridvec::http {

using metric_labels = std::vector<std::pair<std::string, std::string>>;

class prometheus_text {
public:
  /// Declares a family (`type`: counter, gauge, untyped); a second call for
  /// the same name does nothing, so callers need not track what they wrote.
  void family(const std::string& name, std::string_view type, std::string_view help);
  /// One sample of a declared family.
  void sample(const std::string& name, const metric_labels& labels, double value);

  const std::string& text() const { return text_; }

private:
  std::set<std::string> declared_;
  std::string text_;
};

/// A label value as the format wants it: \\, \" and \n escaped.
std::string escape_label_value(std::string_view value);

/// A sample value: shortest round-tripping decimal, NaN, +Inf or -Inf.
std::string format_metric_value(double value);

} // namespace gridvec::http
