// Fuzz target: Rate::parse against a model of the grammar, the canonical text round trip, and a RateLimiter on a
// fake clock whose decisions must equal an exact GCRA model of README.md.
//
// Input: the first line is the rate text. When it parses, the next two bytes choose the burst and the table size
// (max_keys, shards), and every further line is one step: its first byte picks the operation (bits 0-1: check,
// check with the rate as override, sweep, retry a refused request after retry_after_ns) and how far the clock
// moves (bits 2-7); the rest of the line is the key.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "policy/ratelimit/decision.h"
#include "policy/ratelimit/rate.h"
#include "policy/ratelimit/rate_limiter.h"

namespace slipstream::policy::ratelimit {
namespace {

#define FUZZ_CHECK(cond)                                                                            \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            std::fprintf(stderr, "rate_parse_fuzz: check failed: %s (line %d)\n", #cond, __LINE__); \
            std::abort();                                                                           \
        }                                                                                           \
    } while (0)

using U128 = unsigned __int128;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kMaxNow = (std::int64_t{1} << 62) - 1;  // the limiter's clock stays below 2^62
constexpr std::int64_t kHundredYearsNs = 100LL * 365 * 86'400 * kSec;

// ---- The grammar of README.md, written out separately ----

struct ParsedRate {
    std::uint64_t count;
    std::int64_t period_ns;
};

bool all_digits(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A run of digits without a leading zero, as a number no larger than `max`; nullopt otherwise.
std::optional<std::uint64_t> model_number(std::string_view s, std::uint64_t max) {
    if (s.empty() || !all_digits(s) || (s.size() > 1 && s[0] == '0') || s.size() > 19) return std::nullopt;
    const std::uint64_t v = std::stoull(std::string(s));
    if (v > max) return std::nullopt;
    return v;
}

std::optional<ParsedRate> model_parse(std::string_view text) {
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const std::optional<std::uint64_t> count = model_number(text.substr(0, slash), kMaxRateCount);
    if (!count || *count == 0) return std::nullopt;
    const std::string_view period = text.substr(slash + 1);
    std::size_t digits = 0;
    while (digits < period.size() && period[digits] >= '0' && period[digits] <= '9')
        ++digits;
    const std::string_view unit = period.substr(digits);
    std::int64_t unit_ns = 0;
    if (unit == "ms") unit_ns = kMs;
    if (unit == "s") unit_ns = kSec;
    if (unit == "m" || unit == "min") unit_ns = 60 * kSec;
    if (unit == "h") unit_ns = 3600 * kSec;
    if (unit == "d") unit_ns = 86'400 * kSec;
    if (unit_ns == 0) return std::nullopt;
    std::uint64_t n = 1;
    if (digits > 0) {
        const std::optional<std::uint64_t> parsed = model_number(period.substr(0, digits), UINT64_MAX / 2);
        if (!parsed || *parsed == 0) return std::nullopt;
        n = *parsed;
    }
    if (U128(n) * static_cast<std::uint64_t>(unit_ns) > static_cast<U128>(kMaxRatePeriodNs)) return std::nullopt;
    return ParsedRate{*count, static_cast<std::int64_t>(n) * unit_ns};
}

bool printable_ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// Parses `text` and checks everything a parse result promises; the rate when it parsed.
std::optional<Rate> check_parse(std::string_view text) {
    const base::Result<Rate> parsed = Rate::parse(text);
    const std::optional<ParsedRate> model = model_parse(text);
    FUZZ_CHECK(parsed.is_ok() == model.has_value());
    if (!parsed.is_ok()) {
        // Messages quote at most 64 bytes of the text (twice at most, each byte as up to 4 characters), escaped:
        // safe to log whatever a client sent.
        const std::string message = parsed.status().message();
        FUZZ_CHECK(message.starts_with("invalid rate \"") && printable_ascii(message) && message.size() < 1024);
        bool threw = false;
        try {
            (void)Rate::parse_or_throw(text);
        } catch (const std::invalid_argument& e) {
            threw = message == e.what();
        }
        FUZZ_CHECK(threw);
        return std::nullopt;
    }
    const Rate& rate = parsed.value();
    FUZZ_CHECK(rate.count() == model->count && rate.period_ns() == model->period_ns);
    FUZZ_CHECK(rate.count() >= 1 && rate.count() <= kMaxRateCount);
    FUZZ_CHECK(rate.period_ns() >= kMinRatePeriodNs && rate.period_ns() <= kMaxRatePeriodNs);
    FUZZ_CHECK(rate.period_ns() % kMs == 0);
    // The interval period / count in lowest terms.
    FUZZ_CHECK(rate.interval_den() >= 1 && std::gcd(rate.interval_num(), rate.interval_den()) == 1);
    FUZZ_CHECK(U128(rate.interval_num()) * rate.count() ==
               U128(static_cast<std::uint64_t>(rate.period_ns())) * rate.interval_den());
    // The canonical text reads back to an equal rate and is its own canonical text.
    const std::string canonical = rate.to_string();
    const base::Result<Rate> again = Rate::parse(canonical);
    FUZZ_CHECK(again.is_ok() && again.value() == rate && again.value().to_string() == canonical);
    FUZZ_CHECK(canonical.size() <= text.size() + 2);  // "m" -> "min" is the only growth
    const base::Result<Rate> made = Rate::make(rate.count(), rate.period_ns());
    FUZZ_CHECK(made.is_ok() && made.value() == rate && made.value().interval_num() == rate.interval_num());
    FUZZ_CHECK(Rate::parse_or_throw(text) == rate);
    return rate;
}

// ---- An exact model of the limiter: one theoretical arrival time per key, in 1/den ns ----

struct ModelLimit {
    std::uint64_t den;
    std::uint64_t t;
    U128 window;
};

std::uint64_t ceil_div(U128 a, std::uint64_t b) {
    return static_cast<std::uint64_t>((a + b - 1) / b);
}

// What a request at `now` gets from a bucket whose TAT is `tat` (now for a key not remembered); updates `tat`.
Decision model_step(const ModelLimit& l, std::uint64_t burst, U128& tat, std::int64_t now_ns) {
    const U128 now = U128(static_cast<std::uint64_t>(now_ns)) * l.den;
    const U128 from = std::max(tat, now);
    const U128 next = from + l.t;
    Decision d;
    d.limit = burst;
    if (next > now + l.window) {
        d.retry_after_ns = static_cast<std::int64_t>(ceil_div(next - l.window - now, l.den));
        d.reset_ns = static_cast<std::int64_t>(ceil_div(from - now, l.den));
        return d;
    }
    d.allowed = true;
    d.remaining = static_cast<std::uint64_t>((now + l.window - next) / l.t);
    d.reset_ns = static_cast<std::int64_t>(ceil_div(next - now, l.den));
    tat = next;
    return d;
}

bool same(const Decision& a, const Decision& b) {
    return a.allowed == b.allowed && a.limit == b.limit && a.remaining == b.remaining &&
           a.retry_after_ns == b.retry_after_ns && a.reset_ns == b.reset_ns;
}

// What every decision promises on its own (decision.h, README.md). A bucket empties within the longest window
// it was filled under (`max_window`, in 1/den ns: a key checked with and without the override carries its bucket
// over), plus how far the clock has gone back from the latest time seen (`behind`).
void check_decision(const Decision& d, const ModelLimit& l, std::uint64_t burst, U128 max_window, std::int64_t behind) {
    FUZZ_CHECK(d.limit == burst && d.remaining <= d.limit);
    FUZZ_CHECK((d.retry_after_ns > 0) == !d.allowed);
    FUZZ_CHECK(d.reset_ns >= 0 && static_cast<std::uint64_t>(d.reset_ns) <=
                                      ceil_div(max_window, l.den) + static_cast<std::uint64_t>(behind));
    if (d.allowed) {
        FUZZ_CHECK(d.remaining < d.limit && d.reset_ns >= 1);
    } else {
        FUZZ_CHECK(d.remaining == 0 && d.retry_after_ns <= d.reset_ns);
    }
    const HeaderValues h = header_values(d);
    FUZZ_CHECK(h.limit == d.limit && h.remaining == d.remaining);
    FUZZ_CHECK(h.reset_s == (d.reset_ns + kSec - 1) / kSec);
    FUZZ_CHECK(d.allowed ? h.retry_after_s == 0
                         : h.retry_after_s == std::max<std::int64_t>(1, (d.retry_after_ns + kSec - 1) / kSec));
}

std::int64_t advance(std::int64_t now, std::uint8_t step, const Rate& rate) {
    const U128 interval = rate.interval_num() / rate.interval_den();
    U128 delta = 0;
    if (step == 63) return std::max<std::int64_t>(0, now - static_cast<std::int64_t>(interval + 1));  // backwards
    if (step < 32) {
        delta = U128(rate.interval_num()) * step / (8 * rate.interval_den());  // up to 4 intervals
    } else if (step < 48) {
        delta = interval << (step - 32);  // 1 to 32768 intervals
    } else {
        delta = U128(1) << (step - 48 + 20);  // about 1 ms to 17 s
    }
    const U128 next = U128(static_cast<std::uint64_t>(now)) + delta;
    return next > static_cast<U128>(kMaxNow) ? kMaxNow : static_cast<std::int64_t>(next);
}

void fuzz_limiter(const Rate& rate, std::string_view input) {
    const std::uint8_t b0 = input.size() > 0 ? static_cast<std::uint8_t>(input[0]) : 0;
    const std::uint8_t b1 = input.size() > 1 ? static_cast<std::uint8_t>(input[1]) : 0;
    input.remove_prefix(std::min<std::size_t>(2, input.size()));

    RateLimiterConfig config{rate};
    config.burst = b0;  // 0: the count
    if ((b1 & 0x80) == 0) {
        config.max_keys = 1 + (b1 & 7);
        config.shards = 1 + ((b1 >> 3) & 3);
    }
    const std::uint64_t burst = config.burst == 0 ? rate.count() : config.burst;
    std::optional<RateLimiter> limiter;
    try {
        limiter.emplace(config);
    } catch (const std::invalid_argument&) {
        // Only a burst that takes more than 100 years to refill is refused here.
        FUZZ_CHECK(U128(burst) * rate.interval_num() > U128(kHundredYearsNs) * rate.interval_den());
        return;
    }
    FUZZ_CHECK(limiter->burst() == burst && limiter->rate() == rate);
    const std::size_t shards = std::min(config.shards, config.max_keys);
    FUZZ_CHECK(limiter->shard_count() == shards && limiter->max_keys() == config.max_keys);

    const ModelLimit base{rate.interval_den(), rate.interval_num(), U128(burst) * rate.interval_num()};
    const ModelLimit own{rate.interval_den(), rate.interval_num(), U128(rate.count()) * rate.interval_num()};
    std::map<std::string, U128, std::less<>> tat;  // keys the model remembers
    std::int64_t now = (b1 & 0x40) != 0 ? kMaxNow - (std::int64_t{1} << 40) : 1'000 * kSec;
    std::int64_t latest = now;
    std::uint64_t checks = 0;
    struct Refusal {
        std::string key;
        std::int64_t at;
        std::int64_t retry_after_ns;
        bool with_override;
    };
    std::optional<Refusal> refused;  // the last check, when it refused

    while (!input.empty()) {
        const std::size_t nl = input.find('\n');
        const std::string_view line = input.substr(0, nl);
        input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
        if (line.empty()) continue;
        const auto control = static_cast<std::uint8_t>(line[0]);
        std::string key(line.substr(1));
        const unsigned op = control & 3;
        now = advance(now, static_cast<std::uint8_t>(control >> 2), rate);
        latest = std::max(latest, now);
        if (op == 2) {
            (void)limiter->sweep(now);
            continue;
        }
        bool must_allow = false;
        bool with_override = op == 1;
        if (op == 3) {
            // A client that waits retry_after_ns is allowed (unless the wait runs past the end of the clock).
            if (!refused) continue;
            key = refused->key;
            must_allow = refused->retry_after_ns <= kMaxNow - refused->at;
            now = must_allow ? refused->at + refused->retry_after_ns : kMaxNow;
            with_override = refused->with_override;
        }
        latest = std::max(latest, now);
        const ModelLimit& l = with_override ? own : base;
        const std::uint64_t limit_burst = with_override ? rate.count() : burst;
        const Decision d = limiter->check(key, now, with_override ? &rate : nullptr);
        ++checks;
        check_decision(d, l, limit_burst, std::max(base.window, own.window), latest - now);
        if (must_allow) FUZZ_CHECK(d.allowed);

        // Exact against the model. A key may have been forgotten, and then starts again full: when a shard made
        // room by dropping its least recently used key, or when its bucket was full at the latest time any call
        // saw (a sweep or check with a later clock drops it; this check runs with an earlier one).
        const U128 now_units = U128(static_cast<std::uint64_t>(now)) * l.den;
        const auto it = tat.find(key);
        const U128 before = it != tat.end() ? it->second : now_units;
        U128 kept = before;
        U128 fresh = now_units;
        const Decision expect_kept = model_step(l, limit_burst, kept, now);
        const Decision expect_fresh = model_step(l, limit_burst, fresh, now);
        const bool may_be_forgotten =
            limiter->stats().evicted_lru > 0 || before <= U128(static_cast<std::uint64_t>(latest)) * l.den;
        if (same(d, expect_kept)) {
            tat[key] = kept;
        } else {
            FUZZ_CHECK(may_be_forgotten && same(d, expect_fresh));
            tat[key] = fresh;
        }
        refused.reset();
        if (!d.allowed) refused = Refusal{key, now, d.retry_after_ns, with_override};
    }

    const RateLimiterStats stats = limiter->stats();
    FUZZ_CHECK(stats.allowed + stats.refused == checks);
    FUZZ_CHECK(stats.keys <= config.max_keys && stats.keys <= tat.size());
    // While every key fits in the smallest shard, nothing is ever dropped with state still in it.
    if (tat.size() <= config.max_keys / shards) FUZZ_CHECK(stats.evicted_lru == 0);
}

}  // namespace
}  // namespace slipstream::policy::ratelimit

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace slipstream::policy::ratelimit;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nl = input.find('\n');
    const std::optional<Rate> rate = check_parse(input.substr(0, nl));
    if (rate && nl != std::string_view::npos) fuzz_limiter(*rate, input.substr(nl + 1));
    return 0;
}
