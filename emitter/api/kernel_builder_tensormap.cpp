// KernelBuilder's ops on tensor maps in memory: tensormap_copy, tensormap_replace,
// tensormap_fence (docs/spec-format.md, "Tensor maps edited on the device"). Every rule is the
// builder's and the contract's, as for the TOML door.

#include "emitter/api/builder_operands.hpp"
#include "emitter/api/kernel_builder.hpp"
#include "emitter/builder/builder.hpp"

namespace ptxgen::api {

using operands::at_of;
using operands::located;
using operands::text_of;

bool KernelBuilder::mapped_name(const View& tensor, const Pos& at,
                                tile::Located<std::string>& name) {
  if (!tensor.ok()) {
    b_->report(*tensor.error());
    return false;
  }
  if (b_->mapped_tensor(text_of(tensor.text(), at)) == nullptr)
    return false;
  name = {tensor.text(), tensor.text(), at.source_pos()};
  return true;
}

bool KernelBuilder::slot_view(const View& v) {
  if (v.ok())
    return true;
  b_->report(*v.error());
  return false;
}

void KernelBuilder::tensormap_copy(const View& tensor, const View& dst,
                                   const TensormapCopyOptions& options, Pos at) {
  tile::TensormapCopyOp op;
  bool ok = mapped_name(tensor, at, op.tensor);
  ok = slot_view(dst) && ok;
  if (options.src)
    ok = slot_view(*options.src) && ok;
  if (options.pred)
    ok = check_expr(*options.pred, at) && ok;
  if (!ok)
    return;
  op.dst = located(dst, at);
  if (options.src)
    op.src = located(*options.src, at);
  if (options.pred)
    op.pred = located(*options.pred, at);
  push(std::move(op), at);
}

void KernelBuilder::push_tensormap_replace(tile::TensormapReplaceOp op, const View& tensor,
                                           const View& map, const std::optional<Expr>& pred,
                                           const Pos& at) {
  bool ok = mapped_name(tensor, at, op.tensor);
  ok = slot_view(map) && ok;
  ok = b_->tensormap_field(op.field, at_of(at)) && ok;
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok || !b_->tensormap_operands(op, at_of(at)))
    return;
  op.map = located(map, at);
  if (pred)
    op.pred = located(*pred, at);
  op.field_pos = at.source_pos();
  op.dim_pos = at.source_pos();
  push(std::move(op), at);
}

void KernelBuilder::tensormap_replace_address(const View& tensor, const View& map,
                                              const View& address, const std::optional<Expr>& pred,
                                              Pos at) {
  tile::TensormapReplaceOp op;
  op.field = tile::TensormapField::global_address;
  if (!address.ok()) {
    b_->report(*address.error());
    return;
  }
  op.address = tile::Located<std::string>{address.text(), address.text(), at.source_pos()};
  push_tensormap_replace(std::move(op), tensor, map, pred, at);
}

void KernelBuilder::tensormap_replace(const View& tensor, const View& map,
                                      tile::TensormapField field, std::int64_t dim,
                                      const Expr& value, const std::optional<Expr>& pred, Pos at) {
  tile::TensormapReplaceOp op;
  op.field = field;
  op.dim = dim;
  if (!check_expr(value, at))
    return;
  op.value = located(value, at);
  push_tensormap_replace(std::move(op), tensor, map, pred, at);
}

void KernelBuilder::tensormap_fence(const View& map, tile::TensormapSem sem,
                                    const std::optional<Expr>& pred, Pos at) {
  tile::TensormapFenceOp op;
  op.sem = sem;
  bool ok = slot_view(map);
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok)
    return;
  op.map = located(map, at);
  if (pred)
    op.pred = located(*pred, at);
  op.sem_pos = at.source_pos();
  push(std::move(op), at);
}

} // namespace ptxgen::api
