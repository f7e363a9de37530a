#pragma once
// The rules of written values that need no proof over ranges, each one function that more
// than one caller applies, so that all give one DiagId and one message. An op's operands:
// the builder applies each rule where the spec or the call wrote the operand, and the
// contract again to a kernel built or changed without the builder (a tile::Kernel edited in
// code); the caller places the diagnostic (a key, a character of a string, a call site). A
// parameter's test value: every door that sets one (`ptxgen run --param`, the C++ builder,
// Python's run(n=...)) calls set_param_value.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ptxgen::tile {

/// wait_group's n lies in 0..ptx::max_wait_group (stricter than ptxas).
std::optional<Diagnostic> wait_group_rule(std::int64_t n);

/// A cache policy taken from parameter `name` names a u64 parameter of `params`.
std::optional<Diagnostic> policy_param_rule(std::span<const ScalarParam> params,
                                            std::string_view name);

/// An apply gives at most one of its alternative operand forms, src_size and ignore_src.
std::optional<Diagnostic> operand_forms_rule(bool src_size, bool ignore_src);

/// Sets the value test runs pass for parameter `name` of `k`. Refused (run_param_value,
/// the kernel unchanged) for a name `k` lacks or a value outside the declared range (without
/// one, the type's).
std::optional<Diagnostic> set_param_value(Kernel& k, std::string_view name, std::uint64_t value);

} // namespace ptxgen::tile
