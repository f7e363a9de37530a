#include "driver/cli/target_options.hpp"

namespace ptxgen::cli {

Status parse_target_options(const std::string& target, const std::string& version,
                            bool target_defaulted, lower::LowerOptions& options) {
  auto t = ptx::Target::parse(target);
  if (!t)
    return Failure{"--target expects sm_XX or sm_XXa (e.g. sm_80, sm_90a); got '" + target + "'"};
  options.target = *t;
  options.raise_target = target_defaulted;
  if (!version.empty()) {
    auto v = ptx::PtxVersion::parse(version);
    if (!v)
      return Failure{"--ptx-version expects X.Y (e.g. 7.8); got '" + version + "'"};
    options.version = *v;
  }
  return {};
}

} // namespace ptxgen::cli
