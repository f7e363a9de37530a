#include "driver/run/result_cache.hpp"

#include "driver/run/to_toml.hpp"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

namespace ptxgen::driver {

namespace {

bool enabled_by_environment() {
  const char* off = std::getenv("PTXGEN_NO_CACHE");
  return !off || std::string_view(off).empty() || std::string_view(off) == "0";
}

std::atomic<bool>& enabled() {
  static std::atomic<bool> on{enabled_by_environment()};
  return on;
}

/// One kind of result by key, oldest out first past max_cached_results.
template <class Value>
class Memo {
public:
  std::optional<Value> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    return it->second;
  }
  void store(const std::string& key, const Value& v) {
    std::lock_guard lock(mutex_);
    if (!values_.insert_or_assign(key, v).second)
      return;
    order_.push_back(key);
    while (order_.size() > max_cached_results) {
      values_.erase(order_.front());
      order_.pop_front();
    }
  }
  void clear() {
    std::lock_guard lock(mutex_);
    values_.clear();
    order_.clear();
  }
  std::pair<std::uint64_t, std::uint64_t> counts() {
    std::lock_guard lock(mutex_);
    return {hits_, misses_};
  }

private:
  std::mutex mutex_;
  std::map<std::string, Value> values_;
  std::deque<std::string> order_;
  std::uint64_t hits_ = 0, misses_ = 0;
};

Memo<Diagnostics>& proofs() {
  static Memo<Diagnostics> m;
  return m;
}

struct Lowered {
  std::optional<ptx::Module> module;
  std::string ptx;
  Diagnostics diagnostics;
};

Memo<Lowered>& lowerings() {
  static Memo<Lowered> m;
  return m;
}

/// The proof's options: the rest of its key.
std::string proof_suffix(const RangeProofOptions& o) {
  std::ostringstream s;
  s << "\n# whole_launch " << o.coverage_notes << ' ' << o.test_values_only << '\n';
  return s.str();
}

std::string lowering_suffix(const lower::LowerOptions& o, FaultSpecs faults) {
  std::ostringstream s;
  s << "\n# lowering " << o.target.str() << ' ' << (o.version ? o.version->str() : "-") << ' '
    << (o.run_target ? o.run_target->str() : "-") << ' ' << o.unchecked << ' ' << o.raise_target
    << ' ' << static_cast<int>(faults) << '\n';
  for (const std::string& c : o.header_comments)
    s << "// " << c << '\n';
  return s.str();
}

} // namespace

void set_result_cache_enabled(bool on) {
  enabled() = on;
}

bool result_cache_enabled() {
  return enabled();
}

void clear_result_cache() {
  proofs().clear();
  lowerings().clear();
}

ResultCacheCounters result_cache_counters() {
  ResultCacheCounters c;
  std::tie(c.proof_hits, c.proof_misses) = proofs().counts();
  std::tie(c.lower_hits, c.lower_misses) = lowerings().counts();
  return c;
}

Diagnostics cached_whole_launch_findings(const tile::Kernel& k, const RangeProofOptions& options) {
  if (!result_cache_enabled())
    return whole_launch_findings(k, options);
  const std::string key = api::content_key(k) + proof_suffix(options);
  if (auto hit = proofs().find(key))
    return std::move(*hit);
  Diagnostics found = whole_launch_findings(k, options);
  proofs().store(key, found);
  return found;
}

void cached_lower_into(EmittedSpec& out, const tile::Kernel& k, const lower::LowerOptions& options,
                       FaultSpecs faults) {
  if (!result_cache_enabled() || options.dump_loop_form) {
    lower_into(out, k, options, faults);
    return;
  }
  const std::string key = api::content_key(k) + lowering_suffix(options, faults);
  if (auto hit = lowerings().find(key)) {
    out.module = std::move(hit->module);
    out.ptx = std::move(hit->ptx);
    out.diagnostics.append(hit->diagnostics);
    return;
  }
  EmittedSpec fresh;
  lower_into(fresh, k, options, faults);
  lowerings().store(key, Lowered{fresh.module, fresh.ptx, fresh.diagnostics});
  out.module = std::move(fresh.module);
  out.ptx = std::move(fresh.ptx);
  out.diagnostics.append(fresh.diagnostics);
}

} // namespace ptxgen::driver
