// HTTP/1.1 response encoding.
#include "server/response_encoder.h"

#include <charconv>

#include "http/h1/header.h"
#include "http/h1/reason_phrase.h"

namespace slipstream::server {
namespace {

void append_number(std::string& s, std::uint64_t n) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
    s.append(buf, end);
}

void append_field(std::string& s, std::string_view name, std::string_view value) {
    s.append(name);
    s.append(": ");
    s.append(value);
    s.append("\r\n");
}

// Status line and the engine's own fields. `length` < 0: no Content-Length (streamed).
void append_head_start(std::string& s, int status, const EncodeContext& ctx) {
    s.append(ctx.version == http::h1::Version::kHttp10 ? "HTTP/1.0 " : "HTTP/1.1 ");
    append_number(s, static_cast<std::uint64_t>(status));
    s.push_back(' ');
    s.append(http::h1::reason_phrase(status));
    s.append("\r\n");
    if (!ctx.server.empty()) append_field(s, "Server", ctx.server);
    append_field(s, "Date", ctx.date);
    if (!ctx.request_id.empty()) append_field(s, "X-Request-ID", ctx.request_id);
}

void append_connection(std::string& s, const EncodeContext& ctx) {
    if (!ctx.keep_alive) {
        s.append("Connection: close\r\n");
    } else if (ctx.version == http::h1::Version::kHttp10) {
        s.append("Connection: keep-alive\r\n");
    }
}

bool fields_valid(const Response& r) {
    if (!r.content_type.empty() && !http::h1::is_valid_field_value(r.content_type)) return false;
    for (const auto& [name, value] : r.headers) {
        if (!http::h1::validate_field(name, value).is_ok() || http::h1::is_framing_field(name)) return false;
    }
    return true;
}

bool status_has_body(int status) {
    return status >= 200 && status != 204 && status != 304;
}

void append_user_fields(std::string& s, const Response& r) {
    if (!r.content_type.empty()) append_field(s, "Content-Type", r.content_type);
    for (const auto& [name, value] : r.headers)
        append_field(s, name, value);
}

}  // namespace

bool encode_response(Response&& response, const EncodeContext& ctx, OutputQueue& out) {
    if (response.status < 100 || response.status > 999 || !fields_valid(response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    std::string head;
    head.reserve(160 + response.content_type.size());
    append_head_start(head, response.status, ctx);
    append_user_fields(head, response);
    if (status_has_body(response.status)) {
        head.append("Content-Length: ");
        append_number(head, response.body.size());
        head.append("\r\n");
    }
    append_connection(head, ctx);
    head.append("\r\n");
    if (ctx.head_only || !status_has_body(response.status)) {
        out.append(std::string_view(head));
    } else if (response.body.size() >= OutputQueue::kMoveThreshold) {
        out.append(std::string_view(head));
        out.append(std::move(response.body));
    } else {
        head.append(response.body);
        out.append(std::string_view(head));
    }
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
    if (head_response.status < 100 || head_response.status > 999 || !fields_valid(head_response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    std::string head;
    append_head_start(head, head_response.status, ctx);
    append_user_fields(head, head_response);
    if (ctx.version == http::h1::Version::kHttp11) head.append("Transfer-Encoding: chunked\r\n");
    append_connection(head, ctx);
    head.append("\r\n");
    out.append(std::string_view(head));
    return true;
}

void encode_stream_chunk(std::string_view data, http::h1::Version version, OutputQueue& out) {
    if (data.empty()) return;  // an empty chunk would end the body
    if (version == http::h1::Version::kHttp10) {
        out.append(data);
        return;
    }
    char size[20];
    auto [end, ec] = std::to_chars(size, size + sizeof size, data.size(), 16);
    std::string framed;
    framed.reserve(data.size() + 24);
    framed.append(size, end);
    framed.append("\r\n");
    framed.append(data);
    framed.append("\r\n");
    out.append(std::move(framed));
}

void encode_stream_end(http::h1::Version version, OutputQueue& out) {
    if (version == http::h1::Version::kHttp11) out.append(std::string_view("0\r\n\r\n"));
}

}  // namespace slipstream::server
