// JsonConstraint::precompute: the masks of the states a schema reaches, computed ahead and pinned in the mask cache,
// by a breadth-first search over single bytes from the current state.
#include <algorithm>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

#include "agent/infer/json_constraint.h"

namespace slipstream::agent::infer {
namespace {

using structured::PrefixChecker;
using structured::StreamState;

bool space_byte(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool number_byte(unsigned char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

// One character of each class inside a free string (whose key leaves its text out): a plain character, the
// closing quote, an escape, and a lead byte of each UTF-8 range (the continuations' bounds differ).
constexpr unsigned char kStringBytes[] = {'a', '"', '\\', 0xC2, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4};
// Inside a UTF-8 sequence: the bounds of each continuation range a lead byte allows.
constexpr unsigned char kContinuationBytes[] = {0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF};

struct Node {
    PrefixChecker at;
    std::string text;
    size_t run = 0;         // whitespace bytes ending text, outside strings
    uint8_t escape = 0;     // 1: just after a backslash in a string; 2: inside \u (not explored further)
    unsigned detours = 0;   // keys begun out of the schema's order on the way here
    bool rare = false;      // inside an escape or a UTF-8 sequence of a bounded string, or after one
    std::string from = {};  // a whitespace byte between tokens after the state of this key: its mask derived
};

// The bytes worth trying after a state: one of each class where many lead to the same key.
struct Next {
    std::vector<unsigned char> bytes;
    int preferred = -1;    // at a key's start: the first byte of the first key the schema lists and allows
    bool bounded = false;  // at a character boundary of a bounded string
};

// False where nothing after the state is explored (inside \u, a string whose text is in the key).
bool next_bytes(const Node& node, const JsonConstraint::Precompute& options,
                std::vector<std::string_view>& continuations, Next& next) {
    const PrefixChecker& at = node.at;
    next = Next{};
    if (node.escape == 2) return false;
    continuations.clear();
    if (at.in_string() && at.listed_continuations(continuations)) {
        const bool key_start = at.in_key() && at.offset() == at.string_start() + 1;
        for (std::string_view c : continuations) {
            // Listed text is written without escapes or non-ASCII bytes (allows() refuses them).
            const auto b = static_cast<unsigned char>(c.empty() ? '"' : c[0]);
            if (b == '\\' || b >= 0x80 || b < 0x20) continue;
            next.bytes.push_back(b);
            if (key_start && next.preferred < 0) {
                PrefixChecker whole = at;
                std::string closed(c);
                closed.push_back('"');
                if (whole.feed(closed) != StreamState::kInvalid) next.preferred = b;
            }
        }
    } else if (at.in_string() && at.at_char_boundary()) {
        const auto room = at.free_string();
        if (!room) return false;  // its text is in the key: computed when reached
        next.bounded = room->bounded;
        next.bytes.assign(std::begin(kStringBytes), std::end(kStringBytes));
    } else if (at.in_string()) {  // inside an escape or a UTF-8 sequence
        for (unsigned b = 0; b < 256; ++b)
            if (b < 0x80 || b > 0xBF) next.bytes.push_back(static_cast<unsigned char>(b));
        next.bytes.insert(next.bytes.end(), std::begin(kContinuationBytes), std::end(kContinuationBytes));
    } else {
        // A number's key keeps only its shape unless its value is checked or it has an exponent: then each digit
        // makes a state of its own, explored no further than number_bytes (no exponent).
        const std::string_view number = at.number_text();
        const bool number_done =
            !number.empty() && (number.find_first_of("eE") != std::string_view::npos ||
                                (at.number_value_checked() && number.size() >= options.number_bytes));
        for (unsigned b = 0; b < 256; ++b) {
            const auto c = static_cast<unsigned char>(b);
            if (space_byte(c) && node.run >= options.layout_run) continue;
            if (number_done && number_byte(c)) continue;
            if (at.offset() == 0 && c == 0xEF) continue;  // a byte-order mark is refused
            next.bytes.push_back(c);
        }
    }
    return true;
}

}  // namespace

namespace {

size_t leading_spaces(std::string_view b) {
    size_t n = 0;
    while (n < b.size() && space_byte(static_cast<unsigned char>(b[n])))
        ++n;
    return n;
}

}  // namespace

// The tokens that begin with more than `room` whitespace bytes (room >= 1: found under the ranges of two
// whitespace bytes, not among every token that begins with a space).
std::vector<int32_t> JsonConstraint::long_space_tokens(size_t room) const {
    std::vector<int32_t> out;
    constexpr unsigned char kSpaces[] = {' ', '\t', '\n', '\r'};
    for (const unsigned char a : kSpaces) {
        for (const unsigned char b : kSpaces) {
            const auto [lo, hi] = tokens_->second_byte_range(a, b);
            for (uint32_t i = lo; i < hi; ++i)
                if (leading_spaces(tokens_->at(i)) > room) out.push_back(tokens_->order()[i]);
        }
    }
    return out;
}

// The mask after one more whitespace byte between tokens (the checker as it was, the run one longer): the mask
// before it less the tokens whose leading whitespace the longer run no longer leaves room for (plausible()).
// `long_spaces`: every token that may be one of them (long_space_tokens()).
std::shared_ptr<const CachedMask> JsonConstraint::with_longer_run(const CachedMask& before, size_t run,
                                                                  const std::vector<int32_t>& long_spaces) const {
    auto out = std::make_shared<CachedMask>(before);
    const size_t room = kMaxLayoutWhitespace - std::min(run, kMaxLayoutWhitespace);
    const auto too_long = [&](int32_t t) { return leading_spaces(tokens_->bytes(t)) > room; };
    std::erase_if(out->finals, too_long);
    if (out->sparse) {
        std::erase_if(out->allowed, too_long);
        return out;
    }
    for (const int32_t t : long_spaces) {
        const auto i = static_cast<size_t>(t);
        if (i < out->width && too_long(t)) out->bits[i / 64] &= ~(uint64_t{1} << (i % 64));
    }
    return out;
}

JsonConstraint::PrecomputeStats JsonConstraint::precompute(const Precompute& options) {
    PrecomputeStats stats;
    const size_t width = options.width != 0 ? options.width : static_cast<size_t>(tokens_->size());
    // This constraint's own state, restored at the end.
    const PrefixChecker saved = committed_;
    const std::string saved_text = text_;
    const size_t saved_run = layout_run_;

    // One queue per number of detours (every state reached in the schema's order first), and last the rare
    // states: those of a bounded string, where each length has its own, inside an escape or a UTF-8 sequence.
    std::vector<std::deque<Node>> queues(options.max_detours + 2);
    std::unordered_set<std::string> seen;
    std::string key;
    const auto key_with_width = [&](const PrefixChecker& at, size_t run) {
        key.clear();
        key_of(at, run, key);
        key.append(reinterpret_cast<const char*>(&width), sizeof width);
    };
    const auto reach = [&](Node&& n) {
        if (n.at.state() != StreamState::kPartial || n.detours > options.max_detours) return;
        key_with_width(n.at, n.run);
        if (!seen.insert(key).second) return;
        queues[n.rare ? queues.size() - 1 : n.detours].push_back(std::move(n));
    };
    reach(Node{committed_, text_, layout_run_, 0, 0});

    std::vector<uint8_t> mask(width);
    // Derived masks (after a whitespace byte) reach runs of at most layout_run bytes.
    const size_t runs_to = std::clamp<size_t>(options.layout_run, 1, kMaxLayoutWhitespace - 1);
    std::vector<int32_t> long_spaces;
    std::vector<std::string_view> continuations;
    Next next;
    pinning_ = true;
    pin_full_ = false;
    for (unsigned d = 0; d < queues.size(); ++d) {
        while (!queues[d].empty()) {
            if (stats.masks >= options.max_masks || pin_full_) break;
            Node node = std::move(queues[d].front());
            queues[d].pop_front();
            // Its mask, unless the cache has it.
            committed_ = node.at;
            text_ = node.text;
            layout_run_ = node.run;
            finals_.clear();
            complete_ = -1;
            if (cached(width) != nullptr) {
                ++stats.known;
            } else {
                const auto before = node.from.empty() || node.run > runs_to ? nullptr : cache_->find(node.from);
                if (before != nullptr) {
                    if (long_spaces.empty()) long_spaces = long_space_tokens(kMaxLayoutWhitespace - runs_to);
                    store(key_, with_longer_run(*before, node.run, long_spaces));
                    ++stats.derived;
                } else {
                    compute_and_store(mask);
                }
                ++stats.masks;
                if (options.computed != nullptr) options.computed->push_back(node.text);
            }
            const std::string own_key = key_;
            // The bytes that lead on: one of each class where many lead to the same key.
            if (!next_bytes(node, options, continuations, next)) continue;
            const PrefixChecker& at = node.at;
            char byte[1];
            for (const unsigned char b : next.bytes) {
                if (!at.may_follow(b)) continue;
                Node n{at, node.text, 0, 0, node.detours};
                byte[0] = static_cast<char>(b);
                if (n.at.feed(std::string_view(byte, 1)) == StreamState::kInvalid) continue;
                n.text.push_back(byte[0]);
                if (!at.in_string()) n.run = space_byte(b) ? node.run + 1 : 0;
                if (at.in_string() && !n.at.in_string()) n.run = 0;
                if (at.in_string() && n.at.in_string()) {
                    n.escape = node.escape == 0 && b == '\\' ? 1 : node.escape == 1 && b == 'u' ? 2 : 0;
                }
                if (next.preferred >= 0 && b != next.preferred) ++n.detours;
                n.rare = node.rare || (next.bounded && (b == '\\' || b >= 0x80));
                if (!at.in_string() && at.in_layout() && space_byte(b)) {  // the same checker, a longer run?
                    std::string a, c;
                    key_of(at, 0, a);
                    key_of(n.at, 0, c);
                    if (a == c) n.from = own_key;
                }
                reach(std::move(n));
            }
        }
    }
    pinning_ = false;
    for (const auto& q : queues)
        stats.left += q.size();
    stats.full = pin_full_;
    committed_ = saved;
    text_ = saved_text;
    layout_run_ = saved_run;
    finals_.clear();
    complete_ = -1;
    return stats;
}

}  // namespace slipstream::agent::infer
