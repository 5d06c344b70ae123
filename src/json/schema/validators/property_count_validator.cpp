// minProperties / maxProperties (pydantic too_short / too_long with field_type "Dictionary").
#include <limits>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class PropertyCountValidator final : public Validator {
  public:
    PropertyCountValidator(std::string min_location, std::string max_location, std::uint64_t min, std::uint64_t max)
        : Validator(std::move(min_location), kObjectType),
          max_location_(std::move(max_location)),
          min_(min),
          max_(max) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        std::uint64_t n = v.size();
        if (n >= min_ && n <= max_) return true;
        if (auto* sink = ctx.sink()) {
            bool short_ = n < min_;
            std::uint64_t limit = short_ ? min_ : max_;
            ctx.report(short_ ? location_ : max_location_, short_ ? "too_short" : "too_long",
                       std::string("Dictionary should have ") + (short_ ? "at least " : "at most ") +
                           detail::plural(limit, "item") + " after validation, not " + std::to_string(n),
                       v,
                       sink->make_ctx({{"field_type", Value::string("Dictionary")},
                                       {short_ ? "min_length" : "max_length", count_value(limit)},
                                       {"actual_length", count_value(n)}}));
        }
        return false;
    }

  private:
    std::string max_location_;
    std::uint64_t min_;
    std::uint64_t max_;
};

}  // namespace

void make_property_count(const KeywordInput& in) {
    std::uint64_t min = in.get("minProperties") ? in.count("minProperties") : 0;
    std::uint64_t max = in.get("maxProperties") ? in.count("maxProperties") : std::numeric_limits<std::uint64_t>::max();
    in.add(
        std::make_unique<PropertyCountValidator>(in.location("minProperties"), in.location("maxProperties"), min, max));
}

}  // namespace slipstream::json::schema::validators
