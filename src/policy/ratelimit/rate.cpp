// Rate: bounds checks, the strict text parser and the canonical text form.
#include "policy/ratelimit/rate.h"

#include <numeric>
#include <stdexcept>

namespace slipstream::policy::ratelimit {
namespace {

using base::Result;
using base::Status;

constexpr std::int64_t kNanosPerMs = 1'000'000;

struct Unit {
    std::string_view name;
    std::int64_t ns;
};

// The units parse() accepts.
constexpr Unit kUnits[] = {
    {"ms", kNanosPerMs},     {"s", 1'000'000'000},     {"m", 60'000'000'000},
    {"min", 60'000'000'000}, {"h", 3'600'000'000'000}, {"d", 86'400'000'000'000},
};
// Largest first, for to_string().
constexpr Unit kPrintUnits[] = {
    {"d", 86'400'000'000'000}, {"h", 3'600'000'000'000}, {"min", 60'000'000'000},
    {"s", 1'000'000'000},      {"ms", kNanosPerMs},
};
constexpr std::string_view kExpectedUnits = "(expected ms, s, m, min, h or d)";
constexpr std::string_view kExample = "expected <count>/<period>, such as 100/s";

// The text as it appears in a message: quoted, escaped, at most 64 bytes of it.
std::string quoted(std::string_view text) {
    constexpr std::size_t kMaxShown = 64;
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
        } else {
            out += static_cast<char>(c);
        }
    }
    if (text.size() > kMaxShown) out += "...";
    out += '"';
    return out;
}

enum class Decimal { kOk, kLeadingZero, kTooLarge };

// Reads a non-empty run of digits without leading zeros, capped at `max` (anything above, however
// long, is kTooLarge). `max` is far below 2^64 / 10, so the accumulator cannot wrap before the cap.
Decimal parse_decimal(std::string_view digits, std::uint64_t max, std::uint64_t* out) {
    if (digits.size() > 1 && digits[0] == '0') return Decimal::kLeadingZero;
    std::uint64_t value = 0;
    for (char c : digits) {
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
        if (value > max) return Decimal::kTooLarge;
    }
    *out = value;
    return Decimal::kOk;
}

std::size_t digit_prefix(std::string_view text) {
    std::size_t n = 0;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9')
        ++n;
    return n;
}

// Empty when (count, period) is a valid rate; else why not.
std::string check_bounds(std::uint64_t count, std::int64_t period_ns) {
    if (count == 0) return "count must be at least 1";
    if (count > kMaxRateCount) return "count exceeds " + std::to_string(kMaxRateCount);
    if (period_ns < kMinRatePeriodNs || period_ns % kNanosPerMs != 0) {
        return "period must be a whole number of milliseconds, at least 1 ms";
    }
    if (period_ns > kMaxRatePeriodNs) return "period exceeds 365 days";
    return {};
}

// The reason `text` is not a rate (empty when it is one); fills count and period.
std::string parse_parts(std::string_view text, std::uint64_t* count, std::int64_t* period_ns) {
    if (text.empty()) return "empty; " + std::string(kExample);
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos) return std::string(kExample);

    // <count>
    const std::string_view count_text = text.substr(0, slash);
    if (count_text.empty()) return "missing count before '/'";
    const std::size_t count_digits = digit_prefix(count_text);
    if (count_digits != count_text.size()) {
        return "count must be a decimal number, found " + quoted(count_text.substr(count_digits, 1)) + " at offset " +
               std::to_string(count_digits);
    }
    switch (parse_decimal(count_text, kMaxRateCount, count)) {
        case Decimal::kLeadingZero:
            return "count has a leading zero";
        case Decimal::kTooLarge:
            return "count exceeds " + std::to_string(kMaxRateCount);
        case Decimal::kOk:
            break;
    }
    if (*count == 0) return "count must be at least 1";

    // [<n>]<unit>
    const std::string_view period_text = text.substr(slash + 1);
    if (period_text.empty()) return "missing period after '/'";
    const std::size_t n_digits = digit_prefix(period_text);
    const std::string_view unit_text = period_text.substr(n_digits);
    if (unit_text.empty()) {
        return "missing period unit after " + quoted(period_text) + " " + std::string(kExpectedUnits);
    }
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
        if (u.name == unit_text) unit = &u;
    }
    if (unit == nullptr) return "unknown period unit " + quoted(unit_text) + " " + std::string(kExpectedUnits);
    std::uint64_t n = 1;
    if (n_digits > 0) {
        const auto max_n = static_cast<std::uint64_t>(kMaxRatePeriodNs / unit->ns);
        switch (parse_decimal(period_text.substr(0, n_digits), max_n, &n)) {
            case Decimal::kLeadingZero:
                return "period multiplier has a leading zero";
            case Decimal::kTooLarge:
                return "period exceeds 365 days";
            case Decimal::kOk:
                break;
        }
        if (n == 0) return "period multiplier must be at least 1";
    }
    *period_ns = static_cast<std::int64_t>(n) * unit->ns;
    return check_bounds(*count, *period_ns);
}

}  // namespace

Rate::Rate(std::uint64_t count, std::int64_t period_ns) : count_(count), period_ns_(period_ns) {
    const auto period = static_cast<std::uint64_t>(period_ns);
    const std::uint64_t g = std::gcd(period, count);
    interval_num_ = period / g;
    interval_den_ = count / g;
}

Result<Rate> Rate::make(std::uint64_t count, std::int64_t period_ns) {
    std::string err = check_bounds(count, period_ns);
    if (!err.empty()) return Status::invalid_argument("invalid rate: " + err);
    return Rate(count, period_ns);
}

Result<Rate> Rate::parse(std::string_view text) {
    std::uint64_t count = 0;
    std::int64_t period_ns = 0;
    std::string err = parse_parts(text, &count, &period_ns);
    if (!err.empty()) return Status::invalid_argument("invalid rate " + quoted(text) + ": " + err);
    return Rate(count, period_ns);
}

Rate Rate::parse_or_throw(std::string_view text) {
    Result<Rate> rate = parse(text);
    if (!rate.is_ok()) throw std::invalid_argument(rate.status().message());
    return std::move(rate).value();
}

std::string Rate::to_string() const {
    std::string out = std::to_string(count_) + "/";
    for (const Unit& u : kPrintUnits) {
        if (period_ns_ % u.ns != 0) continue;
        const std::int64_t n = period_ns_ / u.ns;
        if (n != 1) out += std::to_string(n);
        out += u.name;
        break;
    }
    return out;
}

}  // namespace slipstream::policy::ratelimit
