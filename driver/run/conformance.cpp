#include "driver/run/conformance.hpp"

#include "driver/cuda/isolated_runner.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/pipeline.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/sim/simulator.hpp"
#include "driver/support/atomic_file.hpp"
#include "emitter/lower/abi.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <sstream>
#include <thread>

namespace ptxgen::driver {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string_view name(Backend b) {
  return b == Backend::cuda ? "cuda" : "sim";
}

std::string_view name(CaseResult::Status s) {
  switch (s) {
  case CaseResult::Status::pass:
    return "pass";
  case CaseResult::Status::mismatch:
    return "mismatch";
  case CaseResult::Status::fault:
    return "fault";
  case CaseResult::Status::invalid:
    return "invalid";
  case CaseResult::Status::error:
    return "error";
  }
  return "error";
}

std::size_t ConformanceReport::count(CaseResult::Status s) const {
  return static_cast<std::size_t>(std::count_if(
      cases.begin(), cases.end(), [&](const CaseResult& c) { return c.status == s; }));
}

bool ConformanceReport::all_passed() const {
  return !cases.empty() && count(CaseResult::Status::pass) == cases.size();
}

bool is_fault_spec(const fs::path& spec) {
  for (const auto& part : spec.parent_path())
    if (part == "faults")
      return true;
  return false;
}

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Everything a case needs between its stages.
struct Prepared {
  CaseResult result;
  std::unique_ptr<tile::Kernel> kernel;
  std::string ptx;
  std::vector<std::uint8_t> cubin;
  std::vector<lower::ParamBinding> params;
  std::map<std::string, std::vector<std::uint8_t>> inputs;
  ReferenceOutput expected;
  bool ready = false;   ///< emitted, assembled and referenced: ready for the backend
  std::string dump_dir; ///< ConformanceOptions::dump_dir
};

/// Writes the final bytes of every tensor (see ConformanceOptions::dump_dir).
void dump_outputs(const Prepared& p, const std::map<std::string, std::vector<std::uint8_t>>& out) {
  if (p.dump_dir.empty())
    return;
  std::string stem = p.result.spec;
  for (std::size_t at; (at = stem.find('/')) != std::string::npos;)
    stem.replace(at, 1, "__");
  std::error_code ec;
  fs::create_directories(p.dump_dir, ec);
  for (const auto& [name, bytes] : out) {
    std::string err;
    write_file_atomically(
        fs::path(p.dump_dir) / (stem + "." + name + ".bin"),
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), err);
  }
}

/// Row-major coordinates of element `index` of a shape, as "(3,17)".
std::string coords_of(const std::vector<std::int64_t>& shape, std::int64_t index) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    c[i] = index % shape[i];
    index /= shape[i];
  }
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i)
    s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

std::string hex_bytes(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i)
      s += ' ';
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

/// Compares every global tensor with the reference; fills result on mismatch.
void compare(Prepared& p, const std::map<std::string, std::vector<std::uint8_t>>& actual) {
  auto start = Clock::now();
  std::size_t mismatched_tensors = 0;
  std::string first;
  for (const auto& t : p.kernel->tensors) {
    if (t->tensor.space != tile::Space::global)
      continue;
    const auto& name = t->tensor.name;
    const auto& want = p.expected.global.at(name);
    auto it = actual.find(name);
    if (it == actual.end() || it->second.size() != want.size()) {
      ++mismatched_tensors;
      if (first.empty())
        first = "tensor " + name + " did not come back whole";
      continue;
    }
    const auto& got = it->second;
    const auto& defined = p.expected.defined.at(name);
    const std::size_t elem = tile::size_bytes(t->tensor.dtype);
    std::size_t bad_elements = 0;
    for (std::size_t e = 0; e * elem < want.size(); ++e) {
      bool differs = false;
      for (std::size_t b = e * elem; b < (e + 1) * elem; ++b)
        if (defined[b] && want[b] != got[b])
          differs = true;
      if (!differs)
        continue;
      if (bad_elements++ == 0 && first.empty())
        first = "tensor " + name + " element " + std::to_string(e) + " " +
                coords_of(t->tensor.shape, static_cast<std::int64_t>(e)) + ": expected [" +
                hex_bytes(&want[e * elem], elem) + "], got [" + hex_bytes(&got[e * elem], elem) +
                "]";
    }
    p.result.bytes_compared += want.size();
    if (bad_elements) {
      ++mismatched_tensors;
      first += " (" + std::to_string(bad_elements) + " element" + (bad_elements == 1 ? "" : "s") +
               " of " + name + " differ)";
    }
  }
  p.result.compare_ms = ms_since(start);
  if (mismatched_tensors) {
    p.result.status = CaseResult::Status::mismatch;
    p.result.detail = first;
  } else {
    p.result.status = CaseResult::Status::pass;
  }
}

/// Emit, assemble (cuda) and evaluate the reference for one spec.
void prepare(Prepared& p, const fs::path& spec, const ConformanceOptions& o,
             const std::optional<PtxasLocation>& ptxas, ptx::Target arch) {
  p.result.spec = spec.generic_string();
  p.result.expect_fault = is_fault_spec(spec);
  p.dump_dir = o.dump_dir;
  lower::LowerOptions lo;
  // The PTX targets sm_80 (the oldest with cp.async); ptxas compiles it for `arch`.
  lo.target = ptx::Target{80, false};
  lo.unchecked = p.result.expect_fault || o.unchecked;
  auto start = Clock::now();
  EmittedSpec e = emit_spec(spec, lo);
  p.result.emit_ms = ms_since(start);
  if (!e.kernel || !e.ok()) {
    p.result.status = CaseResult::Status::invalid;
    p.result.detail = e.diagnostics.format_all();
    return;
  }
  p.kernel = std::move(e.kernel);
  p.ptx = o.ptx_override.empty() ? e.ptx : o.ptx_override;
  p.params = lower::kernel_params(*p.kernel);

  for (const auto& t : p.kernel->tensors)
    if (t->tensor.space == tile::Space::global)
      p.inputs[t->tensor.name] = initial_bytes(*t);

  // For a fault spec the reference still says what was asked for (it does not
  // check the contract), so a kernel that completes can be shown to be wrong.
  {
    start = Clock::now();
    ReferenceInput in{p.kernel.get(), p.inputs};
    p.expected = evaluate_reference(in);
    p.result.reference_ms = ms_since(start);
    if (!p.expected.problems.empty() && !p.result.expect_fault) {
      p.result.status = CaseResult::Status::error;
      p.result.detail = "the reference found a problem in the spec: " + p.expected.problems.front();
      return;
    }
  }
  if (o.backend == Backend::cuda && !o.jit) {
    AssembleOptions ao;
    ao.target = arch;
    ao.verbose = false;
    auto r = assemble(ptxas->path, p.ptx, ao);
    p.result.ptxas_ms = r.seconds * 1000.0;
    if (!r.ok()) {
      p.result.status = CaseResult::Status::error;
      p.result.detail = r.describe();
      return;
    }
    p.cubin = std::move(r.cubin);
  }
  p.ready = true;
}

/// Judges a finished launch: faults, then the comparison.
void judge_fault(Prepared& p, const std::string& fault) {
  if (p.result.expect_fault) {
    p.result.status = CaseResult::Status::pass;
    p.result.detail = "faulted as expected: " + fault;
  } else {
    p.result.status = CaseResult::Status::fault;
    p.result.detail = fault;
  }
}

/// A kernel that completed. A fault spec passes only when what it did differs
/// from what it asked for: then the contract prevented a silent wrong result.
void judge_no_fault(Prepared& p, const std::map<std::string, std::vector<std::uint8_t>>& out) {
  dump_outputs(p, out);
  compare(p, out);
  if (!p.result.expect_fault)
    return;
  if (p.result.status == CaseResult::Status::mismatch) {
    p.result.status = CaseResult::Status::pass;
    p.result.detail = "no fault, but a silently wrong result: " + p.result.detail;
  } else {
    p.result.status = CaseResult::Status::fault;
    p.result.detail = "expected a fault or a wrong result, but the kernel did what was asked";
  }
}

void run_on_sim(Prepared& p) {
  p.result.backend = "sim";
  auto start = Clock::now();
  auto program = sim::Program::parse(p.ptx);
  p.result.load_ms = ms_since(start);
  if (!program) {
    p.result.status = CaseResult::Status::error;
    p.result.detail = "the simulator cannot parse the PTX:\n" + program.diagnostics.format_all();
    return;
  }
  // Each buffer at its own 1 MiB-aligned simulated device address, far apart.
  std::map<std::string, std::vector<std::uint8_t>> bytes = p.inputs;
  std::vector<sim::GlobalBuffer> memory;
  std::map<std::string, std::uint64_t> address;
  std::uint64_t next = 0x10'0000'0000ull;
  for (auto& [name, b] : bytes) {
    address[name] = next;
    memory.push_back({next, &b, name});
    next += (static_cast<std::uint64_t>(b.size()) + (1u << 20) + ((1u << 20) - 1)) &
            ~((1ull << 20) - 1);
  }
  sim::Launch launch;
  launch.grid = static_cast<std::uint32_t>(p.kernel->grid);
  launch.block = static_cast<std::uint32_t>(p.kernel->block);
  for (const auto& b : p.params) {
    if (b.kind == lower::ParamBinding::Kind::tensor)
      launch.params.push_back(address.at(b.name));
    else
      launch.params.push_back(p.kernel->find_param(b.name)->value);
  }
  start = Clock::now();
  auto r = sim::run(*program, p.kernel->name, launch, memory);
  p.result.launch_ms = ms_since(start);
  if (r.fault) {
    judge_fault(p, std::string(sim::name(r.fault->kind)) + ": " + r.fault->message);
    return;
  }
  judge_no_fault(p, bytes);
}

cuda::LaunchRequest cuda_request(const Prepared& p) {
  cuda::LaunchRequest req;
  req.case_name = p.result.spec;
  req.cubin = p.cubin;
  if (p.cubin.empty())
    req.ptx = p.ptx;
  req.entry = p.kernel->name;
  req.grid = static_cast<unsigned>(p.kernel->grid);
  req.block = static_cast<unsigned>(p.kernel->block);
  std::map<std::string, std::size_t> index;
  for (const auto& [name, b] : p.inputs) {
    index[name] = req.buffers.size();
    req.buffers.push_back({name, b});
  }
  for (const auto& b : p.params) {
    cuda::KernelParam kp;
    if (b.kind == lower::ParamBinding::Kind::tensor) {
      kp.kind = cuda::KernelParam::Kind::buffer;
      kp.buffer_index = index.at(b.name);
    } else {
      kp.kind = b.kind == lower::ParamBinding::Kind::u32 ? cuda::KernelParam::Kind::u32
                                                         : cuda::KernelParam::Kind::u64;
      kp.value = p.kernel->find_param(b.name)->value;
    }
    req.params.push_back(kp);
  }
  req.timeout = std::chrono::milliseconds(10'000);
  return req;
}

void judge_cuda(Prepared& p, const cuda::LaunchOutcome& out) {
  p.result.load_ms = out.load_ms;
  p.result.launch_ms = out.launch_ms;
  using S = cuda::LaunchOutcome::Status;
  switch (out.status) {
  case S::ok:
  case S::canary_damaged: {
    std::map<std::string, std::vector<std::uint8_t>> got;
    for (const auto& b : out.buffers)
      got[b.name] = b.bytes;
    judge_no_fault(p, got);
    if (out.status == S::canary_damaged) {
      std::string reports;
      for (const auto& r : out.canary_reports)
        reports += (reports.empty() ? "" : "; ") + r;
      if (p.result.expect_fault) {
        p.result.status = CaseResult::Status::pass;
        p.result.detail = "wrote outside its tensor (guard bytes damaged): " + reports;
      } else {
        p.result.status = CaseResult::Status::fault;
        p.result.detail = "wrote outside its tensor (guard bytes damaged): " + reports;
      }
    }
    break;
  }
  case S::fault:
    judge_fault(p, out.error_name + ": " + out.message);
    break;
  default:
    p.result.status = CaseResult::Status::error;
    p.result.detail = std::string(cuda::status_name(out.status)) + ": " + out.message;
    break;
  }
}

} // namespace

ConformanceReport run_conformance(const std::vector<fs::path>& specs, const ConformanceOptions& o,
                                  const ProgressFn& progress) {
  auto wall = Clock::now();
  ConformanceReport report;
  std::vector<Prepared> cases(specs.size());

  // The CUDA backend forks a child per case and needs a process that has not
  // initialised CUDA: probe it before any worker thread starts.
  std::optional<cuda::IsolatedRunner> gpu;
  ptx::Target arch = o.arch.value_or(ptx::Target{80, false});
  std::optional<PtxasLocation> ptxas;
  std::string problem;
  if (o.backend == Backend::cuda) {
    gpu.emplace(o.device);
    if (!gpu->available()) {
      problem = "no usable GPU: " + gpu->unavailable_reason();
    } else {
      const auto& d = gpu->device();
      if (!o.arch)
        arch = ptx::Target{d.cc_major * 10 + d.cc_minor, false};
      report.backend_description =
          "cuda: " + d.name + " (" + arch.str() + "), device " + std::to_string(d.ordinal);
      std::string err;
      if (!o.jit) {
        ptxas = locate_ptxas(o.ptxas, err);
        if (!ptxas)
          problem = err;
      }
    }
  } else {
    report.backend_description = "sim: the CPU simulator of the emitted PTX";
  }
  if (!problem.empty()) {
    report.backend_description = problem;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      cases[i].result.spec = specs[i].generic_string();
      cases[i].result.status = CaseResult::Status::error;
      cases[i].result.detail = problem;
      report.cases.push_back(cases[i].result);
    }
    report.wall_seconds = std::chrono::duration<double>(Clock::now() - wall).count();
    return report;
  }

  // Emit, assemble, reference (and simulate) in parallel; launch on the GPU in order.
  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  auto finish = [&](Prepared& p) {
    std::size_t n = ++done;
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      progress(n, specs.size(), p.result);
    }
  };
  auto worker = [&] {
    for (std::size_t i; (i = next++) < specs.size();) {
      Prepared& p = cases[i];
      try {
        prepare(p, specs[i], o, ptxas, arch);
        if (p.ready && o.backend == Backend::sim)
          run_on_sim(p);
      } catch (const std::exception& e) {
        p.result.status = CaseResult::Status::error;
        p.result.detail = std::string("internal error: ") + e.what();
        p.ready = false;
      }
      if (o.backend == Backend::sim || !p.ready)
        finish(p);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, specs.size()); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();

  if (gpu) {
    // One batch: the ready cases share a worker process (one context) until a
    // fault or hang ends it; each outcome is judged as soon as it arrives.
    std::vector<Prepared*> ready;
    std::vector<cuda::LaunchRequest> requests;
    for (auto& p : cases) {
      if (!p.ready)
        continue;
      p.result.backend = "cuda";
      ready.push_back(&p);
      requests.push_back(cuda_request(p));
    }
    gpu->launch_batch(std::move(requests), [&](std::size_t i, const cuda::LaunchOutcome& out) {
      judge_cuda(*ready[i], out);
      finish(*ready[i]);
    });
  }
  for (auto& p : cases)
    report.cases.push_back(std::move(p.result));
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - wall).count();
  return report;
}

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t')
        out += c;
    }
  }
  return out;
}

} // namespace

std::string to_json(const ConformanceReport& r) {
  std::ostringstream j;
  j << "{\n  \"backend\": \"" << json_escape(r.backend_description) << "\",\n"
    << "  \"wall_seconds\": " << r.wall_seconds << ",\n  \"summary\": {";
  const CaseResult::Status all[] = {CaseResult::Status::pass, CaseResult::Status::mismatch,
                                    CaseResult::Status::fault, CaseResult::Status::invalid,
                                    CaseResult::Status::error};
  for (std::size_t i = 0; i < 5; ++i)
    j << (i ? ", " : "") << '"' << name(all[i]) << "\": " << r.count(all[i]);
  j << "},\n  \"cases\": [\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    j << "    {\"spec\": \"" << json_escape(c.spec) << "\", \"status\": \"" << name(c.status)
      << "\", \"expect_fault\": " << (c.expect_fault ? "true" : "false") << ", \"detail\": \""
      << json_escape(c.detail) << "\", \"emit_ms\": " << c.emit_ms
      << ", \"ptxas_ms\": " << c.ptxas_ms << ", \"reference_ms\": " << c.reference_ms
      << ", \"load_ms\": " << c.load_ms << ", \"launch_ms\": " << c.launch_ms
      << ", \"compare_ms\": " << c.compare_ms << ", \"bytes_compared\": " << c.bytes_compared << "}"
      << (i + 1 < r.cases.size() ? ",\n" : "\n");
  }
  j << "  ]\n}\n";
  return j.str();
}

std::string to_junit(const ConformanceReport& r) {
  std::ostringstream x;
  std::size_t failures = r.cases.size() - r.count(CaseResult::Status::pass);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuite name=\"ptxgen conformance\" tests=\"" << r.cases.size() << "\" failures=\""
    << failures << "\" time=\"" << r.wall_seconds << "\">\n"
    << "  <properties><property name=\"backend\" value=\"" << xml_escape(r.backend_description)
    << "\"/></properties>\n";
  for (const auto& c : r.cases) {
    double t =
        (c.emit_ms + c.ptxas_ms + c.reference_ms + c.load_ms + c.launch_ms + c.compare_ms) / 1000.0;
    x << "  <testcase classname=\"conformance\" name=\"" << xml_escape(c.spec) << "\" time=\"" << t
      << "\"";
    if (c.status == CaseResult::Status::pass) {
      x << "/>\n";
    } else {
      x << ">\n    <failure type=\"" << name(c.status) << "\" message=\""
        << xml_escape(c.detail.substr(0, c.detail.find('\n'))) << "\">" << xml_escape(c.detail)
        << "</failure>\n  </testcase>\n";
    }
  }
  x << "</testsuite>\n";
  return x.str();
}

} // namespace ptxgen::driver
