// AcceptEncoding: a request's Accept-Encoding field (RFC 9110 §12.5.3) and the choice of a response coding.
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "http/compression/encoding.h"

namespace slipstream::http::compression {

/// The weights a client gave each known coding, in thousandths (q=0.5 is 500). Built from every
/// Accept-Encoding line of a request; malformed elements (bad q-value, empty token) are skipped, unknown
/// codings are ignored. Rules (RFC 9110 §12.5.3):
///  - a listed coding has its q (default 1); `*` gives its q to every coding not listed;
///  - identity is acceptable unless refused by `identity;q=0` or by `*;q=0` without an identity entry;
///    when it is not listed it is the last choice (any listed coding with q > 0 is preferred);
///  - no Accept-Encoding field at all: identity (common practice; RFC allows anything).
class AcceptEncoding {
  public:
    /// Parses one field value. Call once per Accept-Encoding line (the lines form one list).
    void add(std::string_view field_value);

    /// True once add() was called (the field was present, even when empty).
    bool present() const { return present_; }
    /// The client's weight for `e` in 0..1000, applying `*`. Identity not listed (nor via `*`) gives 1000.
    int weight(Encoding e) const;
    /// True when identity is explicitly unacceptable.
    bool identity_refused() const;

    /// The best coding of `offered` (the server's preference order: earlier wins ties). Returns kIdentity
    /// when no offered coding is acceptable, or when the client weighs identity above all of them.
    Encoding choose(std::span<const Encoding> offered) const;

  private:
    static constexpr int kUnlisted = -1;
    std::array<int, kEncodingCount> weights_{kUnlisted, kUnlisted, kUnlisted, kUnlisted, kUnlisted};
    int star_ = kUnlisted;
    bool present_ = false;
};

/// Parses a qvalue ("0", "0.5", "1", "1.000") into thousandths; -1 when malformed (RFC 9110 §12.4.2).
int parse_qvalue(std::string_view text);

}  // namespace slipstream::http::compression
