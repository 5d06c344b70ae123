// CompiledSchema: a JSON Schema document parsed and compiled once, shared by the checkers and validators made from it.
#pragma once

#include <memory>
#include <string_view>

#include "agent/structured/pattern_nfa.h"
#include "base/arena.h"
#include "base/result.h"
#include "json/parse.h"
#include "json/schema/schema.h"
#include "json/value.h"

namespace slipstream::agent::structured {

/// Owns the schema document (the early checks read it) and its compilation (the final verdict). Immutable once
/// made: any thread may use it, and checkers hold it by shared_ptr.
class CompiledSchema {
  public:
    /// Parses and compiles `schema_json` (draft 2020-12 unless its `$schema` or `options` say 7). kInvalidArgument
    /// with the parser's or the compiler's message.
    static base::Result<std::shared_ptr<const CompiledSchema>> create(std::string_view schema_json,
                                                                      const json::schema::CompileOptions& options = {});
    CompiledSchema(const CompiledSchema&) = delete;
    CompiledSchema& operator=(const CompiledSchema&) = delete;

    const json::Value& document() const { return *doc_; }
    const json::schema::Schema& schema() const { return compiled_; }
    /// False for draft 7, whose `$ref` ignores its sibling keywords.
    bool siblings_of_ref() const { return compiled_.draft() != json::schema::Draft::kDraft7; }
    /// The document's patterns that PatternNfa runs (SchemaChecker's early `pattern` checks), compiled once.
    const std::shared_ptr<const PatternTable>& patterns() const { return patterns_; }
    /// Whether `text` is one JSON document (json::parse with `options`) that the schema accepts.
    bool accepts(std::string_view text, json::ParseOptions options = {}) const;

  private:
    CompiledSchema() = default;

    base::Arena arena_;
    const json::Value* doc_ = nullptr;
    json::schema::Schema compiled_;
    std::shared_ptr<const PatternTable> patterns_;
};

}  // namespace slipstream::agent::structured
