// The cases of spec files: as they are, with --param values, or swept over the values the
// whole-launch checks run (conformance.hpp's file_cases).
#include "driver/run/conformance.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/toml/reader_spec.hpp"

namespace ptxgen::driver {

namespace fs = std::filesystem;

std::string settings_text(const std::vector<ParamSetting>& settings) {
  std::string s;
  for (const ParamSetting& p : settings)
    s += (s.empty() ? "" : ", ") + p.name + "=" + std::to_string(p.value);
  return s;
}

namespace {

/// One case per combination sweep_values plans for the spec (a spec that does not load is
/// one case, which reports why).
void add_sweep(std::vector<ConformanceCase>& cases, const fs::path& s, std::size_t limit) {
  const auto loaded = load_spec_file(s);
  if (!loaded || (*loaded.value)->params.empty()) {
    cases.push_back({s.generic_string(), s, nullptr, {}});
    return;
  }
  const tile::Kernel& k = **loaded.value;
  const auto plan = plan_values(k);
  for (const auto& values : planned_values(k, limit)) {
    std::vector<ParamSetting> settings;
    for (const ParamCoverage& c : plan)
      if (c.used)
        settings.push_back({k.params[c.index].name, values[c.index]});
    cases.push_back(
        {s.generic_string() + " [" + settings_text(settings) + "]", s, nullptr, settings});
  }
}

} // namespace

std::vector<ConformanceCase> file_cases(const std::vector<fs::path>& specs,
                                        const ConformanceOptions& o) {
  std::vector<ConformanceCase> cases;
  cases.reserve(specs.size());
  for (const auto& s : specs) {
    if (o.param_sweep)
      add_sweep(cases, s, o.sweep_limit);
    else if (o.params.empty())
      cases.push_back({s.generic_string(), s, nullptr, {}});
    else
      cases.push_back(
          {s.generic_string() + " [" + settings_text(o.params) + "]", s, nullptr, o.params});
  }
  return cases;
}

} // namespace ptxgen::driver
