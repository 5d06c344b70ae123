// `type`: the instance's JSON type, with pydantic's *_type errors.
#include <cmath>

#include "json/schema/numeric.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

using detail::type_bit;

struct TypeName {
    std::string_view name;
    std::uint8_t bit;
};
constexpr TypeName kTypeNames[] = {
    {"null", detail::kTypeNull},     {"boolean", detail::kTypeBoolean}, {"integer", detail::kTypeInteger},
    {"number", detail::kTypeNumber}, {"string", detail::kTypeString},   {"array", detail::kTypeArray},
    {"object", detail::kTypeObject},
};

class TypeValidator final : public Validator {
  public:
    TypeValidator(std::string location, std::uint8_t types, bool model, bool int64_floats)
        : Validator(std::move(location), kAnyType), types_(types), model_(model), int64_floats_(int64_floats) {
        using json::Type;
        if (types & detail::kTypeNull) mask_ |= type_bit(Type::kNull);
        if (types & detail::kTypeBoolean) mask_ |= type_bit(Type::kBool);
        if (types & (detail::kTypeInteger | detail::kTypeNumber)) mask_ |= detail::kIntegerType;
        if (types & detail::kTypeNumber) mask_ |= type_bit(Type::kDouble);
        if (types & detail::kTypeString) mask_ |= type_bit(Type::kString);
        if (types & detail::kTypeArray) mask_ |= type_bit(Type::kArray);
        if (types & detail::kTypeObject) mask_ |= type_bit(Type::kObject);
    }

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (mask_ & type_bit(v.type())) return true;
        if ((types_ & detail::kTypeInteger) && detail::is_integral(v)) {
            if (!int64_floats_ || v.type() != json::Type::kDouble || std::fabs(v.as_double()) < kTwoPow63) return true;
            // pydantic converts an integral float to int only inside int64.
            ctx.report(location_, "int_parsing_size",
                       "Unable to parse input string as an integer, exceeded maximum size", v);
            return false;
        }
        if (ctx.sink()) report(v, ctx);
        return false;
    }

  private:
    void report(const Value& v, Context& ctx) const {
        std::uint8_t shown = types_;
        if ((shown & ~detail::kTypeNull) != 0) shown &= static_cast<std::uint8_t>(~detail::kTypeNull);  // Optional[X]
        if (shown & detail::kTypeNumber) shown &= static_cast<std::uint8_t>(~detail::kTypeInteger);
        if (shown & detail::kTypeInteger) {
            if (v.type() == json::Type::kDouble)
                ctx.report(location_, "int_from_float",
                           "Input should be a valid integer, got a number with a fractional part", v);
            else
                ctx.report(location_, "int_type", "Input should be a valid integer", v);
        }
        if (shown & detail::kTypeNumber) ctx.report(location_, "float_type", "Input should be a valid number", v);
        if (shown & detail::kTypeString) ctx.report(location_, "string_type", "Input should be a valid string", v);
        if (shown & detail::kTypeBoolean) ctx.report(location_, "bool_type", "Input should be a valid boolean", v);
        if (shown & detail::kTypeNull) ctx.report(location_, "none_required", "Input should be None", v);
        if (shown & detail::kTypeArray) ctx.report(location_, "list_type", "Input should be a valid list", v);
        if (shown & detail::kTypeObject) {
            if (model_)
                ctx.report(location_, "model_attributes_type",
                           "Input should be a valid dictionary or object to extract fields from", v);
            else
                ctx.report(location_, "dict_type", "Input should be a valid dictionary", v);
        }
    }

    static constexpr double kTwoPow63 = 9223372036854775808.0;

    std::uint8_t types_;
    std::uint16_t mask_ = 0;
    bool model_;
    bool int64_floats_;  // CompileOptions::pydantic_int_from_float
};

std::uint8_t type_from_name(const KeywordInput& in, const Value& name) {
    if (name.is_string())
        for (const TypeName& t : kTypeNames)
            if (t.name == name.as_string()) return t.bit;
    in.fail("type", detail::cat("unknown type ", detail::py_repr(name),
                                " (expected null, boolean, integer, number, string, array or object)"));
}

}  // namespace

void make_type(const KeywordInput& in) {
    const Value& t = *in.get("type");
    std::uint8_t types = 0;
    if (t.is_array()) {
        if (t.size() == 0) in.fail("type", "must not be an empty array");
        for (const Value& name : t.items())
            types |= type_from_name(in, name);
    } else {
        types = type_from_name(in, t);
    }
    in.node().mutable_shape().types = types;
    bool model = in.get("properties") != nullptr || in.get("required") != nullptr;
    in.add(std::make_unique<TypeValidator>(in.location("type"), types, model, in.options().pydantic_int_from_float));
}

}  // namespace slipstream::json::schema::validators
