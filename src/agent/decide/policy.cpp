// squarecb_probabilities() and friends: a few loops over the eligible actions' scores.
#include "agent/decide/policy.h"

#include <random>

namespace slipstream::agent::decide {

namespace {

std::size_t best_of(std::span<const double> scores) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < scores.size(); ++i)
        if (scores[i] > scores[best]) best = i;
    return best;
}

void apply_floor(std::vector<double>& p, double floor) {
    const double k = static_cast<double>(p.size());
    if (floor <= 0.0 || p.empty()) return;
    if (floor * k >= 1.0) {
        for (double& x : p)
            x = 1.0 / k;
        return;
    }
    // (1 - K f) p + f: every entry is at least f, and the sum stays 1.
    const double keep = 1.0 - k * floor;
    for (double& x : p)
        x = keep * x + floor;
}

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

std::vector<double> squarecb_probabilities(std::span<const double> scores, double gamma, double floor) {
    std::vector<double> p(scores.size(), 0.0);
    if (scores.empty()) return p;
    const std::size_t best = best_of(scores);
    const double k = static_cast<double>(scores.size());
    double others = 0.0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        if (i == best) continue;
        p[i] = 1.0 / (k + gamma * (scores[best] - scores[i]));
        others += p[i];
    }
    p[best] = 1.0 - others;
    apply_floor(p, floor);
    return p;
}

std::vector<double> epsilon_greedy_probabilities(std::span<const double> scores, double epsilon, double floor) {
    std::vector<double> p(scores.size(), 0.0);
    if (scores.empty()) return p;
    const double k = static_cast<double>(scores.size());
    for (double& x : p)
        x = epsilon / k;
    p[best_of(scores)] += 1.0 - epsilon;
    apply_floor(p, floor);
    return p;
}

std::vector<double> baseline_probabilities(std::size_t count, std::size_t baseline, double epsilon) {
    std::vector<double> p(count, count == 0 ? 0.0 : epsilon / static_cast<double>(count));
    if (baseline < count) p[baseline] += 1.0 - epsilon;
    return p;
}

double seeded_uniform(std::uint64_t seed) {
    std::uint64_t state = seed;
    return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

std::size_t sample_index(std::span<const double> probabilities, std::uint64_t seed) {
    if (probabilities.empty()) return 0;
    const double u = seeded_uniform(seed);
    double acc = 0.0;
    for (std::size_t i = 0; i < probabilities.size(); ++i) {
        acc += probabilities[i];
        if (u < acc) return i;
    }
    // Rounding left u at or past the total: the last action with a positive probability.
    for (std::size_t i = probabilities.size(); i-- > 0;)
        if (probabilities[i] > 0.0) return i;
    return probabilities.size() - 1;
}

std::uint64_t fresh_seed() {
    thread_local std::uint64_t state = [] {
        std::random_device device;
        return (static_cast<std::uint64_t>(device()) << 32) ^ device();
    }();
    return splitmix64(state);
}

}  // namespace slipstream::agent::decide
