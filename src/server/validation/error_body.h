// ErrorBody: builds FastAPI's 422 body {"detail":[{type, loc, msg, input, ctx?}, ...]} in one string.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json/schema/error_sink.h"
#include "json/value.h"
#include "json/writer.h"
#include "server/validation/lax_plan.h"

namespace slipstream::server::detail {

/// One loc prefix element: a key ("query", "limit") or an index (a JSON decode position).
struct LocPart {
    std::string_view key;
    long long index = -1;
};

/// What turns the JSON Schema validator's errors into pydantic's for one parameter or body.
struct ErrorRewrite {
    const LaxPlan* plan = nullptr;          // a Literal's "enum" error becomes "literal_error"
    const json::Value* original = nullptr;  // set when LaxPlan converted the value: inputs are read here by loc
    std::span<const LaxFailure> failures;   // pydantic's parse errors in place of type errors at these locs
    const json::Value* document = nullptr;  // the value as sent: orders a dict's errors by its keys
};

/// Appends errors in order; finish() closes the document. Not thread-safe (one per validation).
class ErrorBody {
  public:
    explicit ErrorBody(std::string& out);

    /// The errors of `sink` that pydantic would report (see select_like_pydantic), each loc prefixed by
    /// `prefix` (e.g. {"query", "limit"} or {"body"}), rewritten by `rewrite` when given.
    /// For a coerced parameter, `raw` holds its text occurrences: pydantic reports the text as the input
    /// (the last occurrence for a scalar, all of them for a list, item i for an error at [i]).
    void add_all(const json::schema::ErrorSink& sink, std::initializer_list<LocPart> prefix,
                 std::span<const std::string_view> raw = {}, bool raw_is_list = false,
                 const ErrorRewrite* rewrite = nullptr);
    /// FastAPI's missing-parameter error: {"type":"missing","loc":prefix,"msg":"Field required","input":null}.
    void add_missing(std::initializer_list<LocPart> prefix);
    /// FastAPI's body decode error: {"type":"json_invalid","loc":["body",pos],"msg":"JSON decode error",
    /// "input":{},"ctx":{"error":reason}}.
    void add_json_invalid(std::size_t position, std::string_view reason);

    bool empty() const { return count_ == 0; }
    /// Closes the list and the object. Call once.
    void finish();

  private:
    // An error's type, message and ctx as pydantic names them.
    struct Named {
        std::string_view type;
        std::string msg;
        std::string class_name;  // set: ctx is {"class_name": ...}
        bool tuple = false;      // a tuple's length error: ctx field_type "Tuple"
    };
    static Named name_like_pydantic(const json::schema::ValidationError& e, const ErrorRewrite* rewrite);
    void write_ctx(const json::schema::ValidationError& e, const Named& named);
    void begin_error(std::string_view type, std::initializer_list<LocPart> prefix);
    [[nodiscard]] base::Status write_encoded(const json::Value& v);
    void write_input(const json::schema::ValidationError& e, std::span<const std::string_view> raw, bool raw_is_list,
                     const ErrorRewrite* rewrite);

    json::Writer writer_;
    std::size_t count_ = 0;
};

/// Which of `errors` pydantic reports (1) or not (0). pydantic stops a list or tuple at its first item past
/// max_length with only "too_long"; checks min_length (and a dict's max_length) only when no item failed; and
/// reports an Enum/Literal mismatch alone, without the JSON Schema `type` error beside it; reports one failed
/// constraint per number (multiple_of, le, lt, ge, gt, in that order) and per string (min, max length, pattern).
std::vector<char> select_like_pydantic(std::span<const json::schema::ValidationError> errors);

}  // namespace slipstream::server::detail
