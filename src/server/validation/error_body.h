// ErrorBody: builds FastAPI's 422 body {"detail":[{type, loc, msg, input, ctx?}, ...]} in one string.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "json/schema/error_sink.h"
#include "json/value.h"
#include "json/writer.h"

namespace slipstream::server::detail {

/// One loc prefix element: a key ("query", "limit") or an index (a JSON decode position).
struct LocPart {
    std::string_view key;
    long long index = -1;
};

/// Appends errors in order; finish() closes the document. Not thread-safe (one per validation).
class ErrorBody {
  public:
    explicit ErrorBody(std::string& out);

    /// Every error of `sink`, each loc prefixed by `prefix` (e.g. {"query", "limit"} or {"body"}).
    /// For a coerced parameter, `raw` holds its text occurrences: pydantic reports the text as the input
    /// (the last occurrence for a scalar, all of them for a list, item i for an error at [i]).
    void add_all(const json::schema::ErrorSink& sink, std::initializer_list<LocPart> prefix,
                 std::span<const std::string_view> raw = {}, bool raw_is_list = false);
    /// FastAPI's missing-parameter error: {"type":"missing","loc":prefix,"msg":"Field required","input":null}.
    void add_missing(std::initializer_list<LocPart> prefix);
    /// FastAPI's body decode error: {"type":"json_invalid","loc":["body",pos],"msg":"JSON decode error",
    /// "input":{},"ctx":{"error":reason}}.
    void add_json_invalid(std::size_t position, std::string_view reason);

    bool empty() const { return count_ == 0; }
    /// Closes the list and the object. Call once.
    void finish();

  private:
    void begin_error(std::string_view type, std::initializer_list<LocPart> prefix);
    void write_input(const json::schema::ValidationError& e, std::span<const std::string_view> raw, bool raw_is_list);

    json::Writer writer_;
    std::size_t count_ = 0;
};

}  // namespace slipstream::server::detail
