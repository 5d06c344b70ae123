// Parser: tokens -> AST, by recursive descent with Jinja's operator precedence, nesting bounded by kMaxDepth.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "agent/infer/jinja/ast.h"
#include "agent/infer/jinja/lexer.h"
#include "base/result.h"

namespace slipstream::agent::infer::jinja {

struct ParsedTemplate {
    NodeList nodes;
    std::set<std::string> names;  // every variable name the template reads
};

/// Errors (invalid_argument) name the line and what was expected; nesting past kMaxDepth is out_of_range.
base::Result<ParsedTemplate> parse(std::vector<Token> tokens);

}  // namespace slipstream::agent::infer::jinja
