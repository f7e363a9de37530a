#include "driver/support/temp_dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <unistd.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

fs::path TempDir::default_parent() {
  const char* env = std::getenv("TMPDIR");
  if (env && *env)
    return fs::path(env);
  return fs::path("/tmp");
}

Fallible<TempDir> TempDir::create(std::string_view prefix) {
  return create_in(default_parent(), prefix);
}

Fallible<TempDir> TempDir::create_in(const fs::path& parent, std::string_view prefix) {
  std::string tmpl = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    int err = errno;
    return Failure{"cannot create a temporary directory in '" + parent.string() +
                   "': " + std::strerror(err)};
  }
  return TempDir(fs::path(tmpl));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    (void)remove(); // best effort, as in the destructor
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() {
  (void)remove(); // a destructor has no one to tell
}

Status TempDir::remove() {
  if (path_.empty())
    return {};
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (ec)
    return Failure{"cannot remove temporary directory '" + path_.string() + "': " + ec.message()};
  path_.clear();
  return {};
}

} // namespace ptxgen::driver
