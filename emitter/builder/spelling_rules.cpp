// The spellings every door reads the same way: an element type's name, an apply's scope
// and the keys a table may hold. The TOML reader and the fuzz model hand the words they
// found here, so that a misspelling is refused with one DiagId and one message.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <array>

namespace ptxgen::build {

std::optional<tile::DType> Builder::dtype(std::string_view spelling, const At& at) {
  if (auto d = tile::parse_dtype(spelling))
    return d;
  error(DiagId::spec_unknown_dtype, at,
        "unknown dtype " + quoted(spelling) +
            tile::or_choices(tile::did_you_mean(spelling, tile::dtype_spellings()),
                             "; expected " + tile::dtype_choices()));
  return std::nullopt;
}

std::optional<tile::Scope> Builder::scope(std::string_view spelling, const At& at) {
  constexpr std::array<std::string_view, 2> scopes = {"thread", "cta"};
  if (spelling == scopes[0])
    return tile::Scope::thread;
  if (spelling == scopes[1])
    return tile::Scope::cta;
  error(DiagId::spec_unknown_scope, at,
        "scope must be \"thread\" or \"cta\"; got " + quoted(spelling) +
            tile::did_you_mean(spelling, scopes));
  return std::nullopt;
}

void Builder::unknown_key(std::string_view key, const At& at,
                          std::span<const std::string_view> allowed, std::string_view where) {
  std::string message;
  if (where.empty()) // the top level names its tables as they are written
    message = "unknown top-level key " + quoted(key) +
              tile::or_choices(tile::did_you_mean(key, allowed),
                               "; expected [kernel], [tensor.NAME], [param.NAME], [[op]] or "
                               "[[expect]]");
  else if (allowed.empty())
    message = "unknown key " + quoted(key) + " in " + std::string(where);
  else
    message =
        "unknown key " + quoted(key) + " in " + std::string(where) +
        tile::or_choices(tile::did_you_mean(key, allowed), "; expected one of: " + joined(allowed));
  error(DiagId::spec_unknown_key, at, std::move(message));
}

} // namespace ptxgen::build
