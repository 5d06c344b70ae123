// The strict fallback parser: builds the tree itself and reports errors the way Python's json module does.
#pragma once

#include <string_view>

#include "base/arena.h"
#include "base/result.h"
#include "json/parse.h"
#include "json/value.h"

namespace slipstream::json::detail {

/// Parses `text` (no BOM) into `arena` with the same result as the simdjson path, without recursion (any
/// nesting is safe). Errors carry Python json's message and position (`JSONDecodeError.msg`/`.pos` for
/// ASCII input), found in one pass. parse() calls it only when simdjson refuses a document: to locate
/// the error, or to read integers beyond uint64 (which simdjson refuses) as doubles.
/// Offsets in `error` are relative to `text`; `error->char_offset` is left 0 for the caller.
base::Result<const Value*> parse_strict(std::string_view text, base::Arena& arena, const ParseOptions& options,
                                        ParseError* error);

/// The Status parse() answers for `error`: out_of_range for kLimit, invalid_argument otherwise.
base::Status parse_error_status(const ParseError& error);

}  // namespace slipstream::json::detail
