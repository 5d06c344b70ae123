// The Jinja AST: expression and statement nodes, owned by their parents and by the Template.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/infer/jinja/value.h"

namespace slipstream::agent::infer::jinja {

enum class ExprKind : std::uint8_t {
    kLiteral,      // literal
    kName,         // name
    kList,         // args: elements (tuples are lists too)
    kDict,         // args: key, value, key, value, ...
    kAttr,         // args[0].name
    kItem,         // args[0][args[1]]
    kSlice,        // args[0][args[1]:args[2]:args[3]], each bound may be null
    kCall,         // args[0](args[1..], kwargs)
    kFilter,       // args[0] | name(args[1..], kwargs)
    kTest,         // args[0] is [not] name(args[1..])
    kUnary,        // name ("-", "+", "not") args[0]
    kBinary,       // args[0] name args[1]; name is an operator, "in", "not in", "and", "or"
    kCompare,      // args[0] ops[0] args[1] ops[1] args[2] ... (Python's chained comparison)
    kConditional,  // args[0] if args[1] else args[2] (args[2] may be null: undefined)
};

struct Expr {
    ExprKind kind;
    int line = 0;
    std::string name;
    Value literal;
    std::vector<std::unique_ptr<Expr>> args;
    std::vector<std::string> kwarg_names;  // kCall, kFilter: kwargs[i] is named kwarg_names[i]
    std::vector<std::unique_ptr<Expr>> kwargs;
    std::vector<std::string> ops;  // kCompare
    bool negated = false;          // kTest: "is not"
    int height = 1;                // of this subtree, bounded by kMaxDepth (no deep recursion, even to destroy it)
};

enum class NodeKind : std::uint8_t {
    kText,      // text
    kOutput,    // {{ expr }}
    kIf,        // expr; body; else_body (an elif is an If alone in else_body)
    kFor,       // targets in expr [if filter]; body; else_body
    kSet,       // targets[0] (or targets[0].attr) = expr; or, without expr, = rendered body
    kMacro,     // name(params = defaults); body
    kBreak,     // {% break %}
    kContinue,  // {% continue %}
    kBlock,     // body rendered as is ({% generation %})
};

struct Node {
    NodeKind kind;
    int line = 0;
    std::string text;  // kText; kMacro: the macro's name; kSet: the attribute of `set ns.attr`
    std::unique_ptr<Expr> expr;
    std::unique_ptr<Expr> filter;                 // kFor: `if` condition
    std::vector<std::string> targets;             // kFor: loop variables; kSet: names; kMacro: parameters
    std::vector<std::unique_ptr<Expr>> defaults;  // kMacro: one per parameter, null when none
    std::vector<std::unique_ptr<Node>> body;
    std::vector<std::unique_ptr<Node>> else_body;
};

using NodeList = std::vector<std::unique_ptr<Node>>;

}  // namespace slipstream::agent::infer::jinja
