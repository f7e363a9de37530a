// An expectation side's indices and slice bounds stay inside their axes at every value of
// the parameters' declared ranges. Interval arithmetic over the ranges (tile::bounds, as
// the contract proves the ops' views) decides it for most sides; where the intervals do
// not, the values are tried: every combination of the parameters the side names when they
// are few (then the verdict is exact), else the ends of each range. A value found outside
// is named in the error; no value found and not every one tried is an error too (no proof).
#include "emitter/builder/builder.hpp"
#include "emitter/builder/expect_levels.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ptxgen::build {

namespace {

/// The most combinations of parameter values tried one by one for one side.
constexpr std::uint64_t max_tried_values = std::uint64_t{1} << 16;

/// small <= large (strict: small < large) for every value, by intervals.
bool proved(const tile::ExprPtr& small, const tile::ExprPtr& large, bool strict,
            const tile::LaunchBounds& launch) {
  const auto d = tile::bounds(*tile::make_binary(tile::ExprOp::sub, large, small), launch);
  return d && d->lo >= (strict ? 1 : 0);
}

bool proved(const ExpectEntry& p, const tile::LaunchBounds& launch) {
  const tile::ExprPtr zero = tile::make_constant(0);
  if (p.index)
    return proved(zero, p.index, false, launch) && proved(p.index, p.size, true, launch);
  return proved(zero, p.begin, false, launch) && proved(p.begin, p.end, false, launch) &&
         proved(p.end, p.size, false, launch);
}

void collect_params(const tile::Expr& e, std::set<std::string>& out) {
  if (e.kind == tile::ExprKind::param)
    out.insert(e.name);
  for (const tile::ExprPtr& a : e.args)
    collect_params(*a, out);
}

/// What is wrong with one entry at the values of `env`, or nothing.
std::optional<std::string> problem_at(const ExpectEntry& p, const tile::ExprEnv& env,
                                      const std::string& tensor) {
  const auto size = tile::evaluate(*p.size, env);
  const auto index = p.index ? tile::evaluate(*p.index, env) : std::optional<std::int64_t>(0);
  const auto begin = p.begin ? tile::evaluate(*p.begin, env) : std::optional<std::int64_t>(0);
  const auto end = p.end ? tile::evaluate(*p.end, env) : std::optional<std::int64_t>(0);
  if (!size || !index || !begin || !end)
    return std::string("does not evaluate (a division by zero or an overflow)");
  const std::string axis = "axis " + std::to_string(p.axis) + " (size " + std::to_string(*size) +
                           ") of " + tensor + "'s view";
  if (p.index && (*index < 0 || *index >= *size))
    return "is index " + std::to_string(*index) + ", outside " + axis;
  if (!p.index && (*begin < 0 || *begin > *end || *end > *size))
    return "is the slice " + std::to_string(*begin) + ":" + std::to_string(*end) + ", " +
           (*begin > *end ? "which ends before it begins, on " : "outside ") + axis +
           " (it needs 0 <= begin <= end <= " + std::to_string(*size) + ")";
  return std::nullopt;
}

/// The values of `names` to try, one vector per combination (in the order of `names`):
/// every one when at most max_tried_values, else each parameter at the two ends of its
/// range. `exhaustive` says which.
std::vector<std::vector<std::int64_t>> values_to_try(const std::vector<tile::Interval>& ranges,
                                                     bool& exhaustive) {
  long double count = 1;
  for (const tile::Interval& r : ranges)
    count *= static_cast<long double>(r.hi - r.lo) + 1;
  exhaustive = count <= static_cast<long double>(max_tried_values);
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> v;
  for (const tile::Interval& r : ranges)
    v.push_back(r.lo);
  while (true) {
    out.push_back(v);
    std::size_t i = 0;
    for (; i < v.size(); ++i) {
      const std::int64_t next = exhaustive ? v[i] + 1 : ranges[i].hi;
      if (v[i] < ranges[i].hi && next <= ranges[i].hi) {
        v[i] = next;
        break;
      }
      v[i] = ranges[i].lo;
    }
    if (i == v.size())
      return out;
  }
}

} // namespace

bool Builder::expect_bounds(const tile::View& v, const ExpectLevels& levels, const Text& at) {
  const std::vector<ExpectEntry>& entries = levels.entries;
  const tile::LaunchBounds launch = kernel_->launch_bounds();
  const auto unproved = std::find_if(entries.begin(), entries.end(),
                                     [&](const ExpectEntry& p) { return !proved(p, launch); });
  if (unproved == entries.end())
    return true;
  // The intervals do not decide: look for values at which an entry leaves its axis.
  std::set<std::string> named;
  for (const ExpectEntry& p : entries)
    for (const tile::ExprPtr& e : {p.size, p.index, p.begin, p.end})
      if (e)
        collect_params(*e, named);
  std::vector<std::string> names;
  std::vector<tile::Interval> ranges;
  for (const tile::ScalarParam& q : kernel_->params)
    if (named.count(q.name)) {
      names.push_back(q.name);
      ranges.push_back(launch.params.at(q.name));
    }
  bool exhaustive = false;
  tile::ExprEnv env = kernel_->env_for(0, 0);
  for (const std::vector<std::int64_t>& values : values_to_try(ranges, exhaustive)) {
    std::string at_values;
    for (std::size_t i = 0; i < names.size(); ++i) {
      env.params[names[i]] = values[i];
      at_values += (i ? ", " : "") + names[i] + " = " + std::to_string(values[i]);
    }
    for (const ExpectEntry& p : entries) {
      const auto wrong = problem_at(p, env, v.tensor->name);
      if (!wrong)
        continue;
      const std::string text = at.text.substr(p.entry->offset, p.entry->length);
      error_in(p.index ? DiagId::view_index_range : DiagId::view_slice_range, at, p.entry->offset,
               p.entry->length,
               "'" + text + "' " + *wrong + " at " + at_values +
                   "; an expectation's indices and slices must stay inside their axes at "
                   "every value of the parameters' declared ranges");
      return false;
    }
  }
  if (exhaustive)
    return true; // every combination tried: the intervals were only imprecise
  std::string over;
  for (std::size_t i = 0; i < names.size(); ++i)
    over += (i ? ", " : "") + names[i] + " in " + std::to_string(ranges[i].lo) + ".." +
            std::to_string(ranges[i].hi);
  const tile::SubEntry& e = *unproved->entry;
  error_in(unproved->index ? DiagId::view_index_range : DiagId::view_slice_range, at, e.offset,
           e.length,
           "cannot prove '" + at.text.substr(e.offset, e.length) + "' stays inside axis " +
               std::to_string(unproved->axis) + " of " + v.tensor->name +
               "'s view for every value of " + over +
               " (interval arithmetic does not decide it and the values are too many to try "
               "one by one); narrow the declared ranges");
  return false;
}

} // namespace ptxgen::build
