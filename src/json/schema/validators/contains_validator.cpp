// contains with minContains / maxContains (2020-12); draft-07 contains means "at least one".
#include <limits>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

class ContainsValidator final : public Validator {
  public:
    ContainsValidator(std::string location, const Node* child, std::uint64_t min, std::uint64_t max)
        : Validator(std::move(location), kArrayType), child_(child), min_(min), max_(max) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        // Annotations and maxContains need every match; otherwise stop once minContains is met.
        const bool count_all = ann != nullptr || max_ != kUnbounded;
        if (!count_all && min_ == 0) return true;
        std::uint64_t count = 0;
        {
            MuteSink mute(ctx);  // a non-matching item is not an error
            auto items = v.items();
            for (std::uint32_t i = 0; i < v.size(); ++i) {
                if (!child_->validate(items[i], ctx, nullptr)) continue;
                ++count;
                if (ann) ann->set(i);
                if (!count_all && count >= min_) return true;
            }
        }
        if (count >= min_ && count <= max_) return true;
        if (auto* sink = ctx.sink()) {
            if (count < min_)
                ctx.report(
                    location_, "contains",
                    detail::cat("List should contain at least ", detail::plural(min_, "item"),
                                " matching the 'contains' schema, found ", std::to_string(count)),
                    v, sink->make_ctx({{"min_contains", count_value(min_)}, {"actual_contains", count_value(count)}}));
            else
                ctx.report(
                    location_, "max_contains",
                    detail::cat("List should contain at most ", detail::plural(max_, "item"),
                                " matching the 'contains' schema, found ", std::to_string(count)),
                    v, sink->make_ctx({{"max_contains", count_value(max_)}, {"actual_contains", count_value(count)}}));
        }
        return false;
    }

  private:
    const Node* child_;
    std::uint64_t min_;
    std::uint64_t max_;
};

}  // namespace

void make_contains(const KeywordInput& in) {
    std::uint64_t min = 1, max = kUnbounded;
    if (in.draft() == Draft::kDraft2020_12) {
        if (in.get("minContains")) min = in.count("minContains");
        if (in.get("maxContains")) max = in.count("maxContains");
    }
    in.add(std::make_unique<ContainsValidator>(in.location("contains"), in.sub("contains"), min, max));
}

}  // namespace slipstream::json::schema::validators
