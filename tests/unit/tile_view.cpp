// Views: the affine form (axes, offset, runtime terms) checked over the whole
// domain against a naive replay of the steps, plus parse errors with positions.
//
// The naive evaluator below never looks at strides: it maps a coordinate of the
// view after each step to a coordinate of the view before it (split merged axes
// by mixed radix, regroup, insert .sub indices, turn a dtype view into bytes)
// down to the tensor, whose row-major flat index times the element size is the
// byte offset.
#include "emitter/tile/view.hpp"

#include <cctype>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_view {

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

using Coords = std::vector<std::int64_t>;

// ---- a naive, independent reading of the pattern ----

struct NaivePattern {
  std::vector<std::vector<std::string>> lhs, rhs;
};

std::vector<std::vector<std::string>> naive_side(const std::string& s) {
  std::vector<std::vector<std::string>> groups;
  std::vector<std::string>* open = nullptr;
  std::string word;
  auto flush = [&] {
    if (word.empty())
      return;
    if (open)
      open->push_back(word);
    else
      groups.push_back({word});
    word.clear();
  };
  for (char c : s) {
    if (c == '(') {
      flush();
      groups.emplace_back();
      open = &groups.back();
    } else if (c == ')') {
      flush();
      open = nullptr;
    } else if (c == ' ') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return groups;
}

NaivePattern naive_pattern(const std::string& p) {
  auto arrow = p.find("->");
  return {naive_side(p.substr(0, arrow)), naive_side(p.substr(arrow + 2))};
}

// The size of every name of a rearrange applied to `shape`.
std::map<std::string, std::int64_t> naive_sizes(const RearrangeStep& s, const Coords& shape) {
  NaivePattern p = naive_pattern(s.pattern);
  std::map<std::string, std::int64_t> sizes;
  for (std::size_t i = 0; i < p.lhs.size(); ++i) {
    std::int64_t known = 1;
    std::string unknown;
    for (const auto& n : p.lhs[i]) {
      if (s.sizes.count(n)) {
        sizes[n] = s.sizes.at(n);
        known *= s.sizes.at(n);
      } else {
        unknown = n;
      }
    }
    if (!unknown.empty())
      sizes[unknown] = shape[i] / known;
  }
  return sizes;
}

struct Stage {
  Coords shape;
  unsigned elem = 1; ///< element size in bytes
};

// The shape and element size before and after every step.
std::vector<Stage> naive_stages(const Tensor& t, const std::vector<ViewStep>& steps) {
  std::vector<Stage> st{{t.shape, size_bytes(t.dtype)}};
  for (const auto& step : steps) {
    Stage prev = st.back(), next = prev;
    if (const auto* r = std::get_if<RearrangeStep>(&step)) {
      auto sizes = naive_sizes(*r, prev.shape);
      next.shape.clear();
      for (const auto& g : naive_pattern(r->pattern).rhs) {
        std::int64_t n = 1;
        for (const auto& name : g)
          n *= sizes[name];
        next.shape.push_back(n);
      }
    } else if (const auto* s = std::get_if<SubStep>(&step)) {
      next.shape.clear();
      for (std::size_t i = 0; i < prev.shape.size(); ++i) {
        if (i >= s->entries.size())
          next.shape.push_back(prev.shape[i]);
        else if (s->entries[i].is_slice)
          next.shape.push_back(s->entries[i].end - s->entries[i].begin);
      }
    } else {
      const auto& re = std::get<ReinterpretStep>(step);
      next.elem = size_bytes(re.dtype);
      next.shape.back() = prev.shape.back() * prev.elem / next.elem;
    }
    st.push_back(next);
  }
  return st;
}

// Byte offset of `c` in the view after `k` steps; nullopt when a runtime .sub
// index is outside its axis for this thread (the contract checker rejects those).
std::optional<std::int64_t> naive_offset(const Tensor& t, const std::vector<ViewStep>& steps,
                                         const std::vector<Stage>& st, std::size_t k,
                                         const Coords& c, const ExprEnv& env) {
  if (k == 0) {
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      flat = flat * t.shape[i] + c[i];
    return flat * size_bytes(t.dtype);
  }
  const ViewStep& step = steps[k - 1];
  const Coords& prev_shape = st[k - 1].shape;
  Coords prev;
  if (const auto* r = std::get_if<RearrangeStep>(&step)) {
    auto sizes = naive_sizes(*r, prev_shape);
    NaivePattern p = naive_pattern(r->pattern);
    std::map<std::string, std::int64_t> value;
    for (std::size_t j = 0; j < p.rhs.size(); ++j) {
      std::int64_t x = c[j];
      for (auto it = p.rhs[j].rbegin(); it != p.rhs[j].rend(); ++it) {
        value[*it] = x % sizes[*it];
        x /= sizes[*it];
      }
    }
    for (const auto& g : p.lhs) {
      std::int64_t x = 0;
      for (const auto& name : g)
        x = x * sizes[name] + value[name];
      prev.push_back(x);
    }
  } else if (const auto* s = std::get_if<SubStep>(&step)) {
    std::size_t next = 0;
    for (std::size_t i = 0; i < prev_shape.size(); ++i) {
      if (i >= s->entries.size())
        prev.push_back(c[next++]);
      else if (s->entries[i].is_slice)
        prev.push_back(s->entries[i].begin + c[next++]);
      else {
        auto x = evaluate(*s->entries[i].index, env);
        if (!x || *x < 0 || *x >= prev_shape[i])
          return std::nullopt;
        prev.push_back(*x);
      }
    }
  } else {
    unsigned old_elem = st[k - 1].elem, new_elem = st[k].elem;
    prev = c;
    std::int64_t byte = c.back() * new_elem;
    prev.back() = byte / old_elem;
    auto base = naive_offset(t, steps, st, k - 1, prev, env);
    if (!base)
      return std::nullopt;
    return *base + byte % old_elem;
  }
  return naive_offset(t, steps, st, k - 1, prev, env);
}

struct Fixture {
  Tensor A{"A", Space::global, {128, 32}, DType::float16};
  Tensor shared{"shared", Space::shared, {128, 32}, DType::float16, 128};
  Tensor B3{"B3", Space::global, {4, 6, 8}, DType::uint8};
  Tensor S16{"S16", Space::shared, {128, 16}, DType::uint8, 128};
  Tensor F32{"F32", Space::global, {8, 12}, DType::float32};
  Tensor U64{"U64", Space::global, {6, 2}, DType::uint64};

  const Tensor* find(std::string_view n) const {
    for (const Tensor* t : {&A, &shared, &B3, &S16, &F32, &U64})
      if (t->name == n)
        return t;
    return nullptr;
  }

  Result<View> parse(std::string_view text) const {
    return parse_view(
        text, [this](std::string_view n) { return find(n); },
        [](std::string_view n) { return n == "n" || n == "valid_rows"; });
  }

  View ok(std::string_view text) const {
    auto r = parse(text);
    INFO(text, " -> ", r.diagnostics.format_all());
    REQUIRE(r.value.has_value());
    return *r;
  }

  Diagnostic err(std::string_view text) const {
    auto r = parse(text);
    INFO(text);
    REQUIRE_FALSE(r.value.has_value());
    REQUIRE(r.diagnostics.items().size() == 1);
    return r.diagnostics.items()[0];
  }
};

// Every coordinate of v, for a few threads, against the naive replay. Returns
// how many points were compared.
std::int64_t check_whole_domain(const View& v) {
  REQUIRE(v.tensor != nullptr);
  auto st = naive_stages(*v.tensor, v.steps);
  CHECK(v.shape() == st.back().shape);
  CHECK(size_bytes(v.dtype) == st.back().elem);
  std::int64_t points = 0;
  for (std::int64_t tid : {0, 1, 5, 31, 33, 127}) {
    ExprEnv env;
    env.tid = tid;
    env.bid = tid % 3;
    env.params["n"] = 2;
    env.params["valid_rows"] = 100;
    Coords c(v.rank(), 0);
    const Coords shape = v.shape();
    bool empty = false;
    for (auto s : shape)
      empty = empty || s <= 0;
    if (empty)
      continue;
    while (true) {
      auto got = v.byte_offset(c, env);
      auto want = naive_offset(*v.tensor, v.steps, st, v.steps.size(), c, env);
      if (!want)
        break; // this thread's runtime index is out of range: not a valid thread for the view
      if (!got || *got != *want) {
        std::string cs;
        for (auto x : c)
          cs += std::to_string(x) + ",";
        FAIL_CHECK(v.str() << " at (" << cs << ") tid=" << tid << ": byte_offset "
                           << (got ? std::to_string(*got) : "nullopt") << ", naive " << *want);
        return points;
      }
      ++points;
      // Odometer increment, last axis fastest.
      std::size_t i = c.size();
      while (i > 0) {
        if (++c[i - 1] < shape[i - 1])
          break;
        c[i - 1] = 0;
        --i;
      }
      if (i == 0)
        break;
    }
    if (v.terms.empty())
      break; // the same for every thread
  }
  return points;
}

std::size_t col(std::string_view text, std::string_view needle, std::size_t from = 0) {
  auto p = text.find(needle, from);
  REQUIRE(p != std::string_view::npos);
  return p + 1;
}

} // namespace

TEST_CASE("whole tensors have row-major byte strides") {
  Fixture f;
  CHECK(whole(f.A).str() == "A(128,32):(64,2)+0");
  CHECK(whole(f.B3).str() == "B3(4,6,8):(48,8,1)+0");
  CHECK(whole(f.F32).str() == "F32(8,12):(48,4)+0");
  CHECK(whole(f.A).dtype == DType::float16);
  CHECK(whole(f.A).steps.empty());
}

TEST_CASE("the seed's view: (w t) (r v) -> w t r v over a (128,32) float16 tensor") {
  Fixture f;
  View v = f.ok("A.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)");
  // Row stride 64 bytes: t steps one row, w 32 rows; v one half, r eight halves.
  CHECK(v.str() == "A(4,32,4,8):(2048,64,16,2)+0");
  CHECK(v.axes[0].name == "w");
  CHECK(v.axes[3].name == "v");
  // (w,t,r,v) is A[32w+t, 8r+v].
  for (std::int64_t w = 0; w < 4; ++w)
    for (std::int64_t t = 0; t < 32; t += 7)
      for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t x = 0; x < 8; x += 3) {
          Coords c{w, t, r, x};
          CHECK(v.byte_offset(c, {}) == ((32 * w + t) * 32 + 8 * r + x) * 2);
        }
  CHECK(check_whole_domain(v) == 4096);
  View s = f.ok("shared.rearrange('(w t) (r v) -> w t r v', w=4, t=32, v=8)");
  CHECK(s.str() == "shared(4,32,4,8):(2048,64,16,2)+0");
}

TEST_CASE("shared.sub[tid, :] is one row per thread") {
  Fixture f;
  View v = f.ok("shared.sub[tid, :]");
  CHECK(v.str() == "shared(32):(2)+0 + (tid)*64");
  ExprEnv env;
  env.tid = 5;
  Coords c{3};
  CHECK(v.byte_offset(c, env) == (5 * 32 + 3) * 2);
  CHECK(check_whole_domain(v) > 0);
  CHECK(f.ok("S16.sub[tid, :]").str() == "S16(16):(1)+0 + (tid)*16");
  CHECK(f.ok("S16.sub[tid]").str() == "S16(16):(1)+0 + (tid)*16");
}

TEST_CASE("dtype views: 8 halves become 4 words") {
  Fixture f;
  View v = f.ok("A.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8).view(\"uint32\")");
  CHECK(v.str() == "A(4,32,4,4):(2048,64,16,4)+0");
  CHECK(v.dtype == DType::uint32);
  CHECK(check_whole_domain(v) == 2048);
  CHECK(f.ok("A.view('b32')").str() == "A(128,16):(64,4)+0");
  CHECK(f.ok("F32.view('u8')").str() == "F32(8,48):(48,1)+0");
  CHECK(f.ok("U64.view('f16')").str() == "U64(6,8):(16,2)+0");
}

TEST_CASE("the affine form agrees with the naive replay over the whole domain") {
  Fixture f;
  const char* views[] = {
      "A",
      "B3",
      "A.rearrange('a b -> b a')",
      "B3.rearrange('a b c -> c a b')",
      "B3.rearrange('a b c -> c (a b)')",
      "B3.rearrange('a b c -> (a b c)')",
      "B3.rearrange('a (b1 b2) c -> b2 a b1 c', b2=3)",
      "A.rearrange('(w t) (r v) -> (r v) (w t)', w=4, v=8)",
      "A.rearrange('(w t) (r v) -> w (t r) v', w=4, v=8)",
      "A.rearrange('(w t) (r v) -> w t r v', w=4, v=8).rearrange('w t r v -> (w t) (r v)')",
      "A.rearrange('(w t) c -> w t c', w=4).sub[warp, lane]",
      "A.rearrange('(w t) c -> w t c', w=4).sub[1, 2:9]",
      "A.sub[3:7, 8:16]",
      "A.sub[3:7, 8:16].view('u8')",
      "A.sub[:, 8:]",
      "A.sub[:4, :4]",
      "A.sub[bid, :].rearrange('(r v) -> r v', v=8)",
      "A.sub[tid < 64 ? tid : 127 - tid, 0:8]",
      "A.sub[(tid + n) % 128, :].view('uint32')",
      "B3.sub[1].rearrange('a b -> b a')",
      "B3.sub[:, 2:5, tid % 4]",
      "B3.sub[2, 1 + 2, 5]",
      "B3.view('b16').rearrange('a b (c d) -> (a b) d c', d=2)",
      "F32.view('u8').rearrange('r (c b) -> c r b', b=4)",
      "F32.rearrange('a (b c) -> (a b) c', c=4).view('u16')",
      "U64.rearrange('a b -> b a').sub[1]",
      "U64.view('u32').sub[tid % 6, 1:3]",
      "  A . sub [ tid , : ] . view ( \"u32\" )  ",
  };
  for (const char* text : views) {
    INFO(text);
    View v = f.ok(text);
    CHECK(check_whole_domain(v) > 0);
  }
}

TEST_CASE("apply_step builds the same view as parse_view") {
  Fixture f;
  RearrangeStep r;
  r.pattern = "(w t) (r v) -> w t r v";
  r.sizes = {{"w", 4}, {"t", 32}, {"v", 8}};
  auto v = apply_step(whole(f.A), r);
  REQUIRE(v.value.has_value());
  CHECK(v->str() == "A(4,32,4,8):(2048,64,16,2)+0");
  SubStep s;
  SubEntry e;
  e.index = make_leaf(ExprKind::tid);
  s.entries.push_back(e);
  auto w = apply_step(*v, s);
  REQUIRE(w.value.has_value());
  CHECK(w->str() == "A(32,4,8):(64,16,2)+0 + (tid)*2048");
  CHECK(check_whole_domain(*w) > 0);
  auto x = apply_step(*w, ReinterpretStep{DType::uint32});
  REQUIRE(x.value.has_value());
  CHECK(x->str() == "A(32,4,4):(64,16,4)+0 + (tid)*2048");
  CHECK(x->steps.size() == 3);
}

TEST_CASE("size-one axes merge whatever their stride") {
  Fixture f;
  View v = f.ok("A.rearrange('(a b) (c d) -> (b c) (a d)', a=128, c=1)");
  CHECK(v.str() == "A(1,4096):(64,2)+0"); // the size-1 axis keeps c's stride
  CHECK(check_whole_domain(v) == 4096);
}

TEST_CASE("rearrange errors point into the pattern") {
  Fixture f;
  {
    std::string t = "A.rearrange(\"(w t) (r v) -> w t r x\", w=4, v=8)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "x\""));
    CHECK(d.message.find("unknown axis 'x'") != std::string::npos);
  }
  {
    std::string t = "A.rearrange(\"(w t) (r v) -> w t r\", w=4, v=8)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "v)"));
    CHECK(d.message.find("'v' is on the left side only") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('(w t) (r w) -> w t r', w=4)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "w) ->"));
    CHECK(d.message.find("'w' is repeated") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a b -> b a a')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "a')"));
    CHECK(d.message.find("repeated on the right") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a b c -> a b c')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "a b c"));
    CHECK(d.length == 5);
    CHECK(d.message == "the pattern has 3 input groups; the view has 2 axes");
  }
  {
    std::string t = "A.rearrange('a (r v) -> a r v', v=5)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "(r v)"));
    CHECK(d.length == 5);
    CHECK(d.message == "axis of size 32 cannot be split into (r v) with v=5");
  }
  {
    std::string t = "A.rearrange('a (r v) -> a r v', r=4, v=4)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "(r v)"));
    CHECK(d.message.find("product is 16") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a (r v) -> a r v')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "(r v)"));
    CHECK(d.message.find("cannot infer more than one size") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('(w t) c -> (t w) c', w=4)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "(t w)"));
    CHECK(d.length == 5);
    // t: stride 64; w: size 4, stride 2048 -> w spans 8192 bytes.
    CHECK(d.message.find("'t' has stride 64 bytes") != std::string::npos);
    CHECK(d.message.find("'w' (size 4, stride 2048 bytes)") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a b -> (b a)')";
    auto d = f.err(t);
    CHECK(d.message.find("cannot merge (b a)") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a b -> b a', x=3)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "x=3"));
    CHECK(d.message == "size given for 'x', which the pattern does not name");
  }
  {
    std::string t = "A.rearrange('a b -> b a', a=0)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "a=0"));
  }
  {
    std::string t = "A.rearrange('a b -> b a', a=128, a=128)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "a=128", col(t, "a=128")));
  }
  {
    std::string t = "A.rearrange('a b c', a=128)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "a b c"));
    CHECK(d.message.find("expected '->'") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a ((b) c) -> a b c')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "(b)"));
  }
  {
    std::string t = "A.rearrange('a () -> a')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "()"));
  }
  {
    std::string t = "A.rearrange('a b -> a b -> a b')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "->", col(t, "->")));
  }
  {
    std::string t = "A.rearrange('a b -> a b'";
    auto d = f.err(t);
    CHECK(d.column == t.size() + 1);
  }
  {
    std::string t = "A.rearrange('a b -> a b)";
    auto d = f.err(t);
    CHECK(d.column == col(t, "'"));
    CHECK(d.message.find("unterminated string") != std::string::npos);
  }
  // apply_step without the view text reports positions inside the pattern.
  RearrangeStep r;
  r.pattern = "a b -> b c";
  auto bad = apply_step(whole(f.A), r);
  REQUIRE_FALSE(bad.value.has_value());
  CHECK(bad.diagnostics.items()[0].column == 10);
  CHECK(bad.diagnostics.items()[0].source_line == "a b -> b c");
}

TEST_CASE("sub errors point at the entry") {
  Fixture f;
  {
    std::string t = "A.sub[1, 2, 3]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "3"));
    CHECK(d.message.find("too many entries") != std::string::npos);
  }
  {
    std::string t = "A.sub[:, 30:40]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "30:40"));
    CHECK(d.length == 5);
    CHECK(d.message.find("slice 30:40 is out of range for axis 1 of size 32") != std::string::npos);
  }
  {
    std::string t = "A.sub[128]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "128"));
    CHECK(d.message == "index 128 is out of range for axis 0 of size 128");
  }
  {
    std::string t = "A.sub[-1]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "-1"));
  }
  {
    std::string t = "A.sub[5:5]";
    CHECK(f.err(t).column == col(t, "5:5"));
  }
  {
    std::string t = "A.sub[tid + foo, :]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "foo"));
    CHECK(d.message.find("unknown name 'foo'") != std::string::npos);
    CHECK(d.source_line == t);
  }
  {
    std::string t = "A.sub[0:tid]";
    auto d = f.err(t);
    CHECK(d.column == col(t, "tid"));
    CHECK(d.message.find("constants") != std::string::npos);
  }
  {
    std::string t = "A.sub[1, ]";
    CHECK(f.err(t).column == col(t, "]"));
  }
  {
    std::string t = "A.sub[1, 2";
    CHECK(f.err(t).column == col(t, "["));
  }
  // Runtime indices are not bounds-checked here (the contract checker does that).
  CHECK(f.ok("A.sub[tid + 1000]").str() == "A(32):(2)+0 + (tid + 1000)*64");
  // A ternary's ':' is not a slice.
  CHECK(f.ok("A.sub[tid < 4 ? 1 : 2, 3:5]").str() == "A(2):(2)+6 + (tid < 4 ? 1 : 2)*64");
  CHECK(f.ok("A.sub[7, 1]").str() == "A():()+450");
}

TEST_CASE("dtype view errors say why") {
  Fixture f;
  {
    std::string t = "A.sub[:, 0:3].view(\"uint32\")";
    auto d = f.err(t);
    CHECK(d.column == col(t, "uint32"));
    CHECK(d.message.find("6 bytes") != std::string::npos);
  }
  {
    std::string t = "A.rearrange('a b -> b a').view('uint32')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "uint32"));
    CHECK(d.message.find("not contiguous") != std::string::npos);
  }
  {
    std::string t = "A.view('u33')";
    auto d = f.err(t);
    CHECK(d.column == col(t, "u33"));
    CHECK(d.message.find("unknown element type 'u33'") != std::string::npos);
  }
  {
    std::string t = "A.sub[1, 2].view('u8')";
    CHECK(f.err(t).message.find("scalar") != std::string::npos);
  }
}

TEST_CASE("view syntax errors") {
  Fixture f;
  CHECK(f.err("Z.sub[1]").column == 1);
  CHECK(f.err("Z.sub[1]").message == "unknown tensor 'Z'");
  {
    std::string t = "A.foo(1)";
    auto d = f.err(t);
    CHECK(d.column == 3);
    CHECK(d.message.find("unknown method 'foo'") != std::string::npos);
  }
  CHECK(f.err("A sub").column == 3);
  CHECK(f.err("").message.find("expected a tensor name") != std::string::npos);
  {
    std::string t = "A.rearrange('a b -> b a', w)";
    CHECK(f.err(t).column == col(t, ")"));
  }
  {
    std::string t = "A.rearrange('a b -> b a', a=x)";
    CHECK(f.err(t).column == col(t, "x"));
  }
  CHECK(f.ok("A.rearrange('a b -> b a', a=0x80,)").str() == "A(32,128):(2,64)+0");
}

} // namespace unit_tile_view
