// The reference's model of asynchronous memory (driver/reference/async_model.hpp): the table's
// proxy facts as PTX states them, and the hazards derived from them on whole kernels: a
// generic write of shared bytes before a bulk or tensor load of them, generic global writes
// before a load that reads them, a generic global write over bytes a pending bulk store still
// writes. Each is refused without its fence (or wait) and accepted with it.
#include "driver/reference/async_model.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "spec_text.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_reference_async_model {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;
namespace model = ptxgen::driver::evaluation::model;
using ptxgen::driver::ReferenceOutput;

ReferenceOutput run(const std::string& text) {
  const auto k = ptxgen::spec_text::load(text, "async.toml");
  const tile::Kernel& kernel = *k;
  ptxgen::driver::ReferenceInput in;
  in.kernel = &kernel;
  for (const auto& d : kernel.tensors)
    if (d->tensor.space == tile::Space::global)
      in.global[d->tensor.name] = ptxgen::driver::initial_bytes(*d);
  return ptxgen::driver::evaluate_reference(in);
}

bool found(const ReferenceOutput& out, DiagId id) {
  return std::any_of(out.findings.begin(), out.findings.end(),
                     [id](const auto& f) { return f.id == id; });
}

std::string problems(const ReferenceOutput& out) {
  std::string s;
  for (const auto& p : out.problems)
    s += p + "\n";
  return s;
}

std::string op(const std::string& body) {
  return "[[op]]\n" + body + "\n";
}

const std::string head = [] {
  using namespace ptxgen::spec_text;
  return kernel("k", "1", "32") +
         tensor("A", "global", "[32, 16]", "uint8", "init = \"arange % 251\"\n") +
         tensor("C", "global", "[32, 16]", "uint8", "init = \"arange % 7\"\n") +
         tensor("B", "global", "[32, 16]", "uint8", "output = true\n") +
         tensor("S", "shared", "[32, 16]", "uint8") + barriers() + mbarrier_init("1") + "\n\n";
}();

const std::string fill_rows = op("op = \"fill\"\ndst = 'S.sub[tid, :]'\npattern = \"0x5A\"\n");
const std::string sync = op("op = \"cta_sync\"\n");
std::string fence(const std::string& space) {
  return op("op = \"proxy_fence\"\nspace = \"" + space + "\"\n");
}
/// Thread 0 loads all of A into S (bulk or tensor), every thread waits, S goes back to B.
const std::string bulk_load =
    op("op = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = 512\npred = \"tid == 0\"\n") +
    op("op = \"bulk_load\"\ndst = 'S'\nsrc = 'A'\nbarrier = 'bar.sub[0]'\npred = \"tid == 0\"\n") +
    op("op = \"mbarrier_wait\"\nbarrier = 'bar.sub[0]'\nparity = 0\n") +
    op("op = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 'S.sub[tid, :]'\n");

TEST_CASE("async_model: the table's proxy facts") {
  using model::Access;
  // Generic writes before an async access of the same space need a fence; async after async,
  // generic after generic and an access of another space do not.
  CHECK(model::needs_proxy_fence(Access::generic_store, Access::bulk_load, model::shared));
  CHECK(model::needs_proxy_fence(Access::generic_store, Access::tensor_load, model::shared));
  CHECK(model::needs_proxy_fence(Access::cp_async, Access::bulk_store, model::shared));
  CHECK(model::needs_proxy_fence(Access::generic_store, Access::bulk_load, model::global));
  CHECK_FALSE(model::needs_proxy_fence(Access::bulk_load, Access::bulk_store, model::shared));
  CHECK_FALSE(model::needs_proxy_fence(Access::generic_store, Access::generic_load, model::shared));
  // A read before an async write needs none (a consumer's reads, then the producer's
  // refill, are ordered by the mbarrier alone); a generic store before a bulk store of the
  // same global bytes crosses proxies (write after write).
  CHECK_FALSE(model::needs_proxy_fence(Access::generic_load, Access::bulk_load, model::shared));
  CHECK(model::needs_proxy_fence(Access::generic_store, Access::bulk_store, model::global));
  CHECK_FALSE(model::needs_proxy_fence(Access::cp_async, Access::bulk_load, model::global));
  CHECK(model::fence_orders(tile::FenceSpace::shared_cta) == model::shared);
  CHECK(model::fence_orders(tile::FenceSpace::global) == model::global);
  CHECK(model::fence_orders(tile::FenceSpace::all) == model::both);
  CHECK(model::missing_fence_id(Access::bulk_store, model::shared) ==
        DiagId::check_proxy_fence_missing);
  CHECK(model::missing_fence_id(Access::tensor_load, model::shared) ==
        DiagId::check_proxy_fence_load);
  CHECK(model::missing_fence_id(Access::bulk_load, model::global) ==
        DiagId::check_proxy_fence_global);
  // A bulk wait completes for its own thread only; an mbarrier phase for its waiters.
  CHECK_FALSE(model::completes_for_others(Access::bulk_wait));
  CHECK_FALSE(model::completes_for_others(Access::bulk_store));
  CHECK(model::completes_for_others(Access::bulk_load));
  CHECK(model::completes_for_others(Access::cta_sync));
}

TEST_CASE("async_model: a fill before a load of its bytes needs a shared-space fence") {
  const auto none = run(head + fill_rows + sync + bulk_load);
  CHECK(found(none, DiagId::check_proxy_fence_load));
  CHECK_FALSE(found(none, DiagId::check_proxy_fence_missing));
  for (const std::string space : {"shared::cta", "all"}) {
    CAPTURE(space);
    const auto ok = run(head + fill_rows + fence(space) + sync + bulk_load);
    CHECK_MESSAGE(ok.problems.empty(), problems(ok));
    CHECK(ok.global.at("B") == ok.global.at("A"));
  }
  // A global fence orders nothing in shared memory; a fence before the fill orders nothing;
  // another thread's fence needs the cta_sync after it.
  CHECK(found(run(head + fill_rows + fence("global") + sync + bulk_load),
              DiagId::check_proxy_fence_load));
  CHECK(found(run(head + fence("shared::cta") + fill_rows + sync + bulk_load),
              DiagId::check_proxy_fence_load));
  CHECK(found(run(head + fill_rows + sync + fence("shared::cta") + bulk_load),
              DiagId::check_proxy_fence_load));
}

/// Every thread copies row tid of C into A (generic global writes), then the load reads A.
const std::string write_a = op("op = \"copy\"\ndst = 'A.sub[tid, :]'\nsrc = 'C.sub[tid, :]'\n");

TEST_CASE("async_model: generic global writes before a load of them need a global fence") {
  const auto none = run(head + write_a + sync + bulk_load);
  CHECK(found(none, DiagId::check_proxy_fence_global));
  CHECK(found(run(head + write_a + fence("shared::cta") + sync + bulk_load),
              DiagId::check_proxy_fence_global));
  // The fence must come after the write (the op right before it orders nothing).
  CHECK(found(run(head + fence("global") + write_a + sync + bulk_load),
              DiagId::check_proxy_fence_global));
  for (const std::string space : {"global", "all"}) {
    CAPTURE(space);
    const auto ok = run(head + write_a + fence(space) + sync + bulk_load);
    CHECK_MESSAGE(ok.problems.empty(), problems(ok));
    CHECK(ok.global.at("B") == ok.global.at("C"));
  }
}

/// Thread 0 stores S into B in one bulk group.
const std::string store_b = op("op = \"bulk_store\"\ndst = 'B'\nsrc = 'S'\npred = \"tid == 0\"\n") +
                            op("op = \"bulk_commit\"\n");

TEST_CASE("async_model: a generic write over bytes a pending bulk store writes is a race") {
  const std::string base = head + fill_rows + fence("shared::cta") + sync + store_b;
  const std::string own_row = op("op = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 'A.sub[tid, :]'\n");
  const std::string wait = op("op = \"bulk_wait\"\nn = 0\n");
  const std::string wait_read = op("op = \"bulk_wait\"\nn = 0\nread = true\n");
  CHECK(found(run(base + own_row + wait), DiagId::check_bulk_global_write_race));
  // Waiting for the reads only leaves the global write pending.
  CHECK(found(run(base + wait_read + own_row + wait), DiagId::check_bulk_global_write_race));
  const auto ok = run(base + wait + own_row);
  CHECK_FALSE(found(ok, DiagId::check_bulk_global_write_race));
}

} // namespace

} // namespace unit_reference_async_model
