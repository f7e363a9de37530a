// TempDir: a private directory (mode 0700) under $TMPDIR or /tmp, removed
// with everything in it when its owner goes away.

#include "driver/support/temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_process_temp_dir {

namespace fs = std::filesystem;
using ptxgen::driver::TempDir;

namespace {

/// Sets an environment variable for one scope and restores it afterwards.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

} // namespace

TEST_CASE("a temp dir is private and is removed with its contents") {
  fs::path where;
  {
    auto dir = TempDir::create("ptxgen-test-tmp-");
    REQUIRE_MESSAGE(dir, dir.error());
    where = dir->path();
    CHECK(fs::is_directory(where));
    CHECK(where.filename().string().rfind("ptxgen-test-tmp-", 0) == 0);
    CHECK(where.filename().string().size() == std::string("ptxgen-test-tmp-").size() + 6);
    CHECK(fs::status(where).permissions() == fs::perms::owner_all);
    fs::create_directories(where / "a" / "b");
    std::ofstream(where / "a" / "b" / "file.txt") << "x";
    std::ofstream(where / "top.ptx") << "y";
  }
  CHECK_FALSE(fs::exists(where));
}

TEST_CASE("a temp dir goes under $TMPDIR when it is set") {
  auto parent = TempDir::create("ptxgen-test-parent-");
  REQUIRE(parent);
  {
    ScopedEnv env("TMPDIR", parent->path().string());
    CHECK(TempDir::default_parent() == parent->path());
    auto child = TempDir::create("child-");
    REQUIRE(child);
    CHECK(child->path().parent_path() == parent->path());
  }
  {
    ScopedEnv env("TMPDIR", "");
    CHECK(TempDir::default_parent() == fs::path("/tmp"));
  }
  CHECK(fs::is_empty(parent->path()));
}

TEST_CASE("moving a temp dir moves the duty to remove it") {
  auto made = TempDir::create("ptxgen-test-move-");
  REQUIRE(made);
  std::optional<TempDir> a(std::move(*made));
  fs::path where = a->path();
  std::optional<TempDir> b;
  {
    TempDir moved = std::move(*a);
    a.reset(); // the moved-from object must not remove the directory
    CHECK(fs::is_directory(where));
    CHECK(moved.path() == where);
    b.emplace(std::move(moved));
  }
  CHECK(fs::is_directory(where));
  b.reset();
  CHECK_FALSE(fs::exists(where));
}

TEST_CASE("remove() can be called early and reports success") {
  auto d = TempDir::create("ptxgen-test-remove-");
  REQUIRE(d);
  fs::path where = d->path();
  CHECK(d->remove());
  CHECK_FALSE(fs::exists(where));
  CHECK(d->remove()); // idempotent
}

TEST_CASE("a temp dir in a missing parent is an error naming the parent") {
  auto d = TempDir::create_in("/nonexistent-ptxgen-parent/x", "p-");
  CHECK_FALSE(d);
  CHECK(d.error() ==
        "cannot create a temporary directory in '/nonexistent-ptxgen-parent/x': No such "
        "file or directory");
}

} // namespace unit_driver_process_temp_dir
