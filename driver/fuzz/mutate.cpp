// Invalid mutants of a generated spec: each breaks one rule of the spec language, the
// contract or the launch as a whole, and names the diagnostics `check` may refuse it with.

#include "driver/fuzz/mutate.hpp"

#include "driver/fuzz/gen_build.hpp"
#include "driver/fuzz/generator.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/toml/toml_spec.hpp"
#include "emitter/ptx/feature.hpp"

#include <algorithm>
#include <functional>

namespace ptxgen::driver::fuzz {

Diagnostics check_spec_text(std::string_view toml, std::string display_name) {
  Diagnostics ds;
  auto loaded = load_spec_text(toml, std::move(display_name));
  ds.append(loaded.diagnostics);
  if (!loaded)
    return ds;
  lower::LowerOptions options;
  options.target = emitted_target;
  auto lowered = lower::lower(**loaded.value, options);
  ds.append(lowered.diagnostics);
  if (lowered)
    ds.append(reference_findings(**loaded.value));
  return ds;
}

namespace {

/// Every op, a pipeline's loads and body included.
void visit_ops(std::vector<ModelOp>& ops, const std::function<void(ModelOp&)>& f) {
  for (auto& op : ops) {
    f(op);
    visit_ops(op.loads, f);
    visit_ops(op.body, f);
  }
}

bool is_apply(const ModelOp& op) {
  return op.op == "apply" || (op.op.empty() && op.find("opcode"));
}

/// The model with the `which`-th apply (mod the number of applies) changed by `f`.
std::optional<SpecModel> with_apply(const SpecModel& m, std::uint64_t which,
                                    const std::function<bool(ModelOp&)>& f) {
  SpecModel out = m;
  std::vector<ModelOp*> applies;
  visit_ops(out.ops, [&](ModelOp& op) {
    if (is_apply(op))
      applies.push_back(&op);
  });
  if (applies.empty() || !f(*applies[which % applies.size()]))
    return std::nullopt;
  return out;
}

void set_key(ModelOp& op, const std::string& key, std::string value) {
  if (auto* k = op.find(key))
    k->value = std::move(value);
  else
    op.keys.push_back({key, std::move(value)});
}

bool has_op(const SpecModel& m, std::string_view kind) {
  bool found = false;
  SpecModel copy = m;
  visit_ops(copy.ops, [&](ModelOp& op) { found = found || op.op == kind; });
  return found;
}

class Mutator {
public:
  Mutator(const SpecModel& m, std::uint64_t seed) : m_(m), rng_(seed) {}

  void add(std::string what, const SpecModel& changed, std::vector<DiagId> ids) {
    out.push_back(Mutant{std::move(what), to_toml(changed), std::move(ids)});
  }
  void add(std::string what, const std::optional<SpecModel>& changed, std::vector<DiagId> ids) {
    if (changed)
      add(std::move(what), *changed, std::move(ids));
  }

  /// A mutant whose chosen apply op has `key` set to `value` (a TOML value as written).
  void add_key_change(std::string what, std::uint64_t which, const std::string& key,
                      const std::string& value, DiagId id) {
    add(std::move(what),
        with_apply(m_, which,
                   [&](ModelOp& op) {
                     set_key(op, key, value);
                     return true;
                   }),
        {id});
  }

  void launch() {
    SpecModel s = m_;
    s.block = {0};
    add("block 0", s, {DiagId::spec_block_range});
    s = m_;
    s.block = {2 * max_block_threads};
    add("block of 2048 threads", s, {DiagId::spec_block_range});
    s = m_;
    s.grid = {0};
    add("grid 0", s, {DiagId::spec_grid_range});
  }

  void applies() {
    const auto which = rng_.next();
    add_key_change("chunk_bytes 12", which, "chunk_bytes", "12", DiagId::contract_chunk_bytes);
    add("src_size above chunk_bytes",
        with_apply(m_, which,
                   [](ModelOp& op) {
                     if (op.find("ignore_src"))
                       return false;
                     const auto chunk = std::stoll(op.find("chunk_bytes")->value);
                     set_key(op, "src_size", std::to_string(chunk + 1));
                     return true;
                   }),
        {DiagId::contract_src_size_range});
    add("cache hint qualifier dropped, policy kept",
        with_apply(m_, which,
                   [](ModelOp& op) {
                     auto& code = op.find("opcode")->value;
                     const std::string hint = ".L2::cache_hint";
                     auto at = code.find(hint);
                     if (at == std::string::npos)
                       return false;
                     code.erase(at, hint.size());
                     return true;
                   }),
        {DiagId::contract_policy_without_hint});
    add("cache hint without a policy",
        with_apply(m_, which,
                   [](ModelOp& op) {
                     auto& code = op.find("opcode")->value;
                     if (code.find("cache_hint") != std::string::npos)
                       return false;
                     code.insert(code.find(".global") + 7, ".L2::cache_hint");
                     return true;
                   }),
        {DiagId::contract_hint_without_policy});
    add("misspelt key chunk_byte",
        with_apply(m_, which,
                   [](ModelOp& op) {
                     op.keys.push_back({"chunk_byte", "16"});
                     return true;
                   }),
        {DiagId::spec_unknown_key});
    add_key_change("pred names an unknown parameter", which, "pred",
                   toml_string("tid < no_such_param"), DiagId::expr_unknown_name);
    add_key_change("unknown scope", which, "scope", toml_string("warp"),
                   DiagId::spec_unknown_scope);
  }

  void tensors() {
    SpecModel s = m_;
    s.tensors[rng_.below(s.tensors.size())].dtype = "float17";
    add("unknown dtype", s, {DiagId::spec_unknown_dtype});
    s = m_;
    ModelTensor huge;
    huge.name = "huge";
    huge.shared = true;
    // One tensor may be as large as the most any target has; with the others it is beyond.
    huge.shape = {ptx::max_dynamic_shared_bytes_any_target()};
    huge.dtype = "uint8";
    s.tensors.push_back(huge);
    add("shared tensors beyond every target's limit", s, {DiagId::spec_shared_total_too_large});
    // The src tensor one row short: the last thread's row lies outside it.
    s = m_;
    // (Only where every src row is some thread's: rows that depend on a parameter or are
    // divided may never reach the last row.)
    if (m_.family == Family::tile && !m_.has(Feature::param_index) &&
        !m_.has(Feature::arithmetic_index)) {
      for (auto& t : s.tensors)
        if (!t.shared && !t.output && t.shape.size() == 2 && t.shape[0] >= 2) {
          --t.shape[0];
          s.expects.clear();
          bool cta = false;
          visit_ops(s.ops, [&](ModelOp& op) {
            cta = cta || (op.find("scope") && op.find("scope")->value == toml_string("cta"));
          });
          if (!cta)
            add("src tensor one row short", s, {DiagId::contract_out_of_bounds});
          break;
        }
    }
  }

  void abi() {
    if (m_.abi.size() < 2)
      return;
    SpecModel s = m_;
    s.abi.pop_back();
    add("abi without one parameter", s, {DiagId::spec_abi_missing_name});
    s = m_;
    s.abi.back() = s.abi.front();
    add("abi naming one parameter twice", s,
        {DiagId::spec_abi_duplicate_name, DiagId::spec_abi_missing_name});
  }

  void params() {
    for (std::size_t i = 0; i < m_.params.size(); ++i)
      if (m_.params[i].range) {
        SpecModel s = m_;
        s.params[i].value = (*s.params[i].range)[1] + 1;
        add("parameter value above its range", s, {DiagId::spec_param_outside_range});
        return;
      }
  }

  void control() {
    SpecModel s = m_;
    bool changed = false;
    visit_ops(s.ops, [&](ModelOp& op) {
      if (op.op == "wait_group") {
        op.find("n")->value = "65";
        changed = true;
      }
    });
    if (changed)
      add("wait_group 65", s, {DiagId::contract_wait_group_range});
    // Without a wait, the copies' reads are pending, unless no copy is ever issued (a pred
    // that is false for every thread, as `warp != 0` in one warp).
    // (nor where a loop starts at a parameter: at the test values it may not run at all).
    if ((m_.family == Family::tile || m_.family == Family::loop) && !any_pred() &&
        !m_.has(Feature::loop_start_param)) {
      s = m_;
      std::erase_if(s.ops,
                    [](const ModelOp& op) { return op.op == "wait_group" || op.op == "wait_all"; });
      add("no wait before the copies", s,
          {DiagId::check_read_pending, DiagId::check_never_waited, DiagId::check_missing_commit,
           DiagId::check_pending_overlap, DiagId::check_refill_without_barrier});
    }
    // A thread reads back a row another thread copied: without the barrier that is a race
    // (with a fill there would be a second one; keep to the plain case).
    if (m_.family == Family::tile && m_.has(Feature::cross_thread_readback) &&
        !has_op(m_, "fill")) {
      s = m_;
      std::erase_if(s.ops, [](const ModelOp& op) { return op.op == "cta_sync"; });
      add("read back without the barrier", s,
          {DiagId::check_read_without_sync, DiagId::check_read_pending});
    }
    if (has_op(m_, "end")) {
      s = m_;
      std::erase_if(s.ops, [](const ModelOp& op) { return op.op == "end"; });
      add("loop without end", s, {DiagId::spec_loop_unclosed});
      add("unroll 65", with_every("for", "unroll", "65"), {DiagId::spec_loop_unroll_range});
    }
    if (has_op(m_, "pipeline")) {
      add("pipeline of 9 stages", with_every("pipeline", "stages", "9"),
          {DiagId::spec_pipeline_stages});
    }
    if (has_op(m_, "mbarrier_init")) {
      add("mbarrier count 2^20", with_every("mbarrier_init", "count", "1048576"),
          {DiagId::contract_mbarrier_count_range});
    }
  }

  std::vector<Mutant> out;

private:
  /// The model with `key` of every `kind` op set to `value` (a TOML value as written).
  SpecModel with_every(std::string_view kind, const std::string& key,
                       const std::string& value) const {
    SpecModel s = m_;
    visit_ops(s.ops, [&](ModelOp& op) {
      if (op.op == kind)
        set_key(op, key, value);
    });
    return s;
  }

  bool any_pred() const {
    SpecModel copy = m_;
    bool pred = false;
    visit_ops(copy.ops, [&](ModelOp& op) { pred = pred || op.find("pred"); });
    return pred;
  }

  const SpecModel& m_;
  Rng rng_;
};

} // namespace

std::vector<Mutant> mutants(const SpecModel& m, std::uint64_t seed) {
  Mutator mu(m, seed);
  mu.launch();
  mu.applies();
  mu.tensors();
  mu.params();
  mu.abi();
  mu.control();
  return std::move(mu.out);
}

} // namespace ptxgen::driver::fuzz
