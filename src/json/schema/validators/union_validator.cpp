// anyOf and oneOf: branches are tried silently; errors are reported only when no branch fits.
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class UnionValidator final : public Validator {
  public:
    UnionValidator(std::string location, std::vector<const Node*> branches, bool one_of)
        : Validator(std::move(location), kAnyType), branches_(std::move(branches)), one_of_(one_of) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        std::size_t matches = 0, first = 0;
        {
            MuteSink mute(ctx);
            for (std::size_t i = 0; i < branches_.size(); ++i) {
                // anyOf with tracking must visit every branch: each passing one adds annotations.
                if (!validate_in_place(branches_[i], v, ctx, one_of_ ? nullptr : ann)) continue;
                if (matches++ == 0) first = i;
                if (one_of_ ? matches > 1 : ann == nullptr) break;
            }
        }
        if (one_of_ && matches == 1) {
            if (ann) {
                MuteSink mute(ctx);
                (void)validate_in_place(branches_[first], v, ctx, ann);
            }
            return true;
        }
        if (!one_of_ && matches > 0) return true;
        if (ctx.sink()) {
            if (matches > 1)
                ctx.report(location_, "one_of",
                           "Input should match exactly one of the 'oneOf' schemas, but matched more than one", v);
            else
                report_branches(v, ctx);
        }
        return false;
    }

  private:
    // Like pydantic's union errors: each branch's own errors. A branch that only says "null"
    // (Optional[X]) is left out, as pydantic reports just X's errors.
    void report_branches(const Value& v, Context& ctx) const {
        for (const Node* branch : branches_) {
            if (!v.is_null() && branch->shape().types == detail::kTypeNull && branches_.size() > 1) continue;
            (void)branch->validate(v, ctx, nullptr);
            if (ctx.stop()) return;
        }
    }

    std::vector<const Node*> branches_;
    bool one_of_;
};

void add_union(const KeywordInput& in, std::string_view keyword, bool one_of) {
    auto branches = compile_schema_array(in, keyword);
    auto& any_of = in.node().mutable_shape().any_of;
    any_of.insert(any_of.end(), branches.begin(), branches.end());
    in.add(std::make_unique<UnionValidator>(in.location(keyword), std::move(branches), one_of));
}

}  // namespace

void make_any_of(const KeywordInput& in) {
    add_union(in, "anyOf", false);
}
void make_one_of(const KeywordInput& in) {
    add_union(in, "oneOf", true);
}

}  // namespace slipstream::json::schema::validators
