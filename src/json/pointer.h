// Pointer: a location inside a JSON document (member names and array indices), as RFC 6901 text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "json/value.h"

namespace slipstream::json {

/// One step of a location: an object member name or an array index.
struct PointerSegment {
    std::string_view key;  // when !is_index; a view, the name must outlive the segment
    std::size_t index = 0;
    bool is_index = false;

    static PointerSegment member(std::string_view name) { return {name, 0, false}; }
    static PointerSegment element(std::size_t i) { return {{}, i, true}; }
    friend bool operator==(const PointerSegment&, const PointerSegment&) = default;
};

/// A path from the root, built while walking a document (push on the way in, pop on the way out) and
/// formatted only when needed, e.g. for a validation error. Segments are views (see PointerSegment).
class Pointer {
  public:
    Pointer() = default;

    void push_key(std::string_view name) { segments_.push_back(PointerSegment::member(name)); }
    void push_index(std::size_t i) { segments_.push_back(PointerSegment::element(i)); }
    void pop() { segments_.pop_back(); }
    void clear() { segments_.clear(); }

    bool empty() const { return segments_.empty(); }
    std::size_t size() const { return segments_.size(); }
    const std::vector<PointerSegment>& segments() const { return segments_; }

    /// RFC 6901 text: "" for the root, else "/" before each segment, with '~' written "~0" and '/' "~1"
    /// (e.g. {"a/b", 0} -> "/a~1b/0").
    std::string to_string() const;
    /// Appends to_string() to `out`.
    void append_to(std::string& out) const;

  private:
    std::vector<PointerSegment> segments_;
};

/// Appends one reference token with '~' -> "~0" and '/' -> "~1".
void append_pointer_token(std::string& out, std::string_view token);

/// Splits RFC 6901 text into unescaped reference tokens ("" -> none; "/a~1b/0" -> {"a/b", "0"}).
/// invalid_argument when the text is neither empty nor starts with '/', or has '~' not followed by 0 or 1.
base::Result<std::vector<std::string>> parse_pointer(std::string_view text);

/// The value `pointer` (RFC 6901 text) refers to inside `root`, or nullptr when the text is malformed or names
/// nothing. An array token must be "0" or a decimal without leading zeros; "-" (past the end) names nothing.
const Value* resolve_pointer(const Value& root, std::string_view pointer);

}  // namespace slipstream::json
