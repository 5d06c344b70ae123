// RidgeArm: Sherman-Morrison updates, Cholesky refreshes, and a hex snapshot format.
#include "agent/decide/ridge_arm.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace slipstream::agent::decide {

namespace {

void put_hex(std::string& out, std::uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    char buf[16];
    for (int i = 15; i >= 0; --i) {
        buf[i] = kDigits[v & 0xf];
        v >>= 4;
    }
    out.append(buf, 16);
}

bool get_hex(std::string_view& text, std::uint64_t& v) {
    if (text.size() < 16) return false;
    v = 0;
    for (int i = 0; i < 16; ++i) {
        const char c = text[static_cast<std::size_t>(i)];
        std::uint64_t digit = 0;
        if (c >= '0' && c <= '9') {
            digit = static_cast<std::uint64_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            digit = static_cast<std::uint64_t>(c - 'a' + 10);
        } else {
            return false;
        }
        v = (v << 4) | digit;
    }
    text.remove_prefix(16);
    return true;
}

// out = m v for a d x d row-major matrix.
void mat_vec(const std::vector<double>& m, const std::vector<double>& v, std::vector<double>& out, std::size_t d) {
    for (std::size_t r = 0; r < d; ++r) {
        const double* row = &m[r * d];
        double acc = 0.0;
        for (std::size_t c = 0; c < d; ++c)
            acc += row[c] * v[c];
        out[r] = acc;
    }
}

}  // namespace

RidgeArm::RidgeArm(std::size_t dimension, double regularization)
    : d_(dimension),
      reg_(regularization),
      data_(dimension * dimension, 0.0),
      b_(dimension, 0.0),
      inv_(dimension * dimension, 0.0),
      theta_(dimension, 0.0) {
    for (std::size_t i = 0; i < d_; ++i)
        inv_[i * d_ + i] = 1.0 / reg_;
}

double RidgeArm::score(const SparseVector& x) const {
    double s = 0.0;
    for (const auto& [i, v] : x)
        s += theta_[i] * v;
    return s;
}

void RidgeArm::dense(const SparseVector& x, std::vector<double>& out) const {
    out.assign(d_, 0.0);
    for (const auto& [i, v] : x)
        out[i] += v;
}

void RidgeArm::update(const SparseVector& sparse, double reward, double weight, double forgetting) {
    std::vector<double> x;
    dense(sparse, x);
    // The data part, exact.
    for (std::size_t r = 0; r < d_; ++r) {
        b_[r] = forgetting * b_[r] + weight * reward * x[r];
        double* row = &data_[r * d_];
        for (std::size_t c = 0; c < d_; ++c)
            row[c] = forgetting * row[c] + weight * x[r] * x[c];
    }
    ++updates_;
    // The inverse: (f A + w x x^T)^-1 = (1/f) (A^-1 - w' u u^T / (1 + w' x^T u)), u = A^-1 x, w' = w / f.
    const double w = weight / forgetting;
    std::vector<double> u(d_, 0.0);
    mat_vec(inv_, x, u, d_);
    double xu = 0.0;
    for (std::size_t i = 0; i < d_; ++i)
        xu += x[i] * u[i];
    const double denom = 1.0 + w * xu;
    if (++since_refresh_ >= kRefreshEvery || !(denom > 1e-12) || !std::isfinite(denom)) {
        if (refresh()) return;
    }
    const double k = w / denom;
    const double inv_f = 1.0 / forgetting;
    for (std::size_t r = 0; r < d_; ++r) {
        double* row = &inv_[r * d_];
        const double ur = k * u[r];
        for (std::size_t c = 0; c < d_; ++c)
            row[c] = (row[c] - ur * u[c]) * inv_f;
    }
    recompute_theta();
}

void RidgeArm::recompute_theta() {
    mat_vec(inv_, b_, theta_, d_);
}

bool RidgeArm::refresh() {
    // A = L L^T, then A^-1 column by column from L.
    std::vector<double> l(d_ * d_, 0.0);
    for (std::size_t j = 0; j < d_; ++j) {
        double diag = reg_ + data_[j * d_ + j];
        for (std::size_t k = 0; k < j; ++k)
            diag -= l[j * d_ + k] * l[j * d_ + k];
        if (!(diag > 0.0) || !std::isfinite(diag)) return false;
        const double ljj = std::sqrt(diag);
        l[j * d_ + j] = ljj;
        for (std::size_t i = j + 1; i < d_; ++i) {
            double s = data_[i * d_ + j];
            for (std::size_t k = 0; k < j; ++k)
                s -= l[i * d_ + k] * l[j * d_ + k];
            l[i * d_ + j] = s / ljj;
        }
    }
    std::vector<double> inv(d_ * d_, 0.0);
    std::vector<double> y(d_);
    for (std::size_t col = 0; col < d_; ++col) {
        for (std::size_t i = 0; i < d_; ++i) {  // L y = e_col
            double s = i == col ? 1.0 : 0.0;
            for (std::size_t k = 0; k < i; ++k)
                s -= l[i * d_ + k] * y[k];
            y[i] = s / l[i * d_ + i];
        }
        for (std::size_t ii = d_; ii-- > 0;) {  // L^T x = y
            double s = y[ii];
            for (std::size_t k = ii + 1; k < d_; ++k)
                s -= l[k * d_ + ii] * inv[k * d_ + col];
            inv[ii * d_ + col] = s / l[ii * d_ + ii];
        }
    }
    inv_ = std::move(inv);
    since_refresh_ = 0;
    recompute_theta();
    return true;
}

void RidgeArm::save(std::string& out) const {
    out.reserve(out.size() + (2 * d_ * d_ + d_ + 2) * 16);
    put_hex(out, updates_);
    put_hex(out, since_refresh_);
    for (const std::vector<double>* part : {&b_, &data_, &inv_})
        for (double v : *part)
            put_hex(out, std::bit_cast<std::uint64_t>(v));
}

base::Status RidgeArm::load(std::string_view& text) {
    auto truncated = [] { return base::Status::invalid_argument("model snapshot: truncated"); };
    std::uint64_t bits = 0;
    if (!get_hex(text, updates_) || !get_hex(text, bits)) return truncated();
    since_refresh_ = static_cast<std::uint32_t>(bits % kRefreshEvery);
    for (std::vector<double>* part : {&b_, &data_, &inv_}) {
        for (double& v : *part) {
            if (!get_hex(text, bits)) return truncated();
            v = std::bit_cast<double>(bits);
            if (!std::isfinite(v)) return base::Status::invalid_argument("model snapshot: not finite");
        }
    }
    // The inverse is taken as saved (not refreshed), so that the restored arm is the saved one bit for bit and
    // the updates replayed after it repeat the live ones exactly.
    recompute_theta();
    return base::Status::ok();
}

std::vector<double> ridge_direct_solve(const std::vector<double>& d_matrix, const std::vector<double>& b, std::size_t n,
                                       double regularization) {
    std::vector<double> a(d_matrix);
    std::vector<double> x(b);
    for (std::size_t i = 0; i < n; ++i)
        a[i * n + i] += regularization;
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t r = col + 1; r < n; ++r)
            if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
        if (pivot != col) {
            for (std::size_t c = 0; c < n; ++c)
                std::swap(a[col * n + c], a[pivot * n + c]);
            std::swap(x[col], x[pivot]);
        }
        for (std::size_t r = col + 1; r < n; ++r) {
            const double f = a[r * n + col] / a[col * n + col];
            for (std::size_t c = col; c < n; ++c)
                a[r * n + c] -= f * a[col * n + c];
            x[r] -= f * x[col];
        }
    }
    for (std::size_t r = n; r-- > 0;) {
        double s = x[r];
        for (std::size_t c = r + 1; c < n; ++c)
            s -= a[r * n + c] * x[c];
        x[r] = s / a[r * n + r];
    }
    return x;
}

}  // namespace slipstream::agent::decide
