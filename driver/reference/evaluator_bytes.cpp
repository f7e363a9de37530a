// Moving bytes and their definedness between tensors, and stores into global tensors.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

void Evaluator::store_global(std::size_t op, std::int64_t bid, std::int64_t tid, const Buffer& b,
                             Run r, std::int64_t eb) {
  if (b.defined.empty()) {
    return; // every byte defined
  }
  const std::uint8_t* d = b.defined.data() + r.off;
  const auto* undefined = static_cast<const std::uint8_t*>(std::memchr(d, 0, r.len));
  if (undefined == nullptr) {
    return;
  }
  const std::int64_t first = undefined - d;
  if (eb > 0) {
    problems_.tag(first / eb * 2 + 1);
  }
  problems_.add(
      op, DiagId::check_uninitialised_to_global, "uninitialised shared bytes reach a global tensor",
      [&] {
        return where(bid, tid) + " writes byte " + std::to_string(r.off + first) + " of '" +
               b.name + "'";
      },
      Severity::error, std::count(undefined, d + r.len, std::uint8_t{0}));
}

void Evaluator::put_defined(Buffer& db, std::int64_t off, const std::uint8_t* src,
                            std::int64_t len) {
  if (!db.defined.empty()) {
    if (src == nullptr) {
      std::memset(&db.defined[off], 1, len);
    } else {
      std::memmove(&db.defined[off], src, len);
    }
    return;
  }
  if (src == nullptr || std::memchr(src, 0, len) == nullptr) {
    return;
  }
  db.defined.assign(static_cast<std::size_t>(db.size), 1);
  std::memmove(&db.defined[off], src, len);
}

void Evaluator::move_bytes(Buffer& db, const Runs& dst, const Buffer& sb, const Runs& src,
                           std::int64_t n) {
  // Without the values of one side (Buffer::holds_values), only the definedness moves.
  const bool values = db.holds_values() && sb.holds_values();
  if (dst.more.empty() && src.more.empty() && n == dst.first.len && n == src.first.len) {
    if (values) {
      copy_bytes(db.bytes.data() + dst.first.off, sb.bytes.data() + src.first.off, n);
    }
    put_defined(db, dst.first.off, defined_at(sb, src.first.off), n);
    return;
  }
  std::size_t si = 0;     // src run: 0 = first, i = more[i - 1]
  std::int64_t sdone = 0; // bytes of it used
  auto src_run = [&]() -> const Run& { return si == 0 ? src.first : src.more[si - 1]; };
  dst.each([&](Run r) {
    std::int64_t at = 0;
    while (at < r.len && n > 0) {
      while (sdone == src_run().len) {
        ++si;
        sdone = 0;
      }
      const Run& s = src_run();
      const std::int64_t k = std::min({r.len - at, s.len - sdone, n});
      if (values) {
        std::memmove(&db.bytes[r.off + at], &sb.bytes[s.off + sdone], k);
      }
      put_defined(db, r.off + at, defined_at(sb, s.off + sdone), k);
      at += k;
      sdone += k;
      n -= k;
    }
    if (at < r.len) {
      if (db.holds_values()) {
        std::memset(&db.bytes[r.off + at], 0, r.len - at);
      }
      put_defined(db, r.off + at, nullptr, r.len - at);
    }
  });
}

} // namespace ptxgen::driver::evaluation
