// feature_hash(): FNV-1a plus the splitmix64 finaliser.
#include "agent/decide/feature_hash.h"

namespace slipstream::agent::decide {

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnv(std::uint64_t h, std::string_view bytes) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= kFnvPrime;
    }
    return h;
}

std::uint64_t finalise(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

std::uint64_t feature_hash(std::string_view name) {
    return finalise(fnv(kFnvOffset, name));
}

std::uint64_t feature_hash(std::string_view a, char sep, std::string_view b) {
    std::uint64_t h = fnv(kFnvOffset, a);
    h = fnv(h, std::string_view(&sep, 1));
    return finalise(fnv(h, b));
}

std::uint64_t cross_hash(std::uint64_t a, std::uint64_t b) {
    return finalise(a * 0x9e3779b97f4a7c15ull + b);
}

std::uint32_t feature_index(std::uint64_t hash, std::size_t dimension) {
    if (dimension < 2) return 0;
    return static_cast<std::uint32_t>(1 + hash % (dimension - 1));
}

}  // namespace slipstream::agent::decide
