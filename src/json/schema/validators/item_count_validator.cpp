// minItems / maxItems (pydantic too_short / too_long with field_type "List").
#include <limits>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class ItemCountValidator final : public Validator {
  public:
    ItemCountValidator(std::string min_location, std::string max_location, std::uint64_t min, std::uint64_t max)
        : Validator(std::move(min_location), kArrayType),
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
                       std::string("List should have ") + (short_ ? "at least " : "at most ") +
                           detail::plural(limit, "item") + " after validation, not " + std::to_string(n),
                       v,
                       sink->make_ctx({{"field_type", Value::string("List")},
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

void make_item_count(const KeywordInput& in) {
    std::uint64_t min = in.get("minItems") ? in.count("minItems") : 0;
    std::uint64_t max = in.get("maxItems") ? in.count("maxItems") : std::numeric_limits<std::uint64_t>::max();
    in.add(std::make_unique<ItemCountValidator>(in.location("minItems"), in.location("maxItems"), min, max));
}

}  // namespace slipstream::json::schema::validators
