// ErrorSink: collects validation errors in pydantic v2 / FastAPI shape (type, loc, msg, input, ctx).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/arena.h"
#include "json/value.h"

namespace slipstream::json::schema {

/// One step of an instance location: an object key or an array index.
struct PathSegment {
    std::string_view key;     // valid when index < 0; a view into the instance
    std::int64_t index = -1;  // array index, or -1 for a key

    bool is_index() const { return index >= 0; }
    friend bool operator==(const PathSegment& a, const PathSegment& b) {
        return a.index == b.index && (a.index >= 0 || a.key == b.key);
    }
};

/// One failure, ready to become an entry of FastAPI's 422 `detail` list.
/// Lifetime: `loc` keys and `input` view the instance; `ctx` lives in the sink's arena or in the
/// Schema. Use an error while the instance, the Schema and the sink are alive.
struct ValidationError {
    std::vector<PathSegment> loc;  // instance location, outermost first
    std::string schema_path;       // absolute keyword location, e.g. "#/properties/name/minLength"
    std::string_view type;         // pydantic error type, e.g. "string_too_short" (static storage)
    std::string msg;               // pydantic message, e.g. "String should have at least 3 characters"
    json::Value ctx;               // null, or an object such as {"min_length": 3}
    json::Value input;             // the failing instance value
};

/// Collects errors for one validation. Not thread-safe: one sink per validating thread.
/// Stops accepting (and validation stops early) once `max_errors` are held.
class ErrorSink {
  public:
    explicit ErrorSink(std::size_t max_errors = 64) : max_errors_(max_errors ? max_errors : 1) {}
    ErrorSink(const ErrorSink&) = delete;
    ErrorSink& operator=(const ErrorSink&) = delete;

    const std::vector<ValidationError>& errors() const { return errors_; }
    bool empty() const { return errors_.empty(); }
    std::size_t size() const { return errors_.size(); }
    bool full() const { return errors_.size() >= max_errors_; }

    /// Appends an error; ignored once full().
    void add(ValidationError error) {
        if (!full()) errors_.push_back(std::move(error));
    }
    /// Drops all errors and the memory of their ctx objects.
    void clear() {
        errors_.clear();
        arena_.reset();
    }

    /// Where ctx objects and copied strings of the held errors live.
    base::Arena& arena() { return arena_; }
    /// Builds a ctx object in the arena. Keys must have static storage; string values are copied.
    json::Value make_ctx(std::initializer_list<std::pair<std::string_view, json::Value>> entries);

  private:
    std::size_t max_errors_;
    std::vector<ValidationError> errors_;
    base::Arena arena_{1024};
};

}  // namespace slipstream::json::schema
