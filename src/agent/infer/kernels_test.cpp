// Kernel tests: every weight type on every SIMD path this CPU has, against double-precision references.
#include "agent/infer/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace slipstream::agent::infer::kernels {
namespace {

std::vector<std::string> available_paths() {
    std::vector<std::string> out;
    for (const char* p : {"portable", "avx2", "avx512"}) {
        if (simd_path_available(p)) out.emplace_back(p);
    }
    return out;
}

// Selects a SIMD path for one test and restores the previous one after.
class PathScope {
  public:
    explicit PathScope(const std::string& path) : previous_(simd_path()) {
        EXPECT_TRUE(use_simd_path(path));
        EXPECT_EQ(std::string(simd_path()), path);
    }
    ~PathScope() { use_simd_path(previous_); }

  private:
    std::string previous_;
};

// ---- weights and reference math, written from the GGUF block descriptions ----

float ref_half(uint16_t h) {
    const int sign = (h & 0x8000) ? -1 : 1;
    const int exp = (h >> 10) & 0x1F;
    const int mant = h & 0x3FF;
    if (exp == 31) return mant == 0 ? sign * INFINITY : NAN;
    if (exp == 0) return static_cast<float>(sign * std::ldexp(mant, -24));
    return static_cast<float>(sign * std::ldexp(1024 + mant, exp - 25));
}

uint16_t load_u16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

std::vector<float> ref_dequantize(GgmlType type, const std::vector<uint8_t>& data, int64_t rows, int64_t cols) {
    std::vector<float> out(static_cast<std::size_t>(rows * cols));
    const std::size_t row_bytes = ggml_row_bytes(type, cols);
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t* row = data.data() + r * row_bytes;
        float* o = out.data() + r * cols;
        for (int64_t c = 0; c < cols; ++c) {
            switch (type) {
                case GgmlType::kF32:
                    std::memcpy(&o[c], row + 4 * c, 4);
                    break;
                case GgmlType::kF16:
                    o[c] = ref_half(load_u16(row + 2 * c));
                    break;
                case GgmlType::kBF16: {
                    const uint32_t u = static_cast<uint32_t>(load_u16(row + 2 * c)) << 16;
                    std::memcpy(&o[c], &u, 4);
                    break;
                }
                case GgmlType::kQ8_0: {
                    const uint8_t* blk = row + (c / 32) * 34;
                    o[c] = ref_half(load_u16(blk)) * static_cast<float>(static_cast<int8_t>(blk[2 + c % 32]));
                    break;
                }
                case GgmlType::kQ4_0: {
                    const uint8_t* blk = row + (c / 32) * 18;
                    const int j = static_cast<int>(c % 32);
                    const int q = j < 16 ? (blk[2 + j] & 0x0F) : (blk[2 + j - 16] >> 4);
                    o[c] = ref_half(load_u16(blk)) * static_cast<float>(q - 8);
                    break;
                }
            }
        }
    }
    return out;
}

std::vector<uint8_t> random_weights(GgmlType type, int64_t rows, int64_t cols, std::mt19937& rng) {
    std::vector<uint8_t> data(ggml_row_bytes(type, cols) * static_cast<std::size_t>(rows));
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    std::uniform_real_distribution<float> scale(0.001f, 0.05f);
    std::uniform_int_distribution<int> byte(0, 255);
    uint8_t* p = data.data();
    const int64_t n = rows * cols;
    switch (type) {
        case GgmlType::kF32:
            for (int64_t i = 0; i < n; ++i) {
                const float f = val(rng);
                std::memcpy(p + 4 * i, &f, 4);
            }
            break;
        case GgmlType::kF16:
        case GgmlType::kBF16:
            for (int64_t i = 0; i < n; ++i) {
                const float f = val(rng);
                const uint16_t h = type == GgmlType::kF16 ? fp32_to_fp16(f) : fp32_to_bf16(f);
                std::memcpy(p + 2 * i, &h, 2);
            }
            break;
        case GgmlType::kQ8_0:
        case GgmlType::kQ4_0: {
            const std::size_t block = ggml_block_bytes(type);
            for (std::size_t off = 0; off < data.size(); off += block) {
                const uint16_t d = fp32_to_fp16(scale(rng));
                std::memcpy(p + off, &d, 2);
                // Every byte value, -128 included for Q8_0.
                for (std::size_t j = 2; j < block; ++j)
                    p[off + j] = static_cast<uint8_t>(byte(rng));
            }
            break;
        }
    }
    return data;
}

std::vector<float> random_floats(int64_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> val(lo, hi);
    std::vector<float> out(static_cast<std::size_t>(n));
    for (auto& f : out)
        f = val(rng);
    return out;
}

// x quantized as the kernels do it: d = max|x| / 127 and q = round_even(x * (1 / d)), all in float.
void ref_quantize(const float* x, int64_t n, std::vector<int8_t>& q, std::vector<float>& d) {
    q.resize(static_cast<std::size_t>(n));
    d.resize(static_cast<std::size_t>(n / 32));
    for (int64_t k = 0; k < n / 32; ++k) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j)
            amax = std::max(amax, std::fabs(x[k * 32 + j]));
        const volatile float dk = amax / 127.0f;
        const float id = dk != 0.0f ? 1.0f / dk : 0.0f;
        for (int j = 0; j < 32; ++j) {
            const volatile float scaled = x[k * 32 + j] * id;
            q[k * 32 + j] = static_cast<int8_t>(std::nearbyint(scaled));
        }
        d[k] = dk;
    }
}

bool is_quantized(GgmlType t) {
    return t == GgmlType::kQ8_0 || t == GgmlType::kQ4_0;
}

// ---- matmul ----

using MatmulParam = std::tuple<std::string, GgmlType, int64_t, int64_t>;  // path, type, cols, batch

class MatmulTest : public ::testing::TestWithParam<MatmulParam> {};

TEST_P(MatmulTest, MatchesDoubleReference) {
    const auto& [path, type, cols, batch] = GetParam();
    PathScope scope(path);
    ThreadPool pool(3);
    std::mt19937 rng(static_cast<uint32_t>(cols * 131 + batch * 7 + static_cast<int>(type)));
    for (int64_t rows : {1, 3, 7, 16, 37, 130}) {
        SCOPED_TRACE("rows=" + std::to_string(rows));
        const auto data = random_weights(type, rows, cols, rng);
        const auto wf = ref_dequantize(type, data, rows, cols);
        const auto x = random_floats(batch * cols, rng);
        const WeightMatrix w{type, data.data(), rows, cols};
        std::vector<float> y(static_cast<std::size_t>(batch * rows), NAN);
        matmul(w, x.data(), batch, y.data(), pool);

        std::vector<int8_t> xq;
        std::vector<float> xd;
        if (is_quantized(type)) ref_quantize(x.data(), batch * cols, xq, xd);
        int64_t bad = 0;
        for (int64_t b = 0; b < batch; ++b) {
            for (int64_t r = 0; r < rows; ++r) {
                const float got = y[static_cast<std::size_t>(b * rows + r)];
                double exact = 0.0, l1 = 0.0, quant_exact = 0.0, quant_l1 = 0.0, quant_err = 0.0;
                for (int64_t c = 0; c < cols; ++c) {
                    const double wv = wf[static_cast<std::size_t>(r * cols + c)];
                    const double xv = x[static_cast<std::size_t>(b * cols + c)];
                    exact += wv * xv;
                    l1 += std::fabs(wv * xv);
                    if (is_quantized(type)) {
                        const std::size_t i = static_cast<std::size_t>(b * cols + c);
                        const double xqv = static_cast<double>(xd[i / 32]) * xq[i];
                        quant_exact += wv * xqv;
                        quant_l1 += std::fabs(wv * xqv);
                        quant_err += std::fabs(wv) * xd[i / 32] * 0.5;  // |x - xq| <= d / 2
                    }
                }
                if (!is_quantized(type)) {
                    bad += !(std::fabs(got - exact) <= 1e-4 * l1 + 1e-6);
                } else {
                    // Tight against the same quantized x; loose against float x by the quantization bound.
                    bad += !(std::fabs(got - quant_exact) <= 1e-4 * quant_l1 + 1e-6);
                    bad += !(std::fabs(got - exact) <= quant_err * 1.001 + 1e-4 * l1 + 1e-6);
                }
                if (bad == 1 && std::fabs(got - exact) > 0) {
                    ADD_FAILURE() << "first mismatch b=" << b << " r=" << r << " got=" << got << " exact=" << exact
                                  << " quant_exact=" << quant_exact;
                    ++bad;
                }
            }
        }
        EXPECT_EQ(bad, 0);
    }
}

std::string matmul_name(const ::testing::TestParamInfo<MatmulParam>& info) {
    const auto& [path, type, cols, batch] = info.param;
    return path + "_" + std::string(ggml_type_name(static_cast<uint32_t>(type))) + "_c" + std::to_string(cols) + "_b" +
           std::to_string(batch);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, MatmulTest,
                         ::testing::Combine(::testing::ValuesIn(available_paths()),
                                            ::testing::Values(GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16,
                                                              GgmlType::kQ8_0, GgmlType::kQ4_0),
                                            ::testing::Values(32, 96, 288, 4096), ::testing::Values(1, 3, 8, 16)),
                         matmul_name);

// Float weights take any column count: the SIMD loops' scalar tails.
INSTANTIATE_TEST_SUITE_P(FloatOddColumns, MatmulTest,
                         ::testing::Combine(::testing::ValuesIn(available_paths()),
                                            ::testing::Values(GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16),
                                            ::testing::Values(1, 7, 33, 100), ::testing::Values(1, 3, 8)),
                         matmul_name);

TEST(MatmulTest, ParallelAndSingleThreadAgreeExactly) {
    std::mt19937 rng(5);
    const int64_t rows = 515, cols = 256, batch = 5;
    for (GgmlType type : {GgmlType::kF32, GgmlType::kQ4_0}) {
        const auto data = random_weights(type, rows, cols, rng);
        const auto x = random_floats(batch * cols, rng);
        const WeightMatrix w{type, data.data(), rows, cols};
        std::vector<float> y1(static_cast<std::size_t>(batch * rows)), y4(y1.size());
        ThreadPool one(1), four(4);
        matmul(w, x.data(), batch, y1.data(), one);
        matmul(w, x.data(), batch, y4.data(), four);
        EXPECT_EQ(y1, y4);
    }
}

TEST(DequantizeTest, MatchesFormatDescription) {
    std::mt19937 rng(11);
    const int64_t rows = 3, cols = 96;
    for (GgmlType type : {GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16, GgmlType::kQ8_0, GgmlType::kQ4_0}) {
        const auto data = random_weights(type, rows, cols, rng);
        const auto ref = ref_dequantize(type, data, rows, cols);
        const WeightMatrix w{type, data.data(), rows, cols};
        std::vector<float> row(static_cast<std::size_t>(cols));
        for (int64_t r = 0; r < rows; ++r) {
            dequantize_row(w, r, row.data());
            EXPECT_EQ(0, std::memcmp(row.data(), ref.data() + r * cols, static_cast<std::size_t>(cols) * 4))
                << ggml_type_name(static_cast<uint32_t>(type)) << " row " << r;
        }
    }
}

TEST(DequantizeTest, Q4_0NibbleOrder) {
    // d = 1.0; byte j holds element j in its low nibble and element j + 16 in its high nibble.
    uint8_t blk[18] = {0x00, 0x3C};
    for (int j = 0; j < 16; ++j)
        blk[2 + j] = static_cast<uint8_t>(j | ((15 - j) << 4));
    const WeightMatrix w{GgmlType::kQ4_0, blk, 1, 32};
    float out[32];
    dequantize_row(w, 0, out);
    for (int j = 0; j < 16; ++j) {
        EXPECT_EQ(out[j], static_cast<float>(j - 8));
        EXPECT_EQ(out[j + 16], static_cast<float>(7 - j));
    }
}

// ---- half floats ----

TEST(HalfTest, EveryHalfConvertsExactlyAndRoundTrips) {
    int64_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
        const uint16_t hh = static_cast<uint16_t>(h);
        const float f = fp16_to_fp32(hh);
        const float ref = ref_half(hh);
        if (std::isnan(ref)) {
            const uint16_t back = fp32_to_fp16(f);
            bad +=
                !std::isnan(f) || (back & 0x7C00) != 0x7C00 || (back & 0x3FF) == 0 || (back & 0x8000) != (hh & 0x8000);
            continue;
        }
        bad += std::memcmp(&f, &ref, 4) != 0;
        bad += fp32_to_fp16(f) != hh;
    }
    EXPECT_EQ(bad, 0);
}

TEST(HalfTest, RoundsToNearestEven) {
    int64_t bad = 0;
    for (uint32_t h = 0; h < 0x7BFF; ++h) {
        for (uint32_t sign : {0u, 0x8000u}) {
            const uint16_t a = static_cast<uint16_t>(h | sign), b = static_cast<uint16_t>((h + 1) | sign);
            const float mid = (fp16_to_fp32(a) + fp16_to_fp32(b)) / 2;  // exact: 12 significant bits
            const uint16_t even = (h & 1) == 0 ? a : b;
            bad += fp32_to_fp16(mid) != even;
            bad += fp32_to_fp16(std::nextafter(mid, 0.0f)) != a;
            bad += fp32_to_fp16(std::nextafter(mid, sign ? -INFINITY : INFINITY)) != b;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(fp32_to_fp16(65504.0f), 0x7BFF);
    EXPECT_EQ(fp32_to_fp16(65519.99f), 0x7BFF);
    EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7C00);
    EXPECT_EQ(fp32_to_fp16(1e10f), 0x7C00);
    EXPECT_EQ(fp32_to_fp16(-INFINITY), 0xFC00);
    EXPECT_EQ(fp32_to_fp16(0x1p-25f), 0x0000);
    EXPECT_EQ(fp32_to_fp16(std::nextafter(0x1p-25f, 1.0f)), 0x0001);
    EXPECT_EQ(fp32_to_fp16(0x1p-24f), 0x0001);
    EXPECT_EQ(fp32_to_fp16(-0.0f), 0x8000);
    EXPECT_EQ(fp32_to_fp16(1e-30f), 0x0000);
    EXPECT_TRUE((fp32_to_fp16(NAN) & 0x7FFF) > 0x7C00);
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t hardware_fp16(float f) {
    return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

TEST(HalfTest, AgreesWithF16CHardware) {
    if (!simd_path_available("avx2")) GTEST_SKIP() << "no F16C";
    std::mt19937 rng(3);
    std::uniform_int_distribution<uint32_t> bits;
    int64_t bad = 0;
    for (int i = 0; i < 2000000; ++i) {
        uint32_t u = bits(rng);
        if (i % 2 == 0) u = (u & 0x87FFFFFF) | 0x30000000;  // concentrate near the half range
        float f;
        std::memcpy(&f, &u, 4);
        if (std::isnan(f)) continue;
        bad += fp32_to_fp16(f) != hardware_fp16(f);
    }
    EXPECT_EQ(bad, 0);
}
#endif

TEST(Bf16Test, RoundTripsAndRoundsToNearestEven) {
    int64_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
        const float f = bf16_to_fp32(static_cast<uint16_t>(h));
        if (std::isnan(f)) {
            bad += !std::isnan(bf16_to_fp32(fp32_to_bf16(f)));
            continue;
        }
        bad += fp32_to_bf16(f) != h;
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(fp32_to_bf16(1.00390625f), 0x3F80);                        // halfway, even below
    EXPECT_EQ(fp32_to_bf16(1.01171875f), 0x3F82);                        // halfway, even above
    EXPECT_EQ(fp32_to_bf16(std::nextafter(1.00390625f, 2.0f)), 0x3F81);  // just above halfway
}

// ---- elementwise kernels ----

class ElementwiseTest : public ::testing::TestWithParam<std::string> {};

constexpr int64_t kSizes[] = {1, 7, 8, 15, 16, 17, 31, 100, 4096};

TEST_P(ElementwiseTest, DotAndAxpy) {
    PathScope scope(GetParam());
    std::mt19937 rng(1);
    for (int64_t n : kSizes) {
        const auto a = random_floats(n, rng), b = random_floats(n, rng);
        double ref = 0, l1 = 0;
        for (int64_t i = 0; i < n; ++i) {
            ref += double{a[i]} * b[i];
            l1 += std::fabs(double{a[i]} * b[i]);
        }
        EXPECT_NEAR(dot(a.data(), b.data(), n), ref, 1e-5 * l1 + 1e-7) << n;
        auto y = b;
        axpy(y.data(), 0.375f, a.data(), n);
        for (int64_t i = 0; i < n; ++i)
            EXPECT_NEAR(y[i], b[i] + 0.375 * a[i], 1e-6) << n << " " << i;
    }
}

TEST_P(ElementwiseTest, RmsNorm) {
    PathScope scope(GetParam());
    std::mt19937 rng(2);
    for (int64_t n : kSizes) {
        const auto x = random_floats(n, rng, -3.0f, 3.0f), wt = random_floats(n, rng);
        double ss = 0;
        for (float v : x)
            ss += double{v} * v;
        const double s = 1.0 / std::sqrt(ss / n + 1e-5);
        std::vector<float> out(static_cast<std::size_t>(n));
        rms_norm(out.data(), x.data(), wt.data(), n, 1e-5f);
        for (int64_t i = 0; i < n; ++i)
            EXPECT_NEAR(out[i], x[i] * s * wt[i], 1e-5 * std::fabs(x[i] * s) + 1e-7);
        auto inplace = x;
        rms_norm(inplace.data(), inplace.data(), wt.data(), n, 1e-5f);
        EXPECT_EQ(inplace, out);
    }
}

TEST_P(ElementwiseTest, Softmax) {
    PathScope scope(GetParam());
    std::mt19937 rng(3);
    for (int64_t n : kSizes) {
        auto x = random_floats(n, rng, -30.0f, 30.0f);
        if (n > 3) x[2] = -INFINITY;  // a masked position
        const auto in = x;
        softmax(x.data(), n);
        double m = -INFINITY, sum = 0;
        for (float v : in)
            m = std::max(m, double{v});
        for (float v : in)
            sum += std::exp(v - m);
        for (int64_t i = 0; i < n; ++i) {
            if (std::isinf(in[i])) continue;  // the masked position, checked below
            const double ref = std::exp(in[i] - m) / sum;
            // x - max rounds in float: a relative error of ~6e-8 * |x - max| in the result is the input's.
            EXPECT_NEAR(x[i], ref, (2e-6 + 1.2e-7 * std::fabs(in[i] - m)) * ref + 1e-30) << n << " " << i;
        }
        if (n > 3) {
            EXPECT_EQ(x[2], 0.0f);
        }
    }
}

TEST_P(ElementwiseTest, SiluMul) {
    PathScope scope(GetParam());
    std::mt19937 rng(4);
    for (int64_t n : kSizes) {
        auto g = random_floats(n, rng, -20.0f, 20.0f);
        const auto up = random_floats(n, rng);
        if (n > 4) {
            g[0] = -100.0f;
            g[1] = 100.0f;
        }
        const auto in = g;
        silu_mul(g.data(), up.data(), n);
        for (int64_t i = 0; i < n; ++i) {
            const double ref = in[i] / (1.0 + std::exp(-double{in[i]})) * up[i];
            EXPECT_NEAR(g[i], ref, 2e-6 * std::fabs(ref) + 1e-30) << n << " " << i;
        }
    }
}

TEST_P(ElementwiseTest, Rope) {
    PathScope scope(GetParam());
    const int64_t d = 64;
    std::vector<float> inv(d / 2);
    for (int64_t i = 0; i < d / 2; ++i)
        inv[i] = static_cast<float>(std::pow(10000.0, -2.0 * i / d));
    std::mt19937 rng(6);
    for (bool neox : {false, true}) {
        for (int64_t pos : {0, 1, 17, 4095, 4095, 100000}) {
            const auto x = random_floats(d, rng);
            auto h = x;
            rope(h.data(), d, pos, inv.data(), neox);
            for (int64_t i = 0; i < d / 2; ++i) {
                const int64_t i0 = neox ? i : 2 * i, i1 = neox ? i + d / 2 : 2 * i + 1;
                const double th = static_cast<double>(pos) * inv[i];
                EXPECT_NEAR(h[i0], x[i0] * std::cos(th) - x[i1] * std::sin(th), 1e-6) << pos << " " << i;
                EXPECT_NEAR(h[i1], x[i0] * std::sin(th) + x[i1] * std::cos(th), 1e-6) << pos << " " << i;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, ElementwiseTest, ::testing::ValuesIn(available_paths()));

TEST(SimdPathTest, PortableIsAlwaysAvailableAndUnknownNamesAreRefused) {
    EXPECT_TRUE(simd_path_available("portable"));
    EXPECT_FALSE(simd_path_available("sse9"));
    const std::string before = simd_path();
    EXPECT_FALSE(use_simd_path("sse9"));
    EXPECT_EQ(std::string(simd_path()), before);
}

}  // namespace
}  // namespace slipstream::agent::infer::kernels
