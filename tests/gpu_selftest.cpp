// ptxgen_gpu_selftest: checks the CUDA runners (driver/cuda) on a real GPU.
//
// Exits 77 (CTest's skip) when there is no usable device, 0 when every step
// passes, 1 otherwise. Each step prints PASS/FAIL with its timings.
//
// A: IsolatedRunner (one child process per case). Runs first, because it
//    needs a parent that has not loaded the CUDA driver yet.
//   A1 a 16-byte cp.async.cg copy through shared memory, PTX compiled by the
//      driver: output equals input, guards intact;
//   A2 the source misaligned by 4 bytes: fault, CUDA_ERROR_MISALIGNED_ADDRESS;
//   A3 A1 again: succeeds (the fault died with its process);
//   A4 a kernel that spins 2 s with a 200 ms limit: timed_out;
//   A5 A1 again: succeeds (the hung worker was killed).
//   A6 one launch_batch of [copy, misaligned, copy, spin past its limit, copy,
//      bad PTX, copy]: the statuses ok, fault, ok, timed_out, ok, load_error,
//      ok in request order, each copy correct, on_done called once per case
//      in order; the batch time is printed.
// B: Runner (in process).
//   B1 the copy; B2 a destination 16 bytes too small: canary_damaged at
//      +0..+15 after the end; B3 PTX that does not compile: load_error;
//   B4 a block larger than the kernel allows: launch_error; B5 the copy again;
//   B6 the spin past its limit: timed_out, then the runner refuses launches;
//   B7 a second Runner: the misaligned copy faults with
//      CUDA_ERROR_MISALIGNED_ADDRESS; the next launch either runs (context
//      rebuilt) or is refused with the reason (the driver keeps the process
//      poisoned); which one happened is printed.
// Usage: ptxgen_gpu_selftest [device-ordinal]

#include "driver/cuda/device.hpp"
#include "driver/cuda/isolated_runner.hpp"
#include "driver/cuda/runner.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace ptxgen::driver::cuda;
using Status = LaunchOutcome::Status;
using Kind = KernelParam::Kind;

constexpr const char* selftest_ptx = R"(.version 7.0
.target sm_80
.address_size 64

// One 16-byte cp.async.cg per thread, global -> shared, then back out with
// ld.shared.v4 / st.global.v4. src_offset (bytes) is added to every source
// address: 0 copies, 4 misaligns the 16-byte copy and must fault.
.visible .entry ptxgen_selftest_copy(
    .param .u64 param_dst,
    .param .u64 param_src,
    .param .u32 param_src_offset
)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 staging[2048];

    ld.param.u64 %rd1, [param_dst];
    ld.param.u64 %rd2, [param_src];
    ld.param.u32 %r1, [param_src_offset];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r2, %tid.x;
    shl.b32 %r3, %r2, 4;
    add.u32 %r4, %r3, %r1;
    cvt.u64.u32 %rd3, %r4;
    add.u64 %rd4, %rd2, %rd3;
    mov.u32 %r5, staging;
    add.u32 %r6, %r5, %r3;
    cp.async.cg.shared.global [%r6], [%rd4], 16;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.u32 {%r7, %r8, %r9, %r10}, [%r6];
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd6, %rd1, %rd5;
    st.global.v4.u32 [%rd6], {%r7, %r8, %r9, %r10};
    ret;
}

// Spins on %globaltimer until param_ns nanoseconds have passed: a kernel that
// outlives a short launch timeout but still ends on its own.
.visible .entry ptxgen_selftest_spin(
    .param .u64 param_ns
)
{
    .reg .b64 %rd<5>;
    .reg .pred %p<2>;

    ld.param.u64 %rd1, [param_ns];
    mov.u64 %rd2, %globaltimer;
    add.u64 %rd3, %rd2, %rd1;
$Lspin:
    mov.u64 %rd4, %globaltimer;
    setp.lt.u64 %p1, %rd4, %rd3;
    @%p1 bra $Lspin;
    ret;
}
)";

constexpr unsigned threads = 128;
constexpr std::size_t chunk = 16;
constexpr std::size_t copy_bytes = threads * chunk; // 2048, the .shared staging size

int failures = 0;

void report(bool pass, const std::string& step, const LaunchOutcome& out,
            const std::string& detail = {}) {
  std::printf("%s %s: status %s%s%s (load %.3f ms, launch %.3f ms, copies %.3f ms)\n",
              pass ? "PASS" : "FAIL", step.c_str(), std::string(status_name(out.status)).c_str(),
              out.error_name.empty() ? "" : (" " + out.error_name).c_str(),
              detail.empty() ? "" : ("; " + detail).c_str(), out.load_ms, out.launch_ms,
              out.copy_ms);
  if (!out.message.empty()) {
    std::printf("     message: %s\n", out.message.c_str());
  }
  for (const std::string& r : out.canary_reports) {
    std::printf("     canary: %s\n", r.c_str());
  }
  if (!pass) {
    ++failures;
  }
}

std::vector<std::uint8_t> source_bytes() {
  // Source has one spare chunk so the misaligned variant's reads stay inside it.
  std::vector<std::uint8_t> v(copy_bytes + chunk);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<std::uint8_t>(i * 13 + 7);
  }
  return v;
}

LaunchRequest copy_request(const std::string& name, std::size_t dst_bytes,
                           std::uint32_t src_offset) {
  LaunchRequest r;
  r.case_name = name;
  r.ptx = selftest_ptx;
  r.entry = "ptxgen_selftest_copy";
  r.grid = {1, 1, 1};
  r.block = {threads, 1, 1};
  r.buffers.push_back({"src", source_bytes()});
  r.buffers.push_back({"dst", std::vector<std::uint8_t>(dst_bytes, 0xEE)});
  r.params = {{Kind::buffer, 1, 0}, {Kind::buffer, 0, 0}, {Kind::u32, 0, src_offset}};
  r.timeout = std::chrono::milliseconds(10000);
  return r;
}

// Output equals input, source untouched, guards intact.
void check_copy_outcome(const LaunchOutcome& out, const std::string& step) {
  const auto src = source_bytes();
  bool pass = out.status == Status::ok && out.buffers.size() == 2 && out.buffers[0].bytes == src &&
              out.buffers[1].bytes.size() == copy_bytes;
  std::string detail;
  if (pass) {
    for (std::size_t i = 0; i < copy_bytes; ++i) {
      if (out.buffers[1].bytes[i] != src[i]) {
        pass = false;
        detail = "dst byte " + std::to_string(i) + " differs";
        break;
      }
    }
  }
  if (pass) {
    detail = std::to_string(copy_bytes) + " bytes copied, " + std::to_string(out.registers) +
             " registers, " + std::to_string(out.static_shared_bytes) + " bytes static shared";
  }
  report(pass, step, out, detail);
}

template <class AnyRunner>
void check_copy(AnyRunner& runner, const std::string& step) {
  check_copy_outcome(runner.launch(copy_request(step, copy_bytes, 0)), step);
}

LaunchRequest spin_request(const std::string& name) {
  LaunchRequest r;
  r.case_name = name;
  r.ptx = selftest_ptx;
  r.entry = "ptxgen_selftest_spin";
  r.params = {{Kind::u64, 0, 2'000'000'000}}; // 2 s, then it ends by itself
  r.timeout = std::chrono::milliseconds(200);
  return r;
}

void isolated_steps(IsolatedRunner& runner) {
  check_copy(runner, "A1 copy (isolated)");
  {
    const LaunchOutcome out = runner.launch(copy_request("A2 misaligned", copy_bytes, 4));
    report(out.status == Status::fault && out.error_name == "CUDA_ERROR_MISALIGNED_ADDRESS" &&
               out.buffers.empty() && runner.available(),
           "A2 misaligned (isolated)", out);
  }
  check_copy(runner, "A3 copy after the fault (isolated)");
  {
    const LaunchOutcome out = runner.launch(spin_request("A4 timeout"));
    report(out.status == Status::timed_out && runner.available(), "A4 timeout (isolated)", out);
  }
  check_copy(runner, "A5 copy after the timeout (isolated)");
}

void batch_steps(IsolatedRunner& runner) {
  std::vector<LaunchRequest> requests;
  requests.push_back(copy_request("A6.0 copy", copy_bytes, 0));
  requests.push_back(copy_request("A6.1 misaligned", copy_bytes, 4));
  requests.push_back(copy_request("A6.2 copy after the fault", copy_bytes, 0));
  requests.push_back(spin_request("A6.3 timeout"));
  requests.push_back(copy_request("A6.4 copy after the timeout", copy_bytes, 0));
  LaunchRequest bad = copy_request("A6.5 bad ptx", copy_bytes, 0);
  bad.ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry "
            "ptxgen_selftest_copy()\n{\n    no.such.instruction;\n    ret;\n}\n";
  requests.push_back(std::move(bad));
  requests.push_back(copy_request("A6.6 copy after the bad ptx", copy_bytes, 0));
  const std::vector<Status> want = {Status::ok, Status::fault,      Status::ok, Status::timed_out,
                                    Status::ok, Status::load_error, Status::ok};
  std::vector<std::size_t> seen;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<LaunchOutcome> out = runner.launch_batch(
      std::move(requests), [&](std::size_t i, const LaunchOutcome&) { seen.push_back(i); });
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (out.size() != want.size()) {
    std::printf("FAIL A6 batch: %zu outcomes for %zu requests\n", out.size(), want.size());
    ++failures;
    return;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string step = "A6." + std::to_string(i) + " (batch)";
    if (want[i] == Status::ok) {
      check_copy_outcome(out[i], step);
    } else {
      report(out[i].status == want[i] &&
                 (want[i] != Status::fault || out[i].error_name == "CUDA_ERROR_MISALIGNED_ADDRESS"),
             step, out[i], "expected " + std::string(status_name(want[i])));
    }
  }
  const bool in_order = seen == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6};
  std::printf("%s A6 batch: %zu cases in %.1f ms (a 200 ms timeout included), on_done %s\n",
              in_order ? "PASS" : "FAIL", out.size(), ms,
              in_order ? "once per case, in order" : "out of order or missing");
  if (!in_order) {
    ++failures;
  }
}

void in_process_steps(int ordinal) {
  Runner runner(ordinal);
  if (!runner.available()) {
    std::printf("FAIL B runner: %s\n", runner.unavailable_reason().c_str());
    ++failures;
    return;
  }
  check_copy(runner, "B1 copy");
  {
    // 16 bytes short: the last thread's st.global.v4 lands in the guard after the end.
    const LaunchOutcome out = runner.launch(copy_request("B2 canary", copy_bytes - chunk, 0));
    const auto src = source_bytes();
    const bool pass = out.status == Status::canary_damaged && out.canary_reports.size() == 1 &&
                      out.canary_reports[0] ==
                          "dst: 16 bytes after the end overwritten (first at +0, last at +15)" &&
                      out.buffers.size() == 2 &&
                      out.buffers[1].bytes == std::vector<std::uint8_t>(
                                                  src.begin(), src.begin() + (copy_bytes - chunk));
    report(pass, "B2 canary", out);
  }
  {
    LaunchRequest r = copy_request("B3 bad ptx", copy_bytes, 0);
    r.ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry "
            "ptxgen_selftest_copy()\n{\n    no.such.instruction;\n    ret;\n}\n";
    const LaunchOutcome out = runner.launch(std::move(r));
    report(out.status == Status::load_error && out.error_name == "CUDA_ERROR_INVALID_PTX" &&
               runner.available(),
           "B3 bad ptx", out);
  }
  {
    LaunchRequest r = copy_request("B4 block too large", copy_bytes, 0);
    r.block = {2048, 1, 1};
    const LaunchOutcome out = runner.launch(std::move(r));
    report(out.status == Status::launch_error && runner.available(), "B4 block too large", out);
  }
  check_copy(runner, "B5 copy after the refusals");
  {
    const LaunchOutcome out = runner.launch(spin_request("B6 timeout"));
    const bool timed_out = out.status == Status::timed_out && !runner.available();
    const LaunchOutcome after = runner.launch(copy_request("B6b after timeout", copy_bytes, 0));
    report(timed_out && after.status == Status::unavailable, "B6 timeout", out,
           "then: " + after.message);
  }
  {
    Runner second(ordinal);
    const LaunchOutcome out = second.launch(copy_request("B7 misaligned", copy_bytes, 4));
    report(out.status == Status::fault && out.error_name == "CUDA_ERROR_MISALIGNED_ADDRESS" &&
               out.buffers.empty(),
           "B7 misaligned", out);
    const LaunchOutcome after = second.launch(copy_request("B7b after the fault", copy_bytes, 0));
    const bool consistent = (second.available() && after.status == Status::ok) ||
                            (!second.available() && after.status == Status::unavailable);
    report(consistent, "B7b after the fault", after,
           second.available() ? "context rebuilt in process" : "process poisoned, as documented");
  }
}

} // namespace

int main(int argc, char** argv) {
  const int ordinal = argc > 1 ? std::atoi(argv[1]) : 0;
  // The isolated runner probes in a child; the parent must not load CUDA first.
  IsolatedRunner isolated(ordinal);
  if (!isolated.available()) {
    std::printf("SKIP: no usable CUDA device %d: %s\n", ordinal,
                isolated.unavailable_reason().c_str());
    return 77;
  }
  const DeviceInfo& info = isolated.device();
  std::printf("device %d: %s, %s, driver %d, %.1f GiB\n", info.ordinal, info.name.c_str(),
              info.arch().c_str(), info.driver_version,
              static_cast<double>(info.total_memory) / (1024.0 * 1024.0 * 1024.0));
  isolated_steps(isolated);
  batch_steps(isolated);
  in_process_steps(ordinal);
  std::printf("%s: %d step%s failed\n", failures == 0 ? "PASSED" : "FAILED", failures,
              failures == 1 ? "" : "s");
  return failures == 0 ? 0 : 1;
}
