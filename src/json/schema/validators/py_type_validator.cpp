// x-slipstream-pytype: a value pydantic reads as a Python type (UUID, datetime, date, time, Decimal), with its errors.
#include "json/schema/formats/py_types.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class PyTypeValidator final : public Validator {
  public:
    PyTypeValidator(std::string location, formats::PyType type)
        : Validator(std::move(location), kAnyType), type_(type) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (ctx.sink() == nullptr) return formats::check_py_value(type_, v, nullptr);
        formats::PyTypeFailure failure;
        if (formats::check_py_value(type_, v, &failure)) return true;
        Value details;
        if (!failure.error.empty()) details = ctx.sink()->make_ctx({{"error", Value::string(failure.error)}});
        ctx.report(location_, failure.type, std::move(failure.msg), v, details);
        return false;
    }

  private:
    formats::PyType type_;
};

}  // namespace

// A vendor keyword (slipstream/_schema.py writes it): pydantic's lax reading of the value, which the standard
// `format` keyword cannot express (naive datetimes, Unix times, UUIDs without hyphens, Decimal texts).
void make_py_type(const KeywordInput& in) {
    const Value& name = *in.get(kPyTypeKeyword);
    formats::PyType type{};
    if (!name.is_string() || !formats::find_py_type(name.as_string(), &type))
        in.fail(kPyTypeKeyword, "must be one of \"uuid\", \"datetime\", \"date\", \"time\", \"decimal\"");
    in.add(std::make_unique<PyTypeValidator>(in.location(kPyTypeKeyword), type));
}

}  // namespace slipstream::json::schema::validators
