// HTTP/1.1 response encoding.
#include "server/response_encoder.h"

#include <span>
#include <vector>

#include "http/h1/header.h"
#include "http/h1/serializer.h"

namespace slipstream::server {
namespace {

namespace h1 = http::h1;

bool fields_valid(const Response& r) {
    if (!r.content_type.empty() && !h1::is_valid_field_value(r.content_type)) return false;
    for (const auto& [name, value] : r.headers) {
        if (!h1::validate_field(name, value).is_ok() || h1::is_framing_field(name)) return false;
    }
    return true;
}

// Writes the head through the h1 serializer into a string the body may follow. Returns the framing used.
h1::WrittenHead write_head(const Response& r, const EncodeContext& ctx, h1::ResponseFraming framing,
                           std::uint64_t length, std::string& out, std::size_t body_reserve) {
    constexpr std::size_t kInlineFields = 16;
    h1::Header inline_fields[kInlineFields];
    std::vector<h1::Header> many;
    std::size_t n = r.headers.size() + 2;
    h1::Header* fields = n <= kInlineFields ? inline_fields : (many.resize(n), many.data());
    std::size_t count = 0;
    if (!r.content_type.empty()) fields[count++] = {"Content-Type", r.content_type};
    if (!ctx.request_id.empty()) fields[count++] = {"X-Request-ID", ctx.request_id};
    for (const auto& [name, value] : r.headers)
        fields[count++] = {name, value};

    h1::ResponseHead head;
    head.status = r.status;
    head.headers = {fields, count};
    head.framing = framing;
    head.content_length = length;
    head.keep_alive = ctx.keep_alive;
    head.request_version = ctx.version;
    head.date = ctx.date;
    head.server = ctx.server;
    std::size_t size = h1::response_head_size(head);
    out.reserve(size + body_reserve);
    out.resize(size);
    return h1::write_response_head(head, std::span<char>(out.data(), size));
}

}  // namespace

bool response_valid(const Response& r) {
    return r.status >= 100 && r.status <= 999 && fields_valid(r);
}

bool encode_response(Response&& response, const EncodeContext& ctx, OutputQueue& out) {
    if (!response_valid(response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    bool inline_body = !ctx.head_only && response.body.size() < OutputQueue::kMoveThreshold;
    std::string bytes;
    h1::WrittenHead written = write_head(response, ctx, h1::ResponseFraming::kContentLength, response.body.size(),
                                         bytes, inline_body ? response.body.size() : 0);
    bool has_body = written.framing == h1::ResponseFraming::kContentLength && !ctx.head_only;
    if (has_body && inline_body) bytes.append(response.body);
    out.append(std::string_view(bytes));
    if (has_body && !inline_body) out.append(std::move(response.body));
    return true;
}

void encode_error(const HttpError& error, const EncodeContext& ctx, OutputQueue& out, std::string_view allow) {
    Response r(error.status);
    r.body = problem_body(error);
    r.content_type = std::string(kProblemContentType);
    if (!allow.empty()) r.headers.emplace_back("Allow", std::string(allow));
    encode_response(std::move(r), ctx, out);
}

bool encode_stream_head(Response&& head_response, const EncodeContext& ctx, OutputQueue& out) {
    if (!response_valid(head_response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    std::string bytes;
    write_head(head_response, ctx, h1::ResponseFraming::kChunked, 0, bytes, 0);
    out.append(std::string_view(bytes));
    return true;
}

void encode_stream_chunk(std::string_view data, h1::Version version, OutputQueue& out) {
    if (data.empty()) return;  // an empty chunk would end the body
    if (version == h1::Version::kHttp10) {
        out.append(data);
        return;
    }
    char header[h1::kMaxChunkHeaderSize];
    std::string framed;
    framed.reserve(data.size() + h1::kMaxChunkHeaderSize + 2);
    framed.append(h1::chunk_header(data.size(), header));
    framed.append(data);
    framed.append(h1::kChunkEnd);
    out.append(std::move(framed));
}

void encode_stream_end(h1::Version version, OutputQueue& out) {
    if (version == h1::Version::kHttp11) out.append(h1::kLastChunk);
}

}  // namespace slipstream::server
