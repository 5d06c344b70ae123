// estimate_off_policy(): per-sample terms once, then the estimators on the sample and on each bootstrap resample.
#include "agent/decide/off_policy.h"

#include <algorithm>
#include <cmath>

#include "agent/decide/policy.h"

namespace slipstream::agent::decide {

namespace {

// What each estimator needs from one sample.
struct Terms {
    double w;         // importance weight
    double reward;    // r
    double dm;        // sum_a target(a) predicted(a)
    double residual;  // r - predicted(logged)
};

struct Point {
    double ips, snips, dm, dr, logging;
};

Point point(const std::vector<Terms>& terms, const std::vector<std::size_t>* pick) {
    const std::size_t n = pick != nullptr ? pick->size() : terms.size();
    double sum_w = 0, sum_wr = 0, sum_dm = 0, sum_corr = 0, sum_r = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const Terms& t = terms[pick != nullptr ? (*pick)[k] : k];
        sum_w += t.w;
        sum_wr += t.w * t.reward;
        sum_dm += t.dm;
        sum_corr += t.w * t.residual;
        sum_r += t.reward;
    }
    const double dn = static_cast<double>(n);
    return {sum_wr / dn, sum_w > 0 ? sum_wr / sum_w : 0.0, sum_dm / dn, (sum_dm + sum_corr) / dn, sum_r / dn};
}

// The q-quantile of sorted values (linear interpolation).
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0.0;
    const double at = q * static_cast<double>(sorted.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(at));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

OffPolicyEstimates estimate_off_policy(const std::vector<LoggedSample>& samples, std::size_t resamples,
                                       std::uint64_t seed, double confidence) {
    OffPolicyEstimates out;
    out.samples = samples.size();
    if (samples.empty()) return out;
    std::vector<Terms> terms;
    terms.reserve(samples.size());
    double sum_w = 0, sum_w2 = 0;
    for (const LoggedSample& s : samples) {
        double dm = 0;
        for (std::size_t a = 0; a < s.target.size() && a < s.predicted.size(); ++a)
            dm += s.target[a] * s.predicted[a];
        const double target = s.logged < s.target.size() ? s.target[s.logged] : 0.0;
        const double predicted = s.logged < s.predicted.size() ? s.predicted[s.logged] : 0.0;
        const double w = s.propensity > 0 ? target / s.propensity : 0.0;
        terms.push_back({w, s.reward, dm, s.reward - predicted});
        sum_w += w;
        sum_w2 += w * w;
    }
    out.effective_samples = sum_w2 > 0 ? sum_w * sum_w / sum_w2 : 0.0;
    const Point p = point(terms, nullptr);

    // Percentile bootstrap: resample n indices with replacement, seeded.
    std::vector<double> ips, snips, dm, dr, logging;
    std::vector<std::size_t> pick(terms.size());
    std::uint64_t state = seed;
    for (std::size_t b = 0; b < resamples; ++b) {
        for (std::size_t& i : pick)
            i = static_cast<std::size_t>(seeded_uniform(state++) * static_cast<double>(terms.size()));
        const Point q = point(terms, &pick);
        ips.push_back(q.ips);
        snips.push_back(q.snips);
        dm.push_back(q.dm);
        dr.push_back(q.dr);
        logging.push_back(q.logging);
    }
    const double tail = (1.0 - confidence) / 2.0;
    auto interval = [resamples, tail](double estimate, std::vector<double>& values) {
        if (resamples == 0) return Interval{estimate, estimate, estimate};
        std::sort(values.begin(), values.end());
        return Interval{estimate, quantile(values, tail), quantile(values, 1.0 - tail)};
    };
    out.ips = interval(p.ips, ips);
    out.snips = interval(p.snips, snips);
    out.dm = interval(p.dm, dm);
    out.dr = interval(p.dr, dr);
    out.logging = interval(p.logging, logging);
    return out;
}

}  // namespace slipstream::agent::decide
