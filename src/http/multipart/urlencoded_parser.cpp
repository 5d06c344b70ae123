// UrlencodedParser: '&'-separated pairs, decoded when complete.
#include "http/multipart/urlencoded_parser.h"

#include <utility>

#include "base/percent_decode.h"

namespace slipstream::http::multipart {

void form_unquote(std::string_view raw, std::string& out) {
    out.clear();
    out.reserve(raw.size());
    base::append_percent_decoded(raw, base::PlusMode::kSpace, out);
}

UrlencodedParser::UrlencodedParser(const FormLimits& limits, FieldSink& sink) : limits_(limits), sink_(sink) {}

base::Status UrlencodedParser::fail(FormErrorKind kind, std::string message, bool limit) {
    error_ = {kind, message};
    status_ =
        limit ? base::Status::out_of_range(std::move(message)) : base::Status::invalid_argument(std::move(message));
    return status_;
}

base::Status UrlencodedParser::feed(std::string_view in) {
    if (!error_.ok()) return status_;
    while (!in.empty()) {
        std::size_t amp = in.find('&');
        SLIPSTREAM_RETURN_IF_ERROR(append(in.substr(0, amp)));
        if (amp == std::string_view::npos) break;
        SLIPSTREAM_RETURN_IF_ERROR(end_pair());
        in.remove_prefix(amp + 1);
    }
    return base::Status::ok();
}

base::Status UrlencodedParser::finish() {
    if (!error_.ok()) return status_;
    return end_pair();
}

base::Status UrlencodedParser::append(std::string_view raw) {
    // The '=' is not counted, as Starlette counts name and value bytes.
    bool has_eq = pair_.find('=') != std::string::npos || raw.find('=') != std::string_view::npos;
    if (pair_.size() + raw.size() - (has_eq ? 1 : 0) > limits_.max_field_size)
        return fail(FormErrorKind::kFieldTooLarge,
                    "Field exceeded maximum size of " + std::to_string(limits_.max_field_size / 1024) + "KB.", true);
    pair_.append(raw);
    return base::Status::ok();
}

base::Status UrlencodedParser::end_pair() {
    if (pair_.empty()) return base::Status::ok();  // "a=1&&b=2": empty pieces are skipped
    if (++fields_ > limits_.max_fields)
        return fail(FormErrorKind::kTooManyFields,
                    "Too many fields. Maximum number of fields is " + std::to_string(limits_.max_fields) + ".", true);
    std::string_view pair = pair_;
    std::size_t eq = pair.find('=');
    form_unquote(pair.substr(0, eq), name_);
    form_unquote(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), value_);
    pair_.clear();
    base::Status st = sink_.on_field(name_, value_);
    if (!st.is_ok()) {
        error_ = {FormErrorKind::kSinkFailed, st.message()};
        status_ = std::move(st);
        return status_;
    }
    return base::Status::ok();
}

}  // namespace slipstream::http::multipart
