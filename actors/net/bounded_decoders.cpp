#include "actors/net/bounded_decoders.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/config_value.hpp>
#include <caf/detail/type_erased_value_impl.hpp>
#include <caf/rtti_pair.hpp>
#include <caf/sec.hpp>
#include <caf/uniform_type_info_map.hpp>

#include <algorithm>
#include <array>
#include <exception>
#include <functional>
#include <mutex>
#include <string>

#include "actors/net/limited_log.hpp"
#include "src/formats/wire.hpp" // wire_bytes

namespace gridvec::net {

// -- reaching CAF's built-in decoder table ------------------------------------
//
// uniform_type_info_map keeps the factories of its built-in types in a
// private array that CAF offers no way to change, and it looks built-in
// names up before any registered type. An explicit template instantiation
// may name a private member (C++20 [temp.spec.general]/6): this one hands
// out a pointer to that array, and nothing else of CAF's internals is used.

using builtin_table = std::array<caf::uniform_type_info_map::value_factory_kvp, caf::type_nrs - 1>;
using builtin_member = builtin_table caf::uniform_type_info_map::*;

builtin_member builtin_table_of();

template <builtin_member Member>
struct builtin_table_access {
  friend builtin_member builtin_table_of() { return Member; }
};

template struct builtin_table_access<&caf::uniform_type_info_map::builtin_>;

namespace {

constexpr size_t chunk_bytes = size_t{1} << 20;

// A type-erased value of T whose load is `Load` instead of CAF's generic
// one; everything else (type number, saving, printing) stays CAF's.
template <class T, caf::error (*Load)(caf::deserializer&, T&)>
class bounded_value final : public caf::detail::type_erased_value_impl<T> {
public:
  using caf::detail::type_erased_value_impl<T>::type_erased_value_impl;
  caf::error load(caf::deserializer& source) override { return Load(source, *static_cast<T*>(this->get_mutable())); }
  caf::type_erased_value_ptr copy() const override {
    return caf::type_erased_value_ptr{new bounded_value(*static_cast<const T*>(this->get()))};
  }
};

template <class T, caf::error (*Load)(caf::deserializer&, T&)>
caf::type_erased_value_ptr make_bounded() {
  return caf::type_erased_value_ptr{new bounded_value<T, Load>()};
}

// A sequence of byte buffers: CAF decodes the elements one by one (each at
// least one byte), so only the elements' own buffers need bounding.
caf::error load_bytes_vector(caf::deserializer& source, std::vector<wire_bytes>& xs) {
  size_t n = 0;
  if (auto err = source.begin_sequence(n))
    return err;
  xs.clear();
  for (size_t i = 0; i < n; ++i) {
    wire_bytes x;
    if (auto err = load_bounded_bytes(source, x))
      return err;
    xs.push_back(std::move(x));
  }
  return source.end_sequence();
}

caf::error load_bytes_vector_vector(caf::deserializer& source, std::vector<std::vector<wire_bytes>>& xs) {
  size_t n = 0;
  if (auto err = source.begin_sequence(n))
    return err;
  xs.clear();
  for (size_t i = 0; i < n; ++i) {
    std::vector<wire_bytes> x;
    if (auto err = load_bytes_vector(source, x))
      return err;
    xs.push_back(std::move(x));
  }
  return source.end_sequence();
}

// -- nesting ----------------------------------------------------------------
//
// A message may hold a message, an error (whose context is a message) or a
// config_value list, each decoded by recursion: a peer that nests them a
// few bytes per level overflowed the network thread's stack. Every element
// a peer names is decoded inside a count of the levels open on this thread,
// and a config_value's lists and dictionaries count as levels too.

constexpr int max_nesting = 32;
thread_local int open_levels = 0;

class nesting_level {
public:
  nesting_level() { ++open_levels; }
  ~nesting_level() { --open_levels; }
  nesting_level(const nesting_level&) = delete;
  nesting_level& operator=(const nesting_level&) = delete;
  bool too_deep() const { return open_levels > max_nesting; }
};

caf::error refuse_too_deep() {
  warn_limited("dropped a message from a peer: values nested more than " + std::to_string(max_nesting) + " deep");
  return caf::make_error(caf::sec::invalid_argument, "values nested too deep");
}

// Another type-erased value whose load runs inside a nesting level and
// turns an exception into an error; everything else is the wrapped value's.
class nesting_counted_value final : public caf::type_erased_value {
public:
  explicit nesting_counted_value(caf::type_erased_value_ptr inner) : inner_(std::move(inner)) {}
  void* get_mutable() override { return inner_->get_mutable(); }
  caf::error load(caf::deserializer& source) override {
    nesting_level level;
    if (level.too_deep())
      return refuse_too_deep();
    // CAF's variants (in a config_value, a uri's host) throw on an index
    // they do not know, and BASP does not catch it.
    try {
      return inner_->load(source);
    } catch (const std::exception& e) {
      warn_limited(std::string{"dropped a message from a peer: a malformed value ("} + e.what() + ")");
      return caf::make_error(caf::sec::invalid_argument, std::string{"malformed value: "} + e.what());
    }
  }
  caf::rtti_pair type() const override { return inner_->type(); }
  const void* get() const override { return inner_->get(); }
  caf::error save(caf::serializer& sink) const override { return inner_->save(sink); }
  std::string stringify() const override { return inner_->stringify(); }
  caf::type_erased_value_ptr copy() const override { return inner_->copy(); }

private:
  caf::type_erased_value_ptr inner_;
};

// A named type, so that a table already wrapped is recognised.
struct nesting_counted_factory {
  std::function<caf::type_erased_value_ptr()> inner;
  caf::type_erased_value_ptr operator()() const {
    auto value = inner();
    if (!value)
      return value;
    return caf::type_erased_value_ptr{new nesting_counted_value(std::move(value))};
  }
};

template <class Factory>
void count_nesting(Factory& factory) {
  if (factory && !factory.template target<nesting_counted_factory>())
    factory = nesting_counted_factory{std::move(factory)};
}

// -- config_value ----------------------------------------------------------
//
// Decoded by hand, as CAF encodes it (the variant's index in one byte, then
// the alternative), so that its lists and dictionaries count as levels and
// an index the variant does not have is an error, not an exception.
caf::error load_config_value(caf::deserializer& source, caf::config_value& x) {
  nesting_level level;
  if (level.too_deep())
    return refuse_too_deep();
  uint8_t index = 0;
  if (auto err = source(index))
    return err;
  auto load_as = [&](auto value) -> caf::error {
    if (auto err = source(value))
      return err;
    x = std::move(value);
    return caf::none;
  };
  switch (index) {
    case 0: return load_as(caf::config_value::integer{});
    case 1: return load_as(caf::config_value::boolean{});
    case 2: return load_as(caf::config_value::real{});
    case 3: return load_as(caf::config_value::atom{});
    case 4: return load_as(caf::config_value::timespan{});
    case 5: return load_as(caf::uri{});
    case 6: return load_as(caf::config_value::string{});
    case 7: {
      size_t n = 0;
      if (auto err = source.begin_sequence(n))
        return err;
      caf::config_value::list items;
      for (size_t i = 0; i < n; ++i) {
        caf::config_value item;
        if (auto err = load_config_value(source, item))
          return err;
        items.push_back(std::move(item));
      }
      x = std::move(items);
      return source.end_sequence();
    }
    case 8: {
      size_t n = 0;
      if (auto err = source.begin_sequence(n))
        return err;
      caf::config_value::dictionary entries;
      for (size_t i = 0; i < n; ++i) {
        std::string key;
        caf::config_value value;
        if (auto err = source(key))
          return err;
        if (auto err = load_config_value(source, value))
          return err;
        entries.insert_or_assign(std::move(key), std::move(value));
      }
      x = std::move(entries);
      return source.end_sequence();
    }
    default:
      warn_limited("dropped a message from a peer: a malformed config_value (unknown kind " + std::to_string(index) +
                   ")");
      return caf::make_error(caf::sec::invalid_argument, "malformed config_value");
  }
}

} // namespace

caf::error load_bounded_bytes(caf::deserializer& source, std::vector<char>& bytes) {
  size_t n = 0;
  if (auto err = source.begin_sequence(n))
    return err;
  // From a buffer (BASP), a length beyond what it holds is refused at once.
  if (auto* buffer = dynamic_cast<caf::binary_deserializer*>(&source); buffer && n > buffer->remaining()) {
    warn_limited("dropped a message from a peer: a byte buffer claims " + std::to_string(n) + " bytes, " +
                 std::to_string(buffer->remaining()) + " follow");
    return caf::sec::end_of_stream;
  } else if (buffer) {
    // Copied straight from the buffer: no zero-fill first (training
    // messages carry megabytes a second).
    const auto* first = reinterpret_cast<const char*>(buffer->remainder().data());
    bytes.assign(first, first + n);
    buffer->skip(n);
    return source.end_sequence();
  }
  bytes.clear();
  while (bytes.size() < n) {
    const size_t step = std::min(chunk_bytes, n - bytes.size());
    const size_t at = bytes.size();
    bytes.resize(at + step);
    if (auto err = source.apply_raw(step, bytes.data() + at))
      return err;
  }
  return source.end_sequence();
}

void use_bounded_decoders(caf::actor_system_config& cfg) {
  auto install = [&cfg](const std::type_info& rtti, caf::actor_system_config::value_factory factory) {
    auto name = cfg.type_names_by_rtti.find(std::type_index(rtti));
    if (name == cfg.type_names_by_rtti.end())
      return; // not registered: a peer cannot send it
    cfg.value_factories_by_name[name->second] = factory;
    cfg.value_factories_by_rtti[std::type_index(rtti)] = factory;
  };
  install(typeid(std::vector<wire_bytes>), &make_bounded<std::vector<wire_bytes>, load_bytes_vector>);
  install(typeid(std::vector<std::vector<wire_bytes>>),
          &make_bounded<std::vector<std::vector<wire_bytes>>, load_bytes_vector_vector>);
}

void harden_builtin_decoders(caf::actor_system& sys) {
  using factory_fn = caf::type_erased_value_ptr (*)();
  constexpr factory_fn bounded_charbuf = &make_bounded<std::vector<char>, load_bounded_bytes>;
  constexpr factory_fn bounded_config_value = &make_bounded<caf::config_value, load_config_value>;
  // Once per system, before it talks to a peer: the network thread reads
  // the tables afterwards, and only reads them (a second call finds them
  // done and writes nothing).
  static std::mutex mutex;
  std::lock_guard<std::mutex> guard{mutex};
  // The system owns the tables; CAF hands them out as const only.
  auto& types = const_cast<caf::uniform_type_info_map&>(sys.types());
  for (auto& [name, factory] : types.*builtin_table_of()) {
    if (factory.target<nesting_counted_factory>())
      continue;
    if (name == "@charbuf")
      factory = bounded_charbuf;
    else if (name == "@config_value")
      factory = bounded_config_value;
    count_nesting(factory);
  }
  // The registered types are looked up in the system's copy of the config.
  auto& config = const_cast<caf::actor_system_config&>(sys.config());
  for (auto& entry : config.value_factories_by_name)
    count_nesting(entry.second);
}

} // namespace gridvec::net
