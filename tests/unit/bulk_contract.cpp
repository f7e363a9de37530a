// The contract of the sm_90 bulk family: the per-op proofs (1-D operands, the shared side
// and coordinates of tensor copies, expect_tx's bytes, swizzled views) and the transaction
// bytes of the mbarrier phase walk. Each kernel is a spec text; every expectation is worked
// out from the rules in docs/spec-format.md ("Bulk copies and tensor maps (sm_90)").
#include "emitter/tile/bulk_contract.hpp"

#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/mbarrier_contract.hpp"
#include "emitter/tile/tensor_map.hpp"
#include "spec_text.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_bulk_contract {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;

/// A 32-thread CTA with a global A (64 x 16 uint8), B likewise (output), a flat global F
/// (96 x 24 uint8), a shared s (64 x 16), a barrier, parameter n (its test value the bottom of
/// `range`), then `ops`.
std::string spec(const std::string& ops, const std::string& range = "[0, 0]",
                 const std::string& tensors = "") {
  using namespace ptxgen::spec_text;
  return kernel("k", "1", "32") +
         "\n[param.n]\ndtype = \"u32\"\nvalue = " + range.substr(1, range.find(',') - 1) +
         "\nrange = " + range + "\n" +
         tensor("A", "global", "[64, 16]", "uint8", "init = \"arange % 251\"\n") +
         tensor("B", "global", "[64, 16]", "uint8", "output = true\n") +
         tensor("F", "global", "[96, 24]", "uint8") + tensor("s", "shared", "[64, 16]", "uint8") +
         barriers() + tensors + mbarrier_init("1") + "\n\n[[op]]\nop = \"cta_sync\"\n" + ops;
}

std::string expect_tx(const std::string& bytes, bool arrive = true) {
  return "\n[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = " + bytes +
         "\narrive = " + (arrive ? "true" : "false") + "\npred = \"tid == 0\"\n";
}

std::string bulk_load(const std::string& dst, const std::string& src,
                      const std::string& pred = "tid == 0") {
  return "\n[[op]]\nop = \"bulk_load\"\ndst = '" + dst + "'\nsrc = '" + src +
         "'\nbarrier = 'bar.sub[0]'\npred = \"" + pred + "\"\n";
}

std::string bulk_store(const std::string& dst, const std::string& src,
                       const std::string& pred = "tid == 0") {
  return "\n[[op]]\nop = \"bulk_store\"\ndst = '" + dst + "'\nsrc = '" + src + "'\npred = \"" +
         pred + "\"\n";
}

std::string wait(const std::string& parity = "0") {
  return "\n[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'bar.sub[0]'\nparity = " + parity + "\n";
}

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  return ptxgen::spec_text::load(text, "bulk.toml");
}

ptxgen::Diagnostics contract(const std::string& text) {
  return tile::check_contract(*load(text));
}

/// The contract's diagnostics must be exactly one error with this ID whose message has
/// `words`; or none when `id` is not given.
void expect_only(const ptxgen::Diagnostics& ds, std::optional<DiagId> id,
                 const std::string& words = "") {
  INFO(ds.format_all());
  if (!id) {
    CHECK(ds.empty());
    return;
  }
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == *id);
  CHECK(ds.items()[0].message.find(words) != std::string::npos);
}

/// The whole 1-D load: the phase expects the 1024 bytes of A and waits for them.
std::string load_all(const std::string& dst = "s", const std::string& src = "A",
                     const std::string& bytes = "1024") {
  return expect_tx(bytes) + bulk_load(dst, src) + wait();
}

} // namespace

TEST_CASE("a 1-D bulk load and store of whole tensors pass") {
  expect_only(contract(spec(load_all() + bulk_store("B", "s"))), std::nullopt);
}

TEST_CASE("1-D bulk copies move equal byte counts, a multiple of 16 in 16..1048560") {
  expect_only(contract(spec(expect_tx("512") + bulk_load("s.sub[0:32, :]", "A") + wait())),
              DiagId::contract_bulk_size, "dst has 512 bytes, src has 1024");
  expect_only(contract(spec(expect_tx("8") + bulk_load("s.sub[0, 0:8]", "A.sub[0, 0:8]") + wait())),
              DiagId::contract_bulk_size, "have 8");
  expect_only(contract(spec(bulk_store("B.sub[0:1, :]", "s.sub[0:1, :]"))), std::nullopt);
}

TEST_CASE("1-D bulk operands are one contiguous byte range") {
  const auto ds = contract(spec(bulk_store("B.sub[:, 0:8]", "s.sub[:, 0:8]")));
  INFO(ds.format_all());
  CHECK(ds.items().size() == 2); // dst and src, each at its view
  CHECK(ds.has(DiagId::contract_bulk_contiguous));
  expect_only(contract(spec(bulk_store("B.sub[0:8, :]", "s.sub[8:16, :]"))), std::nullopt);
}

TEST_CASE("1-D bulk operands start 16-byte aligned, over the declared range") {
  // F's rows are 24 bytes: row n starts 16-byte aligned exactly when n is even.
  const std::string row_n = bulk_store("F.sub[n, 0:16]", "s.sub[0, :]");
  expect_only(contract(spec(row_n, "[0, 0]")), std::nullopt);
  // n = 1 is only reachable through the range (its test value is 0).
  expect_only(contract(spec(row_n, "[0, 1]")), DiagId::contract_bulk_align,
              "only known to be 8-byte aligned");
  expect_only(contract(spec(bulk_store("F.sub[n * 2, 0:16]", "s.sub[0, :]"), "[0, 3]")),
              std::nullopt);
  // A constant offset: byte 8 of A.
  expect_only(contract(spec(bulk_store("B.sub[0, :]", "s.sub[1:3, :].rearrange(\"r c -> (r c)\")"
                                                      ".sub[8:24]"))),
              DiagId::contract_bulk_align, "byte offset 24");
}

TEST_CASE("1-D bulk alignment by thread: only the threads whose pred may hold") {
  const std::string by_tid = "F.sub[tid, 0:16]";
  expect_only(contract(spec(bulk_store(by_tid, "s.sub[0, :]", "tid == 0"))), std::nullopt);
  expect_only(contract(spec(bulk_store(by_tid, "s.sub[0, :]", "tid < 2 && tid != 1"))),
              std::nullopt);
  expect_only(contract(spec(bulk_store(by_tid, "s.sub[0, :]", "tid < 2"))),
              DiagId::contract_bulk_align, "at thread 1 (bid 0) it starts at byte offset 24");
}

TEST_CASE("1-D bulk operands lie inside their tensors for the issuing threads") {
  // Rows 40 + tid: inside A's 64 rows for tid < 24 only.
  const std::string row = "A.sub[tid + 40, :]";
  expect_only(contract(spec(bulk_store(row, "s.sub[0, :]", "tid < 24"))), std::nullopt);
  expect_only(contract(spec(bulk_store(row, "s.sub[0, :]", "tid < 25"))),
              DiagId::contract_out_of_bounds, "thread 24");
}

TEST_CASE("a swizzled tensor is not a 1-D bulk operand") {
  const std::string z = R"(
[tensor.z]
space = "shared"
shape = [8, 128]
dtype = "uint8"
align = 1024
swizzle = "128B"
)";
  expect_only(contract(spec(bulk_store("B", "z"), "[0, 0]", z)), DiagId::contract_bulk_swizzled,
              "128B-swizzled tensor");
}

TEST_CASE("expect_tx's bytes stay in 0..2^20-1 over the declared range") {
  const std::string ops = expect_tx("\"1024 * (n + 1)\"") + bulk_load("s", "A") + wait();
  expect_only(contract(spec(ops, "[0, 1022]")), std::nullopt);
  expect_only(contract(spec(ops, "[0, 1023]")), DiagId::contract_expect_tx_range,
              "its range is 1024..1048576");
  expect_only(contract(spec(expect_tx("1048576") + bulk_load("s", "A") + wait())),
              DiagId::contract_expect_tx_range, "0..1048575");
}

TEST_CASE("expect_tx's bytes are bounded over the threads whose pred may hold") {
  // 1024 + tid * 40000 passes 2^20 - 1 from thread 27 on; thread 0 alone expects 1024.
  const std::string ops = "\n[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\n"
                          "bytes = \"1024 + tid * 40000\"\n";
  expect_only(contract(spec(ops + "pred = \"tid == 0\"\n" + bulk_load("s", "A") + wait())),
              std::nullopt);
  expect_only(contract(spec(ops + "pred = \"tid < 28\"\n")), DiagId::contract_expect_tx_range,
              "its range is 1024..1081024");
}

TEST_CASE("a bulk load's barrier tensor holds no data") {
  // bar2 is a barrier only through the bulk load: the copy that reads it as data is refused.
  const std::string bar2 = "\n[tensor.bar2]\nspace = \"shared\"\nshape = [2]\ndtype = \"uint64\"\n";
  const std::string load = expect_tx("1024") +
                           "\n[[op]]\nop = \"bulk_load\"\ndst = 's'\nsrc = 'A'\n"
                           "barrier = 'bar2.sub[0]'\npred = \"tid == 0\"\n";
  const auto ds = contract(spec(load + "\n[[op]]\nop = \"copy\"\ndst = 'B.sub[0, 0:8]'\n"
                                       "src = 'bar2.sub[1:2].view(\"uint8\")'\n",
                                "[0, 0]", bar2));
  INFO(ds.format_all());
  CHECK(ds.has(DiagId::contract_mbarrier_overlap));
}

// ------------------------------------------------------------------ the phase walk

TEST_CASE("a phase's delivered bytes equal its expect_tx total") {
  expect_only(contract(spec(load_all("s", "A", "2048"))), DiagId::contract_mbarrier_tx,
              "2048 bytes expected by expect_tx, 1024 delivered by its loads: the phase never "
              "completes");
  expect_only(contract(spec(load_all("s", "A", "512"))), DiagId::contract_mbarrier_tx,
              "512 bytes expected by expect_tx, 1024 delivered");
  // Two loads of half the tile each, one expect_tx of the whole.
  expect_only(contract(spec(expect_tx("1024") + bulk_load("s.sub[0:32, :]", "A.sub[0:32, :]") +
                            bulk_load("s.sub[32:64, :]", "A.sub[32:64, :]") + wait())),
              std::nullopt);
  // expect_tx without arrival, the arrival by every thread after it.
  expect_only(contract(spec(expect_tx("1024", false) + bulk_load("s", "A") +
                            "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\n" +
                            "pred = \"tid == 0\"\n" + wait())),
              std::nullopt);
}

TEST_CASE("the walk counts transaction bytes at the values it is given") {
  const std::string ops = expect_tx("\"1024 * n\"") + bulk_load("s", "A") + wait();
  auto k = load(spec(ops, "[0, 4]"));
  const std::vector<std::uint64_t> one{1}, two{2};
  ptxgen::Diagnostics at_one, at_two;
  tile::check_mbarrier_phases(*k, at_one, tile::default_mbarrier_steps, one);
  tile::check_mbarrier_phases(*k, at_two, tile::default_mbarrier_steps, two);
  expect_only(at_one, std::nullopt);
  expect_only(at_two, DiagId::contract_mbarrier_tx, "2048 bytes expected");
}

TEST_CASE("a load needs its phase's expect_tx first") {
  expect_only(contract(spec(bulk_load("s", "A") + expect_tx("1024") + wait())),
              DiagId::contract_mbarrier_tx_unexpected, "which has no expect_tx yet");
  // The second load lands in phase 1, which expects nothing: an early completion of phase 0.
  const auto ds = contract(spec(expect_tx("512") + bulk_load("s.sub[0:32, :]", "A.sub[0:32, :]") +
                                bulk_load("s.sub[32:64, :]", "A.sub[32:64, :]") + wait()));
  INFO(ds.format_all());
  REQUIRE(ds.has(DiagId::contract_mbarrier_tx_unexpected));
  CHECK(ds.items()[0].message.find("phase 1 of barrier") != std::string::npos);
  CHECK(ds.has(DiagId::contract_mbarrier_tx)); // and phase 1 is never waited for
}

TEST_CASE("a load needs an expect_tx of its phase ordered before it in its own thread") {
  // Thread 1 announces the bytes, thread 0 loads and arrives: nothing orders the two.
  const std::string other = "\n[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = 1024"
                            "\narrive = false\npred = \"tid == 1\"\n";
  const std::string arrive =
      "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\npred = \"tid == 0\"\n";
  // (Thread 1's expect_tx is also ordered before no arrival of the phase: a second error.)
  const auto ds = contract(spec(other + bulk_load("s", "A") + arrive + wait()));
  INFO(ds.format_all());
  REQUIRE(ds.items().size() == 2);
  CHECK(ds.items()[0].id == DiagId::contract_mbarrier_tx_unexpected);
  CHECK(ds.items()[0].message.find("whose expect_tx came from another thread with no cta_sync "
                                   "between it and this load") != std::string::npos);
  CHECK(ds.items()[1].id == DiagId::contract_mbarrier_tx_unordered);
  // A cta_sync between them orders thread 1's expect_tx before the load.
  expect_only(contract(spec(other + "\n[[op]]\nop = \"cta_sync\"\n" + bulk_load("s", "A") + arrive +
                            wait())),
              std::nullopt);
  // Every thread's expect_tx (thread 0's among them) before thread 0's load; each thread
  // arrives after its own expect_tx (count 32).
  auto every = spec("\n[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = 32"
                    "\narrive = false\n" +
                    bulk_load("s", "A") +
                    "\n[[op]]\nop = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\n" + wait());
  every.replace(every.find("count = 1"), 9, "count = 32");
  expect_only(contract(every), std::nullopt);
}

namespace {

/// An op of `kind` on the barrier by the threads where `pred` holds, with more `keys`.
std::string on_bar(const std::string& kind, const std::string& pred, const std::string& keys = "") {
  return "\n[[op]]\nop = \"" + kind + "\"\nbarrier = 'bar.sub[0]'\n" + keys + "pred = \"" + pred +
         "\"\n";
}

const std::string cta_sync = "\n[[op]]\nop = \"cta_sync\"\n";

} // namespace

TEST_CASE("an expect_tx without arrival comes before one of its phase's arrivals") {
  // Thread 1 announces and loads, thread 0 arrives: thread 0 may arrive first and complete
  // the phase (count 1, tx-count 0) before the expect_tx, whose bytes go to phase 1.
  const std::string loose = on_bar("expect_tx", "tid == 1", "bytes = 1024\narrive = false\n") +
                            bulk_load("s", "A", "tid == 1");
  const std::string arrive0 = on_bar("mbarrier_arrive", "tid == 0");
  expect_only(contract(spec(loose + arrive0 + wait())), DiagId::contract_mbarrier_tx_unordered,
              "CTA 0, thread 1: the expect_tx (arrive = false) at line 46 adds 1024 transaction "
              "bytes to phase 0 of barrier 'bar.sub[0]', but no arrival of the phase is ordered "
              "after it, and the mbarrier_arrive at line 60 (thread 0) completes the phase");
  // A cta_sync between the expect_tx and the arrival orders them.
  expect_only(contract(spec(loose + cta_sync + arrive0 + wait())), std::nullopt);
  // A cta_sync before the expect_tx orders nothing after it.
  expect_only(contract(spec(cta_sync + loose + arrive0 + wait())),
              DiagId::contract_mbarrier_tx_unordered, "no arrival of the phase is ordered");
  // The expecting thread's own arrival after it (count 2: threads 0 and 1 arrive).
  auto two = spec(loose + on_bar("mbarrier_arrive", "tid < 2") + wait());
  two.replace(two.find("count = 1"), 9, "count = 2");
  expect_only(contract(two), std::nullopt);
  // An arrival of the thread before its expect_tx does not count.
  auto before = spec(on_bar("mbarrier_arrive", "tid == 1") + loose + arrive0 + wait());
  before.replace(before.find("count = 1"), 9, "count = 2");
  expect_only(contract(before), DiagId::contract_mbarrier_tx_unordered,
              "no arrival of the phase is ordered after it");
  // With arrive = true the expect_tx is the phase's arrival.
  expect_only(contract(spec(on_bar("expect_tx", "tid == 1", "bytes = 1024\n") +
                            bulk_load("s", "A", "tid == 1") + wait())),
              std::nullopt);
}

TEST_CASE("the expect_tx rule holds for every issuing thread the range allows") {
  const std::string ops = on_bar("expect_tx", "tid == n", "bytes = 1024\narrive = false\n") +
                          bulk_load("s", "A", "tid == n") + on_bar("mbarrier_arrive", "tid == 0") +
                          wait();
  auto k = load(spec(ops, "[0, 31]"));
  const std::vector<std::uint64_t> zero{0}, five{5};
  ptxgen::Diagnostics at_zero, at_five;
  tile::check_mbarrier_phases(*k, at_zero, tile::default_mbarrier_steps, zero);
  tile::check_mbarrier_phases(*k, at_five, tile::default_mbarrier_steps, five);
  expect_only(at_zero, std::nullopt);
  expect_only(at_five, DiagId::contract_mbarrier_tx_unordered,
              "CTA 0, thread 5: the expect_tx (arrive = false)");
}

TEST_CASE("an expect_tx runs after its thread knows the previous phase completed") {
  // Phase 0: thread 0's expect_tx arrival and load; phase 1: thread 1's. Threads 0 and 1 wait
  // for phase 1: a thread that knows nothing of phase 0 would wait on parity 1 while phase 0
  // may be open, which passes at once (contract_mbarrier_parity).
  const std::string second = on_bar("expect_tx", "tid == 1", "bytes = 512\n") +
                             bulk_load("s.sub[32:64, :]", "A.sub[32:64, :]", "tid == 1") +
                             on_bar("mbarrier_wait", "tid < 2", "parity = 1\n");
  const std::string first = on_bar("expect_tx", "tid == 0", "bytes = 512\n") +
                            bulk_load("s.sub[0:32, :]", "A.sub[0:32, :]");
  // Only thread 0 waits for phase 0: thread 1's expect_tx may run while phase 0 is open.
  expect_only(contract(spec(first + on_bar("mbarrier_wait", "tid == 0", "parity = 0\n") + second)),
              DiagId::contract_mbarrier_tx_unordered,
              "CTA 0, thread 1: the expect_tx adds 512 transaction bytes to phase 1 of barrier "
              "'bar.sub[0]', but its thread does not know that phase 0 completed");
  // Every thread waits for phase 0 first.
  expect_only(contract(spec(first + wait("0") + second)), std::nullopt);
  // Without arrival too; thread 1's own arrival after it is its first arrival, in phase 1,
  // which it does not know follows phase 0 either.
  const std::string loose_second =
      on_bar("expect_tx", "tid == 1", "bytes = 512\narrive = false\n") +
      bulk_load("s.sub[32:64, :]", "A.sub[32:64, :]", "tid == 1") +
      on_bar("mbarrier_arrive", "tid == 1") + on_bar("mbarrier_wait", "tid < 2", "parity = 1\n");
  const auto loose =
      contract(spec(first + on_bar("mbarrier_wait", "tid == 0", "parity = 0\n") + loose_second));
  INFO(loose.format_all());
  REQUIRE(loose.items().size() == 2);
  CHECK(loose.items()[0].id == DiagId::contract_mbarrier_tx_unordered);
  CHECK(loose.items()[0].message.find("does not know that phase 0 completed") != std::string::npos);
  CHECK(loose.items()[1].id == DiagId::contract_mbarrier_reuse);
}

TEST_CASE("a phase's transaction bytes stay within the tx-count's range") {
  const std::string big = expect_tx("1048575", false) + expect_tx("1048575", false);
  const auto ds = contract(spec(big));
  INFO(ds.format_all());
  REQUIRE(ds.has(DiagId::contract_mbarrier_tx_range));
  CHECK(ds.items()[0].message.find("2097150 transaction bytes expected") != std::string::npos);
  expect_only(contract(spec(expect_tx("1048575", false))), DiagId::contract_mbarrier_tx,
              "the kernel ends with phase 0");
}

TEST_CASE("a ring of phases over a loop settles each phase") {
  const std::string loop = "\n[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = 4\n" +
                           expect_tx("1024") + bulk_load("s", "A") + wait("\"k % 2\"") +
                           "\n[[op]]\nop = \"cta_sync\"\n\n[[op]]\nop = \"end\"\n";
  expect_only(contract(spec(loop)), std::nullopt);
  auto bad = loop;
  bad.replace(bad.find("bytes = 1024"), 12, "bytes = \"1024 + k / 3 * 16\"");
  expect_only(contract(spec(bad)), DiagId::contract_mbarrier_tx, "k=3");
}

// ------------------------------------------------------------------ tensor copies

namespace {

/// G: a 64 x 64 float16 tensor with a 64B-swizzled map of 16 x 32 boxes (1024 bytes); Z its
/// shared tile; G2 the same without swizzle, V a shared float16 tensor of 34 rows; H a
/// 100-byte tensor with a map of 32-byte boxes, W its shared tile; N a uint8 tensor with a
/// 128B-swizzled map of 16 x 64 boxes (rows narrower than the span), P its padded shared
/// tile (16 x 128 bytes), Q one sized for the box packed (16 x 64).
const std::string tensors = [] {
  using namespace ptxgen::spec_text;
  return tensor("G", "global", "[64, 64]", "float16") + map("G", "[16, 32]", "64B") +
         swizzled("Z", "[16, 32]", "float16", "512", "64B") +
         tensor("U", "shared", "[16, 32]", "float16") +
         tensor("G2", "global", "[64, 64]", "float16") + map("G2", "[16, 32]") +
         tensor("V", "shared", "[34, 32]", "float16") + tensor("H", "global", "[100]", "uint8") +
         map("H", "[32]") + tensor("W", "shared", "[32]", "uint8") +
         tensor("N", "global", "[64, 64]", "uint8") + map("N", "[16, 64]", "128B") +
         swizzled("P", "[16, 128]", "uint8", "1024", "128B") +
         swizzled("Q", "[16, 64]", "uint8", "1024", "128B");
}();

std::string tensor_load(const std::string& tensor, const std::string& coords,
                        const std::string& dst) {
  return expect_tx("1024") + "\n[[op]]\nop = \"tensor_load\"\ntensor = \"" + tensor +
         "\"\ncoords = " + coords + "\ndst = '" + dst +
         "'\nbarrier = 'bar.sub[0]'\npred = \"tid == 0\"\n" + wait();
}

std::string tensor_store(const std::string& tensor, const std::string& coords,
                         const std::string& src, const std::string& pred = "tid == 0") {
  return "\n[[op]]\nop = \"tensor_store\"\ntensor = \"" + tensor + "\"\ncoords = " + coords +
         "\nsrc = '" + src + "'\npred = \"" + pred + "\"\n";
}

ptxgen::Diagnostics tensor_contract(const std::string& ops, const std::string& range = "[0, 0]") {
  return contract(spec(ops, range, tensors));
}

} // namespace

TEST_CASE("a tensor load into a tile of the map's swizzle passes") {
  expect_only(tensor_contract(tensor_load("G", "[0, 0]", "Z")), std::nullopt);
  expect_only(tensor_contract(tensor_load("G2", "[0, 32]", "V.sub[0:16, :]")), std::nullopt);
}

TEST_CASE("a tensor copy's shared view holds the box's bytes, contiguous") {
  expect_only(tensor_contract(tensor_load("G", "[0, 0]", "Z.sub[0:8, :]")),
              DiagId::contract_tensor_box_bytes, "holds 512 bytes; the box of 'G''s map is 1024");
  expect_only(tensor_contract(tensor_store("G2", "[0, 0]", "V.sub[0:32, 0:16]")),
              DiagId::contract_bulk_contiguous, "not one contiguous byte range");
}

TEST_CASE("a tensor copy's shared tensor has the map's swizzle") {
  expect_only(tensor_contract(tensor_load("G", "[0, 0]", "U")), DiagId::contract_tensor_swizzle,
              "'U' has swizzle none; the map of 'G' moves the box with swizzle 64B");
}

TEST_CASE("a tensor copy's shared side is aligned as the map needs, over the declared range") {
  // Block n of 17 rows of 64 bytes starts at 1088 n: 128-byte aligned for n = 0 only.
  const std::string block = "V.rearrange(\"(a r) c -> a r c\", r=17).sub[n, 0:16, :]";
  expect_only(tensor_contract(tensor_load("G2", "[0, 0]", block), "[0, 0]"), std::nullopt);
  expect_only(tensor_contract(tensor_load("G2", "[0, 0]", block), "[0, 1]"),
              DiagId::contract_tmap_shared_align, "only known to be 64-byte aligned");
  expect_only(tensor_contract(tensor_load("G2", "[0, 0]", "V.sub[1:17, :]")),
              DiagId::contract_tmap_shared_align, "starts at byte offset 64");
}

TEST_CASE("tensor coordinates are signed 32-bit; a load's may be negative") {
  const std::string ops = tensor_load("G2", "[\"n * 1024\", 0]", "V.sub[0:16, :]");
  expect_only(tensor_contract(ops, "[0, 2097151]"), std::nullopt);
  expect_only(tensor_contract(ops, "[0, 2097152]"), DiagId::contract_tensor_coord_range,
              "its range is 0..2147483648");
  expect_only(tensor_contract(tensor_load("G2", "[\"n - 1\", -16]", "V.sub[0:16, :]"), "[0, 4]"),
              std::nullopt);
}

TEST_CASE("a tensor store's coordinates are never negative") {
  const std::string ops = tensor_store("G2", "[\"n - 1\", 0]", "V.sub[0:16, :]");
  expect_only(tensor_contract(ops, "[1, 4]"), std::nullopt);
  expect_only(tensor_contract(ops, "[0, 4]"), DiagId::contract_tensor_store_negative,
              "its range is -1..3");
}

TEST_CASE("a tensor store never spills past the inner extent") {
  // H has 100 bytes: a store whose box reaches bytes 100..111 writes them anyway.
  const std::string by_n = tensor_store("H", "[\"n * 32\"]", "W");
  expect_only(tensor_contract(by_n, "[0, 2]"), std::nullopt);
  expect_only(tensor_contract(by_n, "[0, 3]"), DiagId::contract_tensor_store_spill,
              "ranges over 0..96 for the issuing threads and the declared ranges; at 96");
  // Thread by thread where the intervals do not decide: 16..47 and 128..159 never spill.
  expect_only(tensor_contract(tensor_store("H", "[\"tid == 1 ? 128 : 16\"]", "W", "tid < 2")),
              std::nullopt);
  expect_only(tensor_contract(tensor_store("H", "[\"tid * 48\"]", "W", "tid < 3")),
              DiagId::contract_tensor_store_spill, "at thread 2 (bid 0) the store's box at (96)");
}

TEST_CASE("the innermost coordinate's bytes are a multiple of 16, as the H200 faults otherwise") {
  // Measured on the H200 (docs/ptx-rules.md): inner byte offsets 4, 8, 3 and -8 raise an
  // illegal-instruction fault; -16, 16 and 144 run. G2 holds float16 (2 bytes), H uint8.
  for (const char* bytes : {"4", "8", "-8"}) {
    const std::string elems = std::to_string(std::stoi(bytes) / 2);
    CAPTURE(bytes);
    expect_only(tensor_contract(tensor_load("G2", "[0, " + elems + "]", "V.sub[0:16, :]")),
                DiagId::contract_tensor_inner_coord_align,
                "at thread 0 (bid 0) it is " + elems + " (" + bytes + " bytes)");
  }
  expect_only(tensor_contract(tensor_store("H", "[3]", "W")),
              DiagId::contract_tensor_inner_coord_align, "it is 3 (3 bytes)");
  for (const char* elems : {"-8", "8", "72"})
    expect_only(
        tensor_contract(tensor_load("G2", std::string("[0, ") + elems + "]", "V.sub[0:16, :]")),
        std::nullopt);
  expect_only(tensor_contract(tensor_store("H", "[16]", "W")), std::nullopt);
  // Over the declared range: n * 4 float16 elements are 8 * n bytes, aligned for even n.
  const std::string by_n = tensor_load("G2", "[0, \"n * 4\"]", "V.sub[0:16, :]");
  expect_only(tensor_contract(by_n, "[0, 0]"), std::nullopt);
  expect_only(tensor_contract(by_n, "[0, 2]"), DiagId::contract_tensor_inner_coord_align,
              "n = 1 it is 4 (8 bytes)");
  // By thread: tid * 8 is aligned, tid * 4 is not at thread 1; only issuing threads count.
  expect_only(tensor_contract(tensor_store("H", "[\"tid * 16\"]", "W", "tid < 2")), std::nullopt);
  expect_only(tensor_contract(tensor_store("H", "[\"tid * 8\"]", "W", "tid < 2")),
              DiagId::contract_tensor_inner_coord_align, "at thread 1 (bid 0) it is 8");
  expect_only(tensor_contract(tensor_store("H", "[\"tid * 8\"]", "W", "tid < 1")), std::nullopt);
}

TEST_CASE("a swizzled box narrower than its span takes the span per row in shared memory") {
  // Measured on the H200 (128B swizzle, 64-byte rows): each row takes 128 bytes, so the box
  // of 16 rows needs 2048 bytes of shared memory; a 1024-byte tile is overrun.
  expect_only(tensor_contract(tensor_load("N", "[0, 0]", "P")), std::nullopt);
  expect_only(tensor_contract(tensor_store("N", "[0, 16]", "P")), std::nullopt);
  expect_only(tensor_contract(tensor_load("N", "[0, 0]", "Q")),
              DiagId::contract_tensor_swizzle_padding,
              "dst holds 1024 bytes, the box of 'N''s map packed; its 64-byte rows are narrower "
              "than the 128B swizzle's 128-byte span");
  expect_only(tensor_contract(tensor_store("N", "[0, 0]", "Q")),
              DiagId::contract_tensor_swizzle_padding, "16 rows x 128 = 2048 bytes");
  // Neither size: the ordinary box-size refusal, naming the padded size.
  expect_only(tensor_contract(tensor_store("N", "[0, 0]", "P.sub[0:4, :]")),
              DiagId::contract_tensor_box_bytes, "is 2048 bytes");
  // The transaction count stays the box's 1024 bytes: 2048 would never complete the phase.
  auto twice = tensor_load("N", "[0, 0]", "P");
  twice.replace(twice.find("bytes = 1024"), 12, "bytes = 2048");
  expect_only(tensor_contract(twice), DiagId::contract_mbarrier_tx,
              "2048 bytes expected by expect_tx, 1024 delivered");
}

TEST_CASE("store_spills agrees with box_elements") {
  tile::TensorMapDesc map;
  map.tensor = "M";
  map.dtype = ptxgen::tile::DType::uint8;
  map.global_dims = {5, 10};
  map.global_strides = {16};
  map.box_dims = {4, 16};
  map.element_strides = {2, 1};
  REQUIRE(tile::check_tensor_map(map).empty());
  int spilling = 0;
  for (std::int64_t c0 = -9; c0 <= 8; ++c0)
    for (std::int64_t c1 = -20; c1 <= 20; ++c1) {
      const std::vector<std::int64_t> at{c0, c1};
      bool want = false;
      for (const auto& e : tile::box_elements(map, at, tile::TensorAccess::store))
        want = want || e.place == tile::BoxPlace::spill;
      INFO("coords (" << c0 << ", " << c1 << ")");
      CHECK(tile::store_spills(map, at) == want);
      spilling += want ? 1 : 0;
    }
  CHECK(spilling > 0); // the sweep reaches the spilling boxes
}

TEST_CASE("known_divisor") {
  const auto is_param = [](std::string_view n) { return n == "n"; };
  const auto d = [&](const char* text) {
    auto e = tile::parse_expr(text, is_param);
    REQUIRE(e.value);
    return tile::known_divisor(**e.value);
  };
  CHECK(d("n * 64 + 16") == 16);
  CHECK(d("(n << 4) * 3") == 48);
  CHECK(d("n * 24 - 48") == 24);
  CHECK(d("tid") == 1);
  CHECK(d("n / 2 * 8") == 8);
  CHECK(d("0") == 0);
  CHECK(d("n > 3 ? 32 : 48") == 16);
}

TEST_CASE("views of a swizzled tensor keep every element inside one 16-byte chunk") {
  const auto copy = [](const std::string& src) {
    return "\n[[op]]\nop = \"copy\"\ndst = 'B.sub[0, 0:4].view(\"uint32\")'\nsrc = '" + src + "'\n";
  };
  expect_only(tensor_contract(copy("Z.sub[0, 6:8].view(\"uint32\")")), std::nullopt);
  expect_only(tensor_contract(copy("Z.sub[0, 7:9].view(\"uint32\")")),
              DiagId::contract_swizzle_access, "may start at byte 14 of a 16-byte chunk");
}

} // namespace unit_bulk_contract
