#include "emitter/ptx/printer.hpp"

#include "emitter/ptx/validator.hpp"
#include "emitter/support/overloaded.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <variant>

namespace ptxgen::ptx {

namespace {

std::string type_suffix(ScalarType t) {
  return "." + std::string(name(t));
}

std::string binary_mnemonic(BinaryOp op) {
  switch (op) {
  case BinaryOp::add:
    return "add";
  case BinaryOp::sub:
    return "sub";
  case BinaryOp::mul_lo:
    return "mul.lo";
  case BinaryOp::mul_wide:
    return "mul.wide";
  case BinaryOp::div:
    return "div";
  case BinaryOp::rem:
    return "rem";
  case BinaryOp::min:
    return "min";
  case BinaryOp::max:
    return "max";
  case BinaryOp::shl:
    return "shl";
  case BinaryOp::shr:
    return "shr";
  case BinaryOp::and_:
    return "and";
  case BinaryOp::or_:
    return "or";
  case BinaryOp::xor_:
    return "xor";
  }
  return "?";
}

/// `ld` / `st` space qualifier: `.global`, `.shared`, `.param`, ...
std::string space_suffix(StateSpace s) {
  return "." + std::string(name(s));
}

std::string vector_suffix(std::size_t n) {
  return n == 2 ? ".v2" : n == 4 ? ".v4" : std::string();
}

/// The exact bits of a float as PTX's hexadecimal literal: 0.5f -> `0f3F000000`.
std::string float_literal(float f) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08X", static_cast<unsigned>(bits));
  return buf;
}

std::string body_text(const InstructionBody& body) {
  return std::visit(
      overloaded{
          [](const CpAsync& c) {
            std::string out = print(c.opcode) + " " + to_string(c.dst) + ", " + to_string(c.src) +
                              ", " + std::to_string(c.cp_size);
            std::visit(overloaded{
                           [](std::monostate) {},
                           [&](const SrcSize& s) {
                             out += ", ";
                             if (const auto* r = std::get_if<Register>(&s.value))
                               out += to_string(*r);
                             else
                               out += std::to_string(std::get<std::uint32_t>(s.value));
                           },
                           [&](const IgnoreSrc& s) {
                             out += std::string(", ") + (s.negated ? "!" : "") +
                                    to_string(s.predicate);
                           },
                       },
                       c.zero_fill);
            // The hint trap: with `.L2::cache_hint` ptxas reads the last operand as the
            // policy, so the policy is always printed. A missing one (an AST that was not
            // validated) prints a token ptxas refuses rather than a silently different copy.
            if (c.opcode.cache_hint || c.cache_policy) {
              out += ", ";
              if (!c.cache_policy)
                out += "?missing_cache_policy";
              else if (const auto* r = std::get_if<Register>(&*c.cache_policy))
                out += to_string(*r);
              else
                out += std::to_string(std::get<Immediate>(*c.cache_policy).value);
            }
            return out + ";";
          },
          [](const CpAsyncCommitGroup&) { return std::string("cp.async.commit_group;"); },
          [](const CpAsyncWaitGroup& w) {
            return "cp.async.wait_group " + std::to_string(w.n) + ";";
          },
          [](const CpAsyncWaitAll&) { return std::string("cp.async.wait_all;"); },
          [](const CpAsyncMbarrierArrive& m) {
            std::string out = "cp.async.mbarrier.arrive";
            if (m.noinc)
              out += ".noinc";
            if (m.space)
              out += "." + std::string(name(*m.space));
            return out + ".b64 " + to_string(m.address) + ";";
          },
          [](const CreatePolicyFractional& p) {
            std::string out = "createpolicy.fractional." + std::string(name(p.primary));
            if (p.secondary)
              out += "." + std::string(name(*p.secondary));
            out += ".b64 " + to_string(p.dst);
            if (p.fraction != 1.0f)
              out += ", " + float_literal(p.fraction);
            return out + ";";
          },
          [](const Mov& m) {
            return "mov" + type_suffix(m.type) + " " + to_string(m.dst) + ", " + to_string(m.src) +
                   ";";
          },
          [](const Ld& l) {
            std::string dst;
            if (l.dst.size() == 1) {
              dst = to_string(l.dst.front());
            } else {
              dst = "{";
              for (std::size_t k = 0; k < l.dst.size(); ++k)
                dst += (k ? ", " : "") + to_string(l.dst[k]);
              dst += "}";
            }
            return "ld" + space_suffix(l.space) + vector_suffix(l.dst.size()) +
                   type_suffix(l.type) + " " + dst + ", " + to_string(l.address) + ";";
          },
          [](const St& s) {
            std::string src;
            if (s.src.size() == 1) {
              src = to_string(s.src.front());
            } else {
              src = "{";
              for (std::size_t k = 0; k < s.src.size(); ++k)
                src += (k ? ", " : "") + to_string(s.src[k]);
              src += "}";
            }
            return "st" + space_suffix(s.space) + vector_suffix(s.src.size()) +
                   type_suffix(s.type) + " " + to_string(s.address) + ", " + src + ";";
          },
          [](const Cvta& c) {
            return "cvta.to" + space_suffix(c.space) + type_suffix(c.type) + " " +
                   to_string(c.dst) + ", " + to_string(c.src) + ";";
          },
          [](const Unary& u) {
            return std::string(u.op == UnaryOp::not_ ? "not" : "neg") + type_suffix(u.type) + " " +
                   to_string(u.dst) + ", " + to_string(u.src) + ";";
          },
          [](const Binary& b) {
            return binary_mnemonic(b.op) + type_suffix(b.type) + " " + to_string(b.dst) + ", " +
                   to_string(b.a) + ", " + to_string(b.b) + ";";
          },
          [](const Mad& m) {
            return std::string(m.wide ? "mad.wide" : "mad.lo") + type_suffix(m.type) + " " +
                   to_string(m.dst) + ", " + to_string(m.a) + ", " + to_string(m.b) + ", " +
                   to_string(m.c) + ";";
          },
          [](const Cvt& c) {
            return "cvt" + type_suffix(c.dst_type) + type_suffix(c.src_type) + " " +
                   to_string(c.dst) + ", " + to_string(c.src) + ";";
          },
          [](const Setp& s) {
            return "setp." + std::string(name(s.cmp)) + type_suffix(s.type) + " " +
                   to_string(s.dst) + ", " + to_string(s.a) + ", " + to_string(s.b) + ";";
          },
          [](const Selp& s) {
            return "selp" + type_suffix(s.type) + " " + to_string(s.dst) + ", " + to_string(s.a) +
                   ", " + to_string(s.b) + ", " + to_string(s.predicate) + ";";
          },
          [](const BarSync& b) { return "bar.sync " + std::to_string(b.barrier) + ";"; },
          [](const Ret&) { return std::string("ret;"); },
      },
      body);
}

} // namespace

std::string print(const Instruction& i) {
  std::string out;
  if (i.guard)
    out += std::string("@") + (i.guard->negated ? "!" : "") + to_string(i.guard->predicate) + " ";
  out += body_text(i.body);
  if (!i.comment.empty())
    out += " // " + i.comment;
  return out;
}

std::string print(const Module& m) {
  std::string out;
  for (const auto& c : m.header_comments)
    out += "//" + (c.empty() ? std::string() : " " + c) + "\n";
  out += ".version " + (m.version ? *m.version : required_version(m)).str() + "\n";
  out += ".target " + m.target.str() + "\n";
  out += ".address_size " + std::to_string(m.address_size) + "\n";
  for (const Entry& e : m.entries) {
    out += "\n.visible .entry " + e.name + "(";
    for (std::size_t k = 0; k < e.params.size(); ++k)
      out += std::string(k ? ",\n" : "\n") + "\t.param ." + std::string(name(e.params[k].type)) +
             " " + e.params[k].name;
    out += e.params.empty() ? ")\n" : "\n)\n";
    if (e.reqntid)
      out += ".reqntid " + std::to_string(*e.reqntid) + "\n";
    out += "{\n";
    for (std::size_t c = 0; c < reg_class_count; ++c) {
      auto cls = static_cast<RegClass>(c);
      std::uint32_t n = e.registers.count(cls);
      if (n == 0)
        continue;
      // `%r<N>` declares %r0..%r(N-1); registers are numbered from 1, so declare n+1.
      out += "\t.reg ." + std::string(name(declared_type(cls))) + " " + std::string(prefix(cls)) +
             "<" + std::to_string(n + 1) + ">;\n";
    }
    for (const SharedArray& s : e.shared)
      out += "\t.shared .align " + std::to_string(s.align) + " .b8 " + s.name + "[" +
             std::to_string(s.bytes) + "];\n";
    out += "\n";
    for (const Instruction& i : e.body)
      out += "\t" + print(i) + "\n";
    out += "}\n";
  }
  return out;
}

} // namespace ptxgen::ptx
