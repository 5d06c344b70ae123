// RidgeArm: the online solution against a direct solve, across refreshes, with and without snapshots.
#include "agent/decide/ridge_arm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "agent/decide/policy.h"

namespace slipstream::agent::decide {
namespace {

// Sparse vectors and rewards from a fixed seed; also builds D and b for the direct solve.
struct Stream {
    std::size_t d;
    std::uint64_t seed = 1;
    std::vector<double> dmat, b;
    explicit Stream(std::size_t dim) : d(dim), dmat(dim * dim, 0.0), b(dim, 0.0) {}
    double uniform() { return seeded_uniform(seed++); }
    SparseVector next(double& reward, double weight) {
        SparseVector x{{0, 1.0}};
        for (int k = 0; k < 3; ++k)
            x.emplace_back(1 + static_cast<std::uint32_t>(uniform() * static_cast<double>(d - 1)), uniform() * 2 - 1);
        reward = uniform();
        std::vector<double> dense(d, 0.0);
        for (auto [i, v] : x)
            dense[i] += v;
        for (std::size_t r = 0; r < d; ++r) {
            b[r] += weight * reward * dense[r];
            for (std::size_t c = 0; c < d; ++c)
                dmat[r * d + c] += weight * dense[r] * dense[c];
        }
        return x;
    }
};

TEST(RidgeArm, MatchesADirectSolveAcrossRefreshes) {
    const std::size_t d = 16;
    RidgeArm arm(d, 0.5);
    Stream s(d);
    for (int n = 1; n <= 200; ++n) {
        double r = 0;
        SparseVector x = s.next(r, 0.7);
        arm.update(x, r, 0.7, 1.0);
        if (n % 37 == 0 || n == 63 || n == 64 || n == 65 || n == 200) {
            std::vector<double> want = ridge_direct_solve(s.dmat, s.b, d, 0.5);
            for (std::size_t i = 0; i < d; ++i)
                ASSERT_NEAR(arm.theta()[i], want[i], 1e-9) << "after " << n << " updates, coordinate " << i;
        }
    }
    EXPECT_EQ(arm.updates(), 200u);
}

TEST(RidgeArm, ScoreIsThetaDotX) {
    RidgeArm arm(4, 1.0);
    // One observation x = e0 + e1, r = 3: theta = (I + x x^T)^-1 3 x = x (3 / 3) = x.
    arm.update({{0, 1.0}, {1, 1.0}}, 3.0, 1.0, 1.0);
    EXPECT_NEAR(arm.theta()[0], 1.0, 1e-12);
    EXPECT_NEAR(arm.theta()[1], 1.0, 1e-12);
    EXPECT_NEAR(arm.score({{0, 2.0}, {1, 1.0}, {3, 5.0}}), 3.0, 1e-12);
}

TEST(RidgeArm, ForgettingDiscountsOldData) {
    RidgeArm keep(2, 1.0), forget(2, 1.0);
    for (int i = 0; i < 50; ++i) {
        keep.update({{0, 1.0}}, 0.0, 1.0, 1.0);
        forget.update({{0, 1.0}}, 0.0, 1.0, 0.9);
    }
    for (int i = 0; i < 5; ++i) {
        keep.update({{0, 1.0}}, 1.0, 1.0, 1.0);
        forget.update({{0, 1.0}}, 1.0, 1.0, 0.9);
    }
    // The remembering arm averages 5 ones among 55 observations; the forgetting one leans to the recent ones.
    EXPECT_NEAR(keep.theta()[0], 5.0 / 56.0, 1e-9);
    EXPECT_GT(forget.theta()[0], 0.3);
}

TEST(RidgeArm, SaveAndLoadReproduceTheArm) {
    const std::size_t d = 8;
    RidgeArm arm(d, 1.0);
    Stream s(d);
    for (int n = 0; n < 30; ++n) {
        double r = 0;
        SparseVector x = s.next(r, 1.0);
        arm.update(x, r, 1.0, 1.0);
    }
    std::string text;
    arm.save(text);
    EXPECT_EQ(text.size(), (2 * d * d + d + 2) * 16);
    RidgeArm back(d, 1.0);
    std::string_view view = text;
    ASSERT_TRUE(back.load(view).is_ok());
    EXPECT_TRUE(view.empty());
    EXPECT_EQ(back.updates(), 30u);
    for (std::size_t i = 0; i < d; ++i)
        EXPECT_EQ(back.theta()[i], arm.theta()[i]);
    std::string_view truncated = std::string_view(text).substr(0, 100);
    EXPECT_FALSE(RidgeArm(d, 1.0).load(truncated).is_ok());
}

}  // namespace
}  // namespace slipstream::agent::decide
