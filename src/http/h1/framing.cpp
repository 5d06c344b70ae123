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
    if (s.flags & FieldState::kHasContentLength) return &errors::kDuplicateContentLength;
    s.flags |= FieldState::kHasContentLength;
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

void note_coding(bool chunked, bool has_parameters, FieldState& s) {
    if (s.te_codings < 255) ++s.te_codings;
    if (chunked) {
        if (has_parameters) s.flags |= FieldState::kTeInvalid;  // chunked defines no parameters
        if (s.te_chunked < 255) ++s.te_chunked;
        s.flags |= FieldState::kTeChunkedLast;
    } else {
        s.flags = static_cast<std::uint16_t>((s.flags | FieldState::kTeOther) & ~FieldState::kTeChunkedLast);
    }
}

// equals_lower is exact on field values too: no byte of a value (no CTL but HTAB) ORs 0x20 onto a letter, digit
// or '-' but that byte's own cases. So the usual one-item values skip the list parser.
void note_transfer_encoding(std::string_view value, FieldState& s) {
    s.flags |= FieldState::kHasTransferEncoding;
    if (equals_lower(value, "chunked")) {
        note_coding(true, false, s);
        return;
    }
    const bool ok = for_each_list_item(value, [&](std::string_view coding, bool has_parameters) {
        note_coding(equals_lower(coding, "chunked"), has_parameters, s);
    });
    if (!ok) s.flags |= FieldState::kTeInvalid;
}

std::uint16_t connection_option(std::string_view option) {
    if (equals_lower(option, "keep-alive")) return FieldState::kConnKeepAlive;
    if (equals_lower(option, "close")) return FieldState::kConnClose;
    if (equals_lower(option, "upgrade")) return FieldState::kConnUpgrade;
    return 0;
}

const ParseError* note_connection(std::string_view value, FieldState& s) {
    if (const std::uint16_t option = connection_option(value)) {  // one option, no list: the usual value
        s.flags |= option;
        return nullptr;
    }
    bool bad = false;
    const bool ok = for_each_list_item(value, [&](std::string_view option, bool has_parameters) {
        bad |= has_parameters;
        s.flags |= connection_option(option);
    });
    return ok && !bad ? nullptr : &errors::kBadHeaderValue;
}

const ParseError* note_host(std::string_view value, const char* readable_end, FieldState& s) {
    if (s.flags & FieldState::kHasHost) return &errors::kDuplicateHost;
    s.flags |= FieldState::kHasHost;
    s.host = value;
    // Scanned up to readable_end rather than the value's end, so that a short host (most are under 16 bytes)
    // takes the 16-byte step: the byte behind the value (CR, SP or HTAB) is no host byte and stops the scan
    // of a valid value exactly at its end.
    const char* end = value.data() + value.size();
    if (scan_class_fast<HostFast>(value.data(), readable_end, kHostChar) != end) return &errors::kBadHost;
    return nullptr;
}

}  // namespace

const ParseError* note_framing_field(FramingField kind, const Header& field, const char* readable_end, FieldState& s) {
    switch (kind) {
        case FramingField::kHost:
            return note_host(field.value, readable_end, s);
        case FramingField::kExpect:
            if (equals_lower(field.value, "100-continue")) s.flags |= FieldState::kExpectContinue;
            return nullptr;
        case FramingField::kUpgrade:
            s.flags |= FieldState::kHasUpgrade;
            return nullptr;
        case FramingField::kConnection:
            return note_connection(field.value, s);
        case FramingField::kContentLength:
            return note_content_length(field.value, s);
        case FramingField::kTransferEncoding:
            note_transfer_encoding(field.value, s);
            return nullptr;
        case FramingField::kNone:
            break;
    }
    return nullptr;
}

const ParseError* finish_other_head(const FieldState& s, const Limits& limits, RequestHead* out) {
    const bool http11 = out->version == Version::kHttp11;
    if (out->target_form == TargetForm::kOrigin || out->target_form == TargetForm::kAsterisk) out->host = s.host;
    const auto has = [&](std::uint16_t bit) { return (s.flags & bit) != 0; };
    if (http11 && !has(FieldState::kHasHost)) return &errors::kMissingHost;

    if (has(FieldState::kHasTransferEncoding)) {
        // RFC 9112 §6.1: HTTP/1.0 with Transfer-Encoding has faulty framing; §6.3: TE with CL is smuggling.
        if (!http11) return &errors::kTransferEncodingHttp10;
        if (has(FieldState::kHasContentLength)) return &errors::kLengthAndChunked;
        if (has(FieldState::kTeInvalid) || s.te_codings == 0 || s.te_chunked > 1) return &errors::kBadTransferEncoding;
        if (!has(FieldState::kTeChunkedLast)) return &errors::kChunkedNotFinal;
        // gzip etc. before chunked: not decoded here.
        if (has(FieldState::kTeOther)) return &errors::kUnsupportedTransferCoding;
        out->body_kind = BodyKind::kChunked;
        out->content_length = 0;
    } else if (has(FieldState::kHasContentLength)) {
        if (s.content_length > limits.max_body) return &errors::kBodyTooLarge;
        out->body_kind = BodyKind::kContentLength;
        out->content_length = s.content_length;
    } else {
        out->body_kind = BodyKind::kNone;
        out->content_length = 0;
    }
    const bool close = has(FieldState::kConnClose);
    out->keep_alive = http11 ? !close : (has(FieldState::kConnKeepAlive) && !close);
    out->expect_continue = http11 && has(FieldState::kExpectContinue);  // RFC 9110 §10.1.1: ignored for HTTP/1.0
    out->upgrade = http11 && has(FieldState::kConnUpgrade) && has(FieldState::kHasUpgrade);
    return nullptr;
}

}  // namespace slipstream::http::h1::detail
