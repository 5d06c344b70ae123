// Response compression and request-body decoding on one I/O thread.
#include "server/coding/content_coding.h"

#include "base/log.h"
#include "http/compression/accept_encoding.h"
#include "http/compression/decoder.h"
#include "server/core/problem.h"

namespace slipstream::server {
namespace {

namespace hc = http::compression;
namespace h1 = http::h1;

constexpr std::size_t kMaxCodingLayers = 4;
constexpr std::string_view kDecodable = "gzip, br, zstd, deflate";

Response problem(int status, std::string_view detail) {
    Response r(status);
    r.body = problem_body({status, detail});
    r.content_type = ContentType::constant(kProblemContentType);
    return r;
}

bool list_has(std::string_view list, std::string_view token) {
    while (!list.empty()) {
        std::size_t cut = list.find(',');
        std::string_view item = hc::trim_ows(list.substr(0, cut));
        if (item == "*" || hc::ascii_iequals(item, token)) return true;
        if (cut == std::string_view::npos) break;
        list.remove_prefix(cut + 1);
    }
    return false;
}

// A strong validator names one representation: the compressed one is another (RFC 9110 §8.8.3).
void weaken_etag(Response& r) {
    for (auto& [name, value] : r.headers) {
        if (hc::ascii_iequals(name, "etag") && !value.empty() && value[0] == '"') value.insert(0, "W/");
    }
}

void set_encoding_headers(Response& r, hc::Encoding e) {
    r.headers.emplace_back("Content-Encoding", std::string(hc::encoding_token(e)));
    weaken_etag(r);
}

}  // namespace

void add_vary_accept_encoding(Response& r) {
    for (auto& [name, value] : r.headers) {
        if (!hc::ascii_iequals(name, "vary")) continue;
        if (list_has(value, "accept-encoding")) return;
        value += value.empty() ? "Accept-Encoding" : ", Accept-Encoding";
        return;
    }
    r.headers.emplace_back("Vary", "Accept-Encoding");
}

ContentCoding::ContentCoding(const ServerOptions& o, CodingMetrics& metrics)
    : policy_(o),
      metrics_(metrics),
      request_decompression_(o.request_decompression),
      max_decoded_(o.max_decompressed_body_bytes != 0 ? o.max_decompressed_body_bytes : o.max_body_bytes),
      max_ratio_(o.max_decompression_ratio) {
    for (hc::Encoding e : hc::kAllEncodings) {
        if (e == hc::Encoding::kIdentity) continue;
        auto i = static_cast<std::size_t>(e);
        compressed_[i] = &metrics_.compressed_responses.with({hc::encoding_token(e)});
        saved_[i] = &metrics_.saved_bytes.with({hc::encoding_token(e)});
        decoded_[i] = &metrics_.decoded_requests.with({hc::encoding_token(e)});
    }
}

hc::Encoding ContentCoding::negotiate(std::span<const h1::Header> request_headers) const {
    hc::AcceptEncoding accept;
    for (const h1::Header& h : request_headers)
        if (hc::ascii_iequals(h.name, "accept-encoding")) accept.add(h.value);
    return accept.choose(policy_.encodings());
}

hc::Encoder* ContentCoding::encoder_for(hc::Encoding e) {
    auto& slot = encoders_[static_cast<std::size_t>(e)];
    if (!slot) {
        base::Result<std::unique_ptr<hc::Encoder>> made = hc::Encoder::create(e, policy_.level(e));
        if (!made.is_ok()) {
            base::log_message(base::LogLevel::kError, "compression: " + made.status().to_string());
            return nullptr;
        }
        slot = std::move(made).value();
    }
    return slot.get();
}

void ContentCoding::count_compressed(hc::Encoding e, std::size_t before, std::size_t after) {
    compressed_[static_cast<std::size_t>(e)]->inc();
    if (after < before) saved_[static_cast<std::size_t>(e)]->inc(before - after);
}

void ContentCoding::compress_response(std::span<const h1::Header> request_headers, Response& r) {
    const std::string_view body = r.body_bytes();  // a static body too: only a compressed one replaces it
    if (body.size() < policy_.min_size() || !policy_.eligible(r)) return;
    add_vary_accept_encoding(r);
    hc::Encoding e = negotiate(request_headers);
    if (e == hc::Encoding::kIdentity) return;
    hc::Encoder* encoder = encoder_for(e);
    if (encoder == nullptr) return;
    std::string packed;
    if (!encoder->compress(body, packed).is_ok() || packed.size() >= body.size()) return;
    count_compressed(e, body.size(), packed.size());
    r.body = std::move(packed);
    r.static_body = {};
    set_encoding_headers(r, e);
}

std::unique_ptr<hc::Encoder> ContentCoding::start_stream(std::span<const h1::Header> request_headers, Response& head) {
    if (!policy_.eligible(head)) return nullptr;
    add_vary_accept_encoding(head);
    hc::Encoding e = negotiate(request_headers);
    if (e == hc::Encoding::kIdentity) return nullptr;
    base::Result<std::unique_ptr<hc::Encoder>> made = hc::Encoder::create(e, policy_.level(e));
    if (!made.is_ok()) return nullptr;
    compressed_[static_cast<std::size_t>(e)]->inc();
    set_encoding_headers(head, e);
    return std::move(made).value();
}

std::optional<Response> ContentCoding::decode_request_body(std::span<const h1::Header> request_headers,
                                                           std::string_view& body, std::string& storage) {
    // The codings applied, in order (RFC 9110 §8.4: listed in the order they were applied).
    hc::Encoding layers[kMaxCodingLayers];
    std::size_t count = 0;
    for (const h1::Header& h : request_headers) {
        if (h.name.size() != 16 || !hc::ascii_iequals(h.name, "content-encoding")) continue;
        std::string_view list = h.value;
        while (!list.empty()) {
            std::size_t cut = list.find(',');
            std::string_view token = hc::trim_ows(list.substr(0, cut));
            list = cut == std::string_view::npos ? std::string_view() : list.substr(cut + 1);
            if (token.empty() || hc::ascii_iequals(token, "identity")) continue;
            auto e = hc::parse_encoding(token);
            if (!e || !request_decompression_) {
                metrics_.rejected_requests.with({"unsupported"}).inc();
                Response r = problem(415, !e ? "unsupported Content-Encoding '" + std::string(token) +
                                                   "' (supported: gzip, br, zstd, deflate)"
                                             : std::string("compressed request bodies are not accepted"));
                r.headers.emplace_back("Accept-Encoding", request_decompression_ ? kDecodable : "identity");
                return r;
            }
            if (count == kMaxCodingLayers) {
                metrics_.rejected_requests.with({"malformed"}).inc();
                return problem(400, "too many content codings (at most 4)");
            }
            layers[count++] = *e;
        }
    }
    if (count == 0 || body.empty()) return std::nullopt;

    hc::DecodeLimits limits{.max_output = max_decoded_, .max_ratio = max_ratio_};
    std::string current;
    std::string_view input = body;
    for (std::size_t i = count; i-- > 0;) {
        base::Result<std::string> decoded = hc::decode(layers[i], input, limits);
        if (!decoded.is_ok()) {
            const base::Status& s = decoded.status();
            bool too_big = s.is_out_of_range();
            bool ratio = too_big && s.message().find("expands") != std::string::npos;
            metrics_.rejected_requests.with({ratio ? "ratio" : too_big ? "too_large" : "malformed"}).inc();
            return problem(
                too_big                   ? 413
                : s.is_invalid_argument() ? 400
                                          : 500,
                s.is_internal() || s.is_resource_exhausted() ? "the request body could not be decoded" : s.message());
        }
        current = std::move(decoded).value();
        input = current;
    }
    for (std::size_t i = 0; i < count; ++i)
        decoded_[static_cast<std::size_t>(layers[i])]->inc();
    storage = std::move(current);
    body = storage;
    return std::nullopt;
}

}  // namespace slipstream::server
