// StringTokenClasses: each token read once as string content; the closers sorted two ways.
#include "agent/infer/string_token_classes.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "agent/structured/string_run.h"

namespace slipstream::agent::infer {

using structured::StringRun;

StringTokenClasses::StringTokenClasses(const std::vector<std::string>& bytes)
    : body_chars_(bytes.size(), kNotBody), tail_chars_(bytes.size(), kTailOther) {
    for (size_t t = 0; t < bytes.size(); ++t) {
        if (bytes[t].empty()) continue;
        const StringRun tail = structured::read_string_run(std::string_view(bytes[t]).substr(1));
        if (tail.kind == StringRun::Kind::kInvalid) {
            tail_chars_[t] = kTailInvalid;
        } else if (tail.kind == StringRun::Kind::kBody && tail.chars < kTailInvalid) {
            tail_chars_[t] = static_cast<uint8_t>(tail.chars);
        }
        const StringRun run = structured::read_string_run(bytes[t]);
        const auto token = static_cast<int32_t>(t);
        if (run.kind == StringRun::Kind::kBody) {
            if (run.chars < kNotBody) {
                body_chars_[t] = static_cast<uint8_t>(run.chars);
            } else {
                long_bodies_.push_back(token);
            }
        } else if (run.kind == StringRun::Kind::kCloses) {
            const std::string_view rest = std::string_view(bytes[t]).substr(run.quote + 1);
            const bool escapes = std::any_of(rest.begin(), rest.end(),
                                             [](char c) { return c == '\\' || static_cast<unsigned char>(c) >= 0x80; });
            by_suffix_.push_back({token, run.chars, run.quote, 0, escapes});
        }
    }
    const auto suffix = [&bytes](const Closer& c) { return std::string_view(bytes[c.token]).substr(c.quote + 1); };

    std::sort(by_suffix_.begin(), by_suffix_.end(), [&](const Closer& a, const Closer& b) {
        return std::make_tuple(suffix(a), a.chars, a.token) < std::make_tuple(suffix(b), b.chars, b.token);
    });
    for (Closer& c : by_suffix_) {
        if (suffixes_.empty() || suffixes_.back() != suffix(c)) suffixes_.emplace_back(suffix(c));
        c.suffix = static_cast<uint32_t>(suffixes_.size() - 1);
    }
    suffix_shared_.assign(suffixes_.size(), 0);
    for (size_t i = 0; i + 1 < suffixes_.size(); ++i) {
        const std::string& a = suffixes_[i];
        const std::string& b = suffixes_[i + 1];
        suffix_shared_[i] =
            static_cast<uint32_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
    }
    by_chars_ = by_suffix_;
    std::sort(by_chars_.begin(), by_chars_.end(), [&](const Closer& a, const Closer& b) {
        return std::make_tuple(a.chars, suffix(a), a.token) < std::make_tuple(b.chars, suffix(b), b.token);
    });
}

}  // namespace slipstream::agent::infer
