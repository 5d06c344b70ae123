// Framing fields: Content-Length and Transfer-Encoding validation, Connection options, Host, Expect, Upgrade.
#include "http/h1/framing.h"

#include "http/h1/char_class.h"
#include "http/h1/simd_scan.h"

namespace slipstream::http::h1::detail {
namespace {

bool is_ows(char c) {
    return c == ' ' || c == '\t';
}

const char* skip_ows(const char* p, const char* end) {
    while (p < end && is_ows(*p))
        ++p;
    return p;
}

const char* scan_token(const char* p, const char* end) {
    return scan_class(p, end, kTchar);
}

// quoted-string (RFC 9110 §5.6.4) starting at the opening quote; returns one past the closing quote, or nullptr.
const char* scan_quoted(const char* p, const char* end) {
    for (++p; p < end; ++p) {
        if (*p == '"') return p + 1;
        if (*p == '\\') {
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ): exactly the field-value bytes.
            if (++p == end || !has_class(*p, kFieldChar)) return nullptr;
        } else if (!has_class(*p, kQdtext)) {
            return nullptr;
        }
    }
    return nullptr;
}

// A comma-separated list of `token *( OWS ";" OWS token "=" ( token / quoted-string ) )` elements (RFC 9110
// §5.6.1, empty elements allowed). Calls on_item(name, has_parameters) per element; false on bad syntax.
template <typename F>
bool for_each_list_item(std::string_view value, F&& on_item) {
    const char* p = value.data();
    const char* const end = p + value.size();
    for (;;) {
        while (p < end && (is_ows(*p) || *p == ','))
            ++p;
        if (p == end) return true;
        const char* name = p;
        p = scan_token(p, end);
        if (p == name) return false;
        std::string_view item(name, static_cast<std::size_t>(p - name));
        p = skip_ows(p, end);
        bool has_parameters = false;
        while (p < end && *p == ';') {
            has_parameters = true;
            p = skip_ows(p + 1, end);
            const char* param = p;
            p = scan_token(p, end);
            if (p == param || p == end || *p != '=') return false;
            ++p;
            if (p < end && *p == '"') {
                p = scan_quoted(p, end);
                if (p == nullptr) return false;
            } else {
                const char* v = p;
                p = scan_token(p, end);
                if (p == v) return false;
            }
            p = skip_ows(p, end);
        }
        on_item(item, has_parameters);
        if (p == end) return true;
        if (*p != ',') return false;
    }
}

const ParseError* note_content_length(std::string_view value, FieldState& s) {
    if (s.has_content_length) return &errors::kDuplicateContentLength;
    s.has_content_length = true;
    if (value.empty()) return &errors::kBadContentLength;
    std::uint64_t n = 0;
    for (char c : value) {
        if (!is_digit(static_cast<unsigned char>(c))) return &errors::kBadContentLength;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (n > (UINT64_MAX - digit) / 10) return &errors::kBadContentLength;
        n = n * 10 + digit;
    }
    s.content_length = n;
    return nullptr;
}

void note_transfer_encoding(std::string_view value, FieldState& s) {
    s.has_transfer_encoding = true;
    const bool ok = for_each_list_item(value, [&](std::string_view coding, bool has_parameters) {
        if (s.te_codings < 255) ++s.te_codings;
        if (equals_lower(coding, "chunked")) {
            if (has_parameters) s.te_invalid = true;  // chunked defines no parameters
            if (s.te_chunked < 255) ++s.te_chunked;
            s.te_chunked_last = true;
        } else {
            s.te_other = true;
            s.te_chunked_last = false;
        }
    });
    if (!ok) s.te_invalid = true;
}

const ParseError* note_connection(std::string_view value, FieldState& s) {
    bool bad = false;
    const bool ok = for_each_list_item(value, [&](std::string_view option, bool has_parameters) {
        bad |= has_parameters;
        if (equals_lower(option, "close")) {
            s.conn_close = true;
        } else if (equals_lower(option, "keep-alive")) {
            s.conn_keep_alive = true;
        } else if (equals_lower(option, "upgrade")) {
            s.conn_upgrade = true;
        }
    });
    return ok && !bad ? nullptr : &errors::kBadHeaderValue;
}

const ParseError* note_host(std::string_view value, const char* readable_end, FieldState& s) {
    if (s.has_host) return &errors::kDuplicateHost;
    s.has_host = true;
    s.host = value;
    // Scanned up to readable_end rather than the value's end, so that a short host (most are under 16 bytes)
    // takes the 16-byte step: the byte behind the value (CR, SP or HTAB) is no host byte and stops the scan
    // of a valid value exactly at its end.
    const char* end = value.data() + value.size();
    if (scan_class_fast<HostFast>(value.data(), readable_end, kHostChar) != end) return &errors::kBadHost;
    return nullptr;
}

}  // namespace

const ParseError* note_field(const Header& field, const char* readable_end, FieldState& s) {
    const std::string_view name = field.name;
    // Dispatch on length first: most fields are none of these and leave after one switch.
    switch (name.size()) {
        case 4:
            if (equals_lower(name, "host")) return note_host(field.value, readable_end, s);
            break;
        case 6:
            if (equals_lower(name, "expect") && equals_lower(field.value, "100-continue")) s.expect_continue = true;
            break;
        case 7:
            if (equals_lower(name, "upgrade")) s.has_upgrade = true;
            break;
        case 10:
            if (equals_lower(name, "connection")) return note_connection(field.value, s);
            break;
        case 14:
            if (equals_lower(name, "content-length")) return note_content_length(field.value, s);
            break;
        case 17:
            if (equals_lower(name, "transfer-encoding")) note_transfer_encoding(field.value, s);
            break;
        default:
            break;
    }
    return nullptr;
}

const ParseError* finish_head(const FieldState& s, const Limits& limits, RequestHead* out) {
    const bool http11 = out->version == Version::kHttp11;
    if (http11 && !s.has_host) return &errors::kMissingHost;
    if (out->target_form == TargetForm::kOrigin || out->target_form == TargetForm::kAsterisk) out->host = s.host;

    if (s.has_transfer_encoding) {
        // RFC 9112 §6.1: HTTP/1.0 with Transfer-Encoding has faulty framing; §6.3: TE with CL is smuggling.
        if (!http11) return &errors::kTransferEncodingHttp10;
        if (s.has_content_length) return &errors::kLengthAndChunked;
        if (s.te_invalid || s.te_codings == 0 || s.te_chunked > 1) return &errors::kBadTransferEncoding;
        if (!s.te_chunked_last) return &errors::kChunkedNotFinal;
        if (s.te_other) return &errors::kUnsupportedTransferCoding;  // gzip etc. before chunked: not decoded here
        out->body_kind = BodyKind::kChunked;
        out->content_length = 0;
    } else if (s.has_content_length) {
        if (s.content_length > limits.max_body) return &errors::kBodyTooLarge;
        out->body_kind = BodyKind::kContentLength;
        out->content_length = s.content_length;
    } else {
        out->body_kind = BodyKind::kNone;
        out->content_length = 0;
    }
    out->keep_alive = http11 ? !s.conn_close : (s.conn_keep_alive && !s.conn_close);
    out->expect_continue = http11 && s.expect_continue;  // RFC 9110 §10.1.1: ignored for HTTP/1.0
    out->upgrade = http11 && s.conn_upgrade && s.has_upgrade;
    return nullptr;
}

}  // namespace slipstream::http::h1::detail
