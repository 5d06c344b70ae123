// Exploration policies: scores of the eligible actions to probabilities (SquareCB, epsilon-greedy, baseline),
// and seeded sampling, so that a logged seed replays a decision exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace slipstream::agent::decide {

/// SquareCB's inverse-gap weighting (Foster and Rakhlin 2020) for rewards (higher is better): with b the best
/// score and K actions, p_a = 1 / (K + gamma (s_b - s_a)) for a != b and the rest to b; then mixed with the
/// uniform distribution so that every action gets at least `floor` (when K * floor > 1: uniform). Ties for
/// the best go to the lowest index. Sums to 1.
std::vector<double> squarecb_probabilities(std::span<const double> scores, double gamma, double floor);

/// 1 - epsilon + epsilon / K for the best (lowest index among ties), epsilon / K for the others, then the floor
/// as above.
std::vector<double> epsilon_greedy_probabilities(std::span<const double> scores, double epsilon, double floor);

/// The caller's baseline `baseline` gets 1 - epsilon + epsilon / K, every other action epsilon / K.
std::vector<double> baseline_probabilities(std::size_t count, std::size_t baseline, double epsilon);

/// A number in [0, 1) from `seed` (splitmix64, 53 bits): the same seed gives the same number everywhere.
double seeded_uniform(std::uint64_t seed);

/// The index drawn from `probabilities` with seeded_uniform(seed) (inverse CDF). Empty input: 0.
std::size_t sample_index(std::span<const double> probabilities, std::uint64_t seed);

/// A fresh seed for one decision: a per-thread generator seeded from the OS's random device and the thread.
std::uint64_t fresh_seed();

}  // namespace slipstream::agent::decide
