// Template: a parsed Jinja template (the subset chat templates use) that renders with given variables.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "agent/infer/jinja/lexer.h"
#include "agent/infer/jinja/value.h"
#include "base/result.h"

namespace slipstream::agent::infer::jinja {

struct ParsedTemplate;

/// Immutable once parsed; copies share the AST; render() may be called from any thread at once.
/// Whitespace follows Jinja with trim_blocks and lstrip_blocks on (as HF transformers renders chat templates).
class Template {
  public:
    /// invalid_argument for a syntax error or an unsupported construct (the message names the line);
    /// out_of_range when the source is over kMaxTemplateBytes or nests deeper than kMaxDepth.
    static base::Result<Template> parse(std::string_view source, const LexOptions& options = {});

    /// Renders with `variables` (messages, add_generation_prompt, bos_token, ...); the functions
    /// raise_exception, namespace, range, dict and strftime_now are there unless a variable hides them.
    /// Errors: invalid_argument for a template error (an undefined value used, a type error, raise_exception's
    /// message), out_of_range for a limit (kMaxDepth, kMaxOutputBytes, kMaxBuiltBytes, kMaxLoopIterations).
    base::Result<std::string> render(const Object& variables) const;

    /// Whether the template reads the variable `name` anywhere.
    bool uses(std::string_view name) const;

  private:
    explicit Template(std::shared_ptr<const ParsedTemplate> parsed) : parsed_(std::move(parsed)) {}
    std::shared_ptr<const ParsedTemplate> parsed_;
};

}  // namespace slipstream::agent::infer::jinja
