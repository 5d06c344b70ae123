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
        : Validator(std::move(location), kNumberType),
          bound_(bound),
          limit_(limit),
          limit_is_double_(
              limit.type() == json::Type::kDouble ||
              (limit.type() == json::Type::kInt && limit.as_int() >= -kExactInt && limit.as_int() <= kExactInt)),
          limit_double_(limit.as_double()) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        // Fast path: a double against a limit that is exactly a double (pydantic's `gt=0`) compares as
        // doubles; everything else takes the exact mixed int/double comparison.
        int c;
        if (v.type() == json::Type::kDouble && limit_is_double_) {
            const double x = v.as_double();
            c = x < limit_double_ ? -1 : x > limit_double_ ? 1 : x == limit_double_ ? 0 : detail::kUnordered;
        } else {
            c = detail::compare_numbers(v, limit_);
        }
        bool ok = c != detail::kUnordered && (bound_ == Bound::kGe   ? c >= 0
                                              : bound_ == Bound::kGt ? c > 0
                                              : bound_ == Bound::kLe ? c <= 0
                                                                     : c < 0);
        if (ok) return true;
        if (auto* sink = ctx.sink()) {
            const BoundInfo& b = kBounds[static_cast<int>(bound_)];
            ctx.report(location_, b.type,
                       detail::cat("Input should be ", b.phrase, " ", detail::display_number(limit_)), v,
                       sink->make_ctx({{b.ctx_key, limit_}}));
        }
        return false;
    }

  private:
    static constexpr std::int64_t kExactInt = std::int64_t{1} << 53;  // integers a double holds exactly

    Bound bound_;
    Value limit_;
    bool limit_is_double_;  // limit_ converts to a double without rounding
    double limit_double_;
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
