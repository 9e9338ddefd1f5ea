#include <gridvec/core/table_operations.hpp>

#include <map>
#include <mutex>

namespace gridvec {

namespace {

struct registry {
  std::mutex lock;
  std::map<std::string, table_operation> ops;
};

registry& the_registry() {
  static registry r;
  return r;
}

} // namespace

void register_table_operation(const std::string& name, table_operation op) {
  auto& r = the_registry();
  std::lock_guard<std::mutex> guard{r.lock};
  r.ops[name] = std::move(op);
}

table_operation find_table_operation(const std::string& name) {
  auto& r = the_registry();
  std::lock_guard<std::mutex> guard{r.lock};
  auto it = r.ops.find(name);
  return it == r.ops.end() ? table_operation{} : it->second;
}

std::vector<std::string> table_operation_names() {
  auto& r = the_registry();
  std::lock_guard<std::mutex> guard{r.lock};
  std::vector<std::string> names;
  for (auto& [name, op] : r.ops)
    names.push_back(name);
  return names;
}

} // namespace gridvec
