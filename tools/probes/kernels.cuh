// Device side of the probe suite (tools/probe_device.sh): hand-written TMA and
// bulk-copy kernels in inline PTX, one CTA of kThreads threads each. Every wait
// on an mbarrier is bounded by a clock64 deadline and reports a timeout instead
// of hanging, so a transaction count that never completes a phase is a result.
#pragma once
#include <cstdint>

#include <cuda.h>

namespace probes {

constexpr unsigned kThreads = 128;
constexpr std::uint8_t kSentinelByte = 0xEE;
constexpr std::uint32_t kSentinelWord = 0xEEEEEEEEu;
constexpr unsigned kStatusDone = 1, kStatusTimeout = 2;
// About 27 ms at the H200's clock: far longer than any probe's copy, and
// longer than a time slice when other children's contexts share the GPU.
constexpr long long kWaitCycles = 50'000'000;
// After the wait, let any bytes still in flight (a phase that completed early
// because expect_tx was smaller than the copy) land before the dump is read.
constexpr long long kSettleCycles = 200'000;

/// How the copy is issued: the plain form, the `.L2::cache_hint` form with a
/// policy from createpolicy, or (loads) a 1-D non-tensor bulk copy.
enum class Issue : int {
  plain,
  hint_evict_first,
  hint_evict_last,
  hint_evict_normal,
  bulk_1d,
  bulk_1d_hint
};

struct LoadArgs {
  int c0, c1;          // tensor coordinates (elements)
  unsigned expect_tx;  // bytes given to mbarrier.arrive.expect_tx
  unsigned dump_bytes; // shared bytes filled with the sentinel and copied out
  Issue issue;
  const std::uint8_t* bulk_src; // Issue::bulk_1d*: the global source
  unsigned bulk_bytes;          // Issue::bulk_1d*: its size
  unsigned dst_offset = 0;      // the destination's bytes past the 1024-byte aligned dump start
};

struct StoreArgs {
  int c0, c1;
  unsigned src_bytes; // shared bytes filled from `src` before the store
  Issue issue;
  std::uint8_t* bulk_dst; // Issue::bulk_1d*: the global destination
};

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// The first 1024-byte aligned byte of the dynamic shared memory (128-byte
/// swizzle repeats from a 1024-byte boundary); the launch adds 1024 bytes.
__device__ __forceinline__ std::uint8_t* aligned_dyn_smem() {
  extern __shared__ std::uint8_t dyn[];
  const std::uint32_t a = smem_addr(dyn);
  return dyn + (((a + 1023u) & ~1023u) - a);
}

__device__ __forceinline__ std::uint64_t make_policy(Issue issue) {
  std::uint64_t p = 0;
  if (issue == Issue::hint_evict_last)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else if (issue == Issue::hint_evict_normal)
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
  else
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}

__device__ __forceinline__ bool uses_hint(Issue i) {
  return i == Issue::hint_evict_first || i == Issue::hint_evict_last ||
         i == Issue::hint_evict_normal || i == Issue::bulk_1d_hint;
}

__device__ __forceinline__ void mbar_init(std::uint32_t bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, unsigned tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(tx)
               : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, unsigned parity) {
  std::uint32_t done = 0;
  asm volatile("{\n\t.reg .pred p;\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}

/// try_wait on `parity` until the phase completes or the deadline passes; one
/// last try after the deadline, so a context switched out between a try and
/// the clock read does not turn a completed phase into a timeout.
__device__ __forceinline__ bool mbar_wait_bounded(std::uint32_t bar, unsigned parity) {
  const long long deadline = clock64() + kWaitCycles;
  while (clock64() <= deadline)
    if (mbar_try_wait(bar, parity))
      return true;
  return mbar_try_wait(bar, parity);
}

__device__ __forceinline__ void settle() {
  const long long until = clock64() + kSettleCycles;
  while (clock64() < until) {
  }
}

__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void issue_tensor_load(std::uint32_t dst, const CUtensorMap* map, int c0,
                                                  int c1, std::uint32_t bar, Issue issue) {
  const auto m = reinterpret_cast<std::uint64_t>(map);
  if (uses_hint(issue)) {
    const std::uint64_t pol = make_policy(issue);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"(m), "r"(c0), "r"(c1), "r"(bar), "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(m), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
  }
}

__device__ __forceinline__ void issue_bulk_load(std::uint32_t dst, const std::uint8_t* src,
                                                unsigned bytes, std::uint32_t bar, Issue issue) {
  const auto s = reinterpret_cast<std::uint64_t>(src);
  if (uses_hint(issue)) {
    const std::uint64_t pol = make_policy(Issue::hint_evict_first);
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                 " [%0], [%1], %2, [%3], %4;" ::"r"(dst),
                 "l"(s), "r"(bytes), "r"(bar), "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(s), "r"(bytes), "r"(bar)
                 : "memory");
  }
}

/// Fill `dump_bytes` of shared memory with the sentinel, issue one load (tensor
/// or 1-D bulk) with expect_tx bytes, wait bounded, copy the bytes out.
/// status[0]: kStatusDone or kStatusTimeout.
__global__ void __launch_bounds__(kThreads)
    load_probe(const __grid_constant__ CUtensorMap map, LoadArgs a, std::uint8_t* dump,
               unsigned* status) {
  __shared__ alignas(8) std::uint64_t bar;
  std::uint8_t* buf = aligned_dyn_smem();
  auto* words = reinterpret_cast<std::uint32_t*>(buf);
  for (unsigned i = threadIdx.x; i < a.dump_bytes / 4; i += blockDim.x)
    words[i] = kSentinelWord;
  const std::uint32_t b = smem_addr(&bar);
  if (threadIdx.x == 0)
    mbar_init(b, 1);
  fence_proxy_async_smem(); // the sentinel fill and the init before the async proxy's writes
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(b, a.expect_tx);
    if (a.issue == Issue::bulk_1d || a.issue == Issue::bulk_1d_hint)
      issue_bulk_load(smem_addr(buf), a.bulk_src, a.bulk_bytes, b, a.issue);
    else
      issue_tensor_load(smem_addr(buf + a.dst_offset), &map, a.c0, a.c1, b, a.issue);
    status[0] = mbar_wait_bounded(b, 0) ? kStatusDone : kStatusTimeout;
    settle();
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < a.dump_bytes / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(dump)[i] = words[i];
}

/// Fill shared memory from `src`, store it with one tensor (or 1-D bulk) store,
/// wait for the bulk group (writes done), exit.
__global__ void __launch_bounds__(kThreads)
    store_probe(const __grid_constant__ CUtensorMap map, StoreArgs a, const std::uint8_t* src) {
  std::uint8_t* buf = aligned_dyn_smem();
  for (unsigned i = threadIdx.x; i < a.src_bytes; i += blockDim.x)
    buf[i] = src[i];
  fence_proxy_async_smem(); // generic writes of the tile before the async proxy reads it
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  const std::uint32_t s = smem_addr(buf);
  const auto m = reinterpret_cast<std::uint64_t>(&map);
  if (a.issue == Issue::bulk_1d || a.issue == Issue::bulk_1d_hint) {
    const auto d = reinterpret_cast<std::uint64_t>(a.bulk_dst);
    if (a.issue == Issue::bulk_1d_hint) {
      const std::uint64_t pol = make_policy(Issue::hint_evict_first);
      asm volatile(
          "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(d),
          "r"(s), "r"(a.src_bytes), "l"(pol)
          : "memory");
    } else {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(d), "r"(s),
                   "r"(a.src_bytes)
                   : "memory");
    }
  } else if (uses_hint(a.issue)) {
    const std::uint64_t pol = make_policy(a.issue);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint"
                 " [%0, {%1, %2}], [%3], %4;" ::"l"(m),
                 "r"(a.c0), "r"(a.c1), "r"(s), "l"(pol)
                 : "memory");
  } else {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2}], [%3];" ::"l"(m),
                 "r"(a.c0), "r"(a.c1), "r"(s)
                 : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

/// Prefetch a box into L2 (no destination, no completion to wait for).
__global__ void prefetch_probe(const __grid_constant__ CUtensorMap map, int c0, int c1) {
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(
                     reinterpret_cast<std::uint64_t>(&map)),
                 "r"(c0), "r"(c1)
                 : "memory");
}

constexpr unsigned kScopeBytes = 4096;

/// Bulk wait thread scope: per iteration, warp 0 fills the tile with this
/// iteration's pattern, lane 0 stores it to `dst` (the CTA's own slice) and
/// waits on its bulk group (`.read` when `read_only_wait`), then raises a shared
/// flag with a plain volatile store; warp 1 spins on the flag and reads `dst`
/// back with volatile loads, with no barrier between, and counts the words that
/// still hold an older value. Not a proof either way: it samples one schedule.
/// stale[0]: trials with stale words, stale[1]: stale words, stale[2]: trials
/// where the flag never came (not counted as stale).
__global__ void __launch_bounds__(kThreads)
    scope_probe(std::uint32_t* dst_all, int iterations, int read_only_wait,
                unsigned long long* stale) {
  __shared__ alignas(128) std::uint32_t tile[kScopeBytes / 4];
  __shared__ volatile int ready, consumed;
  std::uint32_t* dst = dst_all + blockIdx.x * (kScopeBytes / 4);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0)
    ready = consumed = 0;
  __syncthreads();
  unsigned long long stale_words = 0, stale_trials = 0, missed = 0;
  for (int it = 0; it < iterations; ++it) {
    const std::uint32_t pat = (blockIdx.x << 16) | static_cast<std::uint32_t>(it + 1);
    if (warp == 0) {
      const long long deadline = clock64() + kWaitCycles;
      while (consumed != it && clock64() < deadline) {
      }
      for (unsigned i = lane; i < kScopeBytes / 4; i += 32)
        tile[i] = pat;
      fence_proxy_async_smem();
      __syncwarp();
      if (lane == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                         reinterpret_cast<std::uint64_t>(dst)),
                     "r"(smem_addr(tile)), "r"(kScopeBytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (read_only_wait)
          asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        else
          asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        ready = it + 1;
      }
      __syncwarp();
    } else if (warp == 1) {
      const long long deadline = clock64() + kWaitCycles;
      while (ready != it + 1 && clock64() < deadline) {
      }
      const bool flagged = ready == it + 1;
      unsigned bad = 0;
      for (unsigned i = lane; i < kScopeBytes / 4; i += 32)
        bad += reinterpret_cast<volatile std::uint32_t*>(dst)[i] != pat;
      for (int o = 16; o > 0; o /= 2)
        bad += __shfl_xor_sync(0xffffffffu, bad, o);
      if (lane == 0) {
        if (flagged) {
          stale_words += bad;
          stale_trials += bad != 0;
        } else {
          ++missed;
        }
        consumed = it + 1;
      }
      __syncwarp();
    }
  }
  if (warp == 1 && lane == 0) {
    atomicAdd(&stale[0], stale_trials);
    atomicAdd(&stale[1], stale_words);
    atomicAdd(&stale[2], missed);
  }
  if (warp == 0 && lane == 0)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

} // namespace probes
