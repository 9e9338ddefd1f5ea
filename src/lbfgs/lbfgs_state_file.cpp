#include "src/lbfgs/lbfgs_state_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <sstream>

#include "src/access/guarded_open.hpp"
#include "src/util/atomic_file.hpp"
#include <gridvec/core/table_wire.hpp>

namespace gridvec {

namespace {

constexpr const char* magic = "gridvec-lbfgs-state 2";
constexpr const char* first_magic = "gridvec-lbfgs-state 1"; // before the table slot; still read
// Far above any run (--max-iter is a uint32, but a trace line is ~80 bytes)
// and below what would exhaust memory on a damaged file.
constexpr uint64_t max_trace = 10'000'000;

std::string hex(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

// Reads "KEY VALUE" lines in order; the first mismatch is the error.
class state_reader {
public:
  state_reader(std::istream& in, std::string path) : in_(in), path_(std::move(path)) {}

  status line(const char* key, std::string& value) {
    std::string text;
    if (!std::getline(in_, text))
      return bad(std::string("it ends before '") + key + "'");
    ++number_;
    const std::string prefix = std::string(key) + " ";
    if (text.rfind(prefix, 0) != 0)
      return bad(std::string("line ") + std::to_string(number_) + " is not '" + key + " ...'");
    value = text.substr(prefix.size());
    return {};
  }
  status number(const char* key, uint64_t& out, uint64_t most) {
    std::string v;
    if (auto s = line(key, v); !s)
      return s;
    char* end = nullptr;
    errno = 0;
    const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0 || x > most)
      return bad(std::string(key) + " '" + v + "' is not a number from 0 to " + std::to_string(most));
    out = x;
    return {};
  }
  status real(const char* key, double& out) {
    std::string v;
    if (auto s = line(key, v); !s)
      return s;
    return parse_real(key, v, out);
  }
  status parse_real(const char* key, const std::string& v, double& out) {
    char* end = nullptr;
    out = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(out))
      return bad(std::string(key) + " '" + v + "' is not a finite number");
    return {};
  }
  failure bad(const std::string& why) const { return failure{"the L-BFGS state file " + path_ + ": " + why}; }

private:
  std::istream& in_;
  std::string path_;
  uint64_t number_ = 1; // the first line is the magic
};

} // namespace

status write_lbfgs_state(const std::string& path, const lbfgs_checkpoint& checkpoint, const lbfgs_run_identity& run) {
  const lbfgs_state& s = checkpoint.state;
  std::ostringstream out;
  out << magic << "\n";
  out << "table " << run.table << "\nfeatures " << run.features << "\nmemory " << run.memory << "\nl2 " << hex(run.l2)
      << "\nexamples " << run.examples << "\ntable-slot " << checkpoint.table_slot << "\n";
  out << "iteration " << s.iteration << "\nobjective " << hex(s.objective) << "\ngradient-norm " << hex(s.gradient_norm)
      << "\ngamma " << hex(s.gamma) << "\nnext-slot " << s.next_slot << "\ndata-passes " << s.data_passes << "\n";
  out << "history " << s.history.size() << "\n";
  for (const auto& p : s.history)
    out << "pair " << p.slot << " " << hex(p.rho) << "\n";
  out << "trace " << s.trace.size() << "\n";
  for (const auto& t : s.trace)
    out << "step " << t.iteration << " " << hex(t.objective) << " " << hex(t.gradient_norm) << " " << hex(t.step) << " "
        << t.passes << "\n";
  out << "end\n";
  auto file = atomic_file::create(path, "the L-BFGS state file");
  if (!file)
    return failure{file.error()};
  const std::string text = out.str();
  if (std::fwrite(text.data(), 1, text.size(), file->stream()) != text.size())
    return failure{"cannot write the L-BFGS state file " + path};
  return file->commit();
}

expected<lbfgs_checkpoint> read_lbfgs_state(const std::string& path, const lbfgs_run_identity& expect) {
  auto in = access::istream_read(path, "the L-BFGS state file");
  if (!in)
    return failure{in.error()};
  state_reader r(**in, path);
  std::string first;
  if (!std::getline(**in, first) || (first != magic && first != first_magic))
    return failure{r.bad("it is not a gridvec L-BFGS state (its first line is not '" + std::string(magic) + "')")};
  lbfgs_run_identity run;
  uint64_t features = 0, memory = 0;
  if (auto s = r.line("table", run.table); !s)
    return failure{s.why()};
  if (auto s = r.number("features", features, UINT32_MAX); !s)
    return failure{s.why()};
  if (auto s = r.number("memory", memory, 100); !s)
    return failure{s.why()};
  if (auto s = r.real("l2", run.l2); !s)
    return failure{s.why()};
  if (auto s = r.number("examples", run.examples, UINT64_MAX); !s)
    return failure{s.why()};
  uint64_t table_slot = 0;
  if (first == magic)
    if (auto s = r.number("table-slot", table_slot, max_table_slots - 1); !s)
      return failure{s.why()};
  if (run.table != expect.table || features != expect.features || memory != expect.memory || run.l2 != expect.l2 ||
      run.examples != expect.examples)
    return failure{r.bad("it is of another run (table " + run.table + ", features " + std::to_string(features) +
                         ", memory " + std::to_string(memory) + ", l2 " + std::to_string(run.l2) + ", " +
                         std::to_string(run.examples) + " examples)")};
  lbfgs_state s;
  uint64_t iteration = 0, next_slot = 0, passes = 0, pairs = 0, steps = 0;
  if (auto ok = r.number("iteration", iteration, UINT32_MAX); !ok)
    return failure{ok.why()};
  if (auto ok = r.real("objective", s.objective); !ok)
    return failure{ok.why()};
  if (auto ok = r.real("gradient-norm", s.gradient_norm); !ok)
    return failure{ok.why()};
  if (auto ok = r.real("gamma", s.gamma); !ok)
    return failure{ok.why()};
  if (auto ok = r.number("next-slot", next_slot, memory - 1); !ok)
    return failure{ok.why()};
  if (auto ok = r.number("data-passes", passes, UINT32_MAX); !ok)
    return failure{ok.why()};
  if (auto ok = r.number("history", pairs, memory); !ok)
    return failure{ok.why()};
  s.iteration = static_cast<uint32_t>(iteration);
  s.next_slot = static_cast<uint32_t>(next_slot);
  s.data_passes = static_cast<uint32_t>(passes);
  for (uint64_t i = 0; i < pairs; ++i) {
    std::string v;
    if (auto ok = r.line("pair", v); !ok)
      return failure{ok.why()};
    std::istringstream fields(v);
    std::string slot, rho;
    lbfgs_pair p;
    if (!(fields >> slot >> rho) || slot.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull("0" + slot) >= memory)
      return failure{r.bad("pair '" + v + "' is not a slot below " + std::to_string(memory) + " and a number")};
    p.slot = static_cast<uint32_t>(std::stoull(slot));
    if (auto ok = r.parse_real("pair", rho, p.rho); !ok)
      return failure{ok.why()};
    s.history.push_back(p);
  }
  if (auto ok = r.number("trace", steps, std::min<uint64_t>(max_trace, iteration)); !ok)
    return failure{ok.why()};
  for (uint64_t i = 0; i < steps; ++i) {
    std::string v;
    if (auto ok = r.line("step", v); !ok)
      return failure{ok.why()};
    std::istringstream fields(v);
    std::string it, f, g, a, n;
    if (!(fields >> it >> f >> g >> a >> n) || it.find_first_not_of("0123456789") != std::string::npos ||
        n.find_first_not_of("0123456789") != std::string::npos || it.size() > 9 || n.size() > 9)
      return failure{r.bad("step '" + v + "' is not an iteration, three numbers and a count")};
    lbfgs_iteration t;
    t.iteration = static_cast<uint32_t>(std::stoul(it));
    t.passes = static_cast<uint32_t>(std::stoul(n));
    for (auto [text, out] : {std::pair{&f, &t.objective}, std::pair{&g, &t.gradient_norm}, std::pair{&a, &t.step}})
      if (auto ok = r.parse_real("step", *text, *out); !ok)
        return failure{ok.why()};
    s.trace.push_back(t);
  }
  std::string end;
  if (!std::getline(**in, end) || end != "end")
    return failure{r.bad("it does not end with 'end' (cut short?)")};
  return lbfgs_checkpoint{std::move(s), static_cast<uint32_t>(table_slot)};
}

} // namespace gridvec
