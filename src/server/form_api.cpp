// The public form parser (slipstream/form.h) over http/multipart: adapts its sinks, limits and errors.
#include <optional>
#include <string>

#include "http/multipart/multipart_parser.h"
#include "http/multipart/urlencoded_parser.h"
#include "slipstream/form.h"

namespace slipstream {
namespace detail {

namespace mp = http::multipart;

// Multipart text parts are collected whole (the parser bounds them by max_field_size); files pass through.
class FormParserImpl : public mp::PartSink, public mp::FieldSink {
  public:
    FormParserImpl(FormParser::Kind kind, std::string boundary, const mp::FormLimits& limits, FormSink& sink)
        : sink_(sink) {
        if (kind == FormParser::Kind::kMultipart)
            multipart_.emplace(boundary, limits, *this);
        else
            urlencoded_.emplace(limits, *this);
    }

    base::Status feed(std::string_view chunk) {
        return multipart_ ? multipart_->feed(chunk) : urlencoded_->feed(chunk);
    }
    base::Status finish() { return multipart_ ? multipart_->finish() : urlencoded_->finish(); }
    const mp::FormError& error() const { return multipart_ ? multipart_->error() : urlencoded_->error(); }

    base::Status on_field(std::string_view name, std::string_view value) override {
        return refused(sink_.on_field(name, value));
    }
    base::Status on_part_begin(const mp::PartHead& head) override {
        file_ = head.is_file();
        if (!file_) {
            name_ = head.name;
            value_.clear();
            return base::Status::ok();
        }
        FormFileHead file{head.name, *head.filename, head.content_type, head.headers};
        return refused(sink_.on_file_begin(file));
    }
    base::Status on_part_data(std::string_view data) override {
        if (file_) return refused(sink_.on_file_data(data));
        value_.append(data);
        return base::Status::ok();
    }
    base::Status on_part_end() override { return refused(file_ ? sink_.on_file_end() : sink_.on_field(name_, value_)); }

  private:
    static base::Status refused(bool ok) {
        return ok ? base::Status::ok() : base::Status::cancelled("The form was refused by its consumer.");
    }

    FormSink& sink_;
    std::optional<mp::MultipartParser> multipart_;  // exactly one of the two is set
    std::optional<mp::UrlencodedParser> urlencoded_;
    bool file_ = false;
    std::string name_, value_;
};

}  // namespace detail

namespace {

// The public kinds mirror the module's one for one.
static_assert(static_cast<int>(FormErrorKind::kSinkFailed) ==
              static_cast<int>(http::multipart::FormErrorKind::kSinkFailed));
static_assert(static_cast<int>(FormErrorKind::kTooManyHeaders) ==
              static_cast<int>(http::multipart::FormErrorKind::kTooManyHeaders));

std::string lowered_media_type(std::string_view content_type) {
    std::string_view type = content_type.substr(0, content_type.find(';'));
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
        type.remove_suffix(1);
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t'))
        type.remove_prefix(1);
    std::string out(type);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

http::multipart::FormLimits to_internal(const FormLimits& l) {
    http::multipart::FormLimits out;
    out.max_fields = l.max_fields;
    out.max_files = l.max_files;
    out.max_field_size = l.max_field_size;
    out.max_file_size = l.max_file_size;
    out.max_part_header_bytes = l.max_part_header_bytes;
    out.max_part_headers = l.max_part_headers;
    return out;
}

FormError to_public(const http::multipart::FormError& e) {
    return {static_cast<FormErrorKind>(e.kind), e.message};
}

}  // namespace

std::string_view form_error_name(FormErrorKind kind) {
    return http::multipart::form_error_name(static_cast<http::multipart::FormErrorKind>(kind));
}

FormParser::FormParser(std::string_view content_type, const FormLimits& limits, FormSink& sink) {
    std::string type = lowered_media_type(content_type);
    if (type == "application/x-www-form-urlencoded") {
        kind_ = Kind::kUrlencoded;
    } else if (type == "multipart/form-data") {
        kind_ = Kind::kMultipart;
    } else {
        return;  // not a form: no entries
    }
    // An unusable boundary makes the multipart parser fail its first feed with kMissingBoundary.
    std::string boundary = kind_ == Kind::kMultipart ? http::multipart::boundary_from_content_type(content_type) : "";
    impl_ = std::make_unique<detail::FormParserImpl>(kind_, std::move(boundary), to_internal(limits), sink);
}

FormParser::~FormParser() = default;

bool FormParser::feed(std::string_view chunk) {
    if (!impl_ || !error_.ok()) return error_.ok();
    if (impl_->feed(chunk).is_ok()) return true;
    error_ = to_public(impl_->error());
    return false;
}

bool FormParser::finish() {
    if (!impl_ || !error_.ok()) return error_.ok();
    if (impl_->finish().is_ok()) return true;
    error_ = to_public(impl_->error());
    return false;
}

namespace {

class Collect : public FormSink {
  public:
    bool on_field(std::string_view name, std::string_view value) override {
        entries.push_back(FormEntry{std::string(name), std::string(value), std::nullopt, {}, {}});
        return true;
    }
    bool on_file_begin(const FormFileHead& head) override {
        entries.push_back(FormEntry{head.name, {}, head.filename, head.content_type, head.headers});
        return true;
    }
    bool on_file_data(std::string_view data) override {
        entries.back().value.append(data);
        return true;
    }
    bool on_file_end() override { return true; }
    std::vector<FormEntry> entries;
};

}  // namespace

std::optional<std::vector<FormEntry>> parse_form(std::string_view content_type, std::string_view body,
                                                 const FormLimits& limits, FormError* error) {
    Collect sink;
    FormParser parser(content_type, limits, sink);
    if (parser.feed(body) && parser.finish()) return std::move(sink.entries);
    if (error != nullptr) *error = parser.error();
    return std::nullopt;
}

}  // namespace slipstream
