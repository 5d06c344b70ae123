// random_id(): an OpenAI-style identifier: a prefix and 24 random letters and digits.
#pragma once

#include <random>
#include <string>
#include <string_view>

namespace slipstream::agent::infer {

/// "chatcmpl-...", "cmpl-...", "call_...": unique enough for ids clients echo back; not a secret.
inline std::string random_id(std::string_view prefix) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string id(prefix);
    for (int i = 0; i < 24; ++i)
        id.push_back(kDigits[rng() % 62]);
    return id;
}

}  // namespace slipstream::agent::infer
