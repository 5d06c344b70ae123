// indent(): JSON text laid out with newlines and indentation, as Python's json.dumps(indent=n) and pydantic's
// to_json(indent=n) write it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace slipstream::json {

/// Appends `text` (one valid JSON document, compact or not) to `out` with each member and element on its own line,
/// `width` spaces per level, ": " after keys and empty containers as [] and {}; strings and numbers as written.
/// Whitespace between tokens is dropped. Text that is not valid JSON comes out laid out as far as its brackets go
/// (never an error: validate first where it matters). Linear, no recursion.
void append_indented(std::string_view text, std::size_t width, std::string& out);

}  // namespace slipstream::json
