#pragma once
// Reads an opcode of the sm_90 bulk-copy family (bulk.hpp) from text, its qualifiers in
// any order, into the instruction kind it names: `ptxgen instr` builds one from it.

#include "emitter/ptx/instruction.hpp"
#include "emitter/support/result.hpp"

#include <string_view>
#include <variant>

namespace ptxgen::ptx {

/// The kinds of bulk.hpp, which parse_bulk_opcode() returns.
using BulkKind = std::variant<CpAsyncBulkLoad, CpAsyncBulkStore, CpAsyncBulkCommitGroup,
                              CpAsyncBulkWaitGroup, CpAsyncBulkPrefetch, CpAsyncBulkTensorLoad,
                              CpAsyncBulkTensorStore, CpAsyncBulkPrefetchTensor, MbarrierExpectTx,
                              MbarrierArriveExpectTx, FenceProxyAsync, FenceMbarrierInit>;

/// The instruction body holding the same kind.
InstructionBody body_of(BulkKind k);

/// Whether `m` is the mnemonic of one of bulk.hpp's kinds (cp.async.bulk..., the expect_tx
/// forms of mbarrier, fence.proxy.async, fence.mbarrier_init).
bool bulk_family(Mnemonic m);

/// Parses e.g. "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
/// into the kind it names with its qualifiers set and its operands left empty (the caller
/// fills them); `.tile` may be left out, as ptxas allows. Rejections carry a diagnostic on
/// line 1 whose column and length underline the offending qualifier within `text` (or point
/// just past it for a missing one); forms ptxgen does not build yet (multicast, im2col)
/// are refused with DiagId::ptx_opcode_out_of_scope. print() of the result is canonical.
Result<BulkKind> parse_bulk_opcode(std::string_view text);

} // namespace ptxgen::ptx
