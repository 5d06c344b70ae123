// Form bodies for handlers: application/x-www-form-urlencoded and multipart/form-data, parsed incrementally with
// limits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace slipstream {

/// Bounds on untrusted form input. Defaults follow Starlette (max_fields, max_files, max_field_size = its
/// max_part_size); the file and header bounds are Slipstream's. The server's max_body_bytes applies first.
struct FormLimits {
    std::size_t max_fields = 1000;
    std::size_t max_files = 1000;
    std::size_t max_field_size = 1024 * 1024;
    std::size_t max_file_size = std::numeric_limits<std::size_t>::max();
    std::size_t max_part_header_bytes = 16 * 1024;
    std::size_t max_part_headers = 32;
};

/// Why a form body was refused. Every kind is a client error (Starlette answers 400 with `message`).
enum class FormErrorKind : std::uint8_t {
    kNone = 0,
    kMissingBoundary,
    kMalformed,
    kMissingName,
    kTruncated,
    kSinkFailed,  // the FormSink returned false
    kTooManyFields,
    kTooManyFiles,
    kFieldTooLarge,
    kFileTooLarge,
    kHeaderTooLarge,
    kTooManyHeaders,
};

/// The kind's stable name ("too_many_fields", "file_too_large", ...), as logs and the Python front end use it.
std::string_view form_error_name(FormErrorKind kind);

struct FormError {
    FormErrorKind kind = FormErrorKind::kNone;
    /// Client-safe, in Starlette's wording where it has one ("Too many files. Maximum number of files is 1000.").
    std::string message;
    bool ok() const { return kind == FormErrorKind::kNone; }
};

/// The head of a file part (a multipart part with a filename).
struct FormFileHead {
    std::string name;
    std::string filename;
    std::string content_type;                                  // empty when the part had none
    std::vector<std::pair<std::string, std::string>> headers;  // lowercased names, in order
};

/// Receives a form's entries in body order. Views are valid only during the call. Returning false stops
/// the parser with kSinkFailed. Text fields arrive whole (bounded by max_field_size); files in pieces.
class FormSink {
  public:
    virtual ~FormSink() = default;
    virtual bool on_field(std::string_view name, std::string_view value) = 0;
    virtual bool on_file_begin(const FormFileHead& head) = 0;
    virtual bool on_file_data(std::string_view data) = 0;
    virtual bool on_file_end() = 0;
};

namespace detail {
class FormParserImpl;
}

/// Parses one request body, fed in pieces of any size. The kind comes from the request's Content-Type;
/// a body of any other type is a form without entries (as Starlette reads it). Errors are sticky.
/// Not thread-safe; the sink must outlive the parser.
class FormParser {
  public:
    enum class Kind : std::uint8_t { kNone, kUrlencoded, kMultipart };

    FormParser(std::string_view content_type, const FormLimits& limits, FormSink& sink);
    ~FormParser();
    FormParser(const FormParser&) = delete;
    FormParser& operator=(const FormParser&) = delete;

    Kind kind() const { return kind_; }
    /// Returns false on an error (see error()).
    bool feed(std::string_view chunk);
    /// The body ended. Returns false on an error (a multipart body without its closing boundary, ...).
    bool finish();
    const FormError& error() const { return error_; }

  private:
    Kind kind_ = Kind::kNone;
    std::unique_ptr<detail::FormParserImpl> impl_;
    FormError error_;
};

/// One entry of a form parsed whole: a text field (no filename) or a file with its bytes in `value`.
struct FormEntry {
    std::string name;
    std::string value;
    std::optional<std::string> filename;
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
};

/// Parses a complete body into entries (files in memory). Returns nullopt with `*error` set on a refusal.
std::optional<std::vector<FormEntry>> parse_form(std::string_view content_type, std::string_view body,
                                                 const FormLimits& limits = {}, FormError* error = nullptr);

}  // namespace slipstream
