// Server-Sent Events encoding.
#include "http/sse/event_encoder.h"

namespace slipstream::http::sse {
namespace {

bool single_line(std::string_view s) {
    return s.find_first_of("\r\n") == std::string_view::npos;
}

// Appends `prefix` + line + "\n" for each line of `text` (split at CRLF, CR or LF).
void append_lines(std::string_view prefix, std::string_view text, std::string& out) {
    while (true) {
        std::size_t cut = text.find_first_of("\r\n");
        out.append(prefix);
        out.append(text.substr(0, cut));
        out.push_back('\n');
        if (cut == std::string_view::npos) return;
        std::size_t skip = (text[cut] == '\r' && cut + 1 < text.size() && text[cut + 1] == '\n') ? 2 : 1;
        text.remove_prefix(cut + skip);
    }
}

}  // namespace

std::size_t EventEncoder::encoded_size_bound(const Event& e) {
    std::size_t lines = 1;
    for (char c : e.data)
        lines += (c == '\n' || c == '\r') ? 1 : 0;
    return e.data.size() + lines * 7 + e.event.size() + 8 + e.id.size() + 5 + (e.retry_ms ? 18 : 0) + 1;
}

base::Status EventEncoder::append_event(const Event& e, std::string& out) {
    if (!single_line(e.event)) return base::Status::invalid_argument("an SSE event name must not contain CR or LF");
    if (!single_line(e.id) || e.id.find('\0') != std::string_view::npos) {
        return base::Status::invalid_argument("an SSE id must not contain CR, LF or NUL");
    }
    out.reserve(out.size() + encoded_size_bound(e));
    if (!e.event.empty()) append_lines("event: ", e.event, out);
    if (!e.id.empty()) append_lines("id: ", e.id, out);
    if (e.retry_ms) {
        out.append("retry: ");
        out.append(std::to_string(*e.retry_ms));
        out.push_back('\n');
    }
    append_lines("data: ", e.data, out);
    out.push_back('\n');
    return base::Status::ok();
}

void EventEncoder::append_fields(const FieldList& f, std::string& out) {
    out.reserve(out.size() + (f.data ? f.data->size() : 0) + (f.comment ? f.comment->size() : 0) + 64);
    if (f.comment) append_lines(": ", *f.comment, out);
    if (f.event) out.append("event: ").append(*f.event).push_back('\n');
    if (f.data) append_lines("data: ", *f.data, out);
    if (f.id) out.append("id: ").append(*f.id).push_back('\n');
    if (f.retry) out.append("retry: ").append(std::to_string(*f.retry)).push_back('\n');
    out.push_back('\n');
}

void EventEncoder::append_comment(std::string_view text, std::string& out) {
    append_lines(": ", text, out);
    out.push_back('\n');
}

void EventEncoder::append_retry(std::uint32_t retry_ms, std::string& out) {
    out.append("retry: ");
    out.append(std::to_string(retry_ms));
    out.append("\n\n");
}

}  // namespace slipstream::http::sse
