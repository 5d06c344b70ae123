// JSON helpers for handlers: validate-and-reformat a document, quote a string.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "slipstream/json_view.h"

namespace slipstream {

/// Parses `text` as one JSON document and writes it back compactly (separators "," and ":", as
/// Python's json.dumps with FastAPI's settings). Returns nullopt when `text` is not valid JSON (or is
/// nested deeper than 64), with a short reason in `error` when given. Thread-safe.
std::optional<std::string> json_reformat(std::string_view text, std::string* error = nullptr);

/// `value` written compactly (same separators as json_reformat). A null view writes `null`. Thread-safe.
std::string json_write(JsonView value);

/// `text` as a JSON string literal, quotes included, with the required escapes. Thread-safe.
std::string json_quote(std::string_view text);

/// `text` (one valid JSON document) with each member and element on its own line and `width` spaces per level, as
/// Python's json.dumps(indent=width) and pydantic's to_json(indent=width) lay it out (": " after keys, [] and {}
/// when empty). Not validated: check the text first where it may not be JSON. Thread-safe.
std::string json_indent(std::string_view text, std::size_t width = 2);

}  // namespace slipstream
