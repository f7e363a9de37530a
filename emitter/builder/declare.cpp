// The builder's core and its declaration rules: names, the launch, the ABI order,
// parameters and tensors.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/name_chars.hpp"
#include "emitter/tile/well_formed.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::build {

namespace {

/// "KEY must be in LO..HI UNIT; got V" when v is outside lo..hi; nullopt inside.
std::optional<std::string> outside(std::string_view key, std::int64_t v, std::int64_t lo,
                                   std::int64_t hi, std::string_view unit) {
  if (v >= lo && v <= hi)
    return std::nullopt;
  return std::string(key) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
         std::string(unit) + "; got " + std::to_string(v);
}

constexpr std::array<std::string_view, 12> kReserved = {"tid",    "warp", "lane", "bid",
                                                        "ntid",   "nbid", "T",    "if_then_else",
                                                        "uint32", "min",  "max",  "clamp"};

std::string quoted_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + quoted(names[i]);
  return out;
}

} // namespace

std::span<const std::string_view> reserved_names() {
  return kReserved;
}

Diagnostic Text::place(Diagnostic d) const {
  if (exact && d.line <= 1)
    return rebase(std::move(d), pos.file, pos.line, pos.column, pos.source_line);
  d.file = pos.file;
  d.line = pos.line;
  d.column = pos.column;
  d.length = length;
  d.source_line = pos.source_line;
  return d;
}

Text Text::piece(std::size_t offset, std::string_view s) const {
  Text t{std::string(s), pos, exact, length};
  if (exact)
    t.pos.column += static_cast<std::uint32_t>(offset);
  return t;
}

At Text::at(std::size_t offset, std::size_t n) const {
  if (!exact)
    return At{pos, length};
  At a{pos, static_cast<std::uint32_t>(std::max<std::size_t>(n, 1))};
  a.pos.column += static_cast<std::uint32_t>(offset);
  return a;
}

Builder::Builder(std::string file) : kernel_(std::make_unique<tile::Kernel>()) {
  kernel_->file = std::move(file);
}
Builder::Builder(Builder&&) noexcept = default;
Builder& Builder::operator=(Builder&&) noexcept = default;
Builder::~Builder() = default;

void Builder::error(DiagId id, const At& at, std::string message) {
  diags_.add(tile::diagnostic_at(id, at.pos, std::move(message), at.length));
}

void Builder::error_in(DiagId id, const Text& at, std::size_t offset, std::size_t length,
                       std::string message) {
  diags_.add(at.place(ptxgen::error_at(id, at.text, offset, length, std::move(message))));
}

// ---------------------------------------------------------------- names and launch

bool Builder::identifier(std::string_view name, std::string_view what, const At& at) {
  if (is_name(name))
    return true;
  error(DiagId::spec_bad_name, at,
        std::string(what) + " name " + quoted(name) +
            " is not an identifier (letters, digits and '_', not starting with a digit)");
  return false;
}

/// A tensor's or parameter's name: an identifier the expression grammar does not
/// own, not yet taken. Every rule is checked (one run reports all).
bool Builder::declare_name(std::string_view name, std::string_view what, const At& at) {
  bool ok = identifier(name, what, at);
  if (ok && std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end()) {
    error(DiagId::spec_reserved_name, at,
          std::string(what) + " name " + quoted(name) + " is reserved in index expressions (" +
              joined(kReserved) + ")");
    ok = false;
  }
  const bool param = is_param(name);
  if (param || find_any_tensor(name)) {
    error(DiagId::spec_name_clash, at,
          std::string(what) + " " + quoted(name) + " has the name of a " +
              (param ? "parameter" : "tensor"));
    ok = false;
  }
  return ok;
}

void Builder::kernel_name(const std::string& name, const At& at) {
  if (identifier(name, "kernel", at))
    kernel_->name = name;
}

std::optional<tile::Dim3> Builder::dims(LaunchPart part, const std::array<std::int64_t, 3>& d,
                                        bool scalar, const At& at) {
  const bool grid = part == LaunchPart::grid;
  const DiagId id = grid ? DiagId::spec_grid_range : DiagId::spec_block_range;
  const std::string key = grid ? "grid" : "block";
  const std::string what = grid ? "CTAs" : "threads per CTA";
  const auto& max_each = grid ? ptx::max_grid_dims : ptx::max_block_dims;
  const std::int64_t max_total = grid ? ptx::max_grid_dims[0] : ptx::max_block_threads;
  static constexpr const char* kAxis[] = {"x", "y", "z"};
  std::int64_t total = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (d[i] < 1 || d[i] > max_each[i]) {
      error(id, at,
            key + (scalar ? "" : std::string(".") + kAxis[i]) + " must be in 1.." +
                std::to_string(max_each[i]) + (scalar && !grid ? " threads" : "") + "; got " +
                std::to_string(d[i]));
      return std::nullopt;
    }
    total *= d[i];
  }
  if (total > max_total) {
    error(id, at,
          key + " has " + std::to_string(total) + " " + what + " in all; at most " +
              std::to_string(max_total));
    return std::nullopt;
  }
  return tile::Dim3{d[0], d[1], d[2]};
}

void Builder::launch(tile::Dim3 grid, tile::Dim3 block) {
  kernel_->set_launch(grid, block);
}

void Builder::dynamic_shared(std::int64_t bytes, const At& at) {
  if (auto bad =
          outside("dynamic_shared", bytes, 0, ptx::max_dynamic_shared_bytes_any_target(), " bytes"))
    error(DiagId::spec_dynamic_shared_range, at, *bad);
  else
    kernel_->dynamic_shared = bytes;
}

void Builder::ctas_per_sm(std::int64_t n, const At& at) {
  if (auto bad = outside("ctas_per_sm", n, 1, ptx::max_ctas_per_sm_any_target(),
                         " (CTAs resident on one SM)"))
    error(DiagId::spec_ctas_per_sm_range, at, *bad);
  else
    kernel_->residency = tile::Kernel::Residency{n, at.pos};
}

void Builder::expect_run(const std::string& value, const At& at) {
  if (value == tile::kMustFaultValue)
    kernel_->must_fault = at.pos;
  else
    error(DiagId::spec_expect_run, at,
          "[kernel] expect must be \"fault\" (a spec that breaks the contract on purpose and "
          "must fault when run); got " +
              quoted(value));
}

bool Builder::abi(std::span<const std::pair<std::string, At>> names, const At& at, bool complete) {
  std::vector<std::string> wanted; // the default order: what abi must list
  for (const auto& b : lower::kernel_params(*kernel_))
    wanted.push_back(b.name);
  std::vector<std::string> order;
  for (const auto& [name, name_at] : names) {
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) {
      const bool shared = kernel_->find_tensor(name) != nullptr;
      // "B.map" names B's tensor map parameter, which only a [tensor.B.map] table declares.
      const std::string map_of(lower::map_param_tensor(name));
      std::string why = shared ? " is a shared tensor, not a kernel parameter"
                               : " is not a global tensor or a parameter of the spec";
      if (!map_of.empty() && kernel_->find_tensor(map_of))
        why = " names the tensor map of " + quoted(map_of) + ", which has no [tensor." + map_of +
              ".map] table";
      error(DiagId::spec_abi_unknown_name, name_at,
            quoted(name) + why + "; abi lists " + quoted_names(wanted));
      return false;
    }
    if (std::find(order.begin(), order.end(), name) != order.end()) {
      error(DiagId::spec_abi_duplicate_name, name_at, quoted(name) + " is listed twice in abi");
      return false;
    }
    order.push_back(name);
  }
  if (!complete)
    return true;
  std::vector<std::string> left;
  const auto listed = [&](const std::string& n) {
    return std::find(order.begin(), order.end(), n) != order.end();
  };
  for (const auto& w : wanted) {
    // A mapped tensor may be passed by its map alone (lower::map_only): no pointer.
    const tile::TensorDecl* t = kernel_->find_tensor(w);
    const bool map_only = t && t->map && listed(lower::map_param_name(w));
    if (!listed(w) && !map_only)
      left.push_back(w);
  }
  if (!left.empty()) {
    error(DiagId::spec_abi_missing_name, at,
          "abi does not list " + quoted_names(left) +
              ": it must name every global tensor and parameter once, in PTX order");
    return false;
  }
  kernel_->abi = std::move(order);
  return true;
}

// ---------------------------------------------------------------- parameters

bool Builder::param_value(const ParamDecl& d, std::uint64_t& out) {
  const bool u64 = d.is_u64.value_or(false);
  const std::uint64_t type_max =
      u64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{0xffffffffu};
  const ParamValue& v = *d.value;
  const std::string fits = " does not fit " + std::string(u64 ? "u64" : "u32") + " (0.." +
                           std::to_string(type_max) + ")";
  std::string problem;
  switch (v.form) {
  case ParamValue::Form::integer:
    out = static_cast<std::uint64_t>(v.integer);
    if (v.integer < 0 || out > type_max)
      problem = "value " + std::to_string(v.integer) + fits;
    break;
  case ParamValue::Form::unsigned_integer:
    out = v.unsigned_integer;
    if (out > type_max)
      problem = "value " + std::to_string(out) + fits;
    break;
  case ParamValue::Form::text:
    // A file's integers stop at 2^63-1; a u64 (a cache policy) may need the top bit.
    if (auto u = integer_of<std::uint64_t>(v.text))
      out = *u;
    else
      problem = "a u64 value string must be a decimal or 0x hexadecimal integer below 2^64; got " +
                quoted(v.text);
    break;
  }
  if (problem.empty())
    return true;
  error(DiagId::spec_param_value, d.value_at, problem);
  return false;
}

bool Builder::param_range(const ParamDecl& d, bool have_value, std::uint64_t value) {
  const ParamRange& r = *d.range;
  const bool u64 = d.is_u64.value_or(false);
  const std::uint64_t type_max =
      u64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{0xffffffffu};
  std::string problem;
  if (!r.well_formed)
    problem = "range of parameter " + quoted(d.name) + " must be [lo, hi], two integers";
  else if (r.lo > r.hi)
    problem = "range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
              "] is empty; expected lo <= hi";
  else if (r.lo < 0 || static_cast<std::uint64_t>(r.hi) > type_max)
    problem = "range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "] does not fit " +
              (u64 ? "u64" : "u32") + " (0.." + std::to_string(type_max) + ")";
  if (!problem.empty()) {
    error(DiagId::spec_param_range, r.at, problem);
    return false;
  }
  if (have_value &&
      (value < static_cast<std::uint64_t>(r.lo) || value > static_cast<std::uint64_t>(r.hi))) {
    error(DiagId::spec_param_outside_range, d.value_at,
          "value " + std::to_string(value) + " is outside the declared range [" +
              std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
    return false;
  }
  return true;
}

bool Builder::param(const ParamDecl& d) {
  bool ok = declare_name(d.name, "parameter", d.name_at);
  param_names_.emplace(d.name);
  ok = d.is_u64.has_value() && ok;
  std::uint64_t value = 0;
  const bool have_value = d.value && param_value(d, value);
  ok = have_value && ok;
  if (d.range && !param_range(d, have_value, value))
    ok = false;
  if (!ok)
    return false;
  tile::ScalarParam p;
  p.name = d.name;
  p.is_u64 = *d.is_u64;
  p.value = value;
  if (d.range)
    p.range = tile::Interval{d.range->lo, d.range->hi};
  p.pos = d.pos;
  kernel_->params.push_back(std::move(p));
  return true;
}

std::optional<Diagnostic> Builder::set_param_value(std::string_view name, std::uint64_t value) {
  return tile::set_param_value(*kernel_, name, value);
}

// ---------------------------------------------------------------- tensors

bool Builder::tensor_shape(const TensorDecl& d, tile::Tensor& t) {
  if (!d.shape)
    return false;
  // Where the shape breaks the rule (at least one dimension, each at least 1), and how.
  std::vector<std::pair<At, std::string>> problems;
  if (d.shape->empty() && d.shape_complete)
    problems.emplace_back(d.shape_at, "shape must have at least one dimension");
  for (const Dim& dim : *d.shape) {
    if (dim.value >= 1)
      t.shape.push_back(dim.value);
    else
      problems.emplace_back(dim.at, "a shape dimension must be at least 1; got " +
                                        std::to_string(dim.value));
  }
  for (auto& [at, message] : problems)
    error(DiagId::spec_bad_shape, at, std::move(message));
  return problems.empty() && d.shape_complete;
}

bool Builder::tensor_align(const TensorDecl& d, tile::Tensor& t) {
  const bool shared = t.space == tile::Space::shared;
  t.align = shared ? tile::default_shared_align : tile::default_global_align;
  if (!d.align)
    return true;
  const std::int64_t a = *d.align;
  const std::int64_t lo = shared ? tile::min_shared_align : 1;
  if (a < lo || a > tile::kMaxAlign || (a & (a - 1)) != 0) {
    error(DiagId::spec_bad_align, d.align_at,
          "align of a " + std::string(shared ? "shared" : "global") +
              " tensor must be a power of two in " + std::to_string(lo) + ".." +
              std::to_string(tile::kMaxAlign) + "; got " + std::to_string(a));
    return false;
  }
  t.align = static_cast<std::uint32_t>(a);
  return true;
}

/// Element count and byte size within the limits; shared tensors also in total.
bool Builder::tensor_size(const tile::Tensor& t, const At& at) {
  const bool shared = t.space == tile::Space::shared;
  // Shared: what a CTA can have on any target; the contract checks the target's own limit.
  const std::int64_t max_shared = ptx::max_dynamic_shared_bytes_any_target();
  const std::int64_t limit = shared ? max_shared : tile::kMaxGlobalBytes;
  const std::int64_t elem = tile::size_bytes(t.dtype);
  std::int64_t bytes = elem;
  for (std::int64_t d : t.shape) {
    if (d > limit / bytes) {
      std::string shape;
      for (std::size_t i = 0; i < t.shape.size(); ++i)
        shape += (i ? ", " : "") + std::to_string(t.shape[i]);
      error(DiagId::spec_tensor_too_large, at,
            "tensor " + quoted(t.name) + " of shape [" + shape + "] and " + std::to_string(elem) +
                "-byte elements is larger than the " +
                (shared ? std::to_string(max_shared) +
                              " bytes of shared memory a CTA can have on any target"
                        : std::string("2^40 bytes allowed for a global tensor")));
      return false;
    }
    bytes *= d;
  }
  if (!shared)
    return true;
  const std::int64_t a = t.align;
  const std::int64_t start = (shared_bytes_ + a - 1) / a * a;
  if (start + bytes > max_shared) {
    error(DiagId::spec_shared_total_too_large, at,
          "shared tensors need " + std::to_string(start + bytes) + " bytes together with " +
              quoted(t.name) + " (" + std::to_string(bytes) + " bytes at offset " +
              std::to_string(start) + "); a CTA has at most " + std::to_string(max_shared) +
              " bytes of shared memory on any target");
    return false;
  }
  shared_bytes_ = start + bytes;
  return true;
}

const tile::Tensor* Builder::tensor(const TensorDecl& d) {
  auto decl = std::make_unique<tile::TensorDecl>();
  tile::Tensor& t = decl->tensor;
  t.name = d.name;
  decl->pos = d.pos;
  bool ok = declare_name(d.name, "tensor", d.name_at) && d.syntax_ok;
  ok = d.space.has_value() && ok;
  t.space = d.space.value_or(tile::Space::global);
  const bool shared = d.space == tile::Space::shared;
  ok = d.dtype.has_value() && ok;
  if (d.dtype)
    t.dtype = *d.dtype;
  const bool shape_ok = tensor_shape(d, t);
  ok = shape_ok && ok;
  ok = tensor_align(d, t) && ok;
  const std::pair<const std::optional<At>*, const char*> global_only[] = {
      {&d.init_at, "init is only for global tensors; shared memory starts undefined (fill it "
                   "with a fill op)"},
      {&d.output_at, "output is only for global tensors; shared memory is not compared after a "
                     "run"}};
  for (const auto& [key_at, message] : global_only) {
    if (shared && *key_at) {
      error(DiagId::spec_global_only_key, **key_at, message);
      ok = false;
    }
  }
  if (d.init)
    decl->init = *d.init;
  else if (d.init_at)
    ok = false; // an init the caller could not read
  decl->output = d.output;
  if (shape_ok && d.dtype && d.space)
    ok = tensor_size(t, d.shape_at) && ok;
  if (ok) { // both reported
    const bool swizzle_ok = tensor_swizzle(d, t);
    const bool map_ok = tensor_map(d, *decl);
    ok = swizzle_ok && map_ok;
  }
  auto& list = ok ? kernel_->tensors : broken_;
  list.push_back(std::move(decl));
  return &list.back()->tensor;
}

const tile::Tensor* Builder::find_any_tensor(std::string_view name) const {
  if (const tile::TensorDecl* d = kernel_->find_tensor(name))
    return &d->tensor;
  for (const auto& d : broken_)
    if (d->tensor.name == name)
      return &d->tensor;
  return nullptr;
}

bool Builder::is_broken(const tile::Tensor* t) const {
  return std::any_of(broken_.begin(), broken_.end(),
                     [&](const auto& d) { return &d->tensor == t; });
}

} // namespace ptxgen::build
