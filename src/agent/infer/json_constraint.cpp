// JsonConstraint: candidate tokens tried on copies of a PrefixChecker; the full mask by shared prefixes.
#include "agent/infer/json_constraint.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace slipstream::agent::infer {

using structured::PrefixChecker;
using structured::StreamState;

namespace {

bool layout_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t leading_space(std::string_view b) {
    size_t n = 0;
    while (n < b.size() && layout_space(b[n]))
        ++n;
    return n;
}

// A generator writes each key once (a parser would keep the last, and a model could repeat one forever).
json::ParseOptions generation_options() {
    json::ParseOptions o;
    o.duplicate_keys = json::DuplicateKeys::kReject;
    return o;
}

}  // namespace

JsonConstraint::JsonConstraint(std::shared_ptr<const TokenBytes> tokens,
                               std::shared_ptr<const structured::CompiledSchema> schema,
                               std::shared_ptr<JsonMaskCache> cache)
    : tokens_(std::move(tokens)), cache_(std::move(cache)), committed_(std::move(schema), generation_options()) {
    if (cache_ == nullptr || !cache_->serves(&committed_.schema(), tokens_.get()))
        cache_ = std::make_shared<JsonMaskCache>(committed_.schema_ptr(), tokens_);
    levels_.reserve(64);
    levels_.assign(2, committed_);  // the scratch and the first-byte level
}

bool JsonConstraint::plausible(std::string_view bytes) const {
    if (bytes.empty() || committed_.state() != StreamState::kPartial) return false;
    if (committed_.offset() == 0 && static_cast<unsigned char>(bytes[0]) == 0xEF) return false;  // a BOM
    return committed_.in_string() || layout_run_ + leading_space(bytes) <= kMaxLayoutWhitespace;
}

bool JsonConstraint::verdict(const PrefixChecker& after, StreamState s, std::string_view bytes) {
    if (s == StreamState::kPartial) return partial_ok(after, after.number_text());
    if (s == StreamState::kInvalid) return false;
    if (recording_) {
        if (judging_ >= 0) {
            finals_seen_.push_back(judging_);
        } else {
            unattributed_final_ = true;
        }
    }
    return final_verdict(bytes);
}

bool JsonConstraint::final_verdict(std::string_view bytes) {
    // Whitespace after the document changes nothing in its verdict: "}" and "}\n" share one.
    size_t end = bytes.size();
    while (end > 0 && layout_space(bytes[end - 1]))
        --end;
    const std::string_view body = bytes.substr(0, end);
    auto [it, fresh] = finals_.try_emplace(std::string(body), false);
    if (fresh) it->second = committed_.schema().accepts(text_ + std::string(body));
    return it->second;
}

bool JsonConstraint::allows_escape(std::string_view bytes) {
    PrefixChecker& scratch = level(0, committed_);
    StreamState s = StreamState::kPartial;
    for (size_t i = 0; i < bytes.size() && s != StreamState::kInvalid; ++i) {
        const bool starts_char = bytes[i] == '\\' || static_cast<unsigned char>(bytes[i]) >= 0x80;
        if (starts_char && scratch.in_listed_text()) return false;
        s = scratch.feed(bytes.substr(i, 1));
    }
    return verdict(scratch, s, bytes);
}

bool JsonConstraint::allows(int32_t token) {
    judging_ = token;
    const std::string_view bytes = tokens_->bytes(token);
    if (!plausible(bytes)) return false;
    if (needs_bytewise(bytes)) return allows_escape(bytes);
    PrefixChecker& scratch = level(0, committed_);
    const StreamState s = scratch.feed(bytes);
    return verdict(scratch, s, bytes);
}

PrefixChecker& JsonConstraint::level(size_t k, const PrefixChecker& from) {
    ++level_writes_;
    if (k < levels_.size()) {
        levels_[k] = from;
        return levels_[k];
    }
    const PrefixChecker copy(from);  // `from` may live in levels_, which grows here
    while (levels_.size() <= k)
        levels_.push_back(copy);
    return levels_[k];
}

// Escapes and non-ASCII bytes: checked byte by byte, where listed text refuses them.
bool JsonConstraint::needs_bytewise(std::string_view b) {
    return std::any_of(b.begin(), b.end(), [](char c) { return c == '\\' || static_cast<unsigned char>(c) >= 0x80; });
}

bool JsonConstraint::partial_ok(const PrefixChecker& after, std::string_view number) {
    const bool integer = after.in_integer();
    if (!number_fits(number, integer)) return false;
    return !integer || number.empty() || integer_reachable(number, after.integer_bounds());
}

// The integers that start with `number` (-?digits, no leading zero) and have at most kMaxNumberBytes bytes: the
// number itself, then for each further digit count k the interval [n * 10^k, (n + 1) * 10^k - 1] (mirrored for a
// negative one); some must lie in one of the ranges (and be a multiple of its multipleOf, checked exactly below
// 9e15 and assumed beyond).
bool JsonConstraint::integer_reachable(std::string_view number,
                                       const std::vector<structured::SchemaChecker::IntegerRange>& ranges) {
    if (ranges.empty()) return true;
    for (const auto& r : ranges) {
        if (std::isinf(r.lo) && r.lo < 0 && std::isinf(r.hi) && r.hi > 0 && r.multiple_of == 0) return true;
    }
    // Whether [a, b] (within the range) holds an integer the range takes.
    const auto holds = [](long double a, long double b, const structured::SchemaChecker::IntegerRange& r) {
        const long double x = std::max<long double>(a, r.lo), y = std::min<long double>(b, r.hi);
        if (x > y) return false;
        if (r.multiple_of == 0 || std::fabs(x) >= 9e15L || std::fabs(y) >= 9e15L) return true;
        const auto lo = static_cast<int64_t>(std::ceil(x)), hi = static_cast<int64_t>(std::floor(y));
        const int64_t m = r.multiple_of, rest = lo % m;
        const int64_t first = rest == 0 ? lo : lo > 0 ? lo + (m - rest) : lo - rest;
        return first <= hi;
    };
    const bool negative = number.starts_with('-');
    const std::string_view digits = number.substr(negative ? 1 : 0);
    for (const auto& r : ranges) {
        if (r.lo > r.hi) continue;
        if (digits.empty()) {  // "-": zero or any negative integer
            if (holds(-HUGE_VAL, 0, r)) return true;
            continue;
        }
        if (digits == "0") {
            if (holds(0, 0, r)) return true;
            continue;
        }
        long double n = 0;
        for (char c : digits)
            n = n * 10 + (c - '0');
        long double scale = 1;
        for (size_t k = 0; number.size() + k <= kMaxNumberBytes; ++k, scale *= 10) {
            long double a = n * scale, b = (n + 1) * scale - 1;
            if (negative) std::tie(a, b) = std::make_pair(-b, -a);
            if (holds(a, b, r)) return true;
            if (negative ? b < r.lo : a > r.hi) break;  // moving away from the range
        }
    }
    return false;
}

bool JsonConstraint::number_fits(std::string_view number, bool integer) {
    if (number.size() > JsonConstraint::kMaxNumberBytes) return false;
    if (integer) return number.find_first_of(".eE") == std::string_view::npos;
    const size_t e = number.find_first_of("eE");
    if (e == std::string_view::npos) return true;
    const std::string_view exponent = number.substr(e + 1);
    return exponent.size() - std::min<size_t>(exponent.find_first_not_of("+-"), exponent.size()) <= 2;
}

void JsonConstraint::accept(int32_t token) {
    const std::string_view bytes = tokens_->bytes(token);
    committed_.feed(bytes);
    text_.append(bytes);
    finals_.clear();
    complete_ = -1;
    if (committed_.in_string()) {
        layout_run_ = 0;
        return;
    }
    size_t trailing = 0;
    while (trailing < bytes.size() && layout_space(bytes[bytes.size() - 1 - trailing]))
        ++trailing;
    layout_run_ = trailing == bytes.size() ? layout_run_ + trailing : trailing;
}

bool JsonConstraint::complete() {
    if (complete_ < 0) {
        StreamState s = committed_.state();
        if (s == StreamState::kPartial) {  // a top-level number ends only at the end of input
            PrefixChecker& scratch = level(0, committed_);
            s = scratch.finish();
        }
        complete_ = s == StreamState::kComplete && committed_.schema().accepts(text_) ? 1 : 0;
    }
    return complete_ == 1;
}

}  // namespace slipstream::agent::infer
