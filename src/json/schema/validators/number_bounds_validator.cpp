// minimum / maximum / exclusiveMinimum / exclusiveMaximum (pydantic ge / le / gt / lt).
#include "json/schema/numeric.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

enum class Bound : std::uint8_t { kGe, kGt, kLe, kLt };

struct BoundInfo {
    std::string_view keyword;
    std::string_view type;
    std::string_view ctx_key;
    std::string_view phrase;
};
constexpr BoundInfo kBounds[] = {
    {"minimum", "greater_than_equal", "ge", "greater than or equal to"},
    {"exclusiveMinimum", "greater_than", "gt", "greater than"},
    {"maximum", "less_than_equal", "le", "less than or equal to"},
    {"exclusiveMaximum", "less_than", "lt", "less than"},
};

class NumberBoundValidator final : public Validator {
  public:
    NumberBoundValidator(std::string location, Bound bound, const Value& limit)
        : Validator(std::move(location), kNumberType), bound_(bound), limit_(limit) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        int c = detail::compare_numbers(v, limit_);
        bool ok = c != detail::kUnordered && (bound_ == Bound::kGe   ? c >= 0
                                              : bound_ == Bound::kGt ? c > 0
                                              : bound_ == Bound::kLe ? c <= 0
                                                                     : c < 0);
        if (ok) return true;
        if (auto* sink = ctx.sink()) {
            const BoundInfo& b = kBounds[static_cast<int>(bound_)];
            ctx.report(location_, b.type, detail::cat("Input should be ", b.phrase, " ", detail::py_number(limit_)), v,
                       sink->make_ctx({{b.ctx_key, limit_}}));
        }
        return false;
    }

  private:
    Bound bound_;
    Value limit_;
};

}  // namespace

void make_number_bounds(const KeywordInput& in) {
    for (int i = 0; i < 4; ++i) {
        std::string_view keyword = kBounds[i].keyword;
        if (in.get(keyword) == nullptr) continue;
        // draft-04 style boolean exclusive* is not valid in draft-07 / 2020-12.
        const Value& limit = in.number(keyword);
        in.add(std::make_unique<NumberBoundValidator>(in.location(keyword), static_cast<Bound>(i), limit));
    }
}

}  // namespace slipstream::json::schema::validators
