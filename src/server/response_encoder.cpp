// HTTP/1.1 response encoding.
#include "server/response_encoder.h"

#include <new>
#include <span>
#include <vector>

#include "http/h1/header.h"
#include "http/h1/serializer.h"
#include "server/file_body.h"

namespace slipstream::server {
namespace {

namespace h1 = http::h1;

bool fields_valid(const Response& r) {
    // A ContentType::constant() was checked when the program was compiled.
    if (!r.content_type.is_constant() && !h1::is_valid_field_value(r.content_type)) return false;
    for (const auto& [name, value] : r.headers) {
        if (!h1::validate_field(name, value).is_ok() || h1::is_framing_field(name)) return false;
    }
    return true;
}

char* head_space(void* queue, std::size_t size) {
    return static_cast<OutputQueue*>(queue)->append_space(size);
}

// Writes the head through the h1 serializer straight into `out` (planned once, no temporary string), with
// `content` behind it in the same space when the framing has a length. Returns the framing used.
h1::WrittenHead write_head(const Response& r, const EncodeContext& ctx, h1::ResponseFraming framing,
                           std::uint64_t length, OutputQueue& out, std::string_view content = {}) {
    constexpr std::size_t kInlineFields = 16;
    // Room left uninitialised: only the fields written below are constructed (initialising all of them
    // cost as much as writing a small head).
    union InlineFields {
        InlineFields() {}  // NOLINT: user-provided so that `at` is not initialised
        h1::Header at[kInlineFields];
    } inline_fields;
    std::vector<h1::Header> many;
    std::size_t n = r.headers.size() + 2;
    h1::Header* fields = n <= kInlineFields ? inline_fields.at : (many.resize(n), many.data());
    std::size_t count = 0;
    auto add = [&](std::string_view name, std::string_view value) {
        ::new (static_cast<void*>(fields + count++)) h1::Header{name, value};
    };
    if (!r.content_type.empty()) add("Content-Type", r.content_type);
    if (!ctx.request_id.empty()) add("X-Request-ID", ctx.request_id);
    for (const auto& [name, value] : r.headers)
        add(name, value);

    h1::ResponseHead head;
    head.status = r.status;
    head.headers = {fields, count};
    head.framing = framing;
    head.content_length = length;
    head.keep_alive = ctx.keep_alive;
    head.request_version = ctx.version;
    head.date = ctx.date;
    head.server = ctx.server;
    head.content = content;
    return h1::write_response_head(head, &head_space, &out);
}

// A file body: the head now, the region as a file piece (sendfile). Not compressed (see FileBody).
bool encode_file_response(Response&& r, const EncodeContext& ctx, OutputQueue& out) {
    base::Result<OpenedFile> file = open_file_body(*r.file_body);
    if (!file.is_ok()) {
        encode_error({500, "the response file could not be read"}, ctx, out);
        return false;
    }
    h1::WrittenHead written = write_head(r, ctx, h1::ResponseFraming::kContentLength, file->length, out);
    if (written.framing == h1::ResponseFraming::kContentLength && !ctx.head_only) {
        out.append_file(std::move(file->fd), file->offset, file->length);
    }
    return true;  // the file closes here when nothing of it is sent (HEAD, 304)
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
    if (response.file_body) return encode_file_response(std::move(response), ctx, out);
    // A small body is copied behind the head (same space, one writev entry); a large one is moved in.
    const bool copy_body = !ctx.head_only && response.body.size() < OutputQueue::kMoveThreshold;
    h1::WrittenHead written = write_head(response, ctx, h1::ResponseFraming::kContentLength, response.body.size(), out,
                                         copy_body ? std::string_view(response.body) : std::string_view());
    if (written.framing == h1::ResponseFraming::kContentLength && !ctx.head_only && !written.content_written) {
        out.append(std::move(response.body));
    }
    return true;
}

void encode_error(const HttpError& error, const EncodeContext& ctx, OutputQueue& out, std::string_view allow) {
    Response r(error.status);
    r.body = problem_body(error);
    r.content_type = ContentType::constant(kProblemContentType);
    if (!allow.empty()) r.headers.emplace_back("Allow", std::string(allow));
    encode_response(std::move(r), ctx, out);
}

bool encode_stream_head(Response&& head_response, const EncodeContext& ctx, OutputQueue& out) {
    if (!response_valid(head_response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    write_head(head_response, ctx, h1::ResponseFraming::kChunked, 0, out);
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
