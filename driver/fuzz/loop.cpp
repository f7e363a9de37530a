#include "driver/fuzz/loop.hpp"

#include "driver/fuzz/mutate.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/escape.hpp"
#include "driver/support/temp_dir.hpp"
#include "emitter/support/enum_names.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>

namespace ptxgen::driver::fuzz {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string_view name(Signature::Kind k) {
  static constexpr auto names = enum_names<Signature::Kind::sanitizer_explained>(
      "backends", "false_accept", "wrong_refusal", "sanitizer", "race_sim_only",
      "race_racecheck_only", "sanitizer_explained");
  return name_of(names, k);
}

std::string_view name(Explanation e) {
  static constexpr auto names =
      enum_names<Explanation::synccheck_missing_wait_inc>("none", "synccheck_missing_wait_inc");
  return name_of(names, e);
}

namespace {

/// The by_class entries that are no finding: a spec that passed, a mutant checked.
constexpr std::string_view pass_class = "pass", mutant_class = "mutant";

/// "cuda_fault-sim_pass", "cuda_error_ptxas-sim_error_ptxas": the status of every backend,
/// and an error's stage where known (errors of different stages are
/// different classes; the other statuses say their stage themselves).
std::string statuses_name(const Signature& s) {
  std::string n;
  for (const auto& st : s.statuses) {
    n += (n.empty() ? "" : "-") + std::string(driver::name(st.backend)) + "_" +
         std::string(driver::name(st.status));
    if (st.status == CaseResult::Status::error && st.stage != CaseResult::Stage::none)
      n += "_" + std::string(driver::name(st.stage));
  }
  return n;
}

/// "memcheck_memory_access+api_error", "racecheck" (no findings).
std::string sanitizer_name(const Signature& s) {
  std::string n = s.sanitizer_tool ? std::string(cuda::name(*s.sanitizer_tool)) : "sanitizer";
  for (std::size_t i = 0; i < s.sanitizer_findings.size(); ++i)
    n += (i ? "+" : "_") + std::string(cuda::name(s.sanitizer_findings[i]));
  return n;
}

} // namespace

std::string Signature::class_name() const {
  std::string s;
  switch (kind) {
  case Kind::backends:
    s = statuses_name(*this);
    break;
  case Kind::false_accept:
  case Kind::wrong_refusal:
    s = std::string(name(kind));
    break;
  case Kind::sanitizer_explained: // the explanation says it all: one class per explanation
    return std::string(name(kind)) + "-" + std::string(name(explanation));
  case Kind::sanitizer:
  case Kind::race_sim_only:
  case Kind::race_racecheck_only:
    s = std::string(name(kind)) + "-" + sanitizer_name(*this) + "-" + statuses_name(*this);
    break;
  }
  if (sim_fault)
    s += "-" + std::string(sim::name(*sim_fault));
  for (auto t : traps)
    s += "-trap_" + std::string(sass::name(t));
  if (!diagnostics.empty())
    s += "-" + std::string(ptxgen::name(diagnostics.front()));
  return s;
}

namespace {

/// A racecheck finding: a hazard of either severity.
bool is_race(cuda::SanitizerFinding::Kind k) {
  return k == cuda::SanitizerFinding::Kind::race || k == cuda::SanitizerFinding::Kind::race_warning;
}

/// the known false positive that explains a flagged outcome, decided
/// from the finding kinds and the kernel's structure (never from a message): synccheck
/// found only "Missing wait" errors on a kernel with a copy_arrive without noinc, the GPU
/// case is a fault only the tool explains (the bytes were right and judge_sanitizer made
/// it a fault, or the tool ended the kernel on its finding, as it does on the H200:
/// CUDA_ERROR_LAUNCH_FAILED), with no known ptxas miscompile in its SASS, and every other
/// backend passed.
Explanation explanation_of(const std::vector<BackendOutcome>& outcomes, const Signature& s) {
  if (s.sanitizer_tool != std::optional{cuda::SanitizerTool::synccheck} ||
      s.sanitizer_findings != std::vector{cuda::SanitizerFinding::Kind::barrier_missing_wait})
    return Explanation::none;
  bool structure = false;
  for (const auto& o : outcomes) {
    const CaseResult& r = o.result;
    const bool flagged_only =
        r.sanitizer && r.sanitizer->checked && r.status == CaseResult::Status::fault &&
        (r.stage == CaseResult::Stage::sanitizer || r.stage == CaseResult::Stage::kernel) &&
        r.traps.empty();
    if (!flagged_only && r.status != CaseResult::Status::pass)
      return Explanation::none;
    structure = structure || r.copy_arrive_inc;
  }
  return structure ? Explanation::synccheck_missing_wait_inc : Explanation::none;
}

/// The sanitizer's part of a signature: which oracle disagrees with which. With
/// racecheck and a simulator outcome the two race verdicts are compared: a race only
/// one of them sees is a disagreement (race_sim_only; race_racecheck_only when the
/// simulator passed); one both see is a sanitizer finding. Any other checked report
/// with errors, warnings or findings on a valid spec is a sanitizer finding. An
/// unchecked report counts for nothing here (its case is an environment error).
Signature::Kind sanitizer_kind(const std::vector<BackendOutcome>& outcomes, const Signature& s,
                               bool flagged) {
  if (!s.sanitizer_tool)
    return Signature::Kind::backends;
  const BackendOutcome* sim = nullptr;
  for (const auto& o : outcomes)
    if (o.backend == Backend::sim)
      sim = &o;
  if (*s.sanitizer_tool == cuda::SanitizerTool::racecheck && sim) {
    const bool sim_race = sim->result.sim_race.has_value() ||
                          sim->result.sim_fault == std::optional{sim::FaultKind::race};
    const bool checker_race =
        std::any_of(s.sanitizer_findings.begin(), s.sanitizer_findings.end(), is_race);
    if (sim_race && !checker_race)
      return Signature::Kind::race_sim_only;
    if (checker_race && sim->result.status == CaseResult::Status::pass)
      return Signature::Kind::race_racecheck_only;
  }
  return flagged ? Signature::Kind::sanitizer : Signature::Kind::backends;
}

} // namespace

Signature signature_of(const std::vector<BackendOutcome>& outcomes) {
  Signature s;
  bool flagged = false; ///< a checked sanitizer report with errors, warnings or findings
  for (const auto& o : outcomes) {
    s.statuses.push_back({o.backend, o.result.status, o.result.stage});
    if (o.result.sim_fault)
      s.sim_fault = o.result.sim_fault;
    // compute-sanitizer's verdict, by its finding kinds.
    if (o.result.sanitizer && o.result.sanitizer->checked) {
      const auto& r = *o.result.sanitizer;
      s.sanitizer_tool = r.tool;
      for (const auto& f : r.findings)
        s.sanitizer_findings.push_back(f.kind);
      flagged = flagged || r.errors > 0 || r.warnings > 0 || !r.findings.empty();
    }
    for (const auto& t : o.result.traps)
      s.traps.push_back(t.id);
    for (const auto& d : o.result.diagnostics.items())
      if (d.severity == Severity::error)
        s.diagnostics.push_back(d.id);
  }
  std::sort(s.traps.begin(), s.traps.end());
  s.traps.erase(std::unique(s.traps.begin(), s.traps.end()), s.traps.end());
  std::sort(s.diagnostics.begin(), s.diagnostics.end());
  s.diagnostics.erase(std::unique(s.diagnostics.begin(), s.diagnostics.end()), s.diagnostics.end());
  std::sort(s.sanitizer_findings.begin(), s.sanitizer_findings.end());
  s.sanitizer_findings.erase(std::unique(s.sanitizer_findings.begin(), s.sanitizer_findings.end()),
                             s.sanitizer_findings.end());
  s.kind = sanitizer_kind(outcomes, s, flagged);
  if (s.kind == Signature::Kind::sanitizer) {
    s.explanation = explanation_of(outcomes, s);
    if (s.explanation != Explanation::none)
      s.kind = Signature::Kind::sanitizer_explained;
  }
  return s;
}

std::vector<std::pair<std::string, std::size_t>> FuzzReport::findings_by_class() const {
  std::vector<std::pair<std::string, std::size_t>> f;
  for (const auto& e : by_class)
    if (e.first != pass_class && e.first != mutant_class)
      f.push_back(e);
  return f;
}

std::size_t FuzzReport::finding_count() const {
  std::size_t n = 0;
  for (const auto& e : findings_by_class())
    n += e.second;
  return n;
}

bool is_explained(const Signature& s) {
  return s.kind == Signature::Kind::sanitizer_explained;
}

bool is_finding(const Signature& s) {
  if (is_explained(s))
    return false;
  if (s.kind != Signature::Kind::backends)
    return true;
  return s.statuses.empty() || std::any_of(s.statuses.begin(), s.statuses.end(), [](auto& st) {
           return st.status != CaseResult::Status::pass;
         });
}

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Runs `jobs` threads over indices [0, n).
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(std::max(jobs, 1u), n); ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < n;)
        body(i);
    });
  for (auto& t : pool)
    t.join();
}

/// The state of one fuzz run: its options, scratch directory, backends and report.
class Fuzzer {
public:
  Fuzzer(const FuzzOptions& o, TempDir scratch) : o_(o), scratch_(std::move(scratch)) {
    backends_ = o.backends;
    jobs_ =
        o.conformance.jobs ? o.conformance.jobs : std::max(1u, std::thread::hardware_concurrency());
    report_.seed = o.seed;
    report_.kept_per_class = o.shrink_per_class;
    report_.shard = o.shard;
    report_.sanitize = o.conformance.sanitize;
    for (Backend b : backends_)
      report_.backends.push_back(BackendTimes{b});
  }

  FuzzReport run(const FuzzProgressFn& progress);

private:
  /// Every spec on every backend; empty when the run could not start (report_ says why).
  std::vector<std::vector<BackendOutcome>> run_specs(const std::vector<std::string>& tomls,
                                                     const std::vector<std::string>& stems);
  void run_batch(std::size_t first, std::size_t n);
  void check_mutants(const std::vector<SpecModel>& models);
  /// Counts a finding of class `c`; true when it is among the first shrink_per_class.
  bool keep(const std::string& c);
  void shrink_finding(Finding& f, const SpecModel& model);
  void save(Finding& f);
  void keep_specs(const std::vector<std::string>& tomls, const std::vector<std::string>& stems);
  void count_class(const std::string& c);
  static void count_class(std::vector<std::pair<std::string, std::size_t>>& counts,
                          const std::string& c);
  void count_device(const std::vector<BackendOutcome>& outcomes);
  fs::path batch_dir();

  const FuzzOptions& o_;
  TempDir scratch_;
  std::vector<Backend> backends_;
  unsigned jobs_ = 1;
  std::size_t batches_ = 0;
  bool stop_ = false; ///< the run could not start
  FuzzReport report_;
  std::map<std::string, std::size_t> per_class_kept_;
  Clock::time_point start_ = Clock::now();
};

fs::path Fuzzer::batch_dir() {
  fs::path d = scratch_.path() / ("b" + std::to_string(batches_++));
  fs::create_directories(d);
  return d;
}

/// Adds a run's cases to a backend's times. With also_simulate the simulator's cases
/// carry the GPU run's emit, ptxas and reference times: only their own stages count.
void add_times(BackendTimes& t, const std::vector<CaseResult>& cases, double wall_s,
               bool shared_front) {
  t.wall_s += wall_s;
  for (const auto& c : cases) {
    ++t.cases;
    if (!shared_front) {
      t.emit_ms += c.emit_ms;
      t.ptxas_ms += c.ptxas_ms;
      t.reference_ms += c.reference_ms;
    }
    t.load_ms += c.load_ms;
    t.launch_ms += c.launch_ms;
    t.compare_ms += c.compare_ms;
  }
}

std::vector<std::vector<BackendOutcome>> Fuzzer::run_specs(const std::vector<std::string>& tomls,
                                                           const std::vector<std::string>& stems) {
  const fs::path dir = batch_dir();
  std::vector<fs::path> paths;
  for (std::size_t i = 0; i < tomls.size(); ++i) {
    paths.push_back(dir / (stems[i] + ".toml"));
    if (Status written = write_file_atomically(paths.back(), tomls[i]); !written) {
      stop_ = true;
      report_.setup_problem = written.error();
      return {};
    }
  }
  // One conformance run: the first backend's, and with {cuda, sim} the simulator's
  // outcome from the same emitted PTX, reference and ptxas verdict (also_simulate).
  ConformanceOptions co = o_.conformance;
  co.backend = backends_.front();
  co.also_simulate = backends_.size() > 1;
  ConformanceReport r = run_conformance(paths, co, nullptr);
  using Setup = ConformanceReport::Setup;
  if (r.setup == Setup::no_gpu && o_.auto_backend && backends_.front() == Backend::cuda) {
    // `auto` without a GPU: the simulator alone from now on.
    backends_ = {Backend::sim};
    report_.backends = {BackendTimes{Backend::sim}};
    fs::remove_all(dir);
    return run_specs(tomls, stems);
  }
  if (r.setup != Setup::ready) {
    stop_ = true;
    report_.setup_failure = r.setup;
    report_.setup_problem = r.backend_description;
    return {};
  }
  if (report_.backend_description.empty())
    report_.backend_description =
        r.backend_description + (co.also_simulate ? "; and the CPU simulator" : "");
  add_times(report_.backends.front(), r.cases, r.wall_seconds, false);
  if (co.also_simulate)
    add_times(report_.backends.back(), r.sim_cases, 0, true);
  std::vector<std::vector<BackendOutcome>> out(tomls.size());
  for (std::size_t i = 0; i < out.size() && i < r.cases.size(); ++i) {
    out[i].push_back({backends_.front(), std::move(r.cases[i])});
    if (co.also_simulate && i < r.sim_cases.size())
      out[i].push_back({Backend::sim, std::move(r.sim_cases[i])});
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

void Fuzzer::count_class(const std::string& c) {
  count_class(report_.by_class, c);
}

void Fuzzer::count_class(std::vector<std::pair<std::string, std::size_t>>& counts,
                         const std::string& c) {
  auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == c; });
  if (it == counts.end())
    counts.emplace_back(c, 1);
  else
    ++it->second;
}

void Fuzzer::count_device(const std::vector<BackendOutcome>& outcomes) {
  if (outcomes.empty() || !outcomes.front().result.device)
    return;
  const int d = *outcomes.front().result.device;
  auto it = std::find_if(report_.devices.begin(), report_.devices.end(),
                         [&](const DeviceCount& c) { return c.device == d; });
  if (it == report_.devices.end())
    it = report_.devices.insert(
        std::upper_bound(report_.devices.begin(), report_.devices.end(), d,
                         [](int v, const DeviceCount& c) { return v < c.device; }),
        DeviceCount{d, 0});
  ++it->specs;
}

/// The error DiagIds `check` (load, contract, lowering, reference) gives a spec file.
std::vector<DiagId> check_refusals(const fs::path& spec, const RangeProofOptions& range) {
  lower::LowerOptions options;
  options.raise_target = true; // as `ptxgen check`: a spec of sm_90 ops is judged for sm_90
  auto e = emit_spec(spec, options);
  if (e.ok())
    e.diagnostics.append(whole_launch_findings(*e.kernel, range));
  std::vector<DiagId> ids;
  for (const auto& d : e.diagnostics.items())
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void Fuzzer::check_mutants(const std::vector<SpecModel>& models) {
  struct Job {
    std::uint64_t seed;
    Mutant mutant;
    fs::path path;
    std::vector<DiagId> refused;
  };
  std::vector<Job> jobs;
  const fs::path dir = batch_dir();
  RangeProofOptions range;
  range.test_values_only = o_.check_test_values_only;
  for (const auto& m : models) {
    auto ms = mutants(m, m.seed);
    for (std::size_t k = 0; k < ms.size() && k < o_.mutants; ++k) {
      if (is_pending_rule(ms[k].refused_with)) {
        ++report_.mutants_pending;
        continue;
      }
      if (o_.inject_false_accept)
        ms[k].toml = to_toml(m);
      fs::path path = dir / (std::to_string(m.seed) + "-m" + std::to_string(k) + ".toml");
      if (Status written = write_file_atomically(path, ms[k].toml); !written) {
        report_.save_errors.push_back(written.error());
        continue;
      }
      jobs.push_back({m.seed, std::move(ms[k]), std::move(path), {}});
    }
  }
  parallel_for(jobs.size(), jobs_,
               [&](std::size_t i) { jobs[i].refused = check_refusals(jobs[i].path, range); });
  if (report_.by_rule.empty())
    for (const MutationRule& rule : mutation_rules())
      report_.by_rule.push_back({rule.what, rule.refused_with, 0, 0});
  for (auto& j : jobs) {
    ++report_.mutants;
    count_class(std::string(mutant_class));
    auto& by_rule = report_.by_rule.at(j.mutant.rule);
    ++by_rule.mutants;
    const bool expected =
        std::find(j.refused.begin(), j.refused.end(), j.mutant.refused_with) != j.refused.end();
    if (expected) {
      ++report_.mutants_refused;
      ++by_rule.refused;
      continue;
    }
    Finding f;
    f.signature.kind =
        j.refused.empty() ? Signature::Kind::false_accept : Signature::Kind::wrong_refusal;
    if (j.refused.empty())
      ++report_.false_accepts;
    f.signature.diagnostics = j.refused;
    f.seed = j.seed;
    f.original_toml = f.spec_toml = j.mutant.toml;
    f.mutant_what = j.mutant.what;
    if (!keep(f.signature.class_name()))
      continue;
    save(f);
    report_.findings.push_back(std::move(f));
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

void Fuzzer::shrink_finding(Finding& f, const SpecModel& model) {
  const auto start = Clock::now();
  ShrinkProblem<SpecModel> p;
  p.unit_count = [](const SpecModel& m) { return unit_count(m); };
  p.keep_units = [](const SpecModel& m, const std::vector<bool>& keep) {
    return keep_units(m, keep);
  };
  p.simplifications = [](const SpecModel& m) { return simplifications(m); };
  p.complexity = [](const SpecModel& m) { return complexity(m); };
  p.still_fails = [&](const std::vector<SpecModel>& batch) {
    std::vector<std::string> tomls, stems;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      tomls.push_back(spec_toml(batch[i]));
      stems.push_back("c" + std::to_string(i));
    }
    const auto outcomes = run_specs(tomls, stems);
    std::vector<bool> fails(batch.size(), false);
    for (std::size_t i = 0; i < outcomes.size(); ++i)
      fails[i] = signature_of(outcomes[i]) == f.signature;
    return fails;
  };
  ShrinkOptions so = o_.shrink_options;
  if (so.max_batch == 0)
    so.max_batch = std::max<std::size_t>(8, std::size_t{4} * jobs_);
  auto r = shrink(model, p, so);
  f.shrink = r.stats;
  f.spec_toml = spec_toml(r.value);
  // The shrunk spec's own outcomes (the shrinker keeps no candidate's).
  auto final_outcomes = run_specs({f.spec_toml}, {"final"});
  if (!final_outcomes.empty())
    f.outcomes = std::move(final_outcomes.front());
  report_.shrink_s += seconds_since(start);
}

} // namespace

/// compute-sanitizer's verdict on an outcome: the tool, its counts, the kind of every
/// finding, and each distinct finding (kind, headline, first location) with how many
/// times it was reported; null without --sanitize.
std::string sanitizer_json(const std::optional<cuda::SanitizerReport>& r) {
  if (!r)
    return "null";
  std::string j = "{\"tool\": \"" + std::string(cuda::name(r->tool)) +
                  "\", \"checked\": " + (r->checked ? "true" : "false") +
                  ", \"errors\": " + std::to_string(r->errors) +
                  ", \"warnings\": " + std::to_string(r->warnings) + ", \"kinds\": [";
  std::vector<std::pair<const cuda::SanitizerFinding*, std::size_t>> distinct;
  for (std::size_t i = 0; i < r->findings.size(); ++i) {
    const auto& f = r->findings[i];
    j += std::string(i ? ", " : "") + "\"" + std::string(cuda::name(f.kind)) + "\"";
    const auto same = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) {
      return d.first->kind == f.kind && d.first->message == f.message;
    });
    if (same == distinct.end())
      distinct.emplace_back(&f, 1);
    else
      ++same->second;
  }
  j += "], \"findings\": [";
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const auto& [f, count] = distinct[i];
    j += std::string(i ? ", " : "") + "{\"kind\": \"" + std::string(cuda::name(f->kind)) +
         "\", \"message\": \"" + json_escape(f->message) + "\", \"at\": \"" +
         json_escape(f->location) + "\", \"count\": " + std::to_string(count) + "}";
  }
  return j + "]}";
}

namespace {

bool Fuzzer::keep(const std::string& c) {
  count_class(c);
  return per_class_kept_[c]++ < o_.shrink_per_class;
}

std::string outcomes_json(const std::vector<BackendOutcome>& outcomes) {
  std::string j = "[";
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& r = outcomes[i].result;
    j += std::string(i ? ", " : "") + "{\"backend\": \"" +
         std::string(driver::name(outcomes[i].backend)) + "\", \"status\": \"" +
         std::string(driver::name(r.status)) + "\", \"stage\": \"" +
         std::string(driver::name(r.stage)) + "\", \"sim_fault\": \"" +
         std::string(r.sim_fault ? sim::name(*r.sim_fault) : std::string_view{}) +
         "\", \"diagnostics\": [";
    bool first = true;
    for (const auto& d : r.diagnostics.items()) {
      j += std::string(first ? "" : ", ") + "\"" + std::string(ptxgen::name(d.id)) + "\"";
      first = false;
    }
    j += "], \"traps\": [";
    for (std::size_t t = 0; t < r.traps.size(); ++t)
      j += std::string(t ? ", " : "") + "\"" + std::string(sass::name(r.traps[t].id)) + "\"";
    j += "], \"sanitizer\": " + sanitizer_json(r.sanitizer) + ", \"detail\": \"" +
         json_escape(r.detail) + "\"}";
  }
  return j + "]";
}

std::string shrink_json(const ShrinkStats& s) {
  std::ostringstream j;
  j << "{\"rounds\": " << s.rounds << ", \"candidates\": " << s.candidates
    << ", \"accepted\": " << s.accepted << ", \"units_before\": " << s.units_before
    << ", \"units_after\": " << s.units_after << ", \"complexity_before\": " << s.complexity_before
    << ", \"complexity_after\": " << s.complexity_after
    << ", \"budget_exhausted\": " << (s.budget_exhausted ? "true" : "false") << "}";
  return j.str();
}

/// The command that runs the finding's seed again (the same generator, the same backends).
std::string reproduce_command(const FuzzOptions& o, const std::vector<Backend>& backends,
                              std::uint64_t seed) {
  std::string backend = o.auto_backend ? "auto" : std::string(driver::name(backends.front()));
  std::string c = (o.reproduce_tool.empty() ? std::string("ptxgen") : o.reproduce_tool) +
                  " fuzz --seed " + std::to_string(seed) + " --count 1 --backend " + backend;
  if (o.conformance.target)
    c += " --target " + o.conformance.target->str();
  if (o.mutants)
    c += " --mutants " + std::to_string(o.mutants);
  if (o.generator.families != GenOptions{}.families)
    for (std::size_t i = 0; i < family_count; ++i)
      if (o.generator.families[i])
        c += " --family " + std::string(name(static_cast<Family>(i)));
  if (o.conformance.sanitize)
    c += " --sanitize " + std::string(cuda::name(*o.conformance.sanitize));
  return c;
}

std::string finding_json(const Finding& f, const FuzzOptions& o,
                         const std::vector<Backend>& backends) {
  std::ostringstream j;
  j << "{\n  \"class\": \"" << json_escape(f.signature.class_name()) << "\",\n  \"kind\": \""
    << name(f.signature.kind) << "\",\n  \"seed\": " << f.seed
    << ",\n  \"generator_version\": " << generator_version << ",\n  \"ptxgen_version\": \""
    << json_escape(o.tool_version) << "\",\n  \"reproduce\": \""
    << json_escape(reproduce_command(o, backends, f.seed)) << "\",\n";
  if (!f.mutant_what.empty())
    j << "  \"mutant\": \"" << json_escape(f.mutant_what) << "\",\n";
  j << "  \"diagnostics\": [";
  for (std::size_t i = 0; i < f.signature.diagnostics.size(); ++i)
    j << (i ? ", " : "") << '"' << ptxgen::name(f.signature.diagnostics[i]) << '"';
  j << "],\n  \"outcomes\": " << outcomes_json(f.outcomes)
    << ",\n  \"shrink\": " << (f.shrink ? shrink_json(*f.shrink) : std::string("null")) << "\n}\n";
  return j.str();
}

void Fuzzer::save(Finding& f) {
  if (o_.out_dir.empty())
    return;
  // Written into a private folder beside the final one, then renamed: a finding's
  // folder is complete or absent.
  std::error_code ec;
  fs::create_directories(o_.out_dir, ec);
  auto partial = TempDir::create_in(o_.out_dir, ".partial-");
  if (!partial) {
    report_.save_errors.push_back(partial.error());
    return;
  }
  const std::string json = finding_json(f, o_, backends_);
  for (const auto& [name, text] :
       {std::pair<const char*, const std::string*>{"spec.toml", &f.spec_toml},
        {"original.toml", &f.original_toml},
        {"outcome.json", &json}}) {
    if (Status written = write_file_atomically(partial->path() / name, *text); !written) {
      report_.save_errors.push_back(written.error());
      return;
    }
  }
  std::string stem = f.signature.class_name() + "-" + std::to_string(f.seed);
  fs::path dest = fs::path(o_.out_dir) / stem;
  for (unsigned k = 2; fs::exists(dest); ++k)
    dest = fs::path(o_.out_dir) / (stem + "-" + std::to_string(k));
  fs::rename(partial->path(), dest, ec);
  if (ec) {
    report_.save_errors.push_back("cannot rename '" + partial->path().string() + "' to '" +
                                  dest.string() + "': " + ec.message());
    return;
  }
  f.saved_to = dest.string();
}

void Fuzzer::keep_specs(const std::vector<std::string>& tomls,
                        const std::vector<std::string>& stems) {
  std::error_code ec;
  fs::create_directories(o_.specs_dir, ec);
  for (std::size_t i = 0; i < tomls.size(); ++i) {
    if (Status written =
            write_file_atomically(fs::path(o_.specs_dir) / (stems[i] + ".toml"), tomls[i]);
        !written)
      report_.save_errors.push_back(written.error());
  }
}

void Fuzzer::run_batch(std::size_t first, std::size_t n) {
  std::vector<SpecModel> models;
  std::vector<std::string> tomls, stems;
  for (std::size_t i = first; i < first + n; ++i) {
    if (!contains(o_.shard, i))
      continue;
    models.push_back(generate(o_.seed + i, o_.generator));
    tomls.push_back(spec_toml(models.back()));
    stems.push_back(std::to_string(models.back().seed));
  }
  if (!o_.specs_dir.empty())
    keep_specs(tomls, stems);
  const auto outcomes = run_specs(tomls, stems);
  if (stop_)
    return;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    ++report_.specs;
    count_device(outcomes[i]);
    const Signature sig = signature_of(outcomes[i]);
    if (is_explained(sig)) { // a known false positive of a tool
      ++report_.explained;
      count_class(report_.explained_by_class, sig.class_name());
      continue;
    }
    if (!is_finding(sig)) {
      ++report_.passed;
      count_class(std::string(pass_class));
      continue;
    }
    if (std::any_of(sig.statuses.begin(), sig.statuses.end(), [](const BackendStatus& st) {
          return st.status == CaseResult::Status::fault ||
                 st.status == CaseResult::Status::mismatch;
        }))
      ++report_.false_accepts;
    if (!keep(sig.class_name()))
      continue;
    Finding f;
    f.signature = sig;
    f.seed = models[i].seed;
    f.original_toml = f.spec_toml = tomls[i];
    f.outcomes = outcomes[i];
    if (o_.shrink)
      shrink_finding(f, models[i]);
    save(f);
    report_.findings.push_back(std::move(f));
  }
  if (o_.mutants)
    check_mutants(models);
}

FuzzReport Fuzzer::run(const FuzzProgressFn& progress) {
  const std::size_t batch =
      o_.batch ? o_.batch : std::max<std::size_t>(64, std::size_t{32} * jobs_);
  for (std::size_t first = 0;; first += batch) {
    if (o_.count && first >= o_.count)
      break;
    if (o_.seconds > 0 && seconds_since(start_) >= o_.seconds)
      break;
    const std::size_t n = o_.count ? std::min(batch, o_.count - first) : batch;
    run_batch(first, n);
    report_.wall_s = seconds_since(start_);
    if (stop_)
      break;
    if (progress)
      progress(report_);
    if (!o_.count && o_.seconds <= 0)
      break; // neither a count nor a time: one batch
  }
  report_.wall_s = seconds_since(start_);
  return std::move(report_);
}

} // namespace

FuzzReport run_fuzz(const FuzzOptions& options, const FuzzProgressFn& progress) {
  auto scratch = TempDir::create("ptxgen-fuzz-");
  if (!scratch) {
    FuzzReport r;
    r.setup_problem = scratch.error();
    return r;
  }
  Fuzzer f(options, std::move(*scratch));
  return f.run(progress);
}

std::string to_json(const FuzzReport& r) {
  std::ostringstream j;
  j << "{\n  \"seed\": " << r.seed << ",\n  \"shard\": \"" << str(r.shard)
    << "\",\n  \"kept_per_class\": " << r.kept_per_class
    << ",\n  \"generator_version\": " << generator_version << ",\n  \"backend\": \""
    << json_escape(r.backend_description) << "\",\n  \"setup_problem\": \""
    << json_escape(r.setup_problem) << "\",\n  \"specs\": " << r.specs
    << ",\n  \"passed\": " << r.passed << ",\n  \"explained\": " << r.explained
    << ",\n  \"mutants\": " << r.mutants << ",\n  \"mutants_refused\": " << r.mutants_refused
    << ",\n  \"false_accepts\": " << r.false_accepts
    << ",\n  \"mutants_pending\": " << r.mutants_pending << ",\n  \"wall_seconds\": " << r.wall_s
    << ",\n  \"shrink_seconds\": " << r.shrink_s
    << ",\n  \"specs_per_hour\": " << r.specs_per_hour() << ",\n  \"sanitize\": "
    << (r.sanitize ? "\"" + std::string(cuda::name(*r.sanitize)) + "\"" : std::string("null"))
    << ",\n  \"devices\": [";
  for (std::size_t i = 0; i < r.devices.size(); ++i)
    j << (i ? ", " : "") << "{\"device\": " << r.devices[i].device
      << ", \"specs\": " << r.devices[i].specs
      << ", \"specs_per_hour\": " << r.per_hour(r.devices[i].specs) << "}";
  j << "],\n  \"findings_total\": " << r.finding_count() << ",\n  \"findings_by_class\": {";
  const auto findings = r.findings_by_class();
  for (std::size_t i = 0; i < findings.size(); ++i)
    j << (i ? ", " : "") << '"' << json_escape(findings[i].first) << "\": " << findings[i].second;
  j << "},\n  \"explained_by_class\": {";
  for (std::size_t i = 0; i < r.explained_by_class.size(); ++i)
    j << (i ? ", " : "") << '"' << json_escape(r.explained_by_class[i].first)
      << "\": " << r.explained_by_class[i].second;
  j << "},\n  \"by_class\": {";
  for (std::size_t i = 0; i < r.by_class.size(); ++i)
    j << (i ? ", " : "") << '"' << json_escape(r.by_class[i].first)
      << "\": " << r.by_class[i].second;
  j << "},\n  \"mutants_by_rule\": [";
  for (std::size_t i = 0; i < r.by_rule.size(); ++i)
    j << (i ? ", " : "") << "{\"rule\": \"" << json_escape(std::string(r.by_rule[i].rule))
      << "\", \"diag_id\": \"" << name(r.by_rule[i].refused_with)
      << "\", \"mutants\": " << r.by_rule[i].mutants << ", \"refused\": " << r.by_rule[i].refused
      << "}";
  j << "],\n  \"backends\": [";
  for (std::size_t i = 0; i < r.backends.size(); ++i) {
    const auto& t = r.backends[i];
    j << (i ? ", " : "") << "{\"backend\": \"" << driver::name(t.backend)
      << "\", \"cases\": " << t.cases << ", \"wall_seconds\": " << t.wall_s
      << ", \"emit_ms\": " << t.emit_ms << ", \"ptxas_ms\": " << t.ptxas_ms
      << ", \"reference_ms\": " << t.reference_ms << ", \"load_ms\": " << t.load_ms
      << ", \"launch_ms\": " << t.launch_ms << ", \"compare_ms\": " << t.compare_ms << "}";
  }
  j << "],\n  \"findings\": [";
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    const auto& f = r.findings[i];
    j << (i ? "," : "") << "\n    {\"class\": \"" << json_escape(f.signature.class_name())
      << "\", \"seed\": " << f.seed << ", \"saved_to\": \"" << json_escape(f.saved_to)
      << "\", \"outcomes\": " << outcomes_json(f.outcomes)
      << ", \"shrink\": " << (f.shrink ? shrink_json(*f.shrink) : std::string("null")) << "}";
  }
  j << (r.findings.empty() ? "" : "\n  ") << "],\n  \"save_errors\": [";
  for (std::size_t i = 0; i < r.save_errors.size(); ++i)
    j << (i ? ", " : "") << '"' << json_escape(r.save_errors[i]) << '"';
  j << "]\n}\n";
  return j.str();
}

std::string to_junit(const FuzzReport& r) {
  std::ostringstream x;
  const std::string suite = "ptxgen fuzz shard " + str(r.shard);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"" << xml_escape(suite)
    << "\" tests=\"" << r.findings.size() + 1 << "\" failures=\"" << r.findings.size()
    << "\" time=\"" << r.wall_s << "\">\n  <properties><property name=\"seed\" value=\"" << r.seed
    << "\"/><property name=\"backend\" value=\"" << xml_escape(r.backend_description)
    << "\"/></properties>\n  <testcase classname=\"fuzz\" name=\"" << r.specs << " specs, "
    << r.mutants << " mutants\" time=\"" << r.wall_s << "\"/>\n";
  for (const auto& f : r.findings) {
    const std::string detail = f.outcomes.empty() ? f.mutant_what : [&] {
      std::string d;
      for (const auto& o : f.outcomes)
        d += std::string(driver::name(o.backend)) + ": " + o.result.detail + "\n";
      return d;
    }();
    x << "  <testcase classname=\"fuzz." << xml_escape(f.signature.class_name())
      << "\" name=\"seed " << f.seed << "\">\n    <failure type=\""
      << xml_escape(f.signature.class_name()) << "\" message=\""
      << xml_escape(f.saved_to.empty() ? "not saved" : f.saved_to) << "\">"
      << xml_escape(detail + f.spec_toml) << "</failure>\n  </testcase>\n";
  }
  x << "</testsuite>\n";
  return x.str();
}

} // namespace ptxgen::driver::fuzz
