#include "driver/run/spec_files.hpp"

#include "driver/run/range_proof.hpp"
#include "driver/run/result_cache.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include <toml++/toml.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

namespace {

/// Whether the contract refuses `k`; when it accepts a spec that declares it must fault,
/// that is the error (the run could not show what the spec claims).
bool contract_refuses_fault_spec(const tile::Kernel& k, const lower::LowerOptions& options,
                                 Diagnostics& out) {
  lower::LowerOptions checked = options;
  checked.unchecked = false;
  if (!lower::lower(k, checked)) // refused, as a fault spec must be
    return true;
  Diagnostic d(DiagId::run_fault_spec_valid,
               "the spec declares expect = \"fault\" but the contract accepts it: nothing in "
               "it breaks the contract, so no run can show the fault it claims");
  d.file = k.must_fault->file;
  d.line = k.must_fault->line;
  d.column = k.must_fault->column;
  d.source_line = k.must_fault->source_line;
  out.add(std::move(d));
  return false;
}

} // namespace

void lower_into(EmittedSpec& out, const tile::Kernel& kernel, const lower::LowerOptions& options,
                FaultSpecs faults) {
  lower::LowerOptions lo = options;
  if (kernel.must_fault && faults == FaultSpecs::run_unchecked) {
    if (!contract_refuses_fault_spec(kernel, options, out.diagnostics))
      return;
    lo.unchecked = true;
  }
  auto lowered = lower::lower(kernel, lo);
  Diagnostics found = lowered.diagnostics;
  // The test-only rule switch: a contract that refused for disabled rules alone is skipped.
  if (drop_disabled_rules(found) && !lowered && !found.has_errors()) {
    lo.unchecked = true;
    lowered = lower::lower(kernel, lo);
    found = lowered.diagnostics;
  }
  out.diagnostics.append(found);
  if (lowered) {
    out.ptx = ptx::print(*lowered.value);
    out.module = std::move(lowered.value);
  }
}

namespace {

/// Loads `spec` and, when it loads, runs `then` on its kernel; timed as a whole.
template <class Then>
EmittedSpec loaded_spec(const fs::path& spec, Then then) {
  auto start = std::chrono::steady_clock::now();
  EmittedSpec out;
  out.spec = spec;
  auto loaded = load_spec_file(spec);
  out.diagnostics.append(loaded.diagnostics);
  if (loaded) {
    out.kernel = std::move(*loaded.value);
    then(out, *out.kernel);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace

EmittedSpec emit_spec(const fs::path& spec, const lower::LowerOptions& options, FaultSpecs faults) {
  return loaded_spec(
      spec, [&](EmittedSpec& out, const tile::Kernel& k) { lower_into(out, k, options, faults); });
}

SpecRole spec_role(const fs::path& spec) {
  std::ifstream in(spec, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  // A line `#`, blanks, `expect-error:` (as tools/check_invalid_spec.sh reads it).
  constexpr std::string_view refused_mark = "expect-error:";
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t nl = std::min(s.find('\n', at), s.size());
    if (s[at] == '#') {
      const std::size_t word = s.find_first_not_of(" \t", at + 1);
      if (word < nl && std::string_view(s).substr(word, refused_mark.size()) == refused_mark)
        return SpecRole::refused;
    }
    at = nl + 1;
  }
  try {
    const toml::table root = toml::parse(s);
    const auto expect = root["kernel"]["expect"].value<std::string>();
    if (expect && *expect == tile::kMustFaultValue)
      return SpecRole::must_fault;
  } catch (const toml::parse_error&) {
    // valid: loading the spec reports the syntax error
  }
  return SpecRole::valid;
}

std::optional<std::string> sim_skip_reason(const fs::path& spec) {
  std::ifstream in(spec, std::ios::binary);
  constexpr std::string_view mark = "sim-skip:";
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '#')
      continue;
    const std::size_t word = line.find_first_not_of(" \t", 1);
    if (word == std::string::npos || line.compare(word, mark.size(), mark) != 0)
      continue;
    const std::size_t reason = line.find_first_not_of(" \t", word + mark.size());
    std::string out = reason == std::string::npos ? std::string() : line.substr(reason);
    while (!out.empty() && (out.back() == '\r' || out.back() == ' '))
      out.pop_back();
    return out.empty() ? std::string("no reason given") : out;
  }
  return std::nullopt;
}

void check_into(EmittedSpec& out, const tile::Kernel& kernel, const lower::LowerOptions& options,
                Findings findings) {
  cached_lower_into(out, kernel, options);
  if (!out.ok())
    return;
  // With an error there are no coverage notes: emit keeps what check shows.
  const Diagnostics found = cached_whole_launch_findings(kernel, {.coverage_notes = true});
  if (findings == Findings::all || found.has_errors())
    out.diagnostics.append(found);
  if (found.has_errors()) {
    out.module.reset();
    out.ptx.clear();
  }
}

EmittedSpec check_spec(const fs::path& spec, const lower::LowerOptions& options,
                       Findings findings) {
  return loaded_spec(spec, [&](EmittedSpec& out, const tile::Kernel& k) {
    check_into(out, k, options, findings);
  });
}

EmittedSpec emit_checked_spec(const fs::path& spec, const lower::LowerOptions& options) {
  return check_spec(spec, options, Findings::errors);
}

namespace {

bool walk_takes(SpecWalk walk, SpecRole role) {
  if (walk == SpecWalk::every)
    return true;
  switch (role) {
  case SpecRole::valid:
    return true;
  case SpecRole::refused:
    return false;
  case SpecRole::must_fault:
    return walk == SpecWalk::valid_and_faults;
  }
  unreachable("walk_takes(): not a SpecRole");
}

} // namespace

Fallible<std::vector<fs::path>> expand_spec_arguments(const std::vector<std::string>& args,
                                                      SpecWalk walk) {
  std::vector<fs::path> specs;
  std::set<fs::path> taken;
  auto take = [&](const fs::path& p) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(p, ec);
    if (ec)
      key = p;
    if (taken.insert(key).second)
      specs.push_back(p);
  };
  for (const auto& a : args) {
    fs::path p(a);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      std::size_t passed_over = 0;
      fs::recursive_directory_iterator it(p, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file() || it->path().extension() != ".toml")
          continue;
        if (walk_takes(walk, spec_role(it->path())))
          found.push_back(it->path());
        else
          ++passed_over;
      }
      if (ec)
        return Failure{"cannot read directory '" + a + "': " + ec.message()};
      // A directory where a spec file was meant must not pass as "0 specs, all fine".
      if (found.empty()) {
        std::string error = "no spec files (*.toml) in directory '" + a + "'";
        if (passed_over > 0)
          error += " that this command takes (" + std::to_string(passed_over) +
                   " passed over: specs with `# expect-error:` lines are taken only when named, "
                   "specs with expect = \"fault\" only by run)";
        return Failure{std::move(error)};
      }
      std::sort(found.begin(), found.end());
      for (const auto& f : found)
        take(f);
    } else if (fs::exists(p, ec)) {
      take(p);
    } else {
      return Failure{"no such file or directory: '" + a + "'"};
    }
  }
  return specs;
}

std::vector<std::string> golden_header(const std::string& spec_display) {
  return {"Generated by ptxgen from " + spec_display + "; do not edit.",
          "Regenerate: ptxgen golden --update " + spec_display};
}

} // namespace ptxgen::driver
