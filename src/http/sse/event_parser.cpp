// EventParser: line splitting across chunks (CR, LF, CRLF), the leading BOM, fields, dispatch and limits.
#include "http/sse/event_parser.h"

#include <cstring>

namespace slipstream::http::sse {
namespace {

constexpr char kBom[3] = {'\xEF', '\xBB', '\xBF'};
constexpr std::uint8_t kBomSettled = 255;

// The first CR or LF at or after `from`, or `s.size()`.
std::size_t find_line_end(std::string_view s, std::size_t from) {
    const char* p = s.data() + from;
    const char* end = s.data() + s.size();
    for (; p < end; ++p) {
        if (*p == '\n' || *p == '\r') break;
    }
    return static_cast<std::size_t>(p - s.data());
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

}  // namespace

base::Status EventParser::fail(base::Status status) {
    error_ = status;
    return status;
}

void EventParser::reset() {
    line_.clear();
    after_cr_ = false;
    bom_seen_ = 0;
    data_.clear();
    type_.clear();
    last_id_.clear();
    has_fields_ = false;
    bytes_ = 0;
    error_ = base::Status::ok();
}

base::Status EventParser::feed(std::string_view chunk, EventSink& sink) {
    if (!error_.is_ok()) return error_;
    bytes_ += chunk.size();
    // The byte order mark: matched byte by byte, so it may be split; a mismatch hands the bytes matched so far
    // back to the stream as ordinary bytes.
    if (bom_seen_ != kBomSettled) {
        std::size_t i = 0;
        while (i < chunk.size() && bom_seen_ < 3 && chunk[i] == kBom[bom_seen_]) {
            ++bom_seen_;
            ++i;
        }
        if (bom_seen_ == 3) {
            bom_seen_ = kBomSettled;
            chunk.remove_prefix(i);
        } else if (i == chunk.size()) {
            return base::Status::ok();  // all of it a BOM prefix so far
        } else {
            // Not a BOM after all: the bytes matched so far (kBom's first bom_seen_, from this chunk or earlier
            // ones; never line ends) start the first line.
            line_.append(kBom, bom_seen_);
            bom_seen_ = kBomSettled;
            chunk.remove_prefix(i);
        }
    }
    std::size_t i = 0;
    const std::size_t n = chunk.size();
    if (after_cr_ && n > 0) {
        after_cr_ = false;
        if (n > 0 && chunk[0] == '\n') i = 1;  // the LF of a CRLF split by the chunk boundary
    }
    while (i < n) {
        std::size_t end = find_line_end(chunk, i);
        if (end == n) {
            if (line_.size() + (n - i) > limits_.max_line_bytes)
                return fail(base::Status::out_of_range("event stream: line longer than " +
                                                       std::to_string(limits_.max_line_bytes) + " bytes"));
            line_.append(chunk.data() + i, n - i);
            break;
        }
        std::string_view text(chunk.data() + i, end - i);
        if (!line_.empty()) {
            if (line_.size() + text.size() > limits_.max_line_bytes)
                return fail(base::Status::out_of_range("event stream: line longer than " +
                                                       std::to_string(limits_.max_line_bytes) + " bytes"));
            line_.append(text);
            text = line_;
        } else if (text.size() > limits_.max_line_bytes) {
            return fail(base::Status::out_of_range("event stream: line longer than " +
                                                   std::to_string(limits_.max_line_bytes) + " bytes"));
        }
        if (chunk[end] == '\r') {
            if (end + 1 < n) {
                i = chunk[end + 1] == '\n' ? end + 2 : end + 1;
            } else {
                after_cr_ = true;
                i = n;
            }
        } else {
            i = end + 1;
        }
        base::Status s = line(text, sink);
        line_.clear();
        if (!s.is_ok()) return fail(std::move(s));
    }
    return base::Status::ok();
}

base::Status EventParser::finish(EventSink& sink, bool* dropped_event) {
    if (!error_.is_ok()) return error_;
    if (bom_seen_ != kBomSettled && bom_seen_ > 0) line_.assign(kBom, bom_seen_);  // a lone BOM prefix
    bom_seen_ = kBomSettled;
    if (!line_.empty()) {
        std::string text = std::move(line_);
        line_.clear();
        base::Status s = line(text, sink);
        if (!s.is_ok()) return fail(std::move(s));
    }
    if (dropped_event != nullptr) *dropped_event = has_fields_;
    data_.clear();
    type_.clear();
    has_fields_ = false;
    return base::Status::ok();
}

base::Status EventParser::line(std::string_view text, EventSink& sink) {
    if (text.empty()) return dispatch(sink);
    if (text[0] == ':') return sink.on_comment(text.substr(1));
    std::size_t colon = text.find(':');
    std::string_view field = text.substr(0, colon);
    std::string_view value;
    if (colon != std::string_view::npos) {
        value = text.substr(colon + 1);
        if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
    }
    has_fields_ = true;
    if (field == "data") {
        if (data_.size() + value.size() + 1 > limits_.max_event_bytes)
            return base::Status::out_of_range("event stream: event data larger than " +
                                              std::to_string(limits_.max_event_bytes) + " bytes");
        data_.append(value);
        data_.push_back('\n');
    } else if (field == "event") {
        type_.assign(value);
    } else if (field == "id") {
        if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
    } else if (field == "retry") {
        if (all_digits(value)) {
            std::uint64_t ms = 0;
            for (char c : value) {
                ms = ms > (UINT64_MAX - 9) / 10 ? UINT64_MAX : ms * 10 + static_cast<std::uint64_t>(c - '0');
            }
            sink.on_retry(ms);
        }
    }
    return base::Status::ok();
}

base::Status EventParser::dispatch(EventSink& sink) {
    has_fields_ = false;
    if (data_.empty()) {
        type_.clear();
        return base::Status::ok();
    }
    data_.pop_back();  // the LF after the last data line
    ParsedEvent e{type_.empty() ? std::string_view("message") : std::string_view(type_), data_, last_id_};
    base::Status s = sink.on_event(e);
    data_.clear();
    type_.clear();
    return s;
}

}  // namespace slipstream::http::sse
