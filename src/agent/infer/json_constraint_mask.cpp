// JsonConstraint::fill_allowed: the full mask, by the vocabulary's string classes inside strings and by a walk of
// the tokens in byte order elsewhere; equal to allows() token by token (json_mask_test).
#include <algorithm>
#include <array>

#include "agent/infer/json_constraint.h"
#include "agent/structured/string_run.h"

namespace slipstream::agent::infer {
namespace {

size_t leading_layout(std::string_view b) {
    size_t n = 0;
    while (n < b.size() && (b[n] == ' ' || b[n] == '\t' || b[n] == '\n' || b[n] == '\r'))
        ++n;
    return n;
}

}  // namespace

using structured::PrefixChecker;
using structured::StreamState;
using structured::StringRun;

void JsonConstraint::fill_allowed(std::span<uint8_t> allowed) {
    std::fill(allowed.begin(), allowed.end(), 0);
    if (committed_.state() != StreamState::kPartial) return;
    if (const auto room = committed_.free_string(); room && room->bytes >= tokens_->max_bytes()) {
        fill_free_string(allowed, *room);
        return;
    }
    listed_.clear();
    if (committed_.listed_continuations(listed_)) {
        fill_listed(allowed, listed_);
        return;
    }
    walk(allowed);
}

// Body tokens by their character count in one pass over the ids (vectorized); closers grouped by suffix, one
// checker per distinct (characters when the length is bounded, suffix), which first feeds as many plain
// characters and the quote (only the count matters here) and then the suffix. A closer that completes the document
// is judged on its own bytes (the whole document's verdict depends on the string's text).
void JsonConstraint::fill_free_string(std::span<uint8_t> allowed, const PrefixChecker::StringRoom& room) {
    const StringTokenClasses& classes = tokens_->string_classes();
    const std::vector<uint8_t>& chars = classes.body_chars();
    const size_t n = std::min(allowed.size(), chars.size());
    const auto cap = static_cast<uint8_t>(std::min<size_t>(room.chars, StringTokenClasses::kNotBody - 1));
    const uint8_t* in = chars.data();
    uint8_t* out = allowed.data();
    for (size_t t = 0; t < n; ++t)
        out[t] = in[t] <= cap ? 1 : 0;
    for (int32_t t : classes.long_bodies()) {
        if (static_cast<size_t>(t) < n) allowed[static_cast<size_t>(t)] = allows(t) ? 1 : 0;
    }

    enum Group : uint8_t { kNo, kYes, kEach };
    size_t base_chars = SIZE_MAX;
    bool base_alive = false;
    std::array<uint8_t, 256> refused_first{};  // after the base: a suffix's first byte already refused
    size_t group_chars = SIZE_MAX;
    std::string_view group_suffix;
    Group group = kNo;
    std::string synthetic;
    const auto& closers = room.bounded ? classes.closers_by_chars() : classes.closers_by_suffix();
    for (const StringTokenClasses::Closer& c : closers) {
        if (static_cast<size_t>(c.token) >= n || c.chars > room.chars) continue;
        const std::string_view bytes = tokens_->bytes(c.token);
        const std::string_view suffix = bytes.substr(c.quote + 1);
        if (needs_bytewise(suffix)) {  // an escape or a non-ASCII byte after the quote: maybe in listed text
            allowed[static_cast<size_t>(c.token)] = allows(c.token) ? 1 : 0;
            continue;
        }
        const size_t key = room.bounded ? c.chars : 0;
        if (key != group_chars || suffix != group_suffix) {
            if (key != base_chars) {
                synthetic.assign(key, 'a');
                synthetic.push_back('"');
                base_alive = level(1, committed_).feed(synthetic) != StreamState::kInvalid;
                base_chars = key;
                refused_first.fill(0);
            }
            group_chars = key;
            group_suffix = suffix;
            const PrefixChecker& base = levels_[1];
            if (!base_alive) {
                group = kNo;
            } else if (suffix.empty()) {
                group = base.state() == StreamState::kComplete ? kEach : kYes;
            } else if (refused_first[static_cast<unsigned char>(suffix[0])] != 0 ||
                       !base.may_follow(static_cast<unsigned char>(suffix[0]))) {
                group = kNo;
            } else {
                PrefixChecker& scratch = level(0, base);
                const StreamState s = scratch.feed(suffix);
                if (s == StreamState::kInvalid) {
                    if (suffix.size() == 1) refused_first[static_cast<unsigned char>(suffix[0])] = 1;
                    group = kNo;
                } else if (s == StreamState::kComplete) {
                    group = kEach;
                } else {
                    group = number_fits(scratch.number_text(), scratch.in_integer()) ? kYes : kNo;
                }
            }
        }
        if (group == kEach) {
            allowed[static_cast<size_t>(c.token)] = verdict(levels_[0], StreamState::kComplete, bytes) ? 1 : 0;
        } else {
            allowed[static_cast<size_t>(c.token)] = group == kYes ? 1 : 0;
        }
    }
}

// In listed text every allowed token lies along a listed continuation: a prefix of it and its closing quote, or
// that whole and more. Those few tokens are found by binary search and each checked as allows() would.
void JsonConstraint::fill_listed(std::span<uint8_t> allowed, const std::vector<std::string_view>& continuations) {
    std::string path;
    const auto check = [&](uint32_t i) {
        const int32_t t = tokens_->order()[i];
        if (static_cast<size_t>(t) < allowed.size() && allowed[static_cast<size_t>(t)] == 0)
            allowed[static_cast<size_t>(t)] = allows(t) ? 1 : 0;
    };
    for (std::string_view rest : continuations) {
        // Listed text is written without escapes or non-ASCII bytes (allows() refuses them), so only the part
        // before the first such byte can be; with all of it, its closing quote.
        size_t plain = 0;
        while (plain < rest.size() && rest[plain] != '"' && rest[plain] != '\\' &&
               static_cast<unsigned char>(rest[plain]) >= 0x20 && static_cast<unsigned char>(rest[plain]) < 0x80)
            ++plain;
        path.assign(rest.substr(0, plain));
        if (plain == rest.size()) path.push_back('"');
        for (size_t len = 1; len <= path.size(); ++len) {
            const std::string_view prefix(path.data(), len);
            const auto [lo, hi] = tokens_->prefix_range(prefix);
            if (lo == hi) break;  // no token starts so: none is longer either
            for (uint32_t i = lo; i < hi; ++i) {
                if (len == path.size()) {
                    check(i);  // the whole path and whatever follows it
                } else if (tokens_->bytes(tokens_->order()[i]).size() == len) {
                    check(i);
                } else {
                    break;  // longer tokens come after the equal ones
                }
            }
        }
    }
}

// Tokens in byte order, grouped by first byte; a stack of checkers, one per prefix shared with the next token,
// so each shared prefix is fed once. A byte the syntax cannot take (PrefixChecker::may_follow) refuses without a
// copy, and a refused prefix skips every token under it at once. levels_[0] is the scratch.
void JsonConstraint::walk(std::span<uint8_t> allowed) {
    const std::vector<int32_t>& order = tokens_->order();
    const std::vector<uint32_t>& shared = tokens_->shared_prefix();
    char first_byte[1];
    for (unsigned b = 0; b < 256; ++b) {
        const auto [lo, hi] = tokens_->first_byte_range(static_cast<unsigned char>(b));
        first_byte[0] = static_cast<char>(b);
        if (lo == hi || !committed_.may_follow(static_cast<unsigned char>(b)) ||
            !plausible(std::string_view(first_byte, 1)))
            continue;
        PrefixChecker& head = level(1, committed_);
        if (head.feed(std::string_view(first_byte, 1)) == StreamState::kInvalid) continue;
        stack_.assign(1, Level{1, false, head.free_string(), 1});
        for (uint32_t i = lo; i < hi; ++i) {
            const int32_t token = order[i];
            const std::string_view bytes = tokens_->bytes(token);
            const size_t with_previous = i > lo ? shared[i - 1] : 1;
            while (stack_.back().length > with_previous)
                stack_.pop_back();
            const size_t with_next = i + 1 < hi ? shared[i] : 0;
            if (!stack_.back().refused && with_next > stack_.back().length) {
                const size_t from = stack_.back().length;
                const PrefixChecker& parent = levels_[stack_.back().checker];
                const std::string_view piece = bytes.substr(from, with_next - from);
                Level next{with_next, !parent.may_follow(static_cast<unsigned char>(piece[0])), std::nullopt,
                           stack_.size() + 1};
                if (!next.refused && parent.in_layout() && leading_layout(piece) == piece.size()) {
                    next.checker = stack_.back().checker;  // whitespace between tokens: the same state
                } else if (!next.refused) {
                    PrefixChecker& checker = level(next.checker, parent);
                    next.refused = checker.feed(piece) == StreamState::kInvalid;
                    if (!next.refused) next.room = checker.free_string();
                }
                stack_.push_back(next);
            }
            if (stack_.back().refused) {  // every token that starts with this prefix
                i = tokens_->past_prefix(i, hi, bytes.substr(0, stack_.back().length)) - 1;
                continue;
            }
            if (static_cast<size_t>(token) >= allowed.size() || !plausible(bytes)) continue;
            allowed[static_cast<size_t>(token)] = judge(bytes) ? 1 : 0;
        }
    }
}

bool JsonConstraint::judge(std::string_view bytes) {
    const Level& at_level = stack_.back();
    const size_t depth = at_level.length;
    const std::string_view head = bytes.substr(0, std::min(depth, bytes.size()));
    if (at_level.room && depth < bytes.size() && at_level.room->bytes >= bytes.size() - depth &&
        !needs_bytewise(head)) {
        const StringRun run = structured::read_string_run(bytes.substr(depth));
        if (run.kind == StringRun::Kind::kBody) return run.chars <= at_level.room->chars;
        if (run.kind == StringRun::Kind::kInvalid) return false;
    }
    if (needs_bytewise(bytes)) return allows_escape(bytes);  // rare: not worth the levels
    const PrefixChecker* at = &levels_[at_level.checker];
    StreamState s = at->state();
    if (bytes.size() > depth && at->in_layout() && leading_layout(bytes.substr(depth)) == bytes.size() - depth)
        return true;  // only whitespace more between tokens (its run was bounded by plausible())
    if (bytes.size() > depth) {
        if (!at->may_follow(static_cast<unsigned char>(bytes[depth]))) return false;
        PrefixChecker& scratch = level(0, *at);
        s = scratch.feed(bytes.substr(depth));
        at = &scratch;
    }
    return verdict(*at, s, bytes);
}

}  // namespace slipstream::agent::infer
