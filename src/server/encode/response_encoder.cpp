// HTTP/1.1 response encoding.
#include "server/encode/response_encoder.h"

#include <cstring>
#include <new>
#include <span>
#include <vector>

#include "base/assert.h"
#include "http/h1/header.h"
#include "http/h1/serializer.h"
#include "router/path_scan.h"
#include "server/core/file_body.h"

namespace slipstream::server {
namespace {

namespace h1 = http::h1;

// The length of the ids RequestIdGenerator makes (a client's X-Request-ID may have another).
constexpr std::size_t kGeneratedIdSize = 32;

char* head_space(void* queue, std::size_t size) {
    return static_cast<OutputQueue*>(queue)->append_space(size);
}

char* string_space(void* text, std::size_t size) {
    auto& s = *static_cast<std::string*>(text);
    s.resize(size);
    return s.data();
}

// Writes the head through the h1 serializer straight into the space `space` gives (planned once, no temporary
// string), with `content` behind it in the same space when the framing has a length. Returns the framing used.
h1::WrittenHead write_head(const Response& r, const EncodeContext& ctx, h1::ResponseFraming framing,
                           std::uint64_t length, h1::HeadSpaceFn space, void* context, std::string_view content = {}) {
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
    return h1::write_response_head(head, space, context);
}

h1::WrittenHead write_head(const Response& r, const EncodeContext& ctx, h1::ResponseFraming framing,
                           std::uint64_t length, OutputQueue& out, std::string_view content = {}) {
    return write_head(r, ctx, framing, length, &head_space, &out, content);
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

// Equality of a short field value and its kept copy without a call: a Date (29 bytes) or a Server value of 8
// to 32 bytes is two or four overlapping 8-byte loads a side, no loop (bytes_equal's loop and call cost ~45
// instructions per request for the Date and Server checks of a replay). Always inlined: as a call it cost as
// much as the compare.
[[gnu::always_inline]] inline bool same_value(std::string_view a, const std::string& b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    const auto differ = [&](std::size_t at) {
        return detail::load_bytes<std::uint64_t>(x + at) ^ detail::load_bytes<std::uint64_t>(y + at);
    };
    if (n >= 16 && n <= 32) return (differ(0) | differ(8) | differ(n - 16) | differ(n - 8)) == 0;
    if (n >= 8 && n < 16) return (differ(0) | differ(n - 8)) == 0;
    return detail::bytes_equal(x, y, n);
}

}  // namespace

bool detail::fields_valid(const Response& r) {
    // A ContentType::constant() was checked when the program was compiled.
    if (!r.content_type.is_constant() && !h1::is_valid_field_value(r.content_type)) return false;
    for (const auto& [name, value] : r.headers) {
        if (!h1::validate_field(name, value).is_ok() || h1::is_framing_field(name)) return false;
    }
    return true;
}

bool encode_response(Response&& response, const EncodeContext& ctx, OutputQueue& out) {
    if (!response_valid(response)) {
        encode_error({500, "the handler produced an invalid response"}, ctx, out);
        return false;
    }
    if (response.file_body) return encode_file_response(std::move(response), ctx, out);
    // A small body is copied behind the head (same space, one writev entry); a large one is moved in (a
    // static one is copied: its bytes are not ours to keep).
    const std::string_view body = response.body_bytes();
    const bool copy_body = !ctx.head_only && body.size() < OutputQueue::kMoveThreshold;
    const std::string_view content = copy_body ? body : std::string_view();
    h1::WrittenHead written = ctx.head_cache != nullptr ? ctx.head_cache->write(response, ctx, content, out)
                                                        : write_head(response, ctx, h1::ResponseFraming::kContentLength,
                                                                     body.size(), out, content);
    if (written.framing == h1::ResponseFraming::kContentLength && !ctx.head_only && !written.content_written) {
        if (response.static_body.data() != nullptr) {
            out.append(body);
        } else {
            out.append(std::move(response.body));
        }
    }
    return true;
}

h1::WrittenHead HeadCache::write(const Response& r, const EncodeContext& ctx, std::string_view content,
                                 OutputQueue& out) {
    const std::size_t length = r.body_bytes().size();
    if (!r.headers.empty()) return write_head(r, ctx, h1::ResponseFraming::kContentLength, length, out, content);
    if (matches(r, length, ctx)) {
        ++replayed_;
    } else {
        keep(r, length, ctx);
    }
    // The serializer's rule: content goes behind a head whose written framing has a length.
    const bool with_content = framing_ == h1::ResponseFraming::kContentLength && !content.empty();
    const std::size_t size = head_.size() + (with_content ? content.size() : 0);
    char* dst = out.append_space(size);
    std::memcpy(dst, head_.data(), head_.size());
    if (id_size_ == kGeneratedIdSize) {
        std::memcpy(dst + id_at_, ctx.request_id.data(), kGeneratedIdSize);  // a fixed size: copied inline
    } else if (id_size_ > 0) {
        std::memcpy(dst + id_at_, ctx.request_id.data(), id_size_);
    }
    if (with_content) std::memcpy(dst + head_.size(), content.data(), content.size());
    return {framing_, keep_alive_written_, size, with_content};
}

bool HeadCache::matches(const Response& r, std::uint64_t length, const EncodeContext& ctx) const {
    // A ContentType::constant() views static storage: the same view is the same bytes.
    const std::string_view type = r.content_type.view();
    const bool same_type =
        type.data() == constant_type_ ? type.size() == content_type_.size() : same_value(type, content_type_);
    return !head_.empty() && r.status == status_ && length == length_ && ctx.keep_alive == keep_alive_ &&
           ctx.version == version_ && ctx.request_id.size() == id_size_ && same_type && same_value(ctx.date, date_) &&
           same_value(ctx.server, server_);
}

// Writes the head (without content) into head_ and notes its inputs.
void HeadCache::keep(const Response& r, std::uint64_t length, const EncodeContext& ctx) {
    const h1::WrittenHead written =
        write_head(r, ctx, h1::ResponseFraming::kContentLength, length, &string_space, &head_);
    status_ = r.status;
    length_ = length;
    keep_alive_ = ctx.keep_alive;
    version_ = ctx.version;
    id_size_ = ctx.request_id.size();
    content_type_.assign(r.content_type.view());
    constant_type_ = r.content_type.is_constant() ? r.content_type.data() : nullptr;
    date_.assign(ctx.date);
    server_.assign(ctx.server);
    framing_ = written.framing;
    keep_alive_written_ = written.keep_alive;
    // Field values hold no CR LF, so this is the X-Request-ID line write_head added.
    constexpr std::string_view kIdLine = "\r\nX-Request-ID: ";
    SLIPSTREAM_ASSERT(id_size_ == 0 || head_.find(kIdLine) != std::string::npos);
    id_at_ = id_size_ > 0 ? head_.find(kIdLine) + kIdLine.size() : 0;
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
