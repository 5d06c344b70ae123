// RequestChecks: the rules of RFC 9113 §8 that make an HTTP/2 request malformed, checked field by field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::http::h2::detail {

/// The pseudo-fields a request may carry, as indexes; kRegular for any other field.
enum class Pseudo : std::uint8_t { kMethod, kScheme, kAuthority, kPath, kProtocol, kRegular };

/// One stream's request checks, run by the session on each field as it is decoded. A false return means the request is
/// malformed: the stream is reset with PROTOCOL_ERROR (RFC 9113 §8.1.1). Names are checked as received: HTTP/2 field
/// names are lowercase.
/// - names: lowercase tokens; pseudo-fields known, single, before every regular field, none in trailers;
/// - values: no NUL, CR, LF or other control byte (HTAB excepted), no leading or trailing SP/HTAB; pseudo-field
///   values by their grammar (method a token, scheme per RFC 3986, authority characters, path visible bytes);
/// - connection-specific fields (connection, keep-alive, proxy-connection, transfer-encoding, upgrade) and a
///   TE other than "trailers" (§8.2.2); one content-length, all digits, matching the DATA received (§8.1.1);
/// - the header section: :method, :scheme and :path, and :authority or host; a CONNECT has :authority only
///   (§8.5), an extended CONNECT (:protocol, RFC 8441) all four; an http(s) :path is "/..." or "*" (OPTIONS).
class RequestChecks {
  public:
    /// A field of the request's header section; `*which` says which pseudo-field it is (or kRegular).
    bool field(std::string_view name, std::string_view value, Pseudo* which);
    /// A field of a trailer section.
    bool trailer_field(std::string_view name, std::string_view value);
    /// The header section has ended.
    bool head_complete();
    /// `n` more DATA bytes of the body.
    bool data(std::size_t n);
    /// The request ended (END_STREAM).
    bool end() const;

  private:
    bool regular_field(std::string_view name, std::string_view value);
    bool has(std::uint32_t flag) const { return (flags_ & flag) != 0; }

    std::uint32_t flags_ = 0;
    std::int64_t content_length_ = -1;  // -1: none declared
    std::uint64_t received_ = 0;        // DATA bytes so far
};

}  // namespace slipstream::http::h2::detail
