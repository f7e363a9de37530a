#include "driver/cli/target_options.hpp"

namespace ptxgen::cli {

bool parse_target_options(const std::string& target, const std::string& version,
                          lower::LowerOptions& options, std::string& error) {
  auto t = ptx::Target::parse(target);
  if (!t) {
    error = "--target expects sm_XX or sm_XXa (e.g. sm_80, sm_90a); got '" + target + "'";
    return false;
  }
  options.target = *t;
  if (!version.empty()) {
    auto v = ptx::PtxVersion::parse(version);
    if (!v) {
      error = "--ptx-version expects X.Y (e.g. 7.8); got '" + version + "'";
      return false;
    }
    options.version = *v;
  }
  return true;
}

} // namespace ptxgen::cli
