// MultipartParser: delimiter scanning (memchr for CR, then compare), part headers, limits.
#include "http/multipart/multipart_parser.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "http/multipart/header_value.h"
#include "http/multipart/part_head_parser.h"

namespace slipstream::http::multipart {
namespace {

constexpr std::size_t kMaxBoundary = 200;

bool usable_boundary(std::string_view b) {
    return !b.empty() && b.size() <= kMaxBoundary && b.find_first_of(std::string_view("\r\n\0", 3)) == b.npos;
}

std::string kib(std::size_t bytes) {
    return std::to_string(bytes / 1024) + "KB";
}

}  // namespace

std::string boundary_from_content_type(std::string_view content_type) {
    HeaderValue v = parse_header_value(content_type);
    if (v.token != "multipart/form-data") return {};
    const std::string* b = v.find("boundary");
    if (b == nullptr || !usable_boundary(*b)) return {};
    return *b;
}

MultipartParser::MultipartParser(std::string_view boundary, const FormLimits& limits, PartSink& sink)
    : limits_(limits), sink_(sink) {
    delimiter_.reserve(boundary.size() + 4);
    delimiter_.append("\r\n--");
    delimiter_.append(boundary);
    if (!usable_boundary(boundary))
        fail(FormErrorKind::kMissingBoundary, "Missing boundary in multipart.").ignore_error();
}

base::Status MultipartParser::fail(FormErrorKind kind, std::string message) {
    state_ = State::kError;
    error_ = {kind, message};
    status_ = is_limit_error(kind) ? base::Status::out_of_range(std::move(message))
                                   : base::Status::invalid_argument(std::move(message));
    return status_;
}

base::Status MultipartParser::sink_failed(base::Status st) {
    if (st.is_ok()) return st;
    state_ = State::kError;
    error_ = {FormErrorKind::kSinkFailed, st.message()};
    status_ = std::move(st);
    return status_;
}

base::Status MultipartParser::feed(std::string_view in) {
    std::size_t i = 0;
    while (i < in.size()) {
        switch (state_) {
            case State::kError:
                return status_;
            case State::kEpilogue:
                return base::Status::ok();
            case State::kPreamble:
            case State::kBody:
                SLIPSTREAM_RETURN_IF_ERROR(scan(in, i));
                break;
            case State::kHeaders:
                SLIPSTREAM_RETURN_IF_ERROR(read_headers(in, i));
                break;
            default:
                SLIPSTREAM_RETURN_IF_ERROR(after_delimiter(in[i++]));
                break;
        }
    }
    return state_ == State::kError ? status_ : base::Status::ok();
}

base::Status MultipartParser::finish() {
    if (state_ == State::kError) return status_;
    if (state_ == State::kEpilogue) return base::Status::ok();
    return fail(FormErrorKind::kTruncated, "Invalid multipart data: the body ended before the closing boundary.");
}

// Finds the delimiter from in[i]; the bytes before it are body (or preamble) data. A delimiter cut by the end of
// `in` is remembered in matched_ and finished by the next feed.
base::Status MultipartParser::scan(std::string_view in, std::size_t& i) {
    const std::string_view delim = delimiter_;
    while (matched_ > 0 && i < in.size()) {
        if (in[i] == delim[matched_]) {
            ++i;
            if (++matched_ == delim.size()) {
                matched_ = 0;
                return on_delimiter();
            }
            continue;
        }
        // Not a delimiter after all: the matched bytes were data. CR appears only first in the delimiter
        // (a boundary has no CR), so no later match can start inside them.
        std::size_t was = matched_;
        matched_ = 0;
        SLIPSTREAM_RETURN_IF_ERROR(emit(delim.substr(0, was)));
    }
    std::size_t start = i;
    while (i < in.size()) {
        const void* cr = std::memchr(in.data() + i, '\r', in.size() - i);
        if (cr == nullptr) {
            i = in.size();
            break;
        }
        std::size_t r = static_cast<std::size_t>(static_cast<const char*>(cr) - in.data());
        std::size_t n = std::min(in.size() - r, delim.size());
        if (in.compare(r, n, delim, 0, n) != 0) {
            i = r + 1;
            continue;
        }
        SLIPSTREAM_RETURN_IF_ERROR(emit(in.substr(start, r - start)));
        i = r + n;
        if (n < delim.size()) {
            matched_ = n;
            return base::Status::ok();
        }
        return on_delimiter();
    }
    return emit(in.substr(start, i - start));
}

base::Status MultipartParser::emit(std::string_view data) {
    if (state_ != State::kBody || data.empty()) return base::Status::ok();  // preamble bytes are dropped
    part_bytes_ += data.size();
    if (head_.is_file()) {
        if (part_bytes_ > limits_.max_file_size)
            return fail(FormErrorKind::kFileTooLarge,
                        "File exceeded maximum size of " + std::to_string(limits_.max_file_size) + " bytes.");
    } else if (part_bytes_ > limits_.max_field_size) {
        return fail(FormErrorKind::kFieldTooLarge,
                    "Part exceeded maximum size of " + kib(limits_.max_field_size) + ".");
    }
    return sink_failed(sink_.on_part_data(data));
}

base::Status MultipartParser::on_delimiter() {
    if (state_ == State::kBody) {
        SLIPSTREAM_RETURN_IF_ERROR(sink_failed(sink_.on_part_end()));
    }
    state_ = State::kAfterDelimiter;
    return base::Status::ok();
}

base::Status MultipartParser::after_delimiter(char c) {
    switch (state_) {
        case State::kAfterDelimiter:
            if (c == '-') {
                state_ = State::kCloseDash;
                return base::Status::ok();
            }
            [[fallthrough]];
        case State::kPadding:
            if (c == ' ' || c == '\t') {
                state_ = State::kPadding;
                return base::Status::ok();
            }
            if (c == '\r') {
                state_ = State::kExpectLf;
                return base::Status::ok();
            }
            return fail(FormErrorKind::kMalformed, "Invalid multipart data: expected CRLF after a boundary.");
        case State::kExpectLf:
            if (c != '\n') return fail(FormErrorKind::kMalformed, "Invalid multipart data: expected LF after CR.");
            state_ = State::kHeaders;
            header_block_.clear();
            return base::Status::ok();
        case State::kCloseDash:
            if (c != '-') return fail(FormErrorKind::kMalformed, "Invalid multipart data: expected '--' to close.");
            state_ = State::kEpilogue;
            return base::Status::ok();
        default:
            return fail(FormErrorKind::kMalformed, "Invalid multipart data: parser state.");
    }
}

// Collects the header block up to the empty line (a block of just CRLF means a part without headers). At most
// max_part_header_bytes + 2 bytes are buffered, so an endless block costs bounded memory.
base::Status MultipartParser::read_headers(std::string_view in, std::size_t& i) {
    const std::size_t cap = limits_.max_part_header_bytes;
    const std::size_t before = header_block_.size();
    const std::size_t take = std::min(in.size() - i, cap + 2 - before);
    header_block_.append(in.substr(i, take));
    const std::string_view block = header_block_;
    std::size_t end = std::string_view::npos;  // length of the header lines, the empty line excluded
    if (block.size() >= 2 && block.compare(0, 2, "\r\n") == 0) {
        end = 0;
    } else if (std::size_t found = block.find("\r\n\r\n", before >= 3 ? before - 3 : 0); found != block.npos) {
        end = found + 2;
    }
    if (end == std::string_view::npos && block.size() < cap + 2) {
        i += take;
        return base::Status::ok();
    }
    if (end == std::string_view::npos || end > cap)
        return fail(FormErrorKind::kHeaderTooLarge,
                    "Part headers exceeded maximum size of " + std::to_string(cap) + " bytes.");
    i += end + 2 - before;
    return begin_part(block.substr(0, end));
}

base::Status MultipartParser::begin_part(std::string_view block) {
    FormError e = parse_part_head(block, limits_, &head_);
    if (!e.ok()) return fail(e.kind, std::move(e.message));
    if (head_.is_file()) {
        if (++files_ > limits_.max_files)
            return fail(FormErrorKind::kTooManyFiles,
                        "Too many files. Maximum number of files is " + std::to_string(limits_.max_files) + ".");
    } else if (++fields_ > limits_.max_fields) {
        return fail(FormErrorKind::kTooManyFields,
                    "Too many fields. Maximum number of fields is " + std::to_string(limits_.max_fields) + ".");
    }
    part_bytes_ = 0;
    state_ = State::kBody;
    matched_ = 0;
    return sink_failed(sink_.on_part_begin(head_));
}

}  // namespace slipstream::http::multipart
