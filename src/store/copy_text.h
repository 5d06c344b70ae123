// COPY text format (PostgreSQL's default COPY format): values to fields and lines back to values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/value.h"

namespace slipstream::store {

/// Appends `text` as one COPY text field: backslash, tab, newline and carriage return escaped. Text must not
/// contain NUL bytes (PostgreSQL refuses them; the server reports the error).
void append_copy_text_escaped(std::string_view text, std::string& out);

/// Appends a double in shortest round-trip form (NaN, Infinity, -Infinity as PostgreSQL spells them).
void append_copy_text_double(double d, std::string& out);

/// Appends one value as a COPY text field: NULL as \N, bool t/f, integers in decimal, doubles as
/// append_copy_text_double, text escaped, bytes in bytea's hex form (\\x...).
void encode_copy_text_value(const Value& value, std::string& out);

/// Appends `row` as one line: its fields (encode_copy_text_value) separated by tabs, then a newline.
void encode_copy_text_row(const std::vector<Value>& row, std::string& out);

/// Parses one line of COPY text format (`line` with or without its newline) into `fields`: std::monostate for
/// \N, else the field's text with the escapes undone (\b \f \n \r \t \v \\, octal \NNN, hex \xHH, any other
/// escaped byte as itself). False for a line ending in a lone backslash.
bool parse_copy_text_row(std::string_view line, std::vector<Value>& fields);

}  // namespace slipstream::store
