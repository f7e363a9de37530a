#include "driver/cuda/wire.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ptxgen::driver::cuda {
namespace {

class Writer {
public:
  template <class T>
  void scalar(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    out_.append(p, sizeof value);
  }
  void text(std::string_view s) {
    scalar<std::uint64_t>(s.size());
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

class Reader {
public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  bool scalar(T& value) {
    if (in_.size() < sizeof value) {
      return false;
    }
    std::memcpy(&value, in_.data(), sizeof value);
    in_.remove_prefix(sizeof value);
    return true;
  }
  bool text(std::string& s) {
    std::uint64_t n = 0;
    if (!scalar(n) || in_.size() < n) {
      return false;
    }
    s.assign(in_.data(), static_cast<std::size_t>(n));
    in_.remove_prefix(static_cast<std::size_t>(n));
    return true;
  }
  bool at_end() const { return in_.empty(); }

private:
  std::string_view in_;
};

constexpr auto last_status = static_cast<std::uint8_t>(LaunchOutcome::Status::unavailable);

} // namespace

std::string encode_outcome(const LaunchOutcome& o) {
  Writer w;
  w.scalar(static_cast<std::uint8_t>(o.status));
  w.text(o.error_name);
  w.text(o.message);
  w.scalar<std::uint64_t>(o.buffers.size());
  for (const HostBuffer& b : o.buffers) {
    w.text(b.name);
    w.text(std::string_view(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size()));
  }
  w.scalar<std::uint64_t>(o.canary_reports.size());
  for (const std::string& r : o.canary_reports) {
    w.text(r);
  }
  w.scalar(o.registers);
  w.scalar(o.static_shared_bytes);
  w.scalar(o.load_ms);
  w.scalar(o.launch_ms);
  w.scalar(o.copy_ms);
  return w.take();
}

std::optional<LaunchOutcome> decode_outcome(std::string_view bytes) {
  Reader r(bytes);
  LaunchOutcome o;
  std::uint8_t status = 0;
  std::uint64_t count = 0;
  if (!r.scalar(status) || status > last_status || !r.text(o.error_name) || !r.text(o.message) ||
      !r.scalar(count)) {
    return std::nullopt;
  }
  o.status = static_cast<LaunchOutcome::Status>(status);
  for (std::uint64_t i = 0; i < count; ++i) {
    HostBuffer b;
    std::string data;
    if (!r.text(b.name) || !r.text(data)) {
      return std::nullopt;
    }
    b.bytes.assign(data.begin(), data.end());
    o.buffers.push_back(std::move(b));
  }
  if (!r.scalar(count)) {
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string report;
    if (!r.text(report)) {
      return std::nullopt;
    }
    o.canary_reports.push_back(std::move(report));
  }
  if (!r.scalar(o.registers) || !r.scalar(o.static_shared_bytes) || !r.scalar(o.load_ms) ||
      !r.scalar(o.launch_ms) || !r.scalar(o.copy_ms) || !r.at_end()) {
    return std::nullopt;
  }
  return o;
}

std::string encode_probe(const ProbeAnswer& a) {
  Writer w;
  w.scalar<std::uint8_t>(a.device ? 1 : 0);
  if (a.device) {
    w.scalar(a.device->ordinal);
    w.text(a.device->name);
    w.scalar(a.device->cc_major);
    w.scalar(a.device->cc_minor);
    w.scalar(a.device->driver_version);
    w.scalar<std::uint64_t>(a.device->total_memory);
    w.scalar(a.device->device_count);
  } else {
    w.text(a.why);
  }
  return w.take();
}

std::optional<ProbeAnswer> decode_probe(std::string_view bytes) {
  Reader r(bytes);
  ProbeAnswer a;
  std::uint8_t has = 0;
  if (!r.scalar(has) || has > 1) {
    return std::nullopt;
  }
  if (has == 1) {
    DeviceInfo d;
    std::uint64_t memory = 0;
    if (!r.scalar(d.ordinal) || !r.text(d.name) || !r.scalar(d.cc_major) || !r.scalar(d.cc_minor) ||
        !r.scalar(d.driver_version) || !r.scalar(memory) || !r.scalar(d.device_count)) {
      return std::nullopt;
    }
    d.total_memory = static_cast<std::size_t>(memory);
    a.device = std::move(d);
  } else if (!r.text(a.why)) {
    return std::nullopt;
  }
  if (!r.at_end()) {
    return std::nullopt;
  }
  return a;
}

} // namespace ptxgen::driver::cuda
