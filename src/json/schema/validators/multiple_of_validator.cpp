// multipleOf: exact for integers, decimal-exact for floats (pydantic multiple_of).
#include "json/schema/numeric.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class MultipleOfValidator final : public Validator {
  public:
    MultipleOfValidator(std::string location, const Value& divisor)
        : Validator(std::move(location), kNumberType), divisor_(divisor) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (detail::is_multiple_of(v, divisor_)) return true;
        if (auto* sink = ctx.sink())
            ctx.report(location_, "multiple_of",
                       detail::cat("Input should be a multiple of ", detail::display_number(divisor_)), v,
                       sink->make_ctx({{"multiple_of", divisor_}}));
        return false;
    }

  private:
    Value divisor_;
};

}  // namespace

void make_multiple_of(const KeywordInput& in) {
    const Value& d = in.number("multipleOf");
    if (detail::compare_numbers(d, Value::integer(0)) != 1) in.fail("multipleOf", "must be greater than 0");
    in.add(std::make_unique<MultipleOfValidator>(in.location("multipleOf"), d));
}

}  // namespace slipstream::json::schema::validators
