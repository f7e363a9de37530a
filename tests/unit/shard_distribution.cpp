// --shard and --devices (driver/run/shard.hpp): parsing, the test runners'
// environment protocol (TEST_SHARD_INDEX, TEST_TOTAL_SHARDS,
// TEST_SHARD_STATUS_FILE, XML_OUTPUT_FILE), and which items a shard holds.

#include "driver/run/conformance.hpp"
#include "driver/run/shard.hpp"
#include "driver/support/temp_dir.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_shard_distribution {

using namespace ptxgen::driver;
namespace fs = std::filesystem;

namespace {

/// An environment made of `vars` alone.
Environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  };
}

std::optional<Distribution> resolve(const std::string& shard, const std::string& devices,
                                    std::map<std::string, std::string> vars,
                                    DistributionError& error, const std::string& shard_count = "") {
  return resolve_distribution(DistributionFlags{shard, shard_count, devices},
                              env_of(std::move(vars)), error);
}

/// The environment of task `id` of `sbatch --array=MIN-MAX:STEP` as Slurm sets it.
std::map<std::string, std::string> slurm_task(unsigned id, unsigned min, unsigned max,
                                              unsigned step) {
  return {{"SLURM_ARRAY_TASK_ID", std::to_string(id)},
          {"SLURM_ARRAY_TASK_MIN", std::to_string(min)},
          {"SLURM_ARRAY_TASK_MAX", std::to_string(max)},
          {"SLURM_ARRAY_TASK_STEP", std::to_string(step)},
          {"SLURM_ARRAY_TASK_COUNT", std::to_string((max - min) / step + 1)}};
}

} // namespace

TEST_CASE("shard: INDEX/COUNT parses for every index below the count") {
  for (unsigned count : {1u, 2u, 7u, 1000u}) {
    for (unsigned index = 0; index<count; index += count> 10 ? 333 : 1) {
      auto s = parse_shard(std::to_string(index) + "/" + std::to_string(count));
      REQUIRE(s);
      CHECK(s->index == index);
      CHECK(s->count == count);
    }
  }
  auto s = parse_shard("3/4");
  REQUIRE(s);
  CHECK(str(*s) == "3/4");
  CHECK(sharded(*s));
  CHECK_FALSE(sharded(Shard{}));
}

TEST_CASE("shard: malformed INDEX/COUNT is refused with a reason") {
  for (const char* bad : {"",     "3",    "/4",    "3/",    "4/4",          "5/4",          "0/0",
                          "-1/4", "+1/4", "1/-4",  " 1/4",  "1/4 ",         "1//4",         "1/4/2",
                          "a/4",  "1/b",  "1.0/4", "0x1/4", "1/9999999999", "12345678901/2"}) {
    CAPTURE(bad);
    auto s = parse_shard(bad);
    CHECK_FALSE(s);
    CHECK_FALSE(s.error().empty());
  }
}

TEST_CASE("shard: the shards of a list cover it once, in near-equal parts") {
  for (unsigned count : {1u, 2u, 3u, 5u, 16u}) {
    const std::size_t items = 101;
    std::vector<int> owners(items, 0);
    for (unsigned index = 0; index < count; ++index) {
      std::size_t mine = 0;
      for (std::size_t i = 0; i < items; ++i)
        if (contains(Shard{index, count}, i)) {
          ++owners[i];
          ++mine;
        }
      // Round robin: each shard holds floor or ceil of items / count.
      CHECK(mine >= items / count);
      CHECK(mine <= (items + count - 1) / count);
    }
    for (std::size_t i = 0; i < items; ++i)
      CHECK(owners[i] == 1);
  }
  // By the protocol's definition, not by the code: item 7 of 3 shards is shard 1's.
  CHECK(contains(Shard{1, 3}, 7));
  CHECK_FALSE(contains(Shard{0, 3}, 7));
}

TEST_CASE("devices: 'all' or distinct ordinals") {
  auto all = parse_devices("all");
  REQUIRE(all);
  CHECK(all->all);
  CHECK(all->ordinals.empty());
  auto list = parse_devices("2,0,5");
  REQUIRE(list);
  CHECK_FALSE(list->all);
  CHECK(list->ordinals == std::vector<int>{2, 0, 5});
  auto one = parse_devices("1");
  REQUIRE(one);
  CHECK(one->ordinals == std::vector<int>{1});
  for (const char* bad :
       {"", "ALL", "all,0", "0,", ",0", "0,,1", "-1", "0,0", "1,2,1", "0 ,1", "x", "3000000000"}) {
    CAPTURE(bad);
    auto d = parse_devices(bad);
    CHECK_FALSE(d);
    CHECK_FALSE(d.error().empty());
  }
}

TEST_CASE("distribution: nothing given is the whole sweep on the default device") {
  DistributionError error;
  auto d = resolve("", "", {}, error);
  REQUIRE(d);
  CHECK(d->shard == Shard{});
  CHECK_FALSE(d->devices);
  CHECK(d->junit_output.empty());
  ConformanceOptions o;
  o.device = 3;
  apply_devices(*d, o);
  CHECK(o.devices.empty());
  CHECK_FALSE(o.all_devices);
  CHECK(o.device == 3);
}

TEST_CASE("distribution: the test runner's environment gives the shard") {
  DistributionError error;
  auto d = resolve("", "", {{"TEST_SHARD_INDEX", "2"}, {"TEST_TOTAL_SHARDS", "5"}}, error);
  REQUIRE(d);
  CHECK(d->shard == Shard{2, 5});
  // The flag alone, and the flag agreeing with the environment.
  d = resolve("1/3", "", {}, error);
  REQUIRE(d);
  CHECK(d->shard == Shard{1, 3});
  d = resolve("2/5", "", {{"TEST_SHARD_INDEX", "2"}, {"TEST_TOTAL_SHARDS", "5"}}, error);
  REQUIRE(d);
  CHECK(d->shard == Shard{2, 5});
}

TEST_CASE("distribution: a conflict or half the protocol is a usage error") {
  struct Case {
    const char* what;
    std::string flag;
    std::map<std::string, std::string> vars;
  };
  const Case cases[] = {
      {"flag differs from the environment",
       "1/5",
       {{"TEST_SHARD_INDEX", "2"}, {"TEST_TOTAL_SHARDS", "5"}}},
      {"same index, other count", "2/4", {{"TEST_SHARD_INDEX", "2"}, {"TEST_TOTAL_SHARDS", "5"}}},
      {"index without total", "", {{"TEST_SHARD_INDEX", "0"}}},
      {"total without index", "", {{"TEST_TOTAL_SHARDS", "2"}}},
      {"index past total", "", {{"TEST_SHARD_INDEX", "2"}, {"TEST_TOTAL_SHARDS", "2"}}},
      {"total zero", "", {{"TEST_SHARD_INDEX", "0"}, {"TEST_TOTAL_SHARDS", "0"}}},
      {"not a number", "", {{"TEST_SHARD_INDEX", "one"}, {"TEST_TOTAL_SHARDS", "2"}}},
      {"bad flag", "1-4", {}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    DistributionError error;
    error.kind = DistributionError::Kind::environment; // must be reset
    CHECK_FALSE(resolve(c.flag, "", c.vars, error));
    CHECK(error.kind == DistributionError::Kind::usage);
    CHECK_FALSE(error.message.empty());
  }
  DistributionError error;
  CHECK_FALSE(resolve("", "0,0", {}, error));
  CHECK(error.kind == DistributionError::Kind::usage);
}

TEST_CASE("distribution: a Slurm job array's tasks are the shards, once each") {
  // --array=1-16: task IDs 1..16 are shards 0..15 of 16; --array=0-30:2: IDs 0,2,..,30.
  for (auto [min, max, step] : {std::array<unsigned, 3>{1, 16, 1}, {0, 30, 2}, {5, 5, 1}}) {
    const unsigned count = (max - min) / step + 1;
    std::vector<int> seen(count, 0);
    for (unsigned id = min; id <= max; id += step) {
      DistributionError error;
      auto d = resolve("", "", slurm_task(id, min, max, step), error);
      REQUIRE_MESSAGE(d, error.message);
      CHECK(d->shard.count == count);
      REQUIRE(d->shard.index < count);
      ++seen[d->shard.index];
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(count));
  }
  DistributionError error;
  // Task 7 of --array=1-16 is shard 6/16; the flag may say the same.
  auto d = resolve("6/16", "", slurm_task(7, 1, 16, 1), error);
  REQUIRE(d);
  CHECK(d->shard == Shard{6, 16});
  // Without SLURM_ARRAY_TASK_COUNT (older Slurm), --shard-count gives the count.
  d = resolve("", "", {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"}}, error, "4");
  REQUIRE(d);
  CHECK(d->shard == Shard{3, 4});
}

TEST_CASE("distribution: a Kubernetes Indexed Job's index with --shard-count") {
  DistributionError error;
  auto d = resolve("", "", {{"JOB_COMPLETION_INDEX", "11"}}, error, "16");
  REQUIRE(d);
  CHECK(d->shard == Shard{11, 16});
  d = resolve("", "", {{"JOB_COMPLETION_INDEX", "0"}}, error, "1");
  REQUIRE(d);
  CHECK(d->shard == Shard{0, 1});
}

TEST_CASE("distribution: schedulers' mistakes are usage errors that say what to do") {
  struct Case {
    const char* what;
    std::string flag, count;
    std::map<std::string, std::string> vars;
    const char* says;
  };
  const Case cases[] = {
      {"k8s index without a count", "", "", {{"JOB_COMPLETION_INDEX", "3"}}, "--shard-count"},
      {"k8s index past the count", "", "3", {{"JOB_COMPLETION_INDEX", "3"}}, "below the count"},
      {"--shard-count with no scheduler", "", "4", {}, "--shard INDEX/COUNT"},
      {"--shard-count zero", "", "0", {{"JOB_COMPLETION_INDEX", "0"}}, "at least 1"},
      {"Slurm count and --shard-count differ", "", "8", slurm_task(2, 1, 16, 1), "differs"},
      {"a list array: ID off the step", "", "", slurm_task(4, 1, 9, 2), "--shard INDEX/COUNT"},
      {"Slurm ID below MIN", "", "", slurm_task(1, 2, 9, 1), "MIN"},
      {"Slurm and the flag differ", "0/16", "", slurm_task(2, 1, 16, 1), "differs"},
      {"Slurm and the test runner differ", "", "",
       [] {
         auto v = slurm_task(2, 1, 16, 1);
         v["TEST_SHARD_INDEX"] = "2";
         v["TEST_TOTAL_SHARDS"] = "16";
         return v;
       }(),
       "SLURM_ARRAY_TASK_ID=2"},
      {"not a number", "", "4", {{"JOB_COMPLETION_INDEX", "x"}}, "decimal"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    DistributionError error;
    CHECK_FALSE(resolve(c.flag, "", c.vars, error, c.count));
    CHECK(error.kind == DistributionError::Kind::usage);
    CHECK_MESSAGE(error.message.find(c.says) != std::string::npos, error.message);
  }
  // Two sources that agree are one shard.
  auto agree = slurm_task(3, 1, 16, 1);
  agree["TEST_SHARD_INDEX"] = "2";
  agree["TEST_TOTAL_SHARDS"] = "16";
  DistributionError error;
  auto d = resolve("", "", agree, error);
  REQUIRE(d);
  CHECK(d->shard == Shard{2, 16});
}

TEST_CASE("distribution: --devices reaches the conformance options") {
  DistributionError error;
  auto d = resolve("", "all", {}, error);
  REQUIRE(d);
  ConformanceOptions o;
  apply_devices(*d, o);
  CHECK(o.all_devices);
  d = resolve("", "1,0", {}, error);
  REQUIRE(d);
  ConformanceOptions p;
  apply_devices(*d, p);
  CHECK_FALSE(p.all_devices);
  CHECK(p.devices == std::vector<int>{1, 0});
}

TEST_CASE("distribution: XML_OUTPUT_FILE is where JUnit goes; the status file is touched") {
  auto dir = TempDir::create("ptxgen-shard-test");
  REQUIRE(dir);
  const fs::path status = dir->path() / "shard_status";
  DistributionError error;
  auto d = resolve("", "",
                   {{"TEST_SHARD_INDEX", "0"},
                    {"TEST_TOTAL_SHARDS", "2"},
                    {"TEST_SHARD_STATUS_FILE", status.string()},
                    {"XML_OUTPUT_FILE", "/some/where/test.xml"}},
                   error);
  REQUIRE(d);
  CHECK(d->junit_output == "/some/where/test.xml");
  REQUIRE(fs::exists(status));
  // Touched again: an existing file is kept (not truncated) and its time moves on.
  {
    std::ofstream f(status);
    f << "kept";
  }
  const auto before = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(status, before);
  d = resolve("", "", {{"TEST_SHARD_STATUS_FILE", status.string()}}, error);
  REQUIRE(d);
  CHECK(fs::last_write_time(status) > before);
  CHECK(fs::file_size(status) == 4);
  // A status file that cannot be made is the environment's failure.
  d = resolve("", "", {{"TEST_SHARD_STATUS_FILE", (dir->path() / "no" / "dir").string()}}, error);
  CHECK_FALSE(d);
  CHECK(error.kind == DistributionError::Kind::environment);
}

} // namespace unit_shard_distribution
