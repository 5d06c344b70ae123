// JSON text -> Value tree in an Arena, with limits; rejects invalid UTF-8 and malformed input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/arena.h"
#include "base/result.h"
#include "json/value.h"

namespace slipstream::json {

/// What to do when an object repeats a key. The default keeps the last occurrence (as Python's
/// json module and pydantic do); kReject answers an error.
enum class DuplicateKeys : std::uint8_t { kKeepLast, kReject };

/// Limits against hostile documents. Each has a default and is a server knob.
struct ParseOptions {
    std::size_t max_depth = 64;                          // nesting of arrays/objects
    std::size_t max_string_bytes = 1 << 20;              // one string or key, in bytes after unescaping
    std::size_t max_members = 10'000;                    // members of one object / elements of one array
    std::size_t max_integer_digits = kMaxIntegerDigits;  // digits of an integer literal (Python's limit)
    DuplicateKeys duplicate_keys = DuplicateKeys::kKeepLast;
};

/// Why parsing failed, for mapping to a response: kSyntax is FastAPI's 422 `json_invalid`; kEncoding is what
/// Python reports as UnicodeDecodeError (FastAPI answers 400); kLimit is a ParseOptions limit.
enum class ParseErrorKind : std::uint8_t { kSyntax, kEncoding, kLimit, kDuplicateKey };

/// Where and why parsing failed. Syntax messages are Python json's `JSONDecodeError.msg` texts, e.g.
/// "Expecting value", "Expecting ',' delimiter", "Unterminated string starting at".
struct ParseError {
    std::size_t offset = 0;       // byte offset into the input
    std::size_t char_offset = 0;  // Python's JSONDecodeError.pos: code points before `offset`, after a BOM
    ParseErrorKind kind = ParseErrorKind::kSyntax;
    std::string message;  // e.g. "Expecting value", "Invalid UTF-8", "Nesting deeper than 64"
};

/// Readable bytes parse_padded() needs after the input (simdjson::SIMDJSON_PADDING).
inline constexpr std::size_t kParsePadding = 64;

/// Parses one complete JSON document (surrounding whitespace allowed, nothing else after it).
/// Strings are unescaped into `arena`; the returned tree lives as long as `arena`.
/// On failure returns Status::invalid_argument (malformed) or Status::out_of_range (a limit),
/// and fills `error` when given. Never throws; linear time in the input size; no recursion at any depth.
/// A leading UTF-8 byte order mark is skipped (as Python's json.loads(bytes) does).
/// Thread-safe: each thread reuses its own simdjson parser (thread_local), so call it from any thread.
base::Result<const Value*> parse(std::string_view text, base::Arena& arena, const ParseOptions& options = {},
                                 ParseError* error = nullptr);

/// As parse(), for input followed by at least kParsePadding readable bytes (any content), e.g. the spare
/// capacity of a connection buffer: skips copying the input into a padded buffer.
base::Result<const Value*> parse_padded(std::string_view text, base::Arena& arena, const ParseOptions& options = {},
                                        ParseError* error = nullptr);

}  // namespace slipstream::json
