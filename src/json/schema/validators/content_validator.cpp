// draft-07 contentEncoding (base64) / contentMediaType (application/json) as assertions.
// 2020-12 makes them annotations only, so this validator is registered for draft-07 alone.
#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// RFC 4648 section 4 with padding; false when `s` is not canonical base64.
bool base64_decode(std::string_view s, std::string* out) {
    if (s.size() % 4 != 0) return false;
    out->clear();
    for (std::size_t i = 0; i < s.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s[i + static_cast<std::size_t>(k)];
            if (c == '=' && i + 4 == s.size() && k >= 2) {
                v[k] = 0;
                ++pad;
                continue;
            }
            if (pad > 0 || (v[k] = base64_value(c)) < 0) return false;
        }
        std::uint32_t n = static_cast<std::uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
        out->push_back(static_cast<char>(n >> 16));
        if (pad < 2) out->push_back(static_cast<char>((n >> 8) & 0xff));
        if (pad < 1) out->push_back(static_cast<char>(n & 0xff));
    }
    return true;
}

class ContentValidator final : public Validator {
  public:
    ContentValidator(std::string location, bool base64, bool json)
        : Validator(std::move(location), kStringType), base64_(base64), json_(json) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        std::string decoded;
        std::string_view text = v.as_string();
        if (base64_) {
            if (!base64_decode(text, &decoded)) {
                ctx.report(location_, "content_encoding", "String should be valid base64", v);
                return false;
            }
            text = decoded;
        }
        if (json_) {
            base::Arena arena(1024);
            if (!json::parse(text, arena).is_ok()) {
                ctx.report(location_, "content_media_type", "String should contain a valid application/json document",
                           v);
                return false;
            }
        }
        return true;
    }

  private:
    bool base64_;
    bool json_;
};

}  // namespace

void make_content(const KeywordInput& in) {
    const Value* encoding = in.get("contentEncoding");
    const Value* media = in.get("contentMediaType");
    bool base64 = encoding && encoding->is_string() && encoding->as_string() == "base64";
    bool json = media && media->is_string() && media->as_string() == "application/json";
    if (base64 || json) in.add(std::make_unique<ContentValidator>(in.location("contentEncoding"), base64, json));
}

}  // namespace slipstream::json::schema::validators
