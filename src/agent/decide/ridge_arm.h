// RidgeArm: online ridge regression over a dense feature space (one per action, or one shared by all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/decide/feature_encoder.h"
#include "base/result.h"

namespace slipstream::agent::decide {

/// Keeps D = sum of weighted x x^T (discounted by the forgetting factor) and b = sum of weighted r x, and the
/// inverse of A = regularization * I + D with Sherman-Morrison rank-one updates (O(d^2) each). The inverse is
/// rebuilt from A by a Cholesky factorisation every kRefreshEvery updates, when an update would lose positive
/// definiteness, and after a restore: the drift of repeated rank-one updates, and with forgetting < 1 the decay
/// of the regulariser between refreshes, never accumulate. Not thread-safe (the capsule's lock guards it).
class RidgeArm {
  public:
    static constexpr std::uint32_t kRefreshEvery = 64;

    RidgeArm(std::size_t dimension, double regularization);

    /// theta . x, with theta = A^-1 b (the ridge solution).
    double score(const SparseVector& x) const;
    /// One observation: D <- f D + w x x^T, b <- f b + w r x (f: forgetting, w: learning rate).
    void update(const SparseVector& x, double reward, double weight, double forgetting);
    /// Rebuilds A^-1 and theta from D and b (Cholesky). False when A is not positive definite (never for a
    /// positive regulariser; then the arm keeps its previous inverse).
    bool refresh();

    std::size_t dimension() const { return d_; }
    std::uint64_t updates() const { return updates_; }
    const std::vector<double>& theta() const { return theta_; }

    /// The whole state (counts, b, D and A^-1) as text (hex of the IEEE-754 bits: exact, portable across
    /// backends), so that a restored arm scores and updates bit for bit as the saved one.
    void save(std::string& out) const;
    /// The state save() wrote, starting at `text`; advances `text` past it. kInvalidArgument when malformed.
    base::Status load(std::string_view& text);

  private:
    void dense(const SparseVector& x, std::vector<double>& out) const;
    void recompute_theta();

    std::size_t d_;
    double reg_;
    std::vector<double> data_;  // D, d x d row-major
    std::vector<double> b_;
    std::vector<double> inv_;  // A^-1, d x d row-major
    std::vector<double> theta_;
    std::uint64_t updates_ = 0;
    std::uint32_t since_refresh_ = 0;
};

/// Solves (regularization * I + D) theta = b directly (Gaussian elimination with partial pivoting): the
/// reference the tests compare the online updates with.
std::vector<double> ridge_direct_solve(const std::vector<double>& d_matrix, const std::vector<double>& b,
                                       std::size_t dimension, double regularization);

}  // namespace slipstream::agent::decide
