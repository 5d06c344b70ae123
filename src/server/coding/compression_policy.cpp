// Compression settings: coding list, media-type patterns, levels; the per-response eligibility test.
#include "server/coding/compression_policy.h"

#include <stdexcept>

#include "http/compression/encoder.h"

namespace slipstream::server {
namespace {

namespace hc = http::compression;

template <typename Fn>
void for_each_item(std::string_view list, Fn fn) {
    while (!list.empty()) {
        std::size_t cut = list.find(',');
        std::string_view item = hc::trim_ows(list.substr(0, cut));
        if (!item.empty()) fn(item);
        if (cut == std::string_view::npos) break;
        list.remove_prefix(cut + 1);
    }
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && hc::ascii_iequals(s.substr(0, prefix.size()), prefix);
}

bool iends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && hc::ascii_iequals(s.substr(s.size() - suffix.size()), suffix);
}

// Media types that are compressed already: compressing them again wastes CPU for nothing.
bool already_compressed(std::string_view type, std::string_view subtype) {
    if (hc::ascii_iequals(type, "image")) return !hc::ascii_iequals(subtype, "svg+xml");
    if (hc::ascii_iequals(type, "video") || hc::ascii_iequals(type, "audio")) return true;
    static constexpr std::string_view kCompressed[] = {
        "zip", "gzip",         "x-gzip", "zstd", "x-bzip2", "x-xz", "x-7z-compressed", "vnd.rar", "x-rar-compressed",
        "pdf", "octet-stream", "woff",   "woff2"};
    for (std::string_view c : kCompressed)
        if (hc::ascii_iequals(subtype, c)) return true;
    return false;
}

bool has_token(std::string_view list, std::string_view token) {
    bool found = false;
    for_each_item(list, [&](std::string_view item) { found = found || hc::ascii_iequals(item, token); });
    return found;
}

}  // namespace

std::string_view response_content_type(const Response& r) {
    if (!r.content_type.empty()) return r.content_type;
    const std::string* h = find_response_header(r, "content-type");
    return h == nullptr ? std::string_view() : std::string_view(*h);
}

const std::string* find_response_header(const Response& r, std::string_view name) {
    for (const auto& [n, v] : r.headers)
        if (hc::ascii_iequals(n, name)) return &v;
    return nullptr;
}

CompressionPolicy::CompressionPolicy(const ServerOptions& o) : min_size_(o.compression_min_size) {
    compress_sse_ = o.compress_sse;
    levels_[static_cast<int>(hc::Encoding::kGzip)] = static_cast<int>(o.gzip_level);
    levels_[static_cast<int>(hc::Encoding::kDeflate)] = static_cast<int>(o.gzip_level);
    levels_[static_cast<int>(hc::Encoding::kBrotli)] = static_cast<int>(o.brotli_level);
    levels_[static_cast<int>(hc::Encoding::kZstd)] = static_cast<int>(o.zstd_level);
    for (hc::Encoding e : {hc::Encoding::kGzip, hc::Encoding::kBrotli, hc::Encoding::kZstd}) {
        hc::LevelRange r = hc::level_range(e);
        if (level(e) < r.min || level(e) > r.max) {
            throw std::invalid_argument(std::string(e == hc::Encoding::kGzip     ? "gzip_level"
                                                    : e == hc::Encoding::kBrotli ? "brotli_level"
                                                                                 : "zstd_level") +
                                        ": " + std::to_string(level(e)) + " is outside " + std::to_string(r.min) +
                                        ".." + std::to_string(r.max));
        }
    }
    for_each_item(o.compression_encodings, [&](std::string_view token) {
        auto e = hc::parse_encoding(token);
        if (!e || *e == hc::Encoding::kIdentity) {
            throw std::invalid_argument("compression_encodings: unknown coding '" + std::string(token) +
                                        "' (expected gzip, br, zstd or deflate)");
        }
        for (hc::Encoding seen : encodings_)
            if (seen == *e) throw std::invalid_argument("compression_encodings: '" + std::string(token) + "' twice");
        encodings_.push_back(*e);
    });
    if (!o.compression) encodings_.clear();
    for_each_item(o.compression_types, [&](std::string_view item) {
        std::size_t slash = item.find('/');
        std::string_view type = item.substr(0, slash);
        std::string_view sub = slash == std::string_view::npos ? std::string_view() : item.substr(slash + 1);
        if (type.empty() || sub.empty() || type == "*" || sub.find('/') != std::string_view::npos) {
            throw std::invalid_argument("compression_types: '" + std::string(item) +
                                        "' is not a media type pattern (type/subtype, type/*, type/*+suffix)");
        }
        Pattern p{lower(type), lower(sub), ""};
        if (sub.size() > 2 && sub.substr(0, 2) == "*+") {
            p.subtype.clear();
            p.suffix = lower(sub.substr(1));
        }
        types_.push_back(std::move(p));
    });
}

int CompressionPolicy::level(hc::Encoding encoding) const {
    return levels_[static_cast<int>(encoding)];
}

bool CompressionPolicy::type_allowed(std::string_view content_type) const {
    std::string_view media = hc::trim_ows(content_type.substr(0, content_type.find(';')));
    std::size_t slash = media.find('/');
    if (slash == std::string_view::npos) return false;
    std::string_view type = media.substr(0, slash), sub = media.substr(slash + 1);
    if (already_compressed(type, sub)) return false;
    if (hc::ascii_iequals(type, "text") && hc::ascii_iequals(sub, "event-stream") && !compress_sse_) return false;
    for (const Pattern& p : types_) {
        if (!hc::ascii_iequals(type, p.type)) continue;
        if (p.subtype == "*") return true;
        if (!p.suffix.empty() ? iends_with(sub, p.suffix) : hc::ascii_iequals(sub, p.subtype)) return true;
    }
    return false;
}

bool CompressionPolicy::eligible(const Response& r) const {
    if (encodings_.empty()) return false;
    if (r.status < 200 || r.status == 204 || r.status == 206 || r.status == 304) return false;
    if (find_response_header(r, "content-encoding") != nullptr) return false;
    const std::string* cache = find_response_header(r, "cache-control");
    if (cache != nullptr && has_token(*cache, "no-transform")) return false;
    std::string_view type = response_content_type(r);
    return !type.empty() && type_allowed(type) && !istarts_with(type, "multipart/");
}

}  // namespace slipstream::server
