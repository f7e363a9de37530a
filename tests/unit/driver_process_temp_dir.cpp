// TempDir: a private directory (mode 0700) under $TMPDIR or /tmp, removed
// with everything in it when its owner goes away.

#include "driver/support/temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <doctest/doctest.h>

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
  std::string error;
  fs::path where;
  {
    auto dir = TempDir::create("ptxgen-test-tmp-", error);
    REQUIRE_MESSAGE(dir.has_value(), error);
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
  std::string error;
  auto parent = TempDir::create("ptxgen-test-parent-", error);
  REQUIRE(parent.has_value());
  {
    ScopedEnv env("TMPDIR", parent->path().string());
    CHECK(TempDir::default_parent() == parent->path());
    auto child = TempDir::create("child-", error);
    REQUIRE(child.has_value());
    CHECK(child->path().parent_path() == parent->path());
  }
  {
    ScopedEnv env("TMPDIR", "");
    CHECK(TempDir::default_parent() == fs::path("/tmp"));
  }
  CHECK(fs::is_empty(parent->path()));
}

TEST_CASE("moving a temp dir moves the duty to remove it") {
  std::string error;
  auto a = TempDir::create("ptxgen-test-move-", error);
  REQUIRE(a.has_value());
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
  std::string error;
  auto d = TempDir::create("ptxgen-test-remove-", error);
  REQUIRE(d.has_value());
  fs::path where = d->path();
  CHECK(d->remove(error));
  CHECK_FALSE(fs::exists(where));
  CHECK(d->remove(error)); // idempotent
}

TEST_CASE("a temp dir in a missing parent is an error naming the parent") {
  std::string error;
  auto d = TempDir::create_in("/nonexistent-ptxgen-parent/x", "p-", error);
  CHECK_FALSE(d.has_value());
  CHECK(error == "cannot create a temporary directory in '/nonexistent-ptxgen-parent/x': No such "
                 "file or directory");
}
