#pragma once
// ptxgen's C++ API in one include (docs/library.md): expressions, tensors and
// views, the kernel builder and emit_contract_only().

#include "emitter/api/emit.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/api/typed_expr.hpp"
#include "emitter/api/typed_view.hpp"
