// Header fields that decide message framing and connection handling: Host, Content-Length,
// Transfer-Encoding, Connection, Expect, Upgrade (module-private).
#pragma once

#include <cstdint>
#include <string_view>

#include "http/h1/header.h"
#include "http/h1/limits.h"
#include "http/h1/parse_error.h"
#include "http/h1/request_head.h"

namespace slipstream::http::h1::detail {

/// What the fields seen so far say about framing. Filled by note_field, read by finish_head.
struct FieldState {
    std::uint64_t content_length = 0;
    std::string_view host;
    bool has_host = false;
    bool has_content_length = false;
    bool has_transfer_encoding = false;
    bool te_invalid = false;       // a Transfer-Encoding value that is not a valid coding list
    bool te_other = false;         // a coding other than chunked
    bool te_chunked_last = false;  // the last coding seen so far is chunked
    std::uint8_t te_codings = 0;   // codings seen, saturating
    std::uint8_t te_chunked = 0;   // "chunked" codings seen, saturating
    bool conn_close = false;
    bool conn_keep_alive = false;
    bool conn_upgrade = false;
    bool has_upgrade = false;
    bool expect_continue = false;
};

/// Records a field's meaning for framing. Returns the error to answer, or nullptr.
/// Errors found here: duplicate or invalid Host, duplicate or invalid Content-Length, invalid Connection.
/// `readable_end`: end of the bytes the field lies in (its CRLF included); a value may be scanned in 16-byte
/// steps up to it, since the byte ending the value (CR, SP or HTAB) stops the scan there.
const ParseError* note_field(const Header& field, const char* readable_end, FieldState& state);

/// After the empty line: fills out's host, body_kind, content_length, keep_alive, expect_continue and
/// upgrade from `state` and out->version. Returns the error to answer, or nullptr.
const ParseError* finish_head(const FieldState& state, const Limits& limits, RequestHead* out);

}  // namespace slipstream::http::h1::detail
