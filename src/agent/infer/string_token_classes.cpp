// StringTokenClasses: each token read once as string content; the closers sorted two ways.
#include "agent/infer/string_token_classes.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "agent/structured/string_run.h"

namespace slipstream::agent::infer {

using structured::StringRun;

namespace {

bool escapes(std::string_view b) {
    return std::any_of(b.begin(), b.end(), [](char c) { return c == '\\' || static_cast<unsigned char>(c) >= 0x80; });
}

}  // namespace

StringTokenClasses::StringTokenClasses(const std::vector<std::string>& bytes)
    : body_chars_(bytes.size(), kNotBody), tail_chars_(bytes.size(), kTailOther) {
    for (size_t t = 0; t < bytes.size(); ++t) {
        if (bytes[t].empty()) continue;
        const std::string_view all(bytes[t]);
        const auto token = static_cast<int32_t>(t);
        const StringRun tail = structured::read_string_run(all.substr(1));
        if (tail.kind == StringRun::Kind::kInvalid) {
            tail_chars_[t] = kTailInvalid;
        } else if (tail.kind == StringRun::Kind::kBody && tail.chars < kTailCloses) {
            tail_chars_[t] = static_cast<uint8_t>(tail.chars);
        } else if (tail.kind == StringRun::Kind::kCloses) {
            const uint32_t quote = tail.quote + 1;
            tail_chars_[t] = kTailCloses;
            tail_closers_[static_cast<unsigned char>(all[0])].push_back(
                {token, tail.chars, quote, 0, escapes(all.substr(quote + 1))});
        }
        const StringRun run = structured::read_string_run(all);
        if (run.kind == StringRun::Kind::kBody) {
            if (run.chars < kNotBody) {
                body_chars_[t] = static_cast<uint8_t>(run.chars);
            } else {
                long_bodies_.push_back(token);
            }
        } else if (run.kind == StringRun::Kind::kCloses) {
            closers_.push_back({token, run.chars, run.quote, 0, escapes(all.substr(run.quote + 1))});
        }
    }
    // One sorted list of the distinct suffixes of both kinds of closers.
    const auto suffix = [&bytes](const Closer& c) { return std::string_view(bytes[c.token]).substr(c.quote + 1); };
    std::vector<std::string_view> all;
    for (const Closer& c : closers_)
        all.push_back(suffix(c));
    for (const auto& list : tail_closers_)
        for (const Closer& c : list)
            all.push_back(suffix(c));
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    suffixes_.assign(all.begin(), all.end());
    suffix_shared_.assign(suffixes_.size(), 0);
    for (size_t i = 0; i + 1 < suffixes_.size(); ++i) {
        const std::string& a = suffixes_[i];
        const std::string& b = suffixes_[i + 1];
        suffix_shared_[i] =
            static_cast<uint32_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
    }
    const auto index_and_sort = [&](std::vector<Closer>& list) {
        for (Closer& c : list)
            c.suffix = static_cast<uint32_t>(std::lower_bound(all.begin(), all.end(), suffix(c)) - all.begin());
        std::sort(list.begin(), list.end(), [](const Closer& a, const Closer& b) {
            return std::make_tuple(a.chars, a.suffix, a.token) < std::make_tuple(b.chars, b.suffix, b.token);
        });
    };
    index_and_sort(closers_);
    for (auto& list : tail_closers_)
        index_and_sort(list);
}

}  // namespace slipstream::agent::infer
