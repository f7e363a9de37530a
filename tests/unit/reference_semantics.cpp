// The CPU reference's semantics (driver/reference/reference): kernels are
// built by hand (views with steps only) and every expected byte is worked out
// by hand from the seed's rules.
#include "driver/reference/reference.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_semantics {

namespace {

namespace tile = ptxgen::tile;
using ptxgen::driver::evaluate_reference;
using ptxgen::driver::ReferenceInput;
using ptxgen::driver::ReferenceOutput;
using Bytes = std::vector<std::uint8_t>;

// Expression nodes come from the tile layer's plain constructors (no
// evaluation logic in them); the reference evaluates them its own way.
tile::ExprPtr leaf(tile::ExprKind k) {
  return tile::make_leaf(k);
}
tile::ExprPtr constant(std::int64_t v) {
  return tile::make_constant(v);
}
tile::ExprPtr binary(tile::ExprOp op, tile::ExprPtr a, tile::ExprPtr b) {
  return tile::make_binary(op, std::move(a), std::move(b));
}
tile::ExprPtr tid() {
  return leaf(tile::ExprKind::tid);
}

/// A kernel under construction.
struct Builder {
  tile::Kernel k;

  const tile::Tensor& add(std::string name, tile::Space space, std::vector<std::int64_t> shape,
                          tile::DType dt) {
    auto d = std::make_unique<tile::TensorDecl>();
    d->tensor.name = std::move(name);
    d->tensor.space = space;
    d->tensor.shape = std::move(shape);
    d->tensor.dtype = dt;
    k.tensors.push_back(std::move(d));
    return k.tensors.back()->tensor;
  }

  static tile::Located<tile::View> view(const tile::Tensor& t, std::vector<tile::ViewStep> steps,
                                        tile::DType dt, std::string text) {
    tile::View v;
    v.tensor = &t;
    v.dtype = dt;
    v.steps = std::move(steps);
    return {std::move(v), std::move(text), {}};
  }

  /// t.sub[index, :]
  static tile::Located<tile::View> row(const tile::Tensor& t, tile::ExprPtr index) {
    tile::SubEntry e;
    e.index = std::move(index);
    return view(t, {tile::SubStep{{e}}}, t.dtype, t.name + ".sub[..., :]");
  }

  void op(tile::OpBody body) { k.ops.push_back(tile::Op{std::move(body), {}}); }

  tile::ApplyOp& apply(tile::Located<tile::View> dst, tile::Located<tile::View> src,
                       std::int64_t chunk, tile::Scope scope = tile::Scope::thread) {
    tile::ApplyOp a;
    a.dst = std::move(dst);
    a.src = std::move(src);
    a.chunk_bytes.value = chunk;
    a.scope = scope;
    op(std::move(a));
    return std::get<tile::ApplyOp>(k.ops.back().body);
  }

  void fill(tile::Located<tile::View> dst, Bytes pattern) {
    op(tile::FillOp{std::move(dst), std::move(pattern)});
  }
  void copy(tile::Located<tile::View> dst, tile::Located<tile::View> src) {
    op(tile::CopyOp{std::move(dst), std::move(src)});
  }
};

tile::Located<tile::ExprPtr> located(tile::ExprPtr e, std::string text = "expr") {
  return {std::move(e), std::move(text), {}};
}

Bytes iota_bytes(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>((i * 7 + 3) % 251); // distinct-looking, never 0xAB at 0
  }
  return b;
}

bool has_problem(const ReferenceOutput& out, const std::string& needle) {
  return std::any_of(out.problems.begin(), out.problems.end(),
                     [&](const std::string& p) { return p.find(needle) != std::string::npos; });
}

std::string all_problems(const ReferenceOutput& out) {
  std::string s;
  for (const auto& p : out.problems) {
    s += p + "\n";
  }
  return s;
}

/// The common 32-thread, 16-byte-row setup: A (32,16) uint8 global, S shared, B global output;
/// each thread fills its shared row with 0xAB, then applies one chunk of its row.
struct RowKernel {
  Builder b;
  const tile::Tensor* A;
  const tile::Tensor* S;
  const tile::Tensor* B;
  RowKernel() {
    b.k.block = 32;
    A = &b.add("A", tile::Space::global, {32, 16}, tile::DType::uint8);
    S = &b.add("S", tile::Space::shared, {32, 16}, tile::DType::uint8);
    B = &b.add("B", tile::Space::global, {32, 16}, tile::DType::uint8);
    b.fill(Builder::row(*S, tid()), {0xAB});
  }
  tile::ApplyOp& apply() { return b.apply(Builder::row(*S, tid()), Builder::row(*A, tid()), 16); }
  void finish() {
    b.op(tile::CommitGroupOp{});
    b.op(tile::WaitGroupOp{0});
    b.op(tile::CtaSyncOp{});
    b.copy(Builder::row(*B, tid()), Builder::row(*S, tid()));
  }
  ReferenceOutput run(const Bytes& a) {
    ReferenceInput in;
    in.kernel = &b.k;
    in.global["A"] = a;
    in.global["B"] = Bytes(512, 0);
    return evaluate_reference(in);
  }
};

} // namespace

TEST_CASE("reference: the seed's complete kernel copies A to B") {
  Builder b;
  b.k.grid = 1;
  b.k.block = 128;
  const auto& A = b.add("A", tile::Space::global, {128, 32}, tile::DType::float16);
  const auto& B = b.add("B", tile::Space::global, {128, 32}, tile::DType::float16);
  const auto& S = b.add("shared", tile::Space::shared, {128, 32}, tile::DType::float16);
  const tile::RearrangeStep split{"(w t) (r v) -> w t r v", {{"w", 4}, {"t", 32}, {"v", 8}}};
  b.apply(Builder::view(S, {split}, tile::DType::float16, "dst"),
          Builder::view(A, {split}, tile::DType::float16, "src"), 16, tile::Scope::cta);
  b.op(tile::CommitGroupOp{});
  b.op(tile::WaitGroupOp{0});
  b.op(tile::CtaSyncOp{});
  b.copy(Builder::row(B, tid()), Builder::row(S, tid()));

  // arange % 97 as float16 bits, written out by hand for the values 0..96.
  Bytes a(128 * 32 * 2);
  for (std::size_t i = 0; i < 4096; ++i) {
    const unsigned v = static_cast<unsigned>(i % 97);
    unsigned bits = 0;
    if (v != 0) {
      unsigned e = 0;
      while ((2u << e) <= v) {
        ++e;
      }
      bits = ((e + 15) << 10) | (((v << 10) >> e) & 0x3FF);
    }
    a[2 * i] = static_cast<std::uint8_t>(bits);
    a[2 * i + 1] = static_cast<std::uint8_t>(bits >> 8);
  }
  CHECK(a[2] == 0x00);
  CHECK(a[3] == 0x3C); // 1.0
  ReferenceInput in;
  in.kernel = &b.k;
  in.global["A"] = a;
  in.global["B"] = Bytes(a.size(), 0);
  const ReferenceOutput out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(out.problems.empty());
  CHECK(out.global.at("B") == a);
  CHECK(out.global.at("A") == a);
  CHECK(out.defined.at("B").empty()); // empty: every byte defined
}

TEST_CASE("reference: a false guard keeps the sentinel") {
  RowKernel r;
  r.apply().pred = located(binary(tile::ExprOp::lt, tid(), constant(8)), "tid < 8");
  r.finish();
  const Bytes a = iota_bytes(512);
  const auto out = r.run(a);
  INFO(all_problems(out));
  CHECK(out.problems.empty());
  const Bytes& got = out.global.at("B");
  for (std::size_t row = 0; row < 32; ++row) {
    for (std::size_t j = 0; j < 16; ++j) {
      const std::uint8_t want = row < 8 ? a[row * 16 + j] : 0xAB;
      CHECK(got[row * 16 + j] == want);
    }
  }
}

TEST_CASE("reference: src_size copies a prefix and zeroes the rest") {
  RowKernel r;
  // tid < 4 ? 16 : 8
  auto sel = std::make_shared<tile::Expr>();
  sel->kind = tile::ExprKind::select;
  sel->args = {binary(tile::ExprOp::lt, tid(), constant(4)), constant(16), constant(8)};
  r.apply().src_size = located(sel, "tid < 4 ? 16 : 8");
  r.finish();
  const Bytes a = iota_bytes(512);
  const auto out = r.run(a);
  INFO(all_problems(out));
  CHECK(out.problems.empty());
  const Bytes& got = out.global.at("B");
  for (std::size_t row = 0; row < 32; ++row) {
    for (std::size_t j = 0; j < 16; ++j) {
      const std::uint8_t want = (row < 4 || j < 8) ? a[row * 16 + j] : 0;
      CHECK(got[row * 16 + j] == want);
    }
  }
}

TEST_CASE("reference: src_size 0 and ignore_src zero the whole chunk") {
  const Bytes a = iota_bytes(512);
  {
    RowKernel r;
    r.apply().src_size = located(constant(0), "0");
    r.finish();
    const auto out = r.run(a);
    CHECK(out.problems.empty());
    CHECK(out.global.at("B") == Bytes(512, 0));
  }
  {
    RowKernel r;
    // ignore_src = tid >= 16: rows 16.. are zeroed, rows 0..15 copied.
    r.apply().ignore_src = located(binary(tile::ExprOp::ge, tid(), constant(16)), "tid >= 16");
    r.finish();
    const auto out = r.run(a);
    CHECK(out.problems.empty());
    Bytes want = a;
    std::fill(want.begin() + 256, want.end(), 0);
    CHECK(out.global.at("B") == want);
  }
  {
    RowKernel r; // the sentinel survives without any apply: the zeros above are the copies'
    r.finish();
    const auto out = r.run(a);
    CHECK(out.global.at("B") == Bytes(512, 0xAB));
  }
}

TEST_CASE("reference: different element widths copy the same bytes") {
  Builder b;
  b.k.block = 32;
  const auto& A = b.add("A", tile::Space::global, {32, 8}, tile::DType::float16);
  const auto& S = b.add("S", tile::Space::shared, {32, 8}, tile::DType::float16);
  const auto& B = b.add("B", tile::Space::global, {32, 8}, tile::DType::float16);
  tile::SubEntry e;
  e.index = tid();
  // dst: S.sub[tid, :].view("uint32") (4 elements); src: A.sub[tid, :] (8 float16).
  b.apply(Builder::view(S, {tile::SubStep{{e}}, tile::ReinterpretStep{tile::DType::uint32}},
                        tile::DType::uint32, "S.sub[tid, :].view(\"uint32\")"),
          Builder::row(A, tid()), 16);
  b.op(tile::WaitAllOp{});
  b.op(tile::CtaSyncOp{});
  b.copy(Builder::row(B, tid()), Builder::row(S, tid()));
  ReferenceInput in;
  in.kernel = &b.k;
  const Bytes a = iota_bytes(512);
  in.global["A"] = a;
  in.global["B"] = Bytes(512, 0);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(out.problems.empty());
  CHECK(out.global.at("B") == a);
}

TEST_CASE("reference: reading before the wait, or without a barrier, is a problem") {
  const Bytes a = iota_bytes(512);
  {
    RowKernel r; // apply, commit, then read without waiting
    r.apply();
    r.b.op(tile::CommitGroupOp{});
    r.b.copy(Builder::row(*r.B, tid()), Builder::row(*r.S, tid()));
    r.b.op(tile::WaitAllOp{});
    const auto out = r.run(a);
    CHECK(has_problem(out, "pending"));
    CHECK(out.global.at("B") == Bytes(512, 0xAB)); // the copy had not happened yet
  }
  {
    RowKernel r; // wait, but read the next thread's row with no cta_sync
    r.apply();
    r.b.op(tile::WaitAllOp{});
    auto next =
        binary(tile::ExprOp::rem, binary(tile::ExprOp::add, tid(), constant(1)), constant(32));
    r.b.copy(Builder::row(*r.B, tid()), Builder::row(*r.S, next));
    const auto out = r.run(a);
    CHECK(has_problem(out, "no cta_sync"));
  }
  {
    RowKernel r; // the same with the barrier: B row t = A row t+1 (mod 32), no problem
    r.apply();
    r.b.op(tile::WaitAllOp{});
    r.b.op(tile::CtaSyncOp{});
    auto next =
        binary(tile::ExprOp::rem, binary(tile::ExprOp::add, tid(), constant(1)), constant(32));
    r.b.copy(Builder::row(*r.B, tid()), Builder::row(*r.S, next));
    const auto out = r.run(a);
    INFO(all_problems(out));
    CHECK(out.problems.empty());
    const Bytes& got = out.global.at("B");
    CHECK(std::equal(got.begin(), got.begin() + 496, a.begin() + 16));
    CHECK(std::equal(got.begin() + 496, got.end(), a.begin()));
  }
}

TEST_CASE("reference: wait_group n leaves the newest n groups pending") {
  Builder b;
  b.k.block = 32;
  const auto& A = b.add("A", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& S1 = b.add("S1", tile::Space::shared, {32, 16}, tile::DType::uint8);
  const auto& S2 = b.add("S2", tile::Space::shared, {32, 16}, tile::DType::uint8);
  const auto& B1 = b.add("B1", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& B2 = b.add("B2", tile::Space::global, {32, 16}, tile::DType::uint8);
  b.apply(Builder::row(S1, tid()), Builder::row(A, tid()), 16);
  b.op(tile::CommitGroupOp{});
  b.apply(Builder::row(S2, tid()), Builder::row(A, tid()), 16);
  b.op(tile::CommitGroupOp{});
  b.op(tile::WaitGroupOp{1});                               // performs group 0 (S1) only
  b.copy(Builder::row(B1, tid()), Builder::row(S1, tid())); // op 6: fine
  b.copy(Builder::row(B2, tid()), Builder::row(S2, tid())); // op 7: S2 still pending
  b.op(tile::WaitGroupOp{0});
  ReferenceInput in;
  in.kernel = &b.k;
  const Bytes a = iota_bytes(512);
  in.global["A"] = a;
  in.global["B1"] = Bytes(512, 1);
  in.global["B2"] = Bytes(512, 1);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(out.global.at("B1") == a);
  REQUIRE(out.problems.size() == 2);
  CHECK(out.problems[0].rfind("op 7 (copy): reads shared bytes that a pending", 0) == 0);
  CHECK(out.problems[1].rfind("op 7 (copy): uninitialised shared bytes reach a global", 0) == 0);
  // S2 was never written when B2 was copied: undefined bytes, marked so.
  CHECK(std::none_of(out.defined.at("B2").begin(), out.defined.at("B2").end(),
                     [](bool d) { return d; }));
  CHECK(out.defined.at("B1").empty()); // empty: every byte defined
}

/// The IDs of the findings, in order.
std::vector<ptxgen::DiagId> finding_ids(const ReferenceOutput& out) {
  std::vector<ptxgen::DiagId> ids;
  for (const auto& f : out.findings) {
    ids.push_back(f.id);
  }
  return ids;
}

TEST_CASE("reference: a wait with no commit_group before it is reported once, as the cause") {
  Builder b;
  b.k.block = 32;
  const auto& A = b.add("A", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& S = b.add("S", tile::Space::shared, {32, 16}, tile::DType::uint8);
  const auto& B = b.add("B", tile::Space::global, {32, 16}, tile::DType::uint8);
  b.apply(Builder::row(S, tid()), Builder::row(A, tid()), 16); // op 1, never committed
  b.op(tile::WaitGroupOp{0});                                  // op 2: covers no group
  b.op(tile::CtaSyncOp{});
  b.copy(Builder::row(B, tid()), Builder::row(S, tid())); // reads the pending bytes
  ReferenceInput in;
  in.kernel = &b.k;
  in.global["A"] = iota_bytes(512);
  in.global["B"] = Bytes(512, 1);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  // One finding, at the wait; not the pending read, the undefined bytes reaching B, nor the
  // copies pending at the end, which all follow from it.
  REQUIRE(finding_ids(out) == std::vector<ptxgen::DiagId>{ptxgen::DiagId::check_missing_commit});
  CHECK(out.findings[0].op == 1);
  CHECK(out.findings[0].message.find("op 1 (apply") != std::string::npos);
  CHECK(out.findings[0].message.find("(") != 0);
  CHECK(out.findings[0].message.find("times in all") == std::string::npos);
  REQUIRE(out.problems.size() == 1);
  CHECK(out.problems[0].rfind("op 2 (wait_group): no commit_group before this wait", 0) == 0);
}

TEST_CASE("reference: a wait without a commit and nothing read afterwards is still the cause") {
  Builder b;
  b.k.block = 32;
  const auto& A = b.add("A", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& S = b.add("S", tile::Space::shared, {32, 16}, tile::DType::uint8);
  b.apply(Builder::row(S, tid()), Builder::row(A, tid()), 16);
  b.op(tile::WaitGroupOp{0}); // the copies stay pending to the end of the kernel
  ReferenceInput in;
  in.kernel = &b.k;
  in.global["A"] = iota_bytes(512);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(finding_ids(out) == std::vector<ptxgen::DiagId>{ptxgen::DiagId::check_missing_commit});
}

TEST_CASE("reference: copies issued after a commit and waited for later are no problem") {
  // Pipelining: tile 2 is issued before the wait for tile 1 and committed after it. The first
  // wait passes over tile 2 (uncommitted), which is fine: nothing reads it before the second.
  Builder b;
  b.k.block = 32;
  const auto& A = b.add("A", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& S1 = b.add("S1", tile::Space::shared, {32, 16}, tile::DType::uint8);
  const auto& S2 = b.add("S2", tile::Space::shared, {32, 16}, tile::DType::uint8);
  const auto& B1 = b.add("B1", tile::Space::global, {32, 16}, tile::DType::uint8);
  const auto& B2 = b.add("B2", tile::Space::global, {32, 16}, tile::DType::uint8);
  b.apply(Builder::row(S1, tid()), Builder::row(A, tid()), 16);
  b.op(tile::CommitGroupOp{});
  b.apply(Builder::row(S2, tid()), Builder::row(A, tid()), 16);
  b.op(tile::WaitGroupOp{0});
  b.copy(Builder::row(B1, tid()), Builder::row(S1, tid()));
  b.op(tile::CommitGroupOp{});
  b.op(tile::WaitGroupOp{0});
  b.copy(Builder::row(B2, tid()), Builder::row(S2, tid()));
  ReferenceInput in;
  in.kernel = &b.k;
  const Bytes a = iota_bytes(512);
  in.global["A"] = a;
  in.global["B1"] = Bytes(512, 1);
  in.global["B2"] = Bytes(512, 1);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(out.findings.empty());
  CHECK(out.problems.empty());
  CHECK(out.global.at("B1") == a);
  CHECK(out.global.at("B2") == a);
}

TEST_CASE("reference: findings carry the ID of their kind, one per problem line") {
  RowKernel r;
  r.b.apply(Builder::row(*r.S, tid()),
            Builder::row(*r.A, binary(tile::ExprOp::add, tid(), constant(1))), 16);
  r.finish();
  const auto out = r.run(iota_bytes(512));
  REQUIRE(out.findings.size() == out.problems.size());
  CHECK(finding_ids(out) == std::vector<ptxgen::DiagId>{ptxgen::DiagId::check_out_of_bounds});
}

TEST_CASE("reference: bytes outside a tensor are reported and not written") {
  RowKernel r;
  // src A.sub[tid + 1, :]: thread 31 reads row 32 of a 32-row tensor.
  r.b.apply(Builder::row(*r.S, tid()),
            Builder::row(*r.A, binary(tile::ExprOp::add, tid(), constant(1))), 16);
  r.finish();
  const Bytes a = iota_bytes(512);
  const auto out = r.run(a);
  REQUIRE(out.problems.size() == 1);
  CHECK(out.problems[0].find("outside the tensor") != std::string::npos);
  CHECK(out.problems[0].find("thread 31") != std::string::npos);
  const Bytes& got = out.global.at("B");
  CHECK(std::equal(got.begin(), got.begin() + 496, a.begin() + 16));
  CHECK(std::all_of(got.begin() + 496, got.end(), [](std::uint8_t x) { return x == 0xAB; }));
}

TEST_CASE("reference: CTA-scope group axes and several CTAs") {
  // grid 2, block 64: each CTA copies row bid of A (2, 64*4) uint32 through a (2,32,4) b32-view
  // chunk of 4 bytes per thread ((warp, lane, element) with one uint32 element).
  Builder b;
  b.k.grid = 2;
  b.k.block = 64;
  const auto& A = b.add("A", tile::Space::global, {2, 64}, tile::DType::uint32);
  const auto& S = b.add("S", tile::Space::shared, {64}, tile::DType::uint32);
  const auto& B = b.add("B", tile::Space::global, {2, 64}, tile::DType::uint32);
  tile::SubEntry bid;
  bid.index = leaf(tile::ExprKind::bid);
  b.apply(Builder::view(S, {tile::RearrangeStep{"(w l x) -> w l x", {{"w", 2}, {"l", 32}}}},
                        tile::DType::uint32, "S"),
          Builder::view(A,
                        {tile::SubStep{{bid}},
                         tile::RearrangeStep{"(w l x) -> w l x", {{"w", 2}, {"l", 32}}}},
                        tile::DType::uint32, "A.sub[bid]"),
          4, tile::Scope::cta);
  b.op(tile::WaitAllOp{});
  b.op(tile::CtaSyncOp{});
  // B[bid, tid] = S[63 - tid]: another thread's element, read after the barrier.
  tile::SubEntry rev;
  rev.index = binary(tile::ExprOp::sub, constant(63), tid());
  tile::SubEntry t;
  t.index = tid();
  b.copy(Builder::view(B, {tile::SubStep{{bid, t}}}, tile::DType::uint32, "B"),
         Builder::view(S, {tile::SubStep{{rev}}}, tile::DType::uint32, "S"));
  ReferenceInput in;
  in.kernel = &b.k;
  const Bytes a = iota_bytes(512);
  in.global["A"] = a;
  in.global["B"] = Bytes(512, 0);
  const auto out = evaluate_reference(in);
  INFO(all_problems(out));
  CHECK(out.problems.empty());
  const Bytes& got = out.global.at("B");
  for (std::size_t cta = 0; cta < 2; ++cta) {
    for (std::size_t i = 0; i < 64; ++i) {
      for (std::size_t byte = 0; byte < 4; ++byte) {
        CHECK(got[cta * 256 + (63 - i) * 4 + byte] == a[cta * 256 + i * 4 + byte]);
      }
    }
  }
}

} // namespace unit_reference_semantics
