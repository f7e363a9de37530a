// The `pipeline` op: the loader's parsing and tile::expand_pipeline's schedule.
//
// The schedule is checked by a small abstract machine written here, not by the
// reference or the simulator: one program for every thread, the shared stages
// as units (a load writes stage s for every thread, the consumer reads stage s
// of another thread, so a read needs the barrier after the wait). It runs the
// expanded ops for S = 2..8 stages and every trip count 0..12 and checks what
// a pipeline must guarantee: every tile is consumed once, in order, from a
// stage that holds it, completed and published by a barrier; no stage is
// refilled while a copy into it is pending or after a read in the same barrier
// phase; nothing is left in flight at the end.

#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/pipeline.hpp"

#include <array>
#include <deque>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_pipeline {

using namespace ptxgen;

namespace {

constexpr std::int64_t kTileBytes = 32 * 16; // one tile: 32 threads x 16 bytes

/// A pipeline of `stages` over k_tiles tiles (a parameter in [0, 64]), its
/// consumer reading the mirrored thread's chunk. `prefix_ops` go before it.
std::string spec(std::int64_t stages, std::int64_t k_tiles, const std::string& prefix_ops = "",
                 const std::string& suffix_ops = "") {
  return "[kernel]\nname = \"k\"\nblock = 32\n"
         "[param.k_tiles]\ndtype = \"u32\"\nvalue = " +
         std::to_string(k_tiles) +
         "\nrange = [0, 64]\n"
         "[tensor.A]\nspace = \"global\"\nshape = [64, 32, 16]\ndtype = \"uint8\"\n"
         "[tensor.B]\nspace = \"global\"\nshape = [64, 32, 16]\ndtype = \"uint8\"\noutput = true\n"
         "[tensor.ring]\nspace = \"shared\"\nshape = [" +
         std::to_string(stages) + ", 32, 16]\ndtype = \"uint8\"\n" + prefix_ops +
         "[[op]]\nop = \"pipeline\"\nvar = \"k\"\nstart = 0\nstop = \"k_tiles\"\nstages = " +
         std::to_string(stages) +
         "\n[[op.load]]\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 'ring.sub[stage, tid, :]'\nsrc = 'A.sub[k, tid, :]'\nchunk_bytes = 16\n"
         "[[op.body]]\nop = \"copy\"\ndst = 'B.sub[k, tid, :]'\n"
         "src = 'ring.sub[stage, 31 - tid, :]'\n" +
         suffix_ops;
}

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  auto r = driver::load_spec_text(text, "pipeline.toml");
  for (const auto& d : r.diagnostics.items())
    INFO(d.message);
  REQUIRE(r.value.has_value());
  return std::move(*r.value);
}

/// The abstract machine. Violations are collected as text for the failure message.
class Machine {
public:
  Machine(const tile::Kernel& k, std::int64_t stages) : k_(k) {
    env_ = k.env_for(0, 0);
    slots_.resize(static_cast<std::size_t>(stages));
  }

  void run() { run(0, k_.ops.size()); }

  std::vector<std::string> violations;
  std::vector<std::int64_t> consumed; ///< tiles, in consumption order
  std::size_t pending_copies() const {
    std::size_t n = open_.size();
    for (const auto& g : groups_)
      n += g.size();
    return n;
  }

private:
  struct Copy {
    std::int64_t stage;
    std::int64_t tile;
  };
  struct Slot {
    std::optional<std::int64_t> landed; ///< the tile completed into it
    bool published = false;             ///< landed before the last barrier
    bool read_in_phase = false;         ///< read since the last barrier
  };

  std::int64_t offset(const tile::View& v) {
    std::vector<std::int64_t> zeros(v.rank(), 0);
    auto o = v.byte_offset(zeros, env_);
    REQUIRE(o.has_value());
    return *o;
  }
  std::int64_t stage_of(const tile::View& v) { return offset(v) / kTileBytes; }
  std::int64_t tile_of(const tile::View& v) { return offset(v) / kTileBytes; }

  bool pending_into(std::int64_t stage) const {
    auto in = [stage](const std::vector<Copy>& g) {
      for (const Copy& c : g)
        if (c.stage == stage)
          return true;
      return false;
    };
    if (in(open_))
      return true;
    for (const auto& g : groups_)
      if (in(g))
        return true;
    return false;
  }

  void fail(const std::string& what) {
    std::string where;
    for (const auto& [name, value] : env_.loops)
      where += " " + name + "=" + std::to_string(value);
    violations.push_back(what + " at" + where);
  }

  void apply(const tile::ApplyOp& a) {
    if (a.pred) {
      auto p = tile::evaluate(*a.pred->value, env_);
      REQUIRE(p.has_value());
      if (*p == 0)
        return;
    }
    const Copy c{stage_of(a.dst.value), tile_of(a.src.value)};
    if (pending_into(c.stage))
      fail("two pending copies into stage " + std::to_string(c.stage));
    if (slots_[static_cast<std::size_t>(c.stage)].read_in_phase)
      fail("stage " + std::to_string(c.stage) + " refilled without a barrier after its read");
    open_.push_back(c);
  }

  void wait(std::int64_t n) {
    while (static_cast<std::int64_t>(groups_.size()) > n) {
      for (const Copy& c : groups_.front()) {
        Slot& s = slots_[static_cast<std::size_t>(c.stage)];
        s.landed = c.tile;
        s.published = false;
      }
      groups_.pop_front();
    }
  }

  void copy(const tile::CopyOp& c) {
    const std::int64_t stage = stage_of(c.src.value);
    const std::int64_t tile = tile_of(c.dst.value);
    Slot& s = slots_[static_cast<std::size_t>(stage)];
    if (pending_into(stage))
      fail("read of stage " + std::to_string(stage) + " with a copy into it pending");
    if (!s.landed || *s.landed != tile)
      fail("stage " + std::to_string(stage) + " does not hold tile " + std::to_string(tile));
    else if (!s.published)
      fail("stage " + std::to_string(stage) + " read before a barrier published it");
    s.read_in_phase = true;
    consumed.push_back(tile);
  }

  void run(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const tile::OpBody& b = k_.ops[i].body;
      if (const auto* f = std::get_if<tile::ForOp>(&b)) {
        const auto start = tile::evaluate(*f->start.value, env_);
        const auto stop = tile::evaluate(*f->stop.value, env_);
        const auto step = tile::evaluate(*f->step.value, env_);
        REQUIRE((start && stop && step && *step >= 1));
        for (std::int64_t v = *start; v < *stop; v += *step) {
          env_.loops[f->var.value] = v;
          run(i + 1, f->end);
        }
        env_.loops.erase(f->var.value);
        i = f->end;
      } else if (const auto* a = std::get_if<tile::ApplyOp>(&b)) {
        apply(*a);
      } else if (std::holds_alternative<tile::CommitGroupOp>(b)) {
        groups_.push_back(std::move(open_));
        open_.clear();
      } else if (const auto* w = std::get_if<tile::WaitGroupOp>(&b)) {
        wait(w->n);
      } else if (std::holds_alternative<tile::CtaSyncOp>(b)) {
        for (Slot& s : slots_) {
          s.published = s.landed.has_value();
          s.read_in_phase = false;
        }
      } else if (const auto* c = std::get_if<tile::CopyOp>(&b)) {
        copy(*c);
      } else {
        FAIL("an op the pipeline does not emit");
      }
    }
  }

  const tile::Kernel& k_;
  tile::ExprEnv env_;
  std::vector<Slot> slots_;
  std::vector<Copy> open_;               ///< copies since the last commit
  std::deque<std::vector<Copy>> groups_; ///< committed, not yet waited
};

/// The kinds of the ops, one letter each: a(pply) c(ommit) w(ait) s(ync) f(or) e(nd) y (cop)y.
std::string shape(const tile::Kernel& k) {
  std::string s;
  for (const auto& op : k.ops) {
    const tile::OpBody& b = op.body;
    if (std::holds_alternative<tile::ApplyOp>(b))
      s += 'a';
    else if (std::holds_alternative<tile::CommitGroupOp>(b))
      s += 'c';
    else if (const auto* w = std::get_if<tile::WaitGroupOp>(&b))
      s += "w" + std::to_string(w->n);
    else if (std::holds_alternative<tile::CtaSyncOp>(b))
      s += 's';
    else if (std::holds_alternative<tile::ForOp>(b))
      s += 'f';
    else if (std::holds_alternative<tile::EndOp>(b))
      s += 'e';
    else if (std::holds_alternative<tile::CopyOp>(b))
      s += 'y';
    else
      s += '?';
  }
  return s;
}

} // namespace

TEST_CASE("a pipeline's schedule is correct for 2..8 stages and every trip count 0..12") {
  for (std::int64_t stages = tile::kMinPipelineStages; stages <= tile::kMaxPipelineStages;
       ++stages) {
    for (std::int64_t k_tiles = 0; k_tiles <= 12; ++k_tiles) {
      CAPTURE(stages);
      CAPTURE(k_tiles);
      auto k = load(spec(stages, k_tiles));
      Machine m(*k, stages);
      m.run();
      std::string all;
      for (const auto& v : m.violations)
        all += v + "\n";
      CHECK_MESSAGE(m.violations.empty(), all);
      std::vector<std::int64_t> want;
      for (std::int64_t t = 0; t < k_tiles; ++t)
        want.push_back(t);
      CHECK(m.consumed == want);
      CHECK(m.pending_copies() == 0);
    }
  }
}

TEST_CASE("a 3-stage pipeline: two prologue loads, then wait_group 1, barrier, refill, consumer") {
  auto k = load(spec(3, 5));
  CHECK(shape(*k) == "acacfw1sacye");
  const auto& f = std::get<tile::ForOp>(k->ops[4].body);
  CHECK(f.end == 10);
  CHECK(std::get<tile::EndOp>(k->ops[10].body).begin == 4);
  CHECK(f.var.value == "k");
  // The refill is predicated on its tile existing; its index is clamped.
  const auto& refill = std::get<tile::ApplyOp>(k->ops[7].body);
  REQUIRE(refill.pred);
  CHECK(tile::print(*refill.pred->value) == "k + 2 < k_tiles");
  // The first prologue tile exists only when k_tiles >= 1: k_tiles's range starts at 0.
  CHECK(std::get<tile::ApplyOp>(k->ops[0].body).pred.has_value());
}

TEST_CASE("a prologue tile that provably exists needs no predicate") {
  std::string text = spec(3, 5);
  text.replace(text.find("range = [0, 64]"), 15, "range = [2, 64]");
  auto k = load(text);
  CHECK_FALSE(std::get<tile::ApplyOp>(k->ops[0].body).pred.has_value());
  CHECK_FALSE(std::get<tile::ApplyOp>(k->ops[2].body).pred.has_value());
  CHECK(std::get<tile::ApplyOp>(k->ops[7].body).pred.has_value()); // the refill
}

TEST_CASE("a barrier goes before the prologue only when the stages were used before") {
  const std::string fill =
      "[[op]]\nop = \"fill\"\ndst = 'ring.sub[:, tid, :]'\npattern = 0\n"; // touches the ring
  CHECK(shape(*load(spec(2, 4, fill))).substr(0, 3) == "?sa");             // fill, sync, load
  CHECK(shape(*load(spec(2, 4, fill + "[[op]]\nop = \"cta_sync\"\n"))).substr(0, 3) == "?sa");
  CHECK(shape(*load(spec(2, 4))).substr(0, 2) == "ac");
  // Inside a loop, the previous iteration's consumer read the stages.
  auto nested = load(spec(2, 4, "[[op]]\nop = \"for\"\nvar = \"m\"\nstart = 0\nstop = 2\n",
                          "[[op]]\nop = \"end\"\n"));
  CHECK(shape(*nested) == "fsacfw0sacyee");
  Machine m(*nested, 2);
  m.run();
  CHECK(m.violations.empty());
  CHECK(m.consumed == std::vector<std::int64_t>{0, 1, 2, 3, 0, 1, 2, 3});
}

} // namespace unit_tile_pipeline
