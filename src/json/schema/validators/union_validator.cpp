// anyOf and oneOf: branches are tried silently; errors are reported only when no branch fits.
#include <string>
#include <string_view>
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class UnionValidator final : public Validator {
  public:
    UnionValidator(std::string location, std::vector<const Node*> branches, bool one_of, std::vector<std::string> tags)
        : Validator(std::move(location), kAnyType),
          branches_(std::move(branches)),
          one_of_(one_of),
          tags_(std::move(tags)) {}

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
    // Like pydantic's union errors: each branch's own errors, under the branch's tag when the schema names one
    // (x-slipstream-tags: pydantic's loc segment per member, e.g. "int", "list[int]", "Item"). A branch that only
    // says "null" (Optional[X]) is left out, as pydantic reports just X's errors.
    void report_branches(const Value& v, Context& ctx) const {
        for (std::size_t i = 0; i < branches_.size(); ++i) {
            const Node* branch = branches_[i];
            if (!v.is_null() && branch->shape().types == detail::kTypeNull && branches_.size() > 1) continue;
            if (i < tags_.size() && !tags_[i].empty()) {
                PathGuard tag(ctx, tags_[i]);
                (void)branch->validate(v, ctx, nullptr);
            } else {
                (void)branch->validate(v, ctx, nullptr);
            }
            if (ctx.stop()) return;
        }
    }

    std::vector<const Node*> branches_;
    bool one_of_;
    std::vector<std::string> tags_;
};

constexpr std::string_view kTagsKeyword = "x-slipstream-tags";

// The vendor keyword beside anyOf/oneOf: one string (or null: no tag) per branch.
std::vector<std::string> branch_tags(const KeywordInput& in, std::size_t branches) {
    std::vector<std::string> tags;
    const Value* list = in.get(kTagsKeyword);
    if (list == nullptr) return tags;
    if (!list->is_array() || list->size() != branches)
        in.fail(kTagsKeyword, "must be an array with one item per branch");
    for (const Value& t : list->items()) {
        if (!t.is_string() && !t.is_null()) in.fail(kTagsKeyword, "items must be strings or null");
        tags.emplace_back(t.is_string() ? t.as_string() : std::string_view());
    }
    return tags;
}

void add_union(const KeywordInput& in, std::string_view keyword, bool one_of) {
    auto branches = compile_schema_array(in, keyword);
    auto& any_of = in.node().mutable_shape().any_of;
    any_of.insert(any_of.end(), branches.begin(), branches.end());
    std::vector<std::string> tags = branch_tags(in, branches.size());
    in.add(std::make_unique<UnionValidator>(in.location(keyword), std::move(branches), one_of, std::move(tags)));
}

}  // namespace

void make_any_of(const KeywordInput& in) {
    add_union(in, "anyOf", false);
}
void make_one_of(const KeywordInput& in) {
    add_union(in, "oneOf", true);
}

}  // namespace slipstream::json::schema::validators
