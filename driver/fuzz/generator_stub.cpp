// STUB of slice fuzz-gen's generator (see generator.hpp): deleted when it lands.
#include "driver/fuzz/generator.hpp"

namespace ptxgen::driver::fuzz {

namespace {

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const char* dtype(unsigned elem_size) {
  return elem_size == 1 ? "int8" : elem_size == 2 ? "float16" : "float32";
}

constexpr unsigned row_bytes = 32;

} // namespace

SpecModel generate(std::uint64_t seed, const GenOptions&) {
  SpecModel m;
  m.seed = seed;
  std::uint64_t s = seed;
  const unsigned blocks[] = {32, 64, 128};
  m.block = blocks[splitmix64(s) % 3];
  const unsigned groups = 1 + static_cast<unsigned>(splitmix64(s) % 3);
  for (unsigned g = 0; g < groups; ++g) {
    ModelOp op;
    op.cg = splitmix64(s) % 2 == 0;
    const unsigned chunks[] = {4, 8, 16};
    op.chunk = op.cg ? 16 : chunks[splitmix64(s) % 3];
    const unsigned sizes[] = {1, 2, 4};
    op.elem_size = sizes[splitmix64(s) % 3];
    m.ops.push_back(op);
  }
  return m;
}

std::string to_toml(const SpecModel& m) {
  std::string t = "# fuzz stub generator, seed " + std::to_string(m.seed) + "\n[kernel]\n" +
                  "name = \"fuzz_" + std::to_string(m.seed) +
                  "\"\ngrid = 1\nblock = " + std::to_string(m.block) + "\n";
  for (std::size_t g = 0; g < m.ops.size(); ++g) {
    const auto& op = m.ops[g];
    const std::string i = std::to_string(g);
    const std::string shape =
        "[" + std::to_string(m.block) + ", " + std::to_string(row_bytes / op.elem_size) + "]";
    const std::string dt = dtype(op.elem_size);
    t += "\n[tensor.A" + i + "]\nspace = \"global\"\nshape = " + shape + "\ndtype = \"" + dt +
         "\"\ninit = \"arange % 97\"\n";
    t += "\n[tensor.B" + i + "]\nspace = \"global\"\nshape = " + shape + "\ndtype = \"" + dt +
         "\"\noutput = true\n";
    t += "\n[tensor.S" + i + "]\nspace = \"shared\"\nshape = " + shape + "\ndtype = \"" + dt +
         "\"\n";
  }
  for (std::size_t g = 0; g < m.ops.size(); ++g) {
    const auto& op = m.ops[g];
    const std::string i = std::to_string(g);
    const std::string v = std::to_string(op.chunk / op.elem_size);
    t += std::string("\n[[op]]\nop = \"apply\"\nopcode = \"cp.async.") + (op.cg ? "cg" : "ca") +
         ".shared.global\"\ndst = 'S" + i + ".sub[tid, :].rearrange(\"(r v) -> r v\", v=" + v +
         ")'\nsrc = 'A" + i + ".sub[tid, :].rearrange(\"(r v) -> r v\", v=" + v +
         ")'\nchunk_bytes = " + std::to_string(op.chunk) + "\n";
  }
  t += "\n[[op]]\nop = \"commit_group\"\n\n[[op]]\nop = \"wait_group\"\nn = 0\n";
  for (std::size_t g = 0; g < m.ops.size(); ++g) {
    const std::string i = std::to_string(g);
    t += "\n[[op]]\nop = \"copy\"\ndst = \"B" + i + ".sub[tid, :]\"\nsrc = \"S" + i +
         ".sub[tid, :]\"\n";
  }
  return t;
}

std::size_t unit_count(const SpecModel& m) {
  return m.ops.size();
}

SpecModel keep_units(const SpecModel& m, const std::vector<bool>& keep) {
  SpecModel out = m;
  out.ops.clear();
  for (std::size_t i = 0; i < m.ops.size(); ++i)
    if (keep[i])
      out.ops.push_back(m.ops[i]);
  return out;
}

std::vector<SpecModel> simplifications(const SpecModel& m) {
  std::vector<SpecModel> out;
  if (m.block > 1) {
    out.push_back(m);
    out.back().block = m.block / 2;
  }
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops[i].cg) {
      out.push_back(m);
      out.back().ops[i].cg = false;
    }
    if (m.ops[i].chunk > m.ops[i].elem_size) {
      out.push_back(m);
      out.back().ops[i].chunk /= 2;
    }
    if (m.ops[i].elem_size > 1) {
      out.push_back(m);
      out.back().ops[i].elem_size /= 2;
    }
  }
  return out;
}

std::size_t complexity(const SpecModel& m) {
  std::size_t c = m.block;
  for (const auto& op : m.ops)
    c += 32 + (op.cg ? 8 : 0) + op.chunk + op.elem_size;
  return c;
}

std::vector<Mutant> mutants(const SpecModel&, std::uint64_t) {
  return {};
}

} // namespace ptxgen::driver::fuzz
