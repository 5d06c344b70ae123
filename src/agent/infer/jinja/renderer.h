// Renderer: walks the AST of one template render with scopes, a depth bound and a Budget.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/infer/jinja/ast.h"
#include "agent/infer/jinja/builtins.h"
#include "base/result.h"

namespace slipstream::agent::infer::jinja {

/// One render; not reusable. Errors (invalid_argument for template errors, out_of_range for limits) name the
/// template line where they happened.
class Renderer {
  public:
    explicit Renderer(const Object& globals) : globals_(globals) { scopes_.emplace_back(); }

    base::Result<std::string> render(const NodeList& nodes);

  private:
    enum class Flow : std::uint8_t { kNormal, kBreak, kContinue };
    using Scope = std::vector<std::pair<std::string, Value>>;

    struct DepthGuard {
        explicit DepthGuard(int& d) : d_(d) { ++d_; }
        ~DepthGuard() { --d_; }
        int& d_;
    };
    // Depth (kMaxDepth) and steps (kMaxRenderSteps) at each statement and expression.
    base::Status check_depth(int line);

    // Statements.
    base::Status exec(const NodeList& nodes, std::string& out, Flow& flow);
    base::Status exec_node(const Node& n, std::string& out, Flow& flow);
    base::Status exec_for(const Node& n, std::string& out);
    base::Status exec_set(const Node& n);
    base::Status append(std::string& out, std::string_view s);

    // Expressions.
    base::Result<Value> eval(const Expr& e);
    base::Result<Value> eval_inner(const Expr& e);
    base::Result<Value> eval_literal_container(const Expr& e);
    base::Result<Value> eval_attr(const Value& object, const std::string& name);
    base::Result<Value> eval_item(const Value& object, const Value& key);
    base::Result<Value> eval_slice(const Expr& e);
    base::Result<Value> eval_call(const Expr& e);
    base::Result<Value> eval_binary(const Expr& e);
    base::Result<Value> eval_compare(const Expr& e);
    base::Result<Value> arithmetic(const std::string& op, const Value& a, const Value& b);
    base::Result<CallArgs> eval_args(const Expr& e, std::size_t first);
    base::Result<Value> call_macro(const Node& macro, const CallArgs& args);
    base::Result<Value> call_builtin(const std::string& name, const CallArgs& args);

    // Variables: the innermost scopes of the current frame, then the template's top level, then the globals.
    Value lookup(const std::string& name) const;
    void assign(const std::string& name, Value v);

    const Object& globals_;
    std::vector<Scope> scopes_;
    std::vector<std::size_t> frames_;  // first scope of each macro call in progress
    Budget budget_;
    int depth_ = 0;
    int64_t steps_ = 0;
};

}  // namespace slipstream::agent::infer::jinja
