// `const` and `enum`: deep equality against fixed values (pydantic literal_error / enum).
#include <unordered_set>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class ConstValidator final : public Validator {
  public:
    ConstValidator(std::string location, const Value& value)
        : Validator(std::move(location), kAnyType), value_(value), expected_(detail::py_repr(value)) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (json::equal(v, value_)) return true;
        if (auto* sink = ctx.sink())
            ctx.report(location_, "literal_error", "Input should be " + expected_, v,
                       sink->make_ctx({{"expected", Value::string(expected_)}}));
        return false;
    }

  private:
    Value value_;  // lives in the SchemaData arena
    std::string expected_;
};

class EnumValidator final : public Validator {
  public:
    EnumValidator(std::string location, const Value& values)
        : Validator(std::move(location), kAnyType), values_(values.items()), expected_(detail::py_expected(values_)) {
        all_strings_ = true;
        for (const Value& v : values_)
            all_strings_ = all_strings_ && v.is_string();
        if (all_strings_ && values_.size() > 8)
            for (const Value& v : values_)
                strings_.insert(v.as_string());
    }

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (!strings_.empty()) {
            if (v.is_string() && strings_.count(v.as_string()) != 0) return true;
        } else if (all_strings_) {  // the common string enum: no generic deep equality
            if (v.is_string())
                for (const Value& candidate : values_)
                    if (same_key(candidate.as_string(), v.as_string())) return true;
        } else {
            for (const Value& candidate : values_)
                if (json::equal(v, candidate)) return true;
        }
        if (auto* sink = ctx.sink())
            ctx.report(location_, "enum", "Input should be " + expected_, v,
                       sink->make_ctx({{"expected", Value::string(expected_)}}));
        return false;
    }

  private:
    std::span<const Value> values_;
    std::string expected_;
    std::unordered_set<std::string_view> strings_;  // large all-string enums: O(1) lookup
    bool all_strings_ = false;
};

}  // namespace

void make_const(const KeywordInput& in) {
    in.add(std::make_unique<ConstValidator>(in.location("const"), *in.get("const")));
}

void make_enum(const KeywordInput& in) {
    const Value& values = *in.get("enum");
    if (!values.is_array()) in.fail("enum", "must be an array");
    in.add(std::make_unique<EnumValidator>(in.location("enum"), values));
}

}  // namespace slipstream::json::schema::validators
