// x-slipstream-finite: pydantic's allow_inf_nan=False ("inf"/"nan" read for a float are refused).
#include <cmath>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class FiniteValidator final : public Validator {
  public:
    explicit FiniteValidator(std::string location) : Validator(std::move(location), kNumberType) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (v.type() != json::Type::kDouble || std::isfinite(v.as_double())) return true;
        if (ctx.sink() != nullptr) ctx.report(location_, "finite_number", "Input should be a finite number", v);
        return false;
    }
};

}  // namespace

// A vendor keyword (slipstream/_schema.py writes it on a float with allow_inf_nan=False). Only lax conversion
// ("inf", "nan" as text) makes a non-finite number: JSON has none.
void make_finite(const KeywordInput& in) {
    const Value& flag = *in.get(kFiniteKeyword);
    if (!flag.is_bool()) in.fail(kFiniteKeyword, "must be a boolean");
    if (flag.as_bool()) in.add(std::make_unique<FiniteValidator>(in.location(kFiniteKeyword)));
}

}  // namespace slipstream::json::schema::validators
