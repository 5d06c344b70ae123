// Content-coding tokens.
#include "http/compression/encoding.h"

namespace slipstream::http::compression {

std::string_view encoding_token(Encoding encoding) {
    switch (encoding) {
        case Encoding::kIdentity:
            return "identity";
        case Encoding::kGzip:
            return "gzip";
        case Encoding::kDeflate:
            return "deflate";
        case Encoding::kBrotli:
            return "br";
        case Encoding::kZstd:
            return "zstd";
    }
    return "identity";
}

bool ascii_iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

std::optional<Encoding> parse_encoding(std::string_view token) {
    for (Encoding e : kAllEncodings) {
        if (ascii_iequals(token, encoding_token(e))) return e;
    }
    if (ascii_iequals(token, "x-gzip")) return Encoding::kGzip;
    return std::nullopt;
}

}  // namespace slipstream::http::compression
