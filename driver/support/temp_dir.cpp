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

std::optional<TempDir> TempDir::create(std::string_view prefix, std::string& error) {
  return create_in(default_parent(), prefix, error);
}

std::optional<TempDir> TempDir::create_in(const fs::path& parent, std::string_view prefix,
                                          std::string& error) {
  std::string tmpl = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    int err = errno;
    error =
        "cannot create a temporary directory in '" + parent.string() + "': " + std::strerror(err);
    return std::nullopt;
  }
  return TempDir(fs::path(tmpl));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    std::string ignored;
    remove(ignored);
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() {
  std::string ignored;
  remove(ignored);
}

bool TempDir::remove(std::string& error) {
  if (path_.empty())
    return true;
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (ec) {
    error = "cannot remove temporary directory '" + path_.string() + "': " + ec.message();
    return false;
  }
  path_.clear();
  return true;
}

} // namespace ptxgen::driver
