// Lexer: Jinja source -> text and tag tokens, with whitespace control (-/+, trim_blocks, lstrip_blocks) applied.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace slipstream::agent::infer::jinja {

enum class TokenKind : std::uint8_t {
    kText,        // template data, whitespace control already applied
    kVarBegin,    // {{
    kVarEnd,      // }}
    kBlockBegin,  // {%
    kBlockEnd,    // %}
    kName,
    kString,  // text holds the unescaped value
    kInt,
    kFloat,
    kOp,  // text holds the operator: + - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : |
    kEof,
};

struct Token {
    TokenKind kind;
    std::string text;
    int64_t int_value = 0;
    double float_value = 0;
    int line = 1;
};

/// Whitespace behaviour; chat templates are rendered with both on (as HF transformers does).
struct LexOptions {
    bool trim_blocks = true;    // drop the first newline after a block or comment tag
    bool lstrip_blocks = true;  // drop spaces and tabs before a block or comment tag that starts its line
    bool keep_trailing_newline = false;
};

/// Tokenizes `source` (newlines normalized to \n first; comments dropped; {% raw %} bodies become text).
/// Errors (invalid_argument) name the line: an unterminated tag, string or comment, an unexpected character.
base::Result<std::vector<Token>> tokenize(std::string_view source, const LexOptions& options = {});

}  // namespace slipstream::agent::infer::jinja
