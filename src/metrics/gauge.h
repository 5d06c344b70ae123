// Gauge (int64) and DoubleGauge: a value that goes up and down, one cache-line-padded atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "metrics/slot_arena.h"
#include "metrics/text_format.h"

namespace slipstream::metrics {

/// A value that can be set, raised and lowered. Lock-free and allocation-free from any thread. Not
/// sharded, because set() must replace the whole value: a gauge moved by many threads per request
/// pays a contended atomic, so prefer a callback gauge (Registry::callback_gauge) that sums per-thread
/// values at scrape time. The object owns a whole cache line, so it never falsely shares with others.
template <typename T>
class alignas(64) BasicGauge {
    static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>);

  public:
    static constexpr std::string_view kTypeName = "gauge";
    struct Options {};

    BasicGauge(detail::SlotArena& /*arena*/, const Options& /*options*/) {}
    BasicGauge(const BasicGauge&) = delete;
    BasicGauge& operator=(const BasicGauge&) = delete;

    // ~0.3 ns set, ~3 ns inc single thread; inc from 2 threads at once ~6-9 ns (contended line);
    // see metrics_bench BM_BurstGaugeInc.
    void set(T v) { value_.store(v, std::memory_order_relaxed); }
    void inc(T n = T{1}) { value_.fetch_add(n, std::memory_order_relaxed); }
    void dec(T n = T{1}) { value_.fetch_sub(n, std::memory_order_relaxed); }
    T value() const { return value_.load(std::memory_order_relaxed); }

    /// Appends `name{labels} value\n`.
    void render(std::string_view name, std::string_view labels, std::string& out) const {
        detail::append_sample_start(out, name, "", labels);
        if constexpr (std::is_same_v<T, std::int64_t>) {
            detail::append_int(out, value());
        } else {
            detail::append_double(out, value());
        }
        out += '\n';
    }

  private:
    std::atomic<T> value_{T{0}};
};

using Gauge = BasicGauge<std::int64_t>;
using DoubleGauge = BasicGauge<double>;

}  // namespace slipstream::metrics
