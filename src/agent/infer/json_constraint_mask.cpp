// JsonConstraint::fill_allowed: the full mask, by the vocabulary's string classes inside strings and by a walk of
// the tokens in byte order elsewhere; equal to allows() token by token (json_mask_test).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/infer/json_constraint.h"
#include "agent/infer/token_mask_bits.h"
#include "agent/structured/pattern_nfa.h"
#include "agent/structured/string_run.h"
#include "json/utf8.h"

namespace slipstream::agent::infer {
namespace {

bool all_digits(std::string_view b) {
    return !b.empty() && std::all_of(b.begin(), b.end(), [](char c) { return c >= '0' && c <= '9'; });
}

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

// A state seen before (its key: committed_'s state_key, the whitespace run and the width) costs a lookup and a copy
// of its bits; the tokens that complete the document are judged again (the verdict reads the whole text). A new
// state is computed and stored, unless a verdict completed the document for a token it cannot name.
void JsonConstraint::fill_allowed(std::span<uint8_t> allowed) {
    if (const auto hit = cached(allowed.size())) {
        if (hit->sparse) {
            std::fill(allowed.begin(), allowed.end(), 0);
            for (int32_t t : hit->allowed)
                allowed[static_cast<size_t>(t)] = 1;
        } else {
            expand_mask(hit->bits, allowed);
        }
        for (int32_t t : hit->finals)
            allowed[static_cast<size_t>(t)] = final_verdict(tokens_->bytes(t)) ? 1 : 0;
        return;
    }
    compute_and_store(allowed);
}

void JsonConstraint::fill_allowed_bits(std::span<uint32_t> bits, std::size_t tokens) {
    auto mask = cached(tokens);
    const std::vector<uint64_t>* words = mask != nullptr ? &mask->bits : nullptr;
    if (mask == nullptr) {
        scratch_.resize(tokens);
        mask = compute_and_store(scratch_);
        if (mask == nullptr) {
            packed_.resize(mask_words(tokens));
            pack_mask(scratch_, packed_);
            words = &packed_;
        } else {
            words = &mask->bits;
        }
    }
    // Bit t of the 64-bit words is bit t of the 32-bit words in little-endian memory.
    static_assert(std::endian::native == std::endian::little);
    const size_t n = std::min(bits.size(), (tokens + 31) / 32);
    if (mask != nullptr && mask->sparse) {
        std::fill(bits.begin(), bits.end(), 0);
        for (int32_t t : mask->allowed) {
            const auto i = static_cast<size_t>(t);
            if (i / 32 < n) bits[i / 32] |= uint32_t{1} << (i % 32);
        }
    } else {
        std::memcpy(bits.data(), words->data(), n * sizeof(uint32_t));
        std::fill(bits.begin() + static_cast<std::ptrdiff_t>(n), bits.end(), 0);
    }
    if (mask == nullptr) return;
    for (int32_t t : mask->finals) {
        const auto i = static_cast<size_t>(t);
        if (i / 32 < n && final_verdict(tokens_->bytes(t))) bits[i / 32] |= uint32_t{1} << (i % 32);
    }
}

std::shared_ptr<const CachedMask> JsonConstraint::cached(size_t width) {
    key_.clear();
    state_key(key_);
    key_.append(reinterpret_cast<const char*>(&width), sizeof width);
    auto hit = cache_->find(key_);
    return hit != nullptr && hit->width == width ? hit : nullptr;
}

std::shared_ptr<const CachedMask> JsonConstraint::compute_and_store(std::span<uint8_t> allowed) {
    recording_ = true;
    unattributed_final_ = false;
    judging_ = -1;
    finals_seen_.clear();
    compute_mask(allowed);
    recording_ = false;
    judging_ = -1;
    if (unattributed_final_) return nullptr;
    const size_t width = allowed.size();
    auto mask = std::make_shared<CachedMask>();
    mask->width = width;
    mask->bits.resize(mask_words(width));
    pack_mask(allowed, mask->bits);
    std::sort(finals_seen_.begin(), finals_seen_.end());
    finals_seen_.erase(std::unique(finals_seen_.begin(), finals_seen_.end()), finals_seen_.end());
    for (int32_t t : finals_seen_)
        mask->bits[static_cast<size_t>(t) / 64] &= ~(uint64_t{1} << (static_cast<size_t>(t) % 64));
    mask->finals = finals_seen_;
    // Few tokens allowed (a listed key, an enum): the list, when it takes under a quarter of the bits' bytes.
    size_t count = 0;
    for (uint64_t w : mask->bits)
        count += static_cast<size_t>(std::popcount(w));
    if (count * sizeof(int32_t) * 4 < mask->bits.size() * sizeof(uint64_t)) {
        for (size_t w = 0; w < mask->bits.size(); ++w) {
            for (uint64_t word = mask->bits[w]; word != 0; word &= word - 1)
                mask->allowed.push_back(static_cast<int32_t>(w * 64 + static_cast<size_t>(std::countr_zero(word))));
        }
        mask->sparse = true;
        mask->bits = {};
    }
    store(key_, mask);
    return mask;
}

void JsonConstraint::key_of(const PrefixChecker& at, size_t layout_run, std::string& out) const {
    // A number's digits matter to the mask only through its length (kMaxNumberBytes) and, once it ends, whether
    // it is integral: below 16 bytes with any token's number bytes, neither reads more than its shape.
    const size_t prefix = tokens_->max_number_prefix();
    // A token closes at most max_closers() containers: the ones further out cannot change its verdict.
    at.state_key(out, tokens_->max_bytes(), prefix < 15 ? 15 - prefix : 0, tokens_->max_closers() + 1,
                 tokens_->max_openers());
    const size_t run = std::min(layout_run, kMaxLayoutWhitespace + 1);
    out.append(reinterpret_cast<const char*>(&run), sizeof run);
}

void JsonConstraint::store(std::string key, std::shared_ptr<const CachedMask> mask) {
    if (!pinning_) {
        cache_->insert(std::move(key), std::move(mask));
    } else if (!cache_->pin(std::move(key), std::move(mask))) {
        pin_full_ = true;
    }
}

void JsonConstraint::compute_mask(std::span<uint8_t> allowed) {
    if (const auto at = committed_.pattern_string(); at && at->bytes >= tokens_->max_bytes()) {
        fill_pattern_string(allowed, *at);  // writes every entry
        return;
    }
    if (const auto room = committed_.free_string(); room && room->bytes >= tokens_->max_bytes()) {
        fill_free_string(allowed, *room);  // writes every entry
        return;
    }
    std::fill(allowed.begin(), allowed.end(), 0);
    if (committed_.state() != StreamState::kPartial) return;
    listed_.clear();
    if (committed_.listed_continuations(listed_)) {
        fill_listed(allowed, listed_);
        return;
    }
    walk(allowed);
}

// Body tokens by their character count in one pass over the ids (vectorized); closers by the verdict on their
// suffix (judge_suffixes(), from a checker fed as many plain characters as come before the quote, and the quote),
// or on their own bytes when the suffix completes the document (the whole document's verdict depends on the
// string's text) or holds an escape or a non-ASCII byte (listed text after the string could refuse it).
void JsonConstraint::fill_free_string(std::span<uint8_t> allowed, const PrefixChecker::StringRoom& room) {
    const StringTokenClasses& classes = tokens_->string_classes();
    const std::vector<uint8_t>& chars = classes.body_chars();
    const size_t n = std::min(allowed.size(), chars.size());
    const auto cap = static_cast<uint8_t>(std::min<size_t>(room.chars, StringTokenClasses::kNotBody - 1));
    const uint8_t* in = chars.data();
    uint8_t* out = allowed.data();
    for (size_t t = 0; t < n; ++t)
        out[t] = in[t] <= cap ? 1 : 0;
    std::fill(allowed.begin() + static_cast<std::ptrdiff_t>(n), allowed.end(), 0);
    for (int32_t t : classes.long_bodies()) {
        if (static_cast<size_t>(t) < n) allowed[static_cast<size_t>(t)] = allows(t) ? 1 : 0;
    }

    fill_closers(allowed, committed_, room, classes.closers(), 1);
}

namespace {

// A token whose whole characters (`chars` of them, leaving `after`) are followed by `bytes`, an unfinished UTF-8
// sequence if it is one: 1 when every
// byte of the sequence is well formed and some character it may still become continues a match that fits
// `chars_left` (the stream's char_range check at its last byte, the narrowest), 0 when none does, 2 when the bytes
// are not that simple (the caller asks allows()).
uint8_t split_fits(const structured::PatternNfa& nfa, const structured::PatternNfa::States& after,
                   std::string_view bytes, size_t chars, size_t chars_left) {
    const size_t start = 0;  // the lead byte
    std::uint8_t left = 0;
    unsigned char lo = 0, hi = 0;
    const auto lead = static_cast<unsigned char>(bytes[start]);
    if (!structured::utf8_lead(lead, left, lo, hi)) return 2;
    const size_t have = bytes.size() - start;
    if (have > left) return 2;  // not unfinished after all
    const int total = static_cast<int>(left) + 1;
    std::uint32_t prefix = lead & (0xffu >> (total + 1));
    for (size_t k = 1; k < have; ++k) {
        const auto c = static_cast<unsigned char>(bytes[start + k]);
        if (c < lo || c > hi) return 2;
        lo = 0x80;
        hi = 0xbf;
        prefix = prefix << 6 | (c & 0x3f);
    }
    std::uint32_t first = prefix << 6 | (lo & 0x3f), last = prefix << 6 | (hi & 0x3f);
    for (size_t k = have + 1; k < static_cast<size_t>(total); ++k) {
        first <<= 6;
        last = last << 6 | 0x3f;
    }
    const size_t via = nfa.min_via(after, first, last);
    if (via == SIZE_MAX) return 0;
    return chars_left == SIZE_MAX || chars + via <= chars_left ? 1 : 0;
}

}  // namespace

// A token of whole characters (no quote, backslash or control byte) stays inside the string and is allowed exactly
// when the pattern's states after its characters are not empty and its characters plus the shortest match after
// them fit maxLength (SchemaChecker::pattern_focus; the checks at an earlier character of it follow from those at its
// end). Characters step a DFA built lazily from the current states (over the pattern's symbols: characters every
// state reads alike), tokens in byte order from the part they share with the one before. A token whose characters
// before a quote, a backslash, a control byte or a split UTF-8 character already fail is refused (so is a raw control
// byte, and a quote where the pattern does not match); the rest (a closing quote after a match, an escape, a split
// character) goes to allows().
void JsonConstraint::fill_pattern_string(std::span<uint8_t> allowed, const PrefixChecker::PatternString& at) {
    using States = structured::PatternNfa::States;
    const structured::PatternNfa& nfa = *at.focus.nfa;
    const size_t symbols = nfa.symbols();
    // The lazy DFA: per reached state set its successors by symbol, whether it is empty and its shortest match.
    std::vector<States> sets;
    std::vector<int32_t> next;  // [set * symbols + symbol], -1: not stepped yet
    std::vector<uint8_t> dead_of;
    std::vector<size_t> more_of;
    std::vector<size_t> most_of;
    std::unordered_map<std::string, int32_t> ids;
    const auto id_of = [&](const States& s) {
        const auto [it, fresh] = ids.emplace(std::string(reinterpret_cast<const char*>(s.data()), sizeof(States)),
                                             static_cast<int32_t>(sets.size()));
        if (fresh) {
            sets.push_back(s);
            next.resize(next.size() + symbols, -1);
            dead_of.push_back(structured::PatternNfa::none(s) ? 1 : 0);
            more_of.push_back(nfa.min_to_match(s));
            most_of.push_back(nfa.max_to_match(s));
        }
        return it->second;
    };
    id_of(at.focus.states);
    for (size_t t = 0; t < allowed.size(); ++t) {  // tokens without bytes (not in order()): the reference
        allowed[t] = tokens_->bytes(static_cast<int32_t>(t)).empty() && allows(static_cast<int32_t>(t)) ? 1 : 0;
    }
    // Tokens in byte order: trail_state[k] is the DFA state after the previous token's first k bytes (-1 inside a
    // character), trail_chars[k] their characters, so a token starts after the part it shares with it.
    std::vector<int32_t> trail_state(tokens_->max_bytes() + 1, 0);
    std::vector<size_t> trail_chars(tokens_->max_bytes() + 1, 0);
    size_t trail_len = 0;
    const std::vector<int32_t>& order = tokens_->order();
    const std::vector<uint32_t>& shared = tokens_->shared_prefix();
    for (uint32_t k = 0; k < order.size(); ++k) {
        const int32_t token = order[k];
        const std::string_view bytes = tokens_->at(k);
        size_t i = std::min<size_t>(k > 0 ? shared[k - 1] : 0, trail_len);
        while (trail_state[i] < 0)
            --i;
        trail_len = i;
        int32_t state = trail_state[i];
        size_t chars = trail_chars[i];
        bool dead = dead_of[static_cast<size_t>(state)] != 0;
        char stop = 0;  // what ended the characters: '"', '\\', 'c'ontrol, 's'plit
        while (i < bytes.size() && stop == 0 && !dead) {
            const auto c = static_cast<unsigned char>(bytes[i]);
            if (c == '"' || c == '\\' || c < 0x20) {
                stop = c < 0x20 ? 'c' : static_cast<char>(c);
                break;
            }
            size_t len = c < 0x80 ? 1 : json::detail::utf8_sequence_length(bytes, i);
            if (len == 0) {
                stop = 's';  // a split or invalid sequence: the stream judges its bytes
                break;
            }
            const uint32_t symbol = nfa.symbol(c < 0x80 ? c : json::detail::decode_utf8(bytes, i, &len));
            const size_t slot = static_cast<size_t>(state) * symbols + symbol;
            int32_t to = next[slot];
            if (to < 0) {
                to = id_of(nfa.step(sets[static_cast<size_t>(state)], nfa.representative(symbol)));
                next[slot] = to;
            }
            state = to;
            dead = dead_of[static_cast<size_t>(state)] != 0;
            for (size_t p = i + 1; p < i + len; ++p)
                trail_state[p] = -1;
            i += len, ++chars;
            trail_state[i] = state;
            trail_chars[i] = chars;
            trail_len = i;
        }
        if (dead) {  // every token that starts with these characters is refused (stays 0)
            k = tokens_->past_prefix(k, static_cast<uint32_t>(order.size()), bytes.substr(0, i)) - 1;
            continue;
        }
        if (static_cast<size_t>(token) >= allowed.size()) continue;
        uint8_t& out = allowed[static_cast<size_t>(token)];
        const States& after = sets[static_cast<size_t>(state)];
        const size_t most = most_of[static_cast<size_t>(state)];
        if (chars > at.focus.chars_left || stop == 'c') {  // past maxLength, or a raw control byte
            out = 0;
        } else if (stop != '"' && stop != '\\' && most != SIZE_MAX && chars + most < at.focus.chars_needed) {
            out = 0;                                            // no match from here reaches minLength
        } else if (stop == '"' && !nfa.accepts(after, true)) {  // closes the string unmatched
            out = 0;
        } else if (stop == 's') {  // ends inside a UTF-8 sequence: its last byte's range (the narrowest) decides
            out = split_fits(nfa, after, bytes.substr(i), chars, at.focus.chars_left);
            if (out == 2) out = allows(token) ? 1 : 0;
        } else if (stop != 0) {
            out = allows(token) ? 1 : 0;
        } else {
            const size_t more = at.focus.chars_left == SIZE_MAX ? 0 : more_of[static_cast<size_t>(state)];
            out = bytes.size() <= at.bytes && more != SIZE_MAX && chars + more <= at.focus.chars_left ? 1 : 0;
        }
    }
}

// What follows a closing quote depends only on the containers' state and on which alternatives survive the close
// (their length keywords), not on the string's text: the suffixes are judged once per such state and survivor set
// (from a checker in slot `base` fed as many plain characters as come before the quote, and the quote), and kept
// for the strings after (the next item of an array, the next value of the same kind of object).
void JsonConstraint::fill_closers(std::span<uint8_t> allowed, const PrefixChecker& from,
                                  const PrefixChecker::StringRoom& room,
                                  const std::vector<StringTokenClasses::Closer>& closers, size_t base) {
    const std::string state = from.container_state();
    constexpr uint64_t kUnknown = ~uint64_t{0};
    std::array<uint64_t, 256> survivors_by_chars;  // per characters before the quote (bounded strings)
    survivors_by_chars.fill(kUnknown);
    const uint64_t unbounded = room.bounded ? kUnknown : from.close_survivors(0).value_or(kUnknown - 1);
    const SuffixVerdicts* judged = nullptr;
    for (const StringTokenClasses::Closer& c : closers) {
        if (static_cast<size_t>(c.token) >= allowed.size() || c.chars > room.chars) continue;
        if (c.escapes) {  // an escape or non-ASCII after the quote: maybe in listed text
            allowed[static_cast<size_t>(c.token)] = allows(c.token) ? 1 : 0;
            continue;
        }
        uint64_t key = unbounded;
        if (room.bounded) {
            uint64_t& known = survivors_by_chars[std::min<size_t>(c.chars, 255)];
            if (known == kUnknown || c.chars >= 255)  // past 64 alternatives: one set per length
                known = from.close_survivors(c.chars).value_or(uint64_t{1} << 63 | c.chars);
            key = known;
        }
        if (key == 0) continue;  // no alternative takes a string this long or short
        if (judged == nullptr || judged->survivors != key) {
            judged = nullptr;
            for (const SuffixVerdicts& v : suffix_cache_)
                if (v.survivors == key && v.state == state) judged = &v;
        }
        if (judged == nullptr) {
            if (suffix_cache_.size() >= kMaxSuffixSets) suffix_cache_.erase(suffix_cache_.begin());
            // Shared under its own key ('s', the survivors, the state), apart from the masks' keys.
            std::string shared_key(1, 's');
            shared_key.append(reinterpret_cast<const char*>(&key), sizeof key);
            shared_key.append(state);
            std::shared_ptr<const CachedMask> verdicts = cache_->find(shared_key);
            if (verdicts == nullptr) {
                auto fresh = std::make_shared<CachedMask>();
                fresh->suffix_verdicts.assign(tokens_->string_classes().suffixes().size(), kSuffixNo);
                std::string synthetic(c.chars, 'a');  // only the count matters: no alternative lists texts
                synthetic.push_back('"');
                PrefixChecker& checker = level(base, from);
                head_memo_.fill(0);
                if (checker.feed(synthetic) != StreamState::kInvalid) judge_suffixes(fresh->suffix_verdicts, base);
                store(std::move(shared_key), fresh);
                verdicts = std::move(fresh);
            }
            suffix_cache_.push_back(SuffixVerdicts{key, state, std::move(verdicts)});
            judged = &suffix_cache_.back();
        }
        const uint8_t v = judged->verdicts->suffix_verdicts[c.suffix];
        judging_ = c.token;
        allowed[static_cast<size_t>(c.token)] =
            v == kSuffixEach ? (verdict(levels_[0], StreamState::kComplete, tokens_->bytes(c.token)) ? 1 : 0) : v;
    }
}

// The closers' distinct suffixes in byte order from the checker in levels_[root] (just past the closing quote),
// with a level per shared prefix as walk() keeps them (the slots after root).
void JsonConstraint::judge_suffixes(std::vector<uint8_t>& out, size_t root) {
    const std::vector<std::string>& list = tokens_->string_classes().suffixes();
    const std::vector<uint32_t>& shared = tokens_->string_classes().suffix_shared();
    stack_.assign(1, Level{0, false, std::nullopt, root});
    slot_base_ = root;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string_view sfx = list[i];
        const size_t with_previous = i > 0 ? shared[i - 1] : 0;
        while (stack_.back().length > with_previous)
            stack_.pop_back();
        const size_t with_next = i + 1 < list.size() ? shared[i] : 0;
        if (!stack_.back().refused && with_next > stack_.back().length) push_level(sfx, with_next);
        if (stack_.back().refused) continue;  // out[i] stays kSuffixNo
        const PrefixChecker* at = &levels_[stack_.back().checker];
        const std::string_view rest = sfx.substr(stack_.back().length - stack_.back().pending);
        StreamState s = at->state();
        if (at->in_layout() && leading_layout(rest) == rest.size()) {
            out[i] = kSuffixYes;
            continue;
        }
        if (!at->number_text().empty() && all_digits(rest)) {
            out[i] = judge_digits(*at, rest) ? kSuffixYes : kSuffixNo;
            continue;
        }
        if (!rest.empty()) {
            const auto next = static_cast<unsigned char>(sfx[std::min(stack_.back().length, sfx.size() - 1)]);
            if (stack_.back().length < sfx.size() &&
                (!at->may_follow(next) || (stack_.back().checker == 1 && head_memo_[next] < 0)))
                continue;
            PrefixChecker& scratch = level(0, *at);
            s = scratch.feed(rest);
            at = &scratch;
        }
        if (s == StreamState::kComplete) {
            out[i] = kSuffixEach;
        } else if (s == StreamState::kPartial && partial_ok(*at, at->number_text())) {
            out[i] = kSuffixYes;
        }
    }
    slot_base_ = 1;
}

// A level for bytes[0, length) on top of stack_: refused without a copy where the syntax cannot take its next
// byte; the parent's checker, with the bytes left pending, where they add only whitespace between tokens or digits
// to a number; else a copy fed the new bytes.
void JsonConstraint::push_level(std::string_view bytes, size_t length) {
    const Level& top = stack_.back();
    const size_t from = top.length;
    const PrefixChecker& parent = levels_[top.checker];
    const std::string_view piece = bytes.substr(from, length - from);
    Level next{length, !parent.may_follow(static_cast<unsigned char>(piece[0])), std::nullopt,
               stack_.size() + slot_base_, 0};
    if (!next.refused && parent.in_layout() && leading_layout(piece) == piece.size()) {
        next.checker = top.checker;
        next.pending = top.pending + piece.size();
    } else if (!next.refused && !parent.number_text().empty() && all_digits(piece)) {
        next.checker = top.checker;
        next.pending = top.pending + piece.size();
        next.refused = !digits_continue(parent.number_text(), bytes.substr(from - top.pending, next.pending));
    } else if (!next.refused && top.checker == 1 && head_memo_[static_cast<unsigned char>(piece[0])] < 0) {
        next.refused = true;  // the byte after whitespace was refused before
    } else if (!next.refused) {
        PrefixChecker& checker = level(next.checker, parent);
        std::string_view feed = bytes.substr(from - top.pending, length - from + top.pending);
        if (top.checker == 1) {  // the byte after the head: remembered for the head's other whitespace runs
            const bool ok = checker.feed(feed.substr(0, top.pending + 1)) != StreamState::kInvalid;
            head_memo_[static_cast<unsigned char>(piece[0])] = ok ? 1 : -1;
            feed = ok ? feed.substr(top.pending + 1) : std::string_view();
            next.refused = !ok;
        }
        if (!next.refused && !feed.empty()) next.refused = checker.feed(feed) == StreamState::kInvalid;
        if (!next.refused) next.room = checker.free_string();
    }
    stack_.push_back(next);
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
            if (lo == hi) break;                             // no token starts so: none is longer either
            if (len == path.size() && path.back() == '"') {  // the closing quote and whatever follows it
                PrefixChecker& root = level(1, committed_);
                head_memo_.fill(0);
                if (root.feed(path) == StreamState::kInvalid) break;
                stack_.assign(1, Level{len, false, root.free_string(), 1});
                digits_done_ = false;
                spaces_done_ = false;
                walk_range(allowed, lo, hi);
                break;
            }
            for (uint32_t i = lo; i < hi; ++i) {
                if (len == path.size()) {
                    check(i);  // the whole path and whatever follows it
                } else if (tokens_->at(i).size() == len) {
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
    char first_byte[1];
    for (unsigned b = 0; b < 256; ++b) {
        const auto [lo, hi] = tokens_->first_byte_range(static_cast<unsigned char>(b));
        first_byte[0] = static_cast<char>(b);
        if (lo == hi || !committed_.may_follow(static_cast<unsigned char>(b)) ||
            !plausible(std::string_view(first_byte, 1)))
            continue;
        PrefixChecker& head = level(1, committed_);
        if (head.feed(std::string_view(first_byte, 1)) == StreamState::kInvalid) continue;
        head_memo_.fill(0);
        const auto room = head.free_string();
        // Inside a free string after the first byte (it completed an escape or a character, or opened the string,
        // where no listed text could refuse it): the rest of each token by the vocabulary's tail classes.
        if (room && room->bytes >= tokens_->max_bytes() &&
            (!needs_bytewise(std::string_view(first_byte, 1)) ||
             (committed_.in_string() && !committed_.in_listed_text()))) {
            fill_tails(allowed, static_cast<unsigned char>(b), lo, hi, *room);
            continue;
        }
        // Inside a number, tokens of digits only are judged by their digits alone (walk_range skips them).
        // Only a digit begins such a token: the digit alone, and the ranges under a second digit.
        digits_done_ = !head.number_text().empty() && b >= '0' && b <= '9';
        if (digits_done_) {
            const auto judge_all = [&](uint32_t from, uint32_t to) {
                for (uint32_t i = from; i < to; ++i) {
                    const auto t = static_cast<size_t>(tokens_->order()[i]);
                    if (tokens_->all_digits_at(i) && t < allowed.size())
                        allowed[t] = judge_digits(head, tokens_->at(i).substr(1)) ? 1 : 0;
                }
            };
            judge_all(lo, tokens_->second_byte_range(static_cast<unsigned char>(b), 0).first);
            for (char c = '0'; c <= '9'; ++c) {
                const auto [from, to] = tokens_->second_byte_range(static_cast<unsigned char>(b), c);
                judge_all(from, to);
            }
        }
        // Between tokens, tokens of whitespace only change nothing but the run plausible() bounds.
        spaces_done_ = head.state() == StreamState::kPartial && head.in_layout() &&
                       (b == ' ' || b == '\t' || b == '\n' || b == '\r');
        if (spaces_done_) {  // the byte alone, and under each second byte of whitespace
            const auto judge_spaces = [&](uint32_t from, uint32_t to) {
                for (uint32_t i = from; i < to; ++i) {
                    const auto t = static_cast<size_t>(tokens_->order()[i]);
                    if (tokens_->all_space_at(i) && t < allowed.size()) allowed[t] = plausible(tokens_->at(i)) ? 1 : 0;
                }
            };
            judge_spaces(lo, tokens_->second_byte_range(static_cast<unsigned char>(b), 0).first);
            for (const char c : {'\t', '\n', '\r', ' '}) {
                const auto [from, to] = tokens_->second_byte_range(static_cast<unsigned char>(b), c);
                judge_spaces(from, to);
            }
        }
        // The tokens of one byte, then those under each second byte the head can take (the rest skipped at once).
        stack_.assign(1, Level{1, false, room, 1});
        const uint32_t singles = tokens_->second_byte_range(static_cast<unsigned char>(b), 0).first;
        if (lo < singles) walk_range(allowed, lo, singles);
        for (const uint8_t c : tokens_->second_bytes(static_cast<unsigned char>(b))) {
            if (!head.may_follow(c)) continue;
            const auto [from, to] = tokens_->second_byte_range(static_cast<unsigned char>(b), c);
            walk_range(allowed, from, to);
        }
    }
}

// order()[lo, hi): tokens that all start with the prefix of stack_'s root level (its checker in levels_[1]).
void JsonConstraint::walk_range(std::span<uint8_t> allowed, uint32_t lo, uint32_t hi) {
    const std::vector<int32_t>& order = tokens_->order();
    const std::vector<uint32_t>& shared = tokens_->shared_prefix();
    const size_t root = stack_.front().length;
    for (uint32_t i = lo; i < hi; ++i) {
        if ((digits_done_ && tokens_->all_digits_at(i)) || (spaces_done_ && tokens_->all_space_at(i))) continue;
        const int32_t token = order[i];
        const std::string_view bytes = tokens_->at(i);
        const size_t with_previous = i > lo ? shared[i - 1] : root;
        while (stack_.back().length > with_previous)
            stack_.pop_back();
        const size_t with_next = i + 1 < hi ? shared[i] : 0;
        if (!stack_.back().refused && with_next > stack_.back().length) push_level(bytes, with_next);
        if (stack_.back().refused) {  // every token that starts with this prefix
            i = tokens_->past_prefix(i, hi, bytes.substr(0, stack_.back().length)) - 1;
            continue;
        }
        if (static_cast<size_t>(token) >= allowed.size() || !plausible(bytes)) continue;
        judging_ = token;
        allowed[static_cast<size_t>(token)] = judge(bytes) ? 1 : 0;
    }
}

void JsonConstraint::fill_tails(std::span<uint8_t> allowed, unsigned char first, uint32_t lo, uint32_t hi,
                                const PrefixChecker::StringRoom& room) {
    const std::vector<uint8_t>& tails = tokens_->string_classes().tail_chars();
    for (uint32_t i = lo; i < hi; ++i) {
        const int32_t t = tokens_->order()[i];
        if (static_cast<size_t>(t) >= allowed.size()) continue;
        const uint8_t c = tails[static_cast<size_t>(t)];
        if (c < StringTokenClasses::kTailCloses) {
            allowed[static_cast<size_t>(t)] = c <= room.chars ? 1 : 0;
        } else if (c == StringTokenClasses::kTailOther) {
            allowed[static_cast<size_t>(t)] = allows(t) ? 1 : 0;
        }
    }
    // Those that close the string after the first byte: by their suffixes, from the head (slot 1; the base in 2).
    fill_closers(allowed, levels_[1], room, tokens_->string_classes().tail_closers(first), 2);
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
    const size_t fed = depth - at_level.pending;  // bytes of the token `at` consumed
    const std::string_view rest = bytes.substr(fed);
    if (at->in_layout() && leading_layout(rest) == rest.size())
        return true;  // only whitespace more between tokens (its run was bounded by plausible())
    if (!at->number_text().empty() && all_digits(rest)) return judge_digits(*at, rest);
    StreamState s = at->state();
    if (!rest.empty()) {
        const auto next = static_cast<unsigned char>(bytes[std::min(depth, bytes.size() - 1)]);
        if (depth < bytes.size() && (!at->may_follow(next) || (at_level.checker == 1 && head_memo_[next] < 0)))
            return false;
        PrefixChecker& scratch = level(0, *at);
        s = scratch.feed(rest);
        at = &scratch;
    }
    return verdict(*at, s, bytes);
}

bool JsonConstraint::digits_continue(std::string_view number, std::string_view digits) {
    if (digits.empty()) return true;
    if (number == "0" || number == "-0") return false;
    return number != "-" || digits[0] != '0' || digits.size() == 1;
}

// Digits keep a number open (no event until it ends): the syntax and then number_fits() on the longer number
// (its length, and at most two exponent digits; digits add no fraction).
bool JsonConstraint::judge_digits(const PrefixChecker& at, std::string_view digits) {
    const std::string_view number = at.number_text();
    if (!digits_continue(number, digits) || number.size() + digits.size() > kMaxNumberBytes) return false;
    if (&at != digits_at_ || level_writes_ != digits_writes_ || &at == &levels_[0]) {
        digits_at_ = &at;
        digits_writes_ = level_writes_;
        digits_integer_ = at.in_integer();
        digits_has_fraction_ = number.find_first_of(".eE") != std::string_view::npos;
        const size_t e = number.find_first_of("eE");
        digits_exponent_ = e == std::string_view::npos ? SIZE_MAX : e;
        digits_exponent_digits_ = 0;
        for (size_t i = e == std::string_view::npos ? number.size() : e + 1; i < number.size(); ++i)
            digits_exponent_digits_ += number[i] >= '0' && number[i] <= '9' ? 1 : 0;
        digits_bounds_ = digits_integer_ ? at.integer_bounds() : std::vector<structured::SchemaChecker::IntegerRange>{};
        for (const auto& r : digits_bounds_) {
            if (std::isinf(r.lo) && r.lo < 0 && std::isinf(r.hi) && r.hi > 0 && r.multiple_of == 0) {
                digits_bounds_.clear();  // one alternative takes any integer
                break;
            }
        }
    }
    if (digits_integer_) {
        if (digits_has_fraction_) return false;
        if (digits_bounds_.empty()) return true;
        char buf[kMaxNumberBytes];
        std::copy(number.begin(), number.end(), buf);
        std::copy(digits.begin(), digits.end(), buf + number.size());
        return integer_reachable(std::string_view(buf, number.size() + digits.size()), digits_bounds_);
    }
    return digits_exponent_ == SIZE_MAX || digits_exponent_digits_ + digits.size() <= 2;
}

}  // namespace slipstream::agent::infer
