// HTTP request methods as a closed enum, plus a bitmask set of them for the Allow header.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::server {

/// The methods the router knows by name; anything else parses to kOther (never registrable).
/// The enumerator order is the fixed order of the Allow header.
enum class Method : std::uint8_t {
    kGet = 0,
    kHead,
    kPost,
    kPut,
    kDelete,
    kPatch,
    kOptions,
    kTrace,
    kConnect,
    kOther,
};

/// Number of named methods (kGet..kConnect); kOther is not counted.
inline constexpr std::size_t kMethodCount = 9;

/// Parses a request method token, case-sensitively as RFC 9110 requires ("get" is kOther).
Method parse_method(std::string_view token);

/// The canonical token ("GET"); "OTHER" for kOther.
std::string_view method_name(Method method);

/// A set of named methods as a bitmask (kOther is never a member).
class MethodSet {
  public:
    constexpr MethodSet() = default;
    static constexpr MethodSet from_bits(std::uint16_t bits) { return MethodSet(bits & kAllBits); }

    constexpr bool contains(Method m) const { return m != Method::kOther && (bits_ & bit(m)) != 0; }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr void add(Method m) {
        if (m != Method::kOther) bits_ |= bit(m);
    }
    constexpr std::uint16_t bits() const { return bits_; }
    constexpr MethodSet operator|(MethodSet o) const { return MethodSet(bits_ | o.bits_); }
    constexpr MethodSet& operator|=(MethodSet o) {
        bits_ |= o.bits_;
        return *this;
    }
    constexpr bool operator==(const MethodSet&) const = default;

  private:
    static constexpr std::uint16_t kAllBits = (1u << kMethodCount) - 1;
    static constexpr std::uint16_t bit(Method m) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(m)); }
    constexpr explicit MethodSet(unsigned bits) : bits_(static_cast<std::uint16_t>(bits)) {}

    std::uint16_t bits_ = 0;
};

/// Big enough for the Allow value of the full set ("GET, HEAD, ..., CONNECT").
inline constexpr std::size_t kAllowBufferSize = 64;

/// Formats `set` as an Allow header value in enum order ("GET, HEAD, OPTIONS") into `buf`, without
/// allocating; returns a view into `buf` ("" for the empty set).
std::string_view format_allow(MethodSet set, std::array<char, kAllowBufferSize>& buf);

}  // namespace slipstream::server
