#pragma once
// The simulator's PTX parser (internal to driver/sim). One class, its members
// defined by concern:
//   parser.cpp        driving: diagnostics, tokens, module and entry structure, statements
//   declarations.cpp  .param, .reg, .shared declarations and PTX types
//   operands.cpp      operands as written, and their checked forms (registers, values, addresses)
//   decode.cpp        the instruction statement: its form (forms.hpp), then qualifiers and operands
//   qualifiers.cpp    an instruction's qualifiers, by its form's grammar, and its types
//   shapes.cpp        an instruction's operands, by its form's shapes
//   link.cpp          calls: the call statement, and linking the .funcs into each entry

#include "driver/sim/forms.hpp"
#include "driver/sim/ir.hpp"
#include "driver/sim/lexer.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/support/result.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxgen::sim::detail {

/// A PTX type as the parser sees it.
struct TypeInfo {
  ir::Type t;
  bool is_float = false;
  bool is_pred = false;
  bool is_bits = false; ///< bN
};

/// The bits of one literal `text` (negated with `minus`) for an element of type `t` (an
/// initialiser's, mma.sync's c); nullopt when the simulator cannot hold it (a decimal f16 / bf16,
/// a symbol).
std::optional<std::uint64_t> literal_bits(std::string_view text, bool minus, const TypeInfo& t);

/// The elements a declared array has: `name[N]`, `name[]` or a scalar `name`.
struct ArrayExtent {
  std::uint64_t count = 1; ///< N; 1 for a scalar and for `[]`
  bool unsized = false;    ///< `[]`
};

/// "u32" -> {32, unsigned}; nullopt for a name that is not a PTX type.
std::optional<TypeInfo> parse_type(std::string_view s);
/// The packed 16-bit integer pair type `part` (`u16x2`, `s16x2`) of add / min / max
/// (`code`): 32 bits of Op::halves; nullopt for another word or instruction.
std::optional<TypeInfo> integer_pair(ir::Code code, const ptx::OpcodeWord& part);

/// -v in two's complement, modulo 2^64 (a literal `-0x8000000000000000` is itself;
/// plain negation of INT64_MIN is undefined behaviour).
inline std::int64_t negate_mod64(std::int64_t v) {
  return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
}

/// `s` in backquotes, for messages.
std::string quote(std::string_view s);

/// An arithmetic type: parse_type's, the packed and bfloat ones too, with its ir::Num.
std::optional<TypeInfo> numeric_type(std::string_view s);

/// An operand as written, before it is checked against its instruction.
struct Opnd {
  enum class Kind : std::uint8_t {
    name,   ///< an identifier: register (%...), special register or symbol
    number, ///< an integer or float literal (possibly negated)
    addr,   ///< [base+offset]
    vec,    ///< {a, b, ...}
  };
  Kind kind = Kind::name;
  std::size_t pos = 0; ///< source offset, for diagnostics
  std::size_t length = 1;
  bool negated = false;    ///< `!%p`
  std::string_view name;   ///< name, or addr base
  std::string_view number; ///< literal text
  bool minus = false;      ///< `-` in front of a literal
  std::int64_t offset = 0; ///< addr offset
  std::vector<Opnd> elems; ///< vec elements
  /// `d|p`: the predicate destination after `|` (shfl.sync, elect.sync); empty when none.
  std::string_view pair;
  std::size_t pair_pos = 0;
};

struct RegInfo {
  std::uint32_t index = 0;
  std::uint8_t bits = 32;
};

/// `.reg .b32 %r<N>`: registers %r0 .. %r(N-1).
struct Family {
  std::uint32_t base = 0;
  std::uint32_t count = 0;
  std::uint8_t bits = 32;
};

/// What an instruction's qualifiers said, beyond what lands in the ir::Op.
struct Decoded {
  TypeInfo type;       ///< the (destination) type
  TypeInfo from;       ///< cvt's source type
  bool cg = false;     ///< cp.async.cg
  bool hint = false;   ///< .L2::cache_hint (a policy operand follows)
  std::size_t src = 0; ///< the next ir::Op::src slot to fill
};

/// What a qualifier reader works on: the instruction's form, the op and the decoded types it
/// fills, the opcode token (for messages) and the qualifiers after the form's mnemonic.
struct QualifierInput {
  const Form& f;
  ir::Op& op;
  Decoded& d;
  const Token& opc;
  std::span<const ptx::OpcodeWord> quals;
};

class Parser {
public:
  explicit Parser(std::string_view src);
  Result<std::shared_ptr<const ir::Module>> run();

private:
  // ------------------------------------------------ parser.cpp
  void add(Severity severity, DiagId id, std::size_t pos, std::size_t length, std::string message);
  void add_error(const ParseError& e);
  std::pair<std::uint32_t, std::uint32_t> position(std::size_t pos) const;
  [[noreturn]] void fail(DiagId id, const Token& t, std::string message);
  [[noreturn]] void fail(DiagId id, const Opnd& o, std::string message);

  const Token& peek(std::size_t ahead = 0) const;
  const Token& next();
  bool is(std::string_view text, std::size_t ahead = 0) const;
  bool accept(std::string_view text);
  const Token& expect(std::string_view text, std::string_view what);
  static std::string describe(const Token& t);
  const Token& expect_ident(std::string_view what);
  std::int64_t expect_int(std::string_view what);
  /// The N of an `.align N` just accepted: a power of two (the caret on N).
  std::uint32_t align_value();
  /// An optional `.align N` (0 when absent).
  std::uint32_t optional_align();
  /// A declaration's type (`.b8`, `.u32`, ...; not `.pred`); `what` and `example`
  /// say in the error what was expected ("an element type", ".b8").
  TypeInfo declared_type(std::string_view what, std::string_view example);
  /// An optional `[N]` or `[]` after the declared `name`; an N outside 1..max fails with
  /// `message` (the caret on the name).
  ArrayExtent optional_extent(const Token& name, std::int64_t max, const char* message);
  void skip_statement();

  void module(ir::Module& m);
  /// An `.entry` or a `.func` (declaration or definition); a ParseError inside
  /// it becomes the function's problem and the rest of it is skipped.
  void function(ir::Module& m, bool is_func);
  void function_header(ir::Entry& e);
  void skip_function(std::size_t start);
  void skip_line();
  void skip_block();
  void performance_directives(ir::Entry& e);
  std::array<std::uint32_t, 3> directive_dims(const Token& d, std::int64_t max);
  void body(ir::Entry& e);
  void resolve_branches(ir::Entry& e);
  void statement(ir::Entry& e);

  // ------------------------------------------------ declarations.cpp
  void param(ir::Entry& e);
  /// `.param {.align N} .type {.ptr {.space} {.align N}} name{[N]}`.
  ir::Param param_decl();
  /// Places `p` in the function's frame (aligned), returning its offset.
  std::uint32_t frame_place(ir::Entry& e, const ir::Param& p);
  /// `.param` inside a body: a call sequence's argument or result variable.
  void local_param(ir::Entry& e);
  void reg_decl(ir::Entry& e);
  void open_scope();
  void close_scope();
  /// A `.global` / `.const` variable, with its initialiser: at module scope (`function`
  /// empty) or in that function.
  void data_decl(ir::Module& m, const std::string& function);
  void initializer(const TypeInfo& t, std::vector<std::uint64_t>& values, std::string& broken,
                   const std::string& name);
  void skip_declaration();
  std::uint32_t add_reg(ir::Entry& e, std::string name, std::uint8_t bits);
  /// The register a vector destination's `_` element writes (operands.cpp).
  std::uint32_t sink_reg(std::uint8_t bits);
  std::optional<RegInfo> find_reg(std::string_view name) const;
  /// `.shared ...` in an entry or, with is_extern, the `.shared ...` after a
  /// module-scope `.extern` (ptxas takes `.extern .shared` only there).
  void shared_decl(ir::Entry& e, bool is_extern);
  /// `.local {.align N} .type name{[N]};` in a body: bytes of the thread's frame.
  void local_decl(ir::Entry& e);

  // ------------------------------------------------ operands.cpp
  Opnd operand();
  std::uint32_t reg(const Opnd& o, unsigned bits, bool at_least, std::string_view role);
  /// Whether `name` is a register: declared, or spelled with `%` (then reg() reports it).
  bool is_reg_name(std::string_view name) const;
  const ir::Data* find_data(const Opnd& o);
  ir::Addr param_address(const Opnd& o, ir::Space& space, std::uint32_t access_bytes);
  std::int64_t int_literal(const Opnd& o);
  ir::Val value(const Opnd& o, unsigned bits, std::string_view role, bool allow_symbol = true);
  ir::Val value_or_wider_reg(const Opnd& o, unsigned bits, std::string_view role);
  /// A memory operand; `.param` names resolve to Space::param (an entry's
  /// parameters) or Space::frame (a .func's, and call-sequence variables).
  ir::Addr address(const Opnd& o, ir::Space& space, std::uint32_t access_bytes);

  // ------------------------------------------------ decode.cpp
  void instruction(ir::Entry& e);
  void decode(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops);

  // ------------------------------------------------ link.cpp
  /// `call{.uni} {(results),} f{, (args)};` -> a Code::call op and an Entry::calls row.
  void call(ir::Entry& e, ir::Op& op, const Token& opc);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> call_list(std::string_view what);
  /// Appends to each entry the .funcs it calls (transitively), resolves the
  /// calls, and moves the problems of the called functions into the entry's; then adds
  /// each .func that returns nothing as an entry (Entry::from_func).
  void link(ir::Module& m);
  /// `report`: the link's problems are also the file's diagnostics (not for a .func's copy:
  /// the problems are the .func's own, reported where it is linked into an entry).
  void link_entry(ir::Module& m, ir::Entry& e, bool report);

  // ------------------------------------------------ qualifiers.cpp
  TypeInfo checked_type(const Form& f, const Token& opc, std::string_view part);
  Decoded qualifiers(const Form& f, ir::Op& op, const Token& opc,
                     std::span<const ptx::OpcodeWord> quals);
  void type_qualifiers(const QualifierInput& in);
  void memory_qualifiers(const QualifierInput& in);
  void compare_qualifiers(const QualifierInput& in);
  void cvta_qualifiers(const QualifierInput& in);
  void cp_async_qualifiers(const QualifierInput& in);
  void bulk_family_qualifiers(const QualifierInput& in);
  void createpolicy_qualifiers(const QualifierInput& in);
  void arith_qualifiers(const QualifierInput& in);
  void cvt_qualifiers(const QualifierInput& in);
  void tf32_cvt_qualifiers(const QualifierInput& in);
  void packed_cvt_qualifiers(const QualifierInput& in);
  void bit_qualifiers(const QualifierInput& in);
  void atomic_qualifiers(const QualifierInput& in);
  void space_qualifier(const QualifierInput& in);
  void warp_qualifiers(const QualifierInput& in);
  void ldmatrix_qualifiers(const QualifierInput& in);
  // qualifiers_int.cpp: dp4a / dp2a; the .relu and 16-bit pair rules of add / min / max
  void dot_qualifiers(const QualifierInput& in);
  void integer_arith_checks(const QualifierInput& in);
  // qualifiers_kernel.cpp: named barriers, warp reductions, setmaxnreg, the math functions
  void kernel_qualifiers(const QualifierInput& in);
  /// barrier.cluster.{arrive,wait} and mapa (qualifiers_kernel.cpp).
  void cluster_qualifiers(const QualifierInput& in);

  // ------------------------------------------------ shapes.cpp
  void shape(Shape s, ir::Op& op, Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
             std::size_t& k);
  void control_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc,
                     const std::vector<Opnd>& ops, std::size_t& k);
  /// A named barrier's thread count `o` -> src[1]: an immediate must be a positive multiple of 32.
  void thread_count(ir::Op& op, const Opnd& o);
  void memory_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
                    std::size_t& k);
  void arith_shape(Shape s, ir::Op& op, Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
                   std::size_t& k);
  ir::Val address_source(const Opnd& o, unsigned bits);
  ir::Val mov_source(const Decoded& d, const Opnd& o, unsigned bits);
  /// `mov.bN {a, b..}, x` (unpack, `is_dst`) or `mov.bN x, {a, b..}` (pack).
  void vector_mov(ir::Op& op, const Opnd& v, bool is_dst);
  std::uint32_t cp_size(const Decoded& d, const Opnd& o);
  void data(ir::Op& op, const Decoded& d, const Opnd& o);
  void cp_extra(ir::Op& op, const Decoded& d, const Token& opc, const std::vector<Opnd>& ops,
                std::size_t& k);
  /// cp.async.bulk.tensor's `[tmap, {c0, ...}]` -> addr2 and coords (Op::rank of them).
  void tensor_map_operand(ir::Op& op, const Opnd& o);
  void im2col_offsets(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops, std::size_t& k);

  // ------------------------------------------------ tensor_parse.cpp: tensor cores
  /// A tensor-core instruction's qualifiers (read again from the opcode) and all its operands.
  void tensor_operands(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops, std::size_t& k);
  void mma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                    const std::vector<Opnd>& ops);
  void wgmma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                      const std::vector<Opnd>& ops);
  void wmma_operands(ir::Op& op, const Token& opc, ptx::Mnemonic mnemonic,
                     std::span<const ptx::OpcodeWord> quals, const std::vector<Opnd>& ops);
  /// wmma.mma; `popc`: the single-bit forms' operation ('&' .and.popc, '^' .xor.popc), else 0.
  void wmma_mma_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                         const std::vector<Opnd>& ops, char popc);
  void matrix_move_operands(ir::Op& op, const Token& opc, std::span<const ptx::OpcodeWord> quals,
                            const std::vector<Opnd>& ops);
  /// `{r0, r1, ...}` of exactly `count` registers of `bits` bits.
  std::vector<std::uint32_t> register_list(const Opnd& o, std::size_t count, unsigned bits,
                                           std::string_view role);
  /// mma.sync's d (`imms` null: an element may be the sink `_`) or c (an element may be an
  /// immediate of element type `e`, its bits in `imms`): ir::no_register stands for either.
  std::vector<std::uint32_t> mma_list(const Opnd& o, std::size_t count, unsigned bits,
                                      std::string_view role, ir::Elem e,
                                      std::vector<std::uint64_t>* imms);

  std::string_view src_;
  std::vector<std::string_view> lines_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  Diagnostics diags_;
  ir::Entry* e_ = nullptr;
  /// Module-scope shared declarations (`.extern .shared`), copied into each entry.
  ir::Entry module_shared_;
  ir::Module* m_ = nullptr;
  std::unordered_map<std::string, RegInfo> regs_;
  /// Call-sequence `.param` variables in scope (frame offsets).
  std::unordered_map<std::string, ir::Param> locals_;
  /// One per open `{ }`: the names it declared and what they shadowed.
  struct Scope {
    std::uint32_t id = 0; ///< index into scope_parents_
    std::vector<std::pair<std::string, std::optional<RegInfo>>> regs;
    std::vector<std::pair<std::string, std::optional<ir::Param>>> locals;
    std::vector<std::pair<std::string, std::optional<Family>>> families;
  };
  std::vector<Scope> scopes_;
  /// Per block of the function (in the order opened): the block that encloses it (the
  /// body: itself). Labels are scoped to their block, as registers are.
  std::vector<std::uint32_t> scope_parents_;
  /// What the linker found (also in each entry's problems), for the diagnostics.
  std::vector<Diagnostic> link_problems_;
  std::unordered_map<std::string, Family> families_;
  /// (block, label) -> the index of the op it labels.
  std::map<std::pair<std::uint32_t, std::string>, std::size_t> labels_;
  /// A branch to resolve at the end of the function: its op, label and block.
  struct BranchFixup {
    std::size_t op = 0;
    Token label;
    std::uint32_t scope = 0;
  };
  std::vector<BranchFixup> branch_fixups_;
};

} // namespace ptxgen::sim::detail
