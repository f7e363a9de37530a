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
  bool bytes(std::vector<std::uint8_t>& v) {
    std::string s;
    if (!text(s)) {
      return false;
    }
    v.assign(s.begin(), s.end());
    return true;
  }
  bool at_end() const { return in_.empty(); }

private:
  std::string_view in_;
};

constexpr auto last_status = static_cast<std::uint8_t>(LaunchOutcome::Status::unavailable);
constexpr auto last_param_kind = static_cast<std::uint8_t>(KernelParam::Kind::tensor_map);

std::string_view as_text(const std::vector<std::uint8_t>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size()};
}

void write_dims(Writer& w, const LaunchDims& d) {
  w.scalar(d.x);
  w.scalar(d.y);
  w.scalar(d.z);
}

bool read_dims(Reader& r, LaunchDims& d) {
  return r.scalar(d.x) && r.scalar(d.y) && r.scalar(d.z);
}

void write_buffers(Writer& w, const std::vector<HostBuffer>& buffers) {
  w.scalar<std::uint64_t>(buffers.size());
  for (const HostBuffer& b : buffers) {
    w.text(b.name);
    w.text(as_text(b.bytes));
  }
}

bool read_buffers(Reader& r, std::vector<HostBuffer>& buffers) {
  std::uint64_t count = 0;
  if (!r.scalar(count)) {
    return false;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    HostBuffer b;
    if (!r.text(b.name) || !r.bytes(b.bytes)) {
      return false;
    }
    buffers.push_back(std::move(b));
  }
  return true;
}

void write_ints(Writer& w, const std::vector<std::int64_t>& v) {
  w.scalar<std::uint64_t>(v.size());
  for (std::int64_t x : v)
    w.scalar(x);
}

bool read_ints(Reader& r, std::vector<std::int64_t>& v) {
  std::uint64_t n = 0;
  if (!r.scalar(n) || n > tile::kTensorMapMaxRank)
    return false;
  v.resize(static_cast<std::size_t>(n));
  for (std::int64_t& x : v)
    if (!r.scalar(x))
      return false;
  return true;
}

/// An enum as one byte; reading refuses a byte past `last`.
template <class E>
void write_enum(Writer& w, E e) {
  w.scalar(static_cast<std::uint8_t>(e));
}

template <class E>
bool read_enum(Reader& r, E& e, E last) {
  std::uint8_t b = 0;
  if (!r.scalar(b) || b > static_cast<std::uint8_t>(last))
    return false;
  e = static_cast<E>(b);
  return true;
}

void write_map(Writer& w, const tile::TensorMapDesc& m) {
  w.text(m.tensor);
  write_enum(w, m.dtype);
  w.scalar(m.global_align);
  write_ints(w, m.global_dims);
  write_ints(w, m.global_strides);
  write_ints(w, m.box_dims);
  write_ints(w, m.element_strides);
  write_enum(w, m.swizzle);
  write_enum(w, m.interleave);
  write_enum(w, m.oob_fill);
  write_enum(w, m.l2_promotion);
  write_enum(w, m.mode);
  write_ints(w, m.im2col.lower_corner);
  write_ints(w, m.im2col.upper_corner);
  w.scalar(m.im2col.channels);
  w.scalar(m.im2col.pixels);
}

bool read_map(Reader& r, tile::TensorMapDesc& m) {
  return r.text(m.tensor) && read_enum(r, m.dtype, tile::DType::b64) && r.scalar(m.global_align) &&
         read_ints(r, m.global_dims) && read_ints(r, m.global_strides) &&
         read_ints(r, m.box_dims) && read_ints(r, m.element_strides) &&
         read_enum(r, m.swizzle, tile::TensorMapSwizzle::b128) &&
         read_enum(r, m.interleave, tile::TensorMapInterleave::none) &&
         read_enum(r, m.oob_fill, tile::TensorMapOobFill::nan) &&
         read_enum(r, m.l2_promotion, tile::TensorMapL2Promotion::b256) &&
         read_enum(r, m.mode, tile::TensorMapMode::im2col) && read_ints(r, m.im2col.lower_corner) &&
         read_ints(r, m.im2col.upper_corner) && r.scalar(m.im2col.channels) &&
         r.scalar(m.im2col.pixels);
}

} // namespace

std::string encode_outcome(const LaunchOutcome& o) {
  Writer w;
  w.scalar(static_cast<std::uint8_t>(o.status));
  w.text(o.error_name);
  w.text(o.message);
  write_buffers(w, o.buffers);
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
      !read_buffers(r, o.buffers) || !r.scalar(count)) {
    return std::nullopt;
  }
  o.status = static_cast<LaunchOutcome::Status>(status);
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

std::string encode_request(const LaunchRequest& q) {
  Writer w;
  w.text(q.case_name);
  w.text(as_text(q.cubin));
  w.text(q.ptx);
  w.text(q.entry);
  write_dims(w, q.grid);
  write_dims(w, q.block);
  w.scalar(q.dynamic_shared_bytes);
  write_dims(w, q.cluster);
  w.scalar(static_cast<std::uint8_t>(q.cluster_non_portable));
  write_buffers(w, q.buffers);
  w.scalar<std::uint64_t>(q.params.size());
  for (const KernelParam& p : q.params) {
    w.scalar(static_cast<std::uint8_t>(p.kind));
    w.scalar<std::uint64_t>(p.buffer_index);
    w.scalar(p.value);
    if (p.kind == KernelParam::Kind::tensor_map)
      write_map(w, p.map.value_or(tile::TensorMapDesc{}));
  }
  w.scalar<std::int64_t>(q.timeout.count());
  w.scalar<std::uint64_t>(q.guard_bytes);
  return w.take();
}

std::optional<LaunchRequest> decode_request(std::string_view bytes) {
  Reader r(bytes);
  LaunchRequest q;
  std::uint64_t count = 0;
  std::uint8_t non_portable = 0;
  if (!r.text(q.case_name) || !r.bytes(q.cubin) || !r.text(q.ptx) || !r.text(q.entry) ||
      !read_dims(r, q.grid) || !read_dims(r, q.block) || !r.scalar(q.dynamic_shared_bytes) ||
      !read_dims(r, q.cluster) || !r.scalar(non_portable) || non_portable > 1 ||
      !read_buffers(r, q.buffers) || !r.scalar(count)) {
    return std::nullopt;
  }
  q.cluster_non_portable = non_portable != 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    KernelParam p;
    std::uint8_t kind = 0;
    std::uint64_t index = 0;
    if (!r.scalar(kind) || kind > last_param_kind || !r.scalar(index) || !r.scalar(p.value)) {
      return std::nullopt;
    }
    p.kind = static_cast<KernelParam::Kind>(kind);
    p.buffer_index = static_cast<std::size_t>(index);
    if (p.kind == KernelParam::Kind::tensor_map && !read_map(r, p.map.emplace()))
      return std::nullopt;
    q.params.push_back(std::move(p));
  }
  std::int64_t timeout_ms = 0;
  std::uint64_t guard = 0;
  if (!r.scalar(timeout_ms) || !r.scalar(guard) || !r.at_end()) {
    return std::nullopt;
  }
  q.timeout = std::chrono::milliseconds(timeout_ms);
  q.guard_bytes = static_cast<std::size_t>(guard);
  return q;
}

std::string encode_requests(const std::vector<LaunchRequest>& requests) {
  Writer w;
  for (const LaunchRequest& q : requests) {
    w.text(encode_request(q));
  }
  return w.take();
}

std::optional<std::vector<LaunchRequest>> decode_requests(std::string_view bytes) {
  Reader r(bytes);
  std::vector<LaunchRequest> out;
  while (!r.at_end()) {
    std::string one;
    if (!r.text(one)) {
      return std::nullopt;
    }
    auto q = decode_request(one);
    if (!q) {
      return std::nullopt;
    }
    out.push_back(std::move(*q));
  }
  return out;
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
