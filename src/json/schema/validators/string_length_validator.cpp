// minLength / maxLength in Unicode code points (pydantic string_too_short / string_too_long).
#include <limits>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

// Input is valid UTF-8 (the parser checks), so code points = bytes that are not continuations.
std::uint64_t code_points(std::string_view s) {
    std::uint64_t n = 0;
    for (char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

class StringLengthValidator final : public Validator {
  public:
    StringLengthValidator(std::string min_location, std::string max_location, std::uint64_t min, std::uint64_t max)
        : Validator(std::move(min_location), kStringType),
          max_location_(std::move(max_location)),
          min_(min),
          max_(max) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        std::string_view s = v.as_string();
        // Bytes bound code points from above: skip counting when bytes alone decide.
        if (min_ == 0 && s.size() <= max_) return true;
        std::uint64_t n = s.size() < min_ ? s.size() : code_points(s);
        if (n < min_) {
            if (auto* sink = ctx.sink())
                ctx.report(location_, "string_too_short",
                           detail::cat("String should have at least ", detail::plural(min_, "character")), v,
                           sink->make_ctx({{"min_length", count_value(min_)}}));
            return false;
        }
        if (n > max_) {
            if (auto* sink = ctx.sink())
                ctx.report(max_location_, "string_too_long",
                           detail::cat("String should have at most ", detail::plural(max_, "character")), v,
                           sink->make_ctx({{"max_length", count_value(max_)}}));
            return false;
        }
        return true;
    }

  private:
    std::string max_location_;
    std::uint64_t min_;
    std::uint64_t max_;
};

}  // namespace

void make_string_length(const KeywordInput& in) {
    std::uint64_t min = in.get("minLength") ? in.count("minLength") : 0;
    std::uint64_t max = in.get("maxLength") ? in.count("maxLength") : std::numeric_limits<std::uint64_t>::max();
    in.add(std::make_unique<StringLengthValidator>(in.location("minLength"), in.location("maxLength"), min, max));
}

}  // namespace slipstream::json::schema::validators
