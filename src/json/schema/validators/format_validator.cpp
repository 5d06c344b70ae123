// format: asserted only when CompileOptions::format_assertion or the format-assertion vocabulary says so.
#include "json/schema/formats/formats.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class FormatValidator final : public Validator {
  public:
    FormatValidator(std::string location, const formats::FormatSpec& spec)
        : Validator(std::move(location), kStringType), spec_(spec) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (spec_.check(v.as_string(), nullptr)) return true;
        if (auto* sink = ctx.sink()) {
            if (spec_.ctx_key.empty()) {
                ctx.report(location_, spec_.type, std::string(spec_.message), v);
            } else {
                std::string reason;
                spec_.check(v.as_string(), &reason);
                ctx.report(location_, spec_.type, std::string(spec_.message) + reason, v,
                           sink->make_ctx({{spec_.ctx_key, Value::string(reason)}}));
            }
        }
        return false;
    }

  private:
    const formats::FormatSpec& spec_;
};

}  // namespace

void make_format(const KeywordInput& in) {
    const Value& name = *in.get("format");
    if (!name.is_string()) in.fail("format", "must be a string");
    if (!in.info().format_assert) return;
    // Unknown formats are annotations only, as the specification requires.
    if (const formats::FormatSpec* spec = formats::find_format(name.as_string()))
        in.add(std::make_unique<FormatValidator>(in.location("format"), *spec));
}

}  // namespace slipstream::json::schema::validators
