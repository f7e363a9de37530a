#include "driver/fuzz/report_merge.hpp"

#include "driver/run/shard.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>

namespace ptxgen::fuzz {

namespace {

using Json = nlohmann::ordered_json;

/// Which command wrote a report.
enum class ReportKind : std::uint8_t { fuzz, conformance };

struct Parsed {
  const ReportText* source = nullptr;
  Json json;
  ReportKind kind = ReportKind::fuzz;
  driver::Shard shard;
};

/// `j[key]`, or null when `j` has no such key (const `operator[]` must not be asked for one).
const Json& field(const Json& j, const char* key) {
  static const Json none;
  const auto it = j.find(key);
  return it == j.end() ? none : *it;
}

/// The entries of the array `j[key]`; none when it is absent or not an array.
const Json& entries(const Json& j, const char* key) {
  static const Json none = Json::array();
  const Json& f = field(j, key);
  return f.is_array() ? f : none;
}

/// "FILE:LINE:COL: " of byte `offset` of `text` (1-based), for a parse error.
std::string position(const ReportText& r, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < r.text.size(); ++i) {
    if (r.text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return r.path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

Fallible<Parsed> parse(const ReportText& r) {
  Parsed p;
  p.source = &r;
  try {
    p.json = Json::parse(r.text);
  } catch (const Json::parse_error& e) {
    // The byte is one past the character where parsing stopped.
    return Failure{position(r, e.byte == 0 ? 0 : e.byte - 1) + "not JSON: " + e.what()};
  }
  if (!p.json.is_object())
    return Failure{r.path + ": not a ptxgen report (a JSON object)"};
  if (p.json.contains("mutants") && p.json.contains("specs")) {
    p.kind = ReportKind::fuzz;
    auto s = driver::parse_shard(p.json.value("shard", std::string("0/1")));
    if (!s)
      return Failure{r.path + ": shard: " + s.error()};
    p.shard = *s;
  } else if (p.json.contains("cases") && p.json.contains("summary")) {
    p.kind = ReportKind::conformance;
    const Json& s = field(p.json, "shard");
    if (!s.is_object())
      return Failure{r.path + ": no shard object"};
    p.shard = driver::Shard{s.value("index", 0u), s.value("count", 1u)};
    if (p.shard.count == 0 || p.shard.index >= p.shard.count)
      return Failure{r.path + ": shard " + driver::str(p.shard) + " is not a shard"};
  } else {
    return Failure{r.path + ": neither a `ptxgen fuzz --report` nor a `ptxgen run --report` JSON"};
  }
  return p;
}

/// Adds `from`'s numbers into `into`, key by key (an object of counts).
void add_counts(Json& into, const Json& from) {
  if (!from.is_object())
    return;
  for (const auto& [key, value] : from.items()) {
    if (!into.contains(key))
      into[key] = value;
    else if (value.is_number_integer())
      into[key] = into[key].get<std::uint64_t>() + value.get<std::uint64_t>();
    else if (value.is_number())
      into[key] = into[key].get<double>() + value.get<double>();
  }
}

/// The same value in every report, or a failure naming the first that differs.
Fallible<Json> same_in_all(const std::vector<Parsed>& all, const char* key) {
  const Json& first = field(all.front().json, key);
  for (const auto& p : all)
    if (field(p.json, key) != first)
      return Failure{p.source->path + ": " + key + " " + field(p.json, key).dump() +
                     " differs from " + all.front().source->path + "'s " + first.dump() +
                     ": reports of different campaigns"};
  return first;
}

/// Sums the array entries of `key` that share the value of `id_keys`, keeping first-seen
/// order; every other number in an entry is summed.
Json sum_entries(const std::vector<Parsed>& all, const char* key,
                 std::initializer_list<const char*> id_keys) {
  Json out = Json::array();
  for (const auto& p : all)
    for (const auto& entry : entries(p.json, key)) {
      auto same = std::find_if(out.begin(), out.end(), [&](const Json& o) {
        return std::all_of(id_keys.begin(), id_keys.end(),
                           [&](const char* k) { return field(o, k) == field(entry, k); });
      });
      if (same == out.end())
        out.push_back(entry);
      else
        add_counts(*same, entry);
    }
  return out;
}

/// The shards' findings together, each class's kept as one process keeps them: the lowest
/// seeds, at most `per_class` (0: all). A seed is one shard's, so several findings of one
/// seed (two mutants of one spec) are one process's and are all kept, in its order.
Json merged_findings(const std::vector<Parsed>& all, std::uint64_t per_class) {
  std::map<std::string, std::multimap<std::uint64_t, Json>> by_class;
  for (const auto& p : all)
    for (const auto& f : entries(p.json, "findings"))
      by_class[f.value("class", std::string())].emplace(f.value("seed", std::uint64_t{0}), f);
  std::vector<Json> kept;
  for (auto& [cls, seeds] : by_class) {
    std::uint64_t n = 0;
    for (auto& [seed, f] : seeds)
      if (per_class == 0 || n++ < per_class)
        kept.push_back(std::move(f));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Json& a, const Json& b) {
    return a.value("seed", std::uint64_t{0}) < b.value("seed", std::uint64_t{0});
  });
  return Json(kept);
}

/// Wall time of shards run side by side: the longest.
double longest(const std::vector<Parsed>& all, const char* key) {
  double t = 0;
  for (const auto& p : all)
    t = std::max(t, p.json.value(key, 0.0));
  return t;
}

Fallible<Json> merge_fuzz(const std::vector<Parsed>& all) {
  Json out = all.front().json;
  for (const char* key : {"seed", "generator_version", "kept_per_class", "sanitize"}) {
    auto v = same_in_all(all, key);
    if (!v)
      return Failure{v.error()};
  }
  out["shard"] = "0/1";
  std::set<std::string> backends, problems;
  for (const auto& p : all) {
    backends.insert(p.json.value("backend", std::string()));
    if (const auto s = p.json.value("setup_problem", std::string()); !s.empty())
      problems.insert(s);
  }
  std::string backend, problem;
  for (const auto& b : backends)
    backend += (backend.empty() ? "" : "; ") + b;
  for (const auto& s : problems)
    problem += (problem.empty() ? "" : "; ") + s;
  out["backend"] = backend;
  out["setup_problem"] = problem;
  for (const char* key : {"specs", "passed", "explained", "mutants", "mutants_refused",
                          "false_accepts", "mutants_pending", "findings_total"}) {
    std::uint64_t sum = 0;
    for (const auto& p : all)
      sum += p.json.value(key, std::uint64_t{0});
    out[key] = sum;
  }
  double shrink = 0;
  for (const auto& p : all)
    shrink += p.json.value("shrink_seconds", 0.0);
  out["wall_seconds"] = longest(all, "wall_seconds");
  out["shrink_seconds"] = shrink;
  const double wall = out["wall_seconds"].get<double>();
  out["specs_per_hour"] = wall > 0 ? out["specs"].get<double>() * 3600.0 / wall : 0.0;
  Json devices = Json::array();
  for (const auto& p : all)
    for (auto d : entries(p.json, "devices")) {
      d["shard"] = driver::str(p.shard);
      devices.push_back(std::move(d));
    }
  out["devices"] = devices;
  for (const char* key : {"findings_by_class", "explained_by_class", "by_class"}) {
    Json sum = Json::object();
    for (const auto& p : all)
      add_counts(sum, field(p.json, key));
    out[key] = sum;
  }
  out["mutants_by_rule"] = sum_entries(all, "mutants_by_rule", {"rule", "diag_id"});
  out["backends"] = sum_entries(all, "backends", {"backend"});
  out["findings"] = merged_findings(all, out.value("kept_per_class", std::uint64_t{0}));
  Json errors = Json::array();
  for (const auto& p : all)
    for (const auto& e : entries(p.json, "save_errors"))
      errors.push_back(e);
  out["save_errors"] = errors;
  return out;
}

Fallible<Json> merge_conformance(const std::vector<Parsed>& all) {
  Json out = all.front().json;
  out["shard"] = Json{{"index", 0}, {"count", 1}};
  out["wall_seconds"] = longest(all, "wall_seconds");
  double device = 0;
  for (const auto& p : all)
    device += p.json.value("device_seconds", 0.0);
  out["device_seconds"] = device;
  Json summary = Json::object();
  std::vector<Json> cases;
  std::map<std::string, const ReportText*> seen;
  for (const auto& p : all) {
    add_counts(summary, field(p.json, "summary"));
    for (const auto& c : entries(p.json, "cases")) {
      const auto spec = c.value("spec", std::string());
      if (auto [it, fresh] = seen.emplace(spec, p.source); !fresh)
        return Failure{p.source->path + ": spec " + spec + " is also in " + it->second->path +
                       ": shards that overlap"};
      cases.push_back(c);
    }
  }
  std::stable_sort(cases.begin(), cases.end(), [](const Json& a, const Json& b) {
    return a.value("spec", std::string()) < b.value("spec", std::string());
  });
  out["summary"] = summary;
  out["cases"] = Json(cases);
  return out;
}

/// Every shard of one count, each once; the missing ones (allowed or a failure).
Fallible<std::vector<unsigned>> check_shards(const std::vector<Parsed>& all,
                                             const MergeOptions& options) {
  const unsigned count = all.front().shard.count;
  std::map<unsigned, const ReportText*> have;
  for (const auto& p : all) {
    if (p.kind != all.front().kind)
      return Failure{p.source->path + ": a " +
                     (p.kind == ReportKind::fuzz ? "fuzz" : "conformance") +
                     " report among reports of the other kind (" + all.front().source->path + ")"};
    if (p.shard.count != count)
      return Failure{p.source->path + ": shard " + driver::str(p.shard) + " is not one of " +
                     std::to_string(count) + " (" + all.front().source->path + ")"};
    if (auto [it, fresh] = have.emplace(p.shard.index, p.source); !fresh)
      return Failure{p.source->path + ": shard " + driver::str(p.shard) + " is also " +
                     it->second->path};
  }
  std::vector<unsigned> missing;
  for (unsigned i = 0; i < count; ++i)
    if (!have.count(i))
      missing.push_back(i);
  if (!missing.empty() && !options.allow_missing) {
    std::string list;
    for (unsigned i : missing)
      list += (list.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(count);
    return Failure{"shards missing: " + list + " (--allow-missing merges without them)"};
  }
  return missing;
}

Fallible<std::string> merge_parsed(const std::vector<ReportText>& reports,
                                   const MergeOptions& options) {
  if (reports.empty())
    return Failure{"no reports to merge"};
  std::vector<Parsed> all;
  for (const auto& r : reports) {
    auto p = parse(r);
    if (!p)
      return Failure{p.error()};
    all.push_back(std::move(*p));
  }
  auto missing = check_shards(all, options);
  if (!missing)
    return Failure{missing.error()};
  std::sort(all.begin(), all.end(),
            [](const Parsed& a, const Parsed& b) { return a.shard.index < b.shard.index; });
  auto merged = all.front().kind == ReportKind::fuzz ? merge_fuzz(all) : merge_conformance(all);
  if (!merged)
    return Failure{merged.error()};
  Json from = Json::array();
  for (const auto& p : all)
    from.push_back(p.source->path);
  (*merged)["merged_from"] = from;
  (*merged)["missing_shards"] = *missing;
  return merged->dump(2) + "\n";
}

} // namespace

Fallible<std::string> merge_reports(const std::vector<ReportText>& reports,
                                    const MergeOptions& options) {
  // The JSON library reports a field of an unexpected type by throwing; it ends here.
  try {
    return merge_parsed(reports, options);
  } catch (const Json::exception& e) {
    return Failure{std::string("a report field of an unexpected type: ") + e.what()};
  }
}

} // namespace ptxgen::fuzz
