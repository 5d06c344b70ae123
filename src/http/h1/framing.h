// Header fields that decide message framing and connection handling: Host, Content-Length,
// Transfer-Encoding, Connection, Expect, Upgrade (module-private).
#pragma once

#include <cstdint>
#include <string_view>

#include "http/h1/char_class.h"
#include "http/h1/header.h"
#include "http/h1/limits.h"
#include "http/h1/parse_error.h"
#include "http/h1/request_head.h"

namespace slipstream::http::h1::detail {

/// What the fields seen so far say about framing. Filled by note_framing_field and
/// note_checked_host, read by finish_head.
struct FieldState {
    // Bits of `flags`: one word, so that finish_head tells the common head (a Host, perhaps a keep-alive) from the
    // rest with one compare.
    static constexpr std::uint16_t kHasHost = 1 << 0;
    static constexpr std::uint16_t kConnKeepAlive = 1 << 1;
    static constexpr std::uint16_t kHasContentLength = 1 << 2;
    static constexpr std::uint16_t kHasTransferEncoding = 1 << 3;
    static constexpr std::uint16_t kTeInvalid = 1 << 4;      // a Transfer-Encoding value that is not a coding list
    static constexpr std::uint16_t kTeOther = 1 << 5;        // a coding other than chunked
    static constexpr std::uint16_t kTeChunkedLast = 1 << 6;  // the last coding seen so far is chunked
    static constexpr std::uint16_t kConnClose = 1 << 7;
    static constexpr std::uint16_t kConnUpgrade = 1 << 8;
    static constexpr std::uint16_t kHasUpgrade = 1 << 9;
    static constexpr std::uint16_t kExpectContinue = 1 << 10;

    std::uint64_t content_length = 0;
    std::string_view host;
    std::uint16_t flags = 0;
    std::uint8_t te_codings = 0;  // codings seen, saturating
    std::uint8_t te_chunked = 0;  // "chunked" codings seen, saturating
};

/// The fields note_framing_field acts on.
enum class FramingField : std::uint8_t {
    kNone,
    kHost,
    kExpect,
    kUpgrade,
    kConnection,
    kContentLength,
    kTransferEncoding
};

/// Which framing field `name` (a non-empty token) is. Length and first letter first: most names are none of
/// these and leave before any compare.
inline FramingField classify_field(std::string_view name) {
    const unsigned first = static_cast<unsigned char>(name[0]) | 0x20;
    switch (name.size()) {
        case 4:
            if (first == 'h' && equals_lower(name, "host")) return FramingField::kHost;
            break;
        case 6:
            if (first == 'e' && equals_lower(name, "expect")) return FramingField::kExpect;
            break;
        case 7:
            if (first == 'u' && equals_lower(name, "upgrade")) return FramingField::kUpgrade;
            break;
        case 10:
            if (first == 'c' && equals_lower(name, "connection")) return FramingField::kConnection;
            break;
        case 14:
            if (first == 'c' && equals_lower(name, "content-length")) return FramingField::kContentLength;
            break;
        case 17:
            if (first == 't' && equals_lower(name, "transfer-encoding")) return FramingField::kTransferEncoding;
            break;
        default:
            break;
    }
    return FramingField::kNone;
}

/// Records the meaning of a framing field (`kind` is not kNone). Returns the error to answer, or nullptr.
/// Errors found here: duplicate or invalid Host, duplicate or invalid Content-Length, invalid Connection.
/// `readable_end`: end of the bytes the field lies in (its CRLF included); a value may be scanned in 16-byte
/// steps up to it, since the byte ending the value (CR, SP or HTAB) stops the scan there.
const ParseError* note_framing_field(FramingField kind, const Header& field, const char* readable_end,
                                     FieldState& state);

/// A Host value whose bytes are already known to be authority characters (kHostChar): only the repeat check.
inline const ParseError* note_checked_host(std::string_view value, FieldState& state) {
    if (state.flags & FieldState::kHasHost) return &errors::kDuplicateHost;
    state.flags |= FieldState::kHasHost;
    state.host = value;
    return nullptr;
}

/// finish_head for every head but the common one.
const ParseError* finish_other_head(const FieldState& state, const Limits& limits, RequestHead* out);

/// After the empty line: fills out's host, body_kind, content_length, keep_alive, expect_continue and
/// upgrade from `state` and out->version. Returns the error to answer, or nullptr.
inline const ParseError* finish_head(const FieldState& state, const Limits& limits, RequestHead* out) {
    if (out->version != Version::kHttp11 || (state.flags & ~FieldState::kConnKeepAlive) != FieldState::kHasHost) {
        return finish_other_head(state, limits, out);
    }
    // The common head: HTTP/1.1 with one Host and no other framing field but perhaps a keep-alive.
    if (out->target_form == TargetForm::kOrigin || out->target_form == TargetForm::kAsterisk) out->host = state.host;
    out->body_kind = BodyKind::kNone;
    out->content_length = 0;
    out->keep_alive = true;
    out->expect_continue = false;
    out->upgrade = false;
    return nullptr;
}

}  // namespace slipstream::http::h1::detail
