// How diagnostics name ops (tile::op_label): a written op by its number among the ops the
// user wrote, a pipeline counting as one; an op a pipeline expanded into by its role and
// the table it came from, never by a number the user did not write.
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/kernel.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_op_label {

namespace {

namespace tile = ptxgen::tile;

/// specs/pipeline/three_stage_runtime_k.toml with `[[op]] op = "cta_sync"` written before
/// and after its pipeline.
std::string pipeline_between_syncs() {
  std::ifstream in(PTXGEN_SOURCE_DIR "/specs/pipeline/three_stage_runtime_k.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  const auto expect = s.find("[[expect]]");
  REQUIRE(expect != std::string::npos);
  s.insert(expect, "[[op]]\nop = \"cta_sync\"\n\n");
  const auto pipeline = s.find("[[op]]");
  s.insert(pipeline, "[[op]]\nop = \"cta_sync\"\n\n");
  return s;
}

} // namespace

TEST_CASE("op_label: written ops by the user's numbers, expanded ops by their role") {
  auto k = ptxgen::driver::load_spec_text(pipeline_between_syncs(), "p.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  const tile::Kernel& kernel = **k;
  REQUIRE(kernel.ops.size() > 3);
  CHECK(tile::op_label(kernel, 0) == "op 1");
  // The user wrote three ops: cta_sync, pipeline, cta_sync.
  CHECK(tile::op_label(kernel, kernel.ops.size() - 1) == "op 3");
  bool prologue = false, wait = false, load = false, consumer = false;
  for (std::size_t i = 1; i + 1 < kernel.ops.size(); ++i) {
    const std::string label = tile::op_label(kernel, i);
    INFO(label);
    CHECK(label.rfind("the pipeline's ", 0) == 0);
    CHECK_FALSE(std::regex_search(label, std::regex("\\bop [0-9]")));
    prologue = prologue || label.rfind("the pipeline's prologue load of stage 1 ([[op.load]] at "
                                       "line ",
                                       0) == 0;
    wait =
        wait || label.rfind("the pipeline's steady-state wait_group 1 (pipeline at line ", 0) == 0;
    load = load || label.rfind("the pipeline's steady-state load ([[op.load]] at line ", 0) == 0;
    consumer =
        consumer || label.rfind("the pipeline's consumer copy ([[op.body]] at line ", 0) == 0;
  }
  CHECK(prologue);
  CHECK(wait);
  CHECK(load);
  CHECK(consumer);
}

} // namespace unit_op_label
