// pattern: an unanchored RE2 search (pydantic string_pattern_mismatch).
#include "json/schema/regex.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class PatternValidator final : public Validator {
  public:
    PatternValidator(std::string location, std::unique_ptr<detail::Regex> regex)
        : Validator(std::move(location), kStringType), regex_(std::move(regex)) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (regex_->search(v.as_string())) return true;
        if (auto* sink = ctx.sink())
            ctx.report(location_, "string_pattern_mismatch", "String should match pattern '" + regex_->source() + "'",
                       v, sink->make_ctx({{"pattern", Value::string(regex_->source())}}));
        return false;
    }

  private:
    std::unique_ptr<detail::Regex> regex_;
};

}  // namespace

/// Compiles an ECMA-262 pattern keyword value or fails with the reason (shared with patternProperties).
std::unique_ptr<detail::Regex> compile_pattern(const KeywordInput& in, const Value& pattern,
                                               const std::string& location) {
    if (!pattern.is_string()) throw SchemaError(location, "must be a string (an ECMA-262 regular expression)");
    std::string error;
    auto regex = detail::Regex::compile(pattern.as_string(), &error);
    if (!regex) throw SchemaError(location, "unsupported or invalid regular expression: " + error);
    return regex;
}

void make_pattern(const KeywordInput& in) {
    in.add(std::make_unique<PatternValidator>(in.location("pattern"),
                                              compile_pattern(in, *in.get("pattern"), in.location("pattern"))));
}

}  // namespace slipstream::json::schema::validators
