// PatternNfa: the ECMA-262 subset parsed to a tree, built backwards into a Thompson NFA between a search prefix
// (any characters) and a suffix (any characters after a match), then each reading state's successors precomputed.
#include "agent/structured/pattern_nfa.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "json/utf8.h"

namespace slipstream::agent::structured {
namespace {

using Range = PatternNfa::Range;
using Kind = PatternNfa::Kind;

constexpr std::uint32_t kMaxCodePoint = 0x10FFFF;
constexpr int kMaxRepeat = 1000;  // RE2's limit: the whole-document validator refuses more
constexpr int kMaxNesting = 64;

void set_bit(PatternNfa::States& s, int i) {
    s[static_cast<std::size_t>(i) / 64] |= std::uint64_t{1} << (static_cast<std::size_t>(i) % 64);
}
bool has_bit(const PatternNfa::States& s, int i) {
    return ((s[static_cast<std::size_t>(i) / 64] >> (static_cast<std::size_t>(i) % 64)) & 1) != 0;
}

std::vector<Range> normalize(std::vector<Range> r) {
    std::sort(r.begin(), r.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
    std::vector<Range> out;
    for (const Range& x : r) {
        if (!out.empty() && x.lo <= out.back().hi + 1) {
            out.back().hi = std::max(out.back().hi, x.hi);
        } else {
            out.push_back(x);
        }
    }
    return out;
}

std::vector<Range> complement(const std::vector<Range>& in) {
    const std::vector<Range> r = normalize(in);
    std::vector<Range> out;
    std::uint32_t next = 0;
    for (const Range& x : r) {
        if (x.lo > next) out.push_back({next, x.lo - 1});
        next = x.hi + 1;
    }
    if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
    return out;
}

// ECMA-262's WhiteSpace and LineTerminator (`\s`), as the whole-document validator translates it.
const std::vector<Range>& ecma_space() {
    static const std::vector<Range> r = normalize({{9, 13},
                                                   {32, 32},
                                                   {0xA0, 0xA0},
                                                   {0x1680, 0x1680},
                                                   {0x2000, 0x200A},
                                                   {0x2028, 0x2029},
                                                   {0x202F, 0x202F},
                                                   {0x205F, 0x205F},
                                                   {0x3000, 0x3000},
                                                   {0xFEFF, 0xFEFF}});
    return r;
}

// A syntax tree node.
struct Node {
    enum class T : std::uint8_t { kEmpty, kClass, kCat, kAlt, kRepeat, kStart, kEnd } t = T::kEmpty;
    std::vector<Range> cls;
    std::vector<Node> kids;
    int min = 0, max = 0;  // kRepeat; max -1: unbounded
};

class Parser {
  public:
    explicit Parser(std::string_view p) : p_(p) {}

    bool run(Node& out) {
        if (!alternation(out, 0)) return false;
        if (i_ != p_.size()) return refuse("unbalanced ')'");
        return true;
    }
    const std::string& why() const { return why_; }

  private:
    bool refuse(std::string why) {
        if (why_.empty()) why_ = std::move(why);
        return false;
    }
    bool more() const { return i_ < p_.size(); }
    char peek() const { return p_[i_]; }

    bool alternation(Node& out, int depth) {
        if (depth > kMaxNesting) return refuse("nested too deeply");
        out.t = Node::T::kAlt;
        out.kids.emplace_back();
        if (!sequence(out.kids.back(), depth)) return false;
        while (more() && peek() == '|') {
            ++i_;
            out.kids.emplace_back();
            if (!sequence(out.kids.back(), depth)) return false;
        }
        return true;
    }

    bool sequence(Node& out, int depth) {
        out.t = Node::T::kCat;
        while (more() && peek() != '|' && peek() != ')') {
            Node atom;
            if (!this->atom(atom, depth)) return false;
            if (!quantifier(atom)) return false;
            out.kids.push_back(std::move(atom));
        }
        return true;
    }

    bool quantifier(Node& atom) {
        if (!more()) return true;
        int min = 0, max = 0;
        const char c = peek();
        if (c == '*') {
            min = 0, max = -1, ++i_;
        } else if (c == '+') {
            min = 1, max = -1, ++i_;
        } else if (c == '?') {
            min = 0, max = 1, ++i_;
        } else if (c == '{') {
            ++i_;
            if (!number(min)) return refuse("a '{' that is not a quantifier");
            max = min;
            if (more() && peek() == ',') {
                ++i_;
                max = -1;
                if (more() && peek() != '}' && !number(max)) return refuse("a bad quantifier");
            }
            if (!more() || peek() != '}') return refuse("a bad quantifier");
            ++i_;
            if (max >= 0 && max < min) return refuse("a quantifier out of order");
        } else {
            return true;
        }
        if (atom.t == Node::T::kStart || atom.t == Node::T::kEnd) return refuse("a quantified anchor");
        if (more() && peek() == '?') ++i_;  // lazy: the same strings match
        if (more() && (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{'))
            return refuse("a repeated quantifier");
        Node rep;
        rep.t = Node::T::kRepeat;
        rep.min = min;
        rep.max = max;
        rep.kids.push_back(std::move(atom));
        atom = std::move(rep);
        return true;
    }

    bool number(int& out) {
        const std::size_t from = i_;
        long v = 0;
        while (more() && peek() >= '0' && peek() <= '9') {
            v = v * 10 + (peek() - '0');
            if (v > kMaxRepeat) return refuse("a repetition over 1000");
            ++i_;
        }
        out = static_cast<int>(v);
        return i_ > from;
    }

    bool atom(Node& out, int depth) {
        const char c = peek();
        switch (c) {
            case '^':
                ++i_;
                out.t = Node::T::kStart;
                return true;
            case '$':
                ++i_;
                out.t = Node::T::kEnd;
                return true;
            case '.':
                ++i_;
                out.t = Node::T::kClass;
                out.cls = complement({{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}});
                return true;
            case '(':
                return group(out, depth);
            case '[':
                return char_class(out);
            case '\\': {
                out.t = Node::T::kClass;
                bool single = false;
                std::uint32_t cp = 0;
                return escape(false, out.cls, single, cp);
            }
            case '*':
            case '+':
            case '?':
            case '{':
                return refuse("nothing to repeat");
            case ']':
            case '}':
                return refuse("an unbalanced bracket");
            default: {
                std::uint32_t cp = 0;
                if (!literal(cp)) return false;
                out.t = Node::T::kClass;
                out.cls = {{cp, cp}};
                return true;
            }
        }
    }

    bool group(Node& out, int depth) {
        ++i_;  // '('
        if (p_.substr(i_, 2) == "?:") {
            i_ += 2;
        } else if (p_.substr(i_, 2) == "?<" && p_.substr(i_, 3) != "?<=" && p_.substr(i_, 3) != "?<!") {
            const std::size_t end = p_.find('>', i_);
            if (end == std::string_view::npos || end == i_ + 2) return refuse("a bad group name");
            for (std::size_t k = i_ + 2; k < end; ++k) {
                const char n = p_[k];
                if (!((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9') || n == '_'))
                    return refuse("a bad group name");
            }
            named_ = true;
            i_ = end + 1;
        } else if (more() && peek() == '?') {
            return refuse("lookaround or a group flag");
        }
        if (!alternation(out, depth + 1)) return false;
        if (!more() || peek() != ')') return refuse("an unclosed group");
        ++i_;
        return true;
    }

    bool char_class(Node& out) {
        ++i_;  // '['
        out.t = Node::T::kClass;
        const bool negated = more() && peek() == '^';
        if (negated) ++i_;
        std::vector<Range> items;
        bool first = true;
        while (more() && peek() != ']') {
            std::vector<Range> item;
            bool single = false;
            std::uint32_t lo = 0;
            if (peek() == '-') {  // a literal only first (not starting a range) or last
                const bool last = i_ + 1 < p_.size() && p_[i_ + 1] == ']';
                if (!(first && !(i_ + 1 < p_.size() && p_[i_ + 1] == '-')) && !last)
                    return refuse("a '-' inside a class");
                ++i_;
                items.push_back({'-', '-'});
                first = false;
                continue;
            }
            if (!class_atom(item, single, lo)) return false;
            first = false;
            if (more() && peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
                ++i_;
                std::vector<Range> right;
                bool right_single = false;
                std::uint32_t hi = 0;
                if (peek() == '-' || !class_atom(right, right_single, hi) || !single || !right_single || hi < lo)
                    return refuse("a bad class range");
                if (more() && peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']')
                    return refuse("a '-' after a class range");
                items.push_back({lo, hi});
                continue;
            }
            items.insert(items.end(), item.begin(), item.end());
        }
        if (!more()) return refuse("an unterminated class");
        ++i_;
        out.cls = negated ? complement(items) : normalize(items);
        return true;
    }

    bool class_atom(std::vector<Range>& out, bool& single, std::uint32_t& cp) {
        if (peek() == '\\') return escape(true, out, single, cp);
        if (peek() == '[') {  // a literal there
            ++i_;
            single = true;
            cp = '[';
            out = {{cp, cp}};
            return true;
        }
        if (!literal(cp)) return false;
        single = true;
        out = {{cp, cp}};
        return true;
    }

    // One UTF-8 encoded character of the pattern.
    bool literal(std::uint32_t& cp) {
        if (json::detail::utf8_sequence_length(p_, i_) == 0) return refuse("bad UTF-8");
        std::size_t n = 0;
        cp = json::detail::decode_utf8(p_, i_, &n);
        i_ += n;
        return true;
    }

    static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
    static std::uint32_t hex(char c) { return static_cast<std::uint32_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10); }

    bool hex_digits(std::size_t count, std::uint32_t& out) {
        if (i_ + count > p_.size()) return false;
        out = 0;
        for (std::size_t k = 0; k < count; ++k) {
            if (!is_hex(p_[i_ + k])) return false;
            out = out * 16 + hex(p_[i_ + k]);
        }
        i_ += count;
        return true;
    }

    bool escape(bool in_class, std::vector<Range>& out, bool& single, std::uint32_t& cp) {
        if (i_ + 1 >= p_.size()) return refuse("'\\' at the end");
        const char e = p_[i_ + 1];
        i_ += 2;
        single = false;
        const auto one = [&](std::uint32_t c) {
            single = true;
            cp = c;
            out = {{c, c}};
            return true;
        };
        switch (e) {
            case 'd':
                out = {{'0', '9'}};
                return true;
            case 'D':
                out = complement({{'0', '9'}});
                return true;
            case 'w':
                out = normalize({{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}});
                return true;
            case 'W':
                out = complement({{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}});
                return true;
            case 's':
                out = ecma_space();
                return true;
            case 'S':  // inside a class the validator's RE2 reads its own (ASCII) \S
                out = in_class ? complement({{9, 10}, {12, 13}, {32, 32}}) : complement(ecma_space());
                return true;
            case 't':
                return one('\t');
            case 'n':
                return one('\n');
            case 'r':
                return one('\r');
            case 'f':
                return one('\f');
            case 'v':
                return one('\v');
            case 'b':
                if (in_class) return one('\b');
                return refuse("word boundaries");
            case '0':
                if (more() && peek() >= '0' && peek() <= '9') return refuse("an octal escape");
                return one(0);
            case 'x': {
                std::uint32_t v = 0;
                if (!hex_digits(2, v)) return refuse("a bad \\x escape");
                return one(v);
            }
            case 'c':
                if (!more() || !((peek() | 0x20) >= 'a' && (peek() | 0x20) <= 'z')) return refuse("a bad \\c escape");
                return one(static_cast<std::uint32_t>(p_[i_++] % 32));
            case 'u': {
                std::uint32_t v = 0;
                if (more() && peek() == '{') {
                    const std::size_t end = p_.find('}', i_);
                    if (end == std::string_view::npos || end == i_ + 1 || end - i_ > 7)
                        return refuse("a bad \\u{} escape");
                    ++i_;
                    if (!hex_digits(end - i_, v) || v > kMaxCodePoint) return refuse("a bad \\u{} escape");
                    ++i_;
                } else {
                    if (!hex_digits(4, v)) return refuse("a bad \\u escape");
                    if (v >= 0xD800 && v <= 0xDBFF && p_.substr(i_, 2) == "\\u") {
                        const std::size_t at = i_;
                        i_ += 2;
                        std::uint32_t low = 0;
                        if (hex_digits(4, low) && low >= 0xDC00 && low <= 0xDFFF) {
                            v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            i_ = at;
                        }
                    }
                }
                if (v >= 0xD800 && v <= 0xDFFF) return refuse("a lone surrogate");
                return one(v);
            }
            case '-':
                if (in_class) return one('-');
                return refuse("a bad escape");
            default:
                break;
        }
        if (std::string_view("^$\\.*+?()[]{}|/").find(e) != std::string_view::npos)
            return one(static_cast<unsigned char>(e));
        return refuse(std::string("the escape \\") + e);
    }

    std::string_view p_;
    std::size_t i_ = 0;
    bool named_ = false;
    std::string why_;
};

}  // namespace

// Builds the states backwards (each piece knows what follows it), refusing past kMaxStates.
class PatternBuilder {
  public:
    explicit PatternBuilder(PatternNfa& nfa) : nfa_(nfa) {}
    bool full() const { return full_; }

    int add(Kind kind, int out, int out2 = -1, std::vector<Range> cls = {}) {
        if (nfa_.states_.size() >= PatternNfa::kMaxStates) {
            full_ = true;
            return 0;
        }
        nfa_.states_.push_back(PatternNfa::State{kind, out, out2, std::move(cls)});
        return static_cast<int>(nfa_.states_.size() - 1);
    }

    int build(const Node& n, int next) {
        if (full_) return 0;
        switch (n.t) {
            case Node::T::kEmpty:
                return next;
            case Node::T::kClass:
                return add(Kind::kChar, next, -1, n.cls);
            case Node::T::kStart:
                return add(Kind::kStart, next);
            case Node::T::kEnd:
                return add(Kind::kEnd, next);
            case Node::T::kCat:
                for (auto it = n.kids.rbegin(); it != n.kids.rend() && !full_; ++it)
                    next = build(*it, next);
                return next;
            case Node::T::kAlt: {
                int s = build(n.kids.back(), next);
                for (std::size_t k = n.kids.size() - 1; k-- > 0 && !full_;)
                    s = add(Kind::kSplit, build(n.kids[k], next), s);
                return s;
            }
            case Node::T::kRepeat: {
                int tail = next;
                if (n.max < 0) {
                    const int loop = add(Kind::kSplit, -1, next);
                    const int body = build(n.kids[0], loop);
                    if (full_) return 0;
                    nfa_.states_[static_cast<std::size_t>(loop)].out = body;
                    tail = loop;
                } else {
                    for (int k = n.min; k < n.max && !full_; ++k)
                        tail = add(Kind::kSplit, build(n.kids[0], tail), next);
                }
                for (int k = 0; k < n.min && !full_; ++k)
                    tail = build(n.kids[0], tail);
                return tail;
            }
        }
        return next;
    }

  private:
    PatternNfa& nfa_;
    bool full_ = false;
};

std::shared_ptr<const PatternNfa> PatternNfa::compile(std::string_view ecma, std::string* why) {
    Node tree;
    Parser parser(ecma);
    if (!parser.run(tree)) {
        if (why != nullptr) *why = parser.why();
        return nullptr;
    }
    std::shared_ptr<PatternNfa> nfa(new PatternNfa());
    PatternBuilder b(*nfa);
    const std::vector<Range> any{{0, kMaxCodePoint}};
    // Match <- suffix (any characters after a match) <- the pattern <- prefix (a match may start anywhere).
    const int match = b.add(Kind::kMatch, -1);
    const int suffix = b.add(Kind::kSplit, -1, match);
    const int universal = b.add(Kind::kChar, suffix, -1, any);
    if (!b.full()) nfa->states_[static_cast<std::size_t>(suffix)].out = universal;
    const int body = b.build(tree, suffix);
    const int prefix = b.add(Kind::kSplit, -1, body);
    const int skip = b.add(Kind::kChar, prefix, -1, any);
    if (b.full()) {
        if (why != nullptr) *why = "more than " + std::to_string(kMaxStates) + " states";
        return nullptr;
    }
    nfa->states_[static_cast<std::size_t>(prefix)].out = skip;
    nfa->finish(prefix, universal);
    return nfa;
}

void PatternNfa::closure(int s, bool at_start, bool at_end, States& out, std::vector<char>& seen) const {
    std::vector<int> todo{s};
    while (!todo.empty()) {
        const int i = todo.back();
        todo.pop_back();
        if (i < 0 || seen[static_cast<std::size_t>(i)] != 0) continue;
        seen[static_cast<std::size_t>(i)] = 1;
        const State& st = states_[static_cast<std::size_t>(i)];
        switch (st.kind) {
            case Kind::kChar:
            case Kind::kMatch:
                set_bit(out, i);
                break;
            case Kind::kSplit:
                todo.push_back(st.out2);
                todo.push_back(st.out);
                break;
            case Kind::kStart:
                if (at_start) todo.push_back(st.out);
                break;
            case Kind::kEnd:
                if (at_end) {
                    todo.push_back(st.out);
                } else {
                    set_bit(out, i);  // waits for the end
                }
                break;
        }
    }
}

void PatternNfa::finish(int entry, int universal) {
    universal_ = universal;
    const std::size_t n = states_.size();
    bounds_.push_back(0);
    for (const State& st : states_) {
        for (const Range& r : st.cls) {
            bounds_.push_back(r.lo);
            if (r.hi < kMaxCodePoint) bounds_.push_back(r.hi + 1);
        }
    }
    std::sort(bounds_.begin(), bounds_.end());
    bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
    for (std::uint32_t c = 0; c < 128; ++c) {
        const auto at = std::upper_bound(bounds_.begin(), bounds_.end(), c) - bounds_.begin() - 1;
        ascii_symbol_[c] = static_cast<std::uint8_t>(std::min<std::ptrdiff_t>(at, 255));
    }
    std::vector<char> seen(n);
    std::vector<States> raw(n);
    // Live: the match; an end assertion from which the match follows; a reading state whose successors reach one.
    for (std::size_t i = 0; i < n; ++i) {
        const State& st = states_[i];
        if (st.kind == Kind::kMatch) set_bit(live_, static_cast<int>(i));
        if (st.kind == Kind::kEnd) {
            States at_end{};
            std::fill(seen.begin(), seen.end(), 0);
            closure(st.out, false, true, at_end, seen);
            for (std::size_t j = 0; j < n; ++j)
                if (states_[j].kind == Kind::kMatch && has_bit(at_end, static_cast<int>(j)))
                    set_bit(live_, static_cast<int>(i));
        }
        if (st.kind == Kind::kChar) {
            std::fill(seen.begin(), seen.end(), 0);
            closure(st.out, false, false, raw[i], seen);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (states_[i].kind != Kind::kChar || has_bit(live_, static_cast<int>(i))) continue;
            for (std::size_t w = 0; w < live_.size(); ++w) {
                if ((raw[i][w] & live_[w]) != 0) {
                    set_bit(live_, static_cast<int>(i));
                    changed = true;
                    break;
                }
            }
        }
    }
    after_.assign(n, States{});
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t w = 0; w < live_.size(); ++w)
            after_[i][w] = raw[i][w] & live_[w];
    }
    // Distances: 0 at the match and at a live end assertion; a reading state one more than its nearest successor.
    distance_.assign(n, SIZE_MAX);
    for (std::size_t i = 0; i < n; ++i) {
        if (states_[i].kind != Kind::kChar && has_bit(live_, static_cast<int>(i))) distance_[i] = 0;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = 0; i < n; ++i) {
            if (states_[i].kind != Kind::kChar) continue;
            std::size_t best = SIZE_MAX;
            for (std::size_t j = 0; j < n; ++j)
                if (has_bit(after_[i], static_cast<int>(j)) && distance_[j] != SIZE_MAX)
                    best = std::min(best, distance_[j] + 1);
            if (best < distance_[i]) {
                distance_[i] = best;
                changed = true;
            }
        }
    }
    // Longest: 0 at the match and at a live end assertion, unbounded on (or before) a cycle of live reading states,
    // else one more than its longest successor; a depth-first pass with colors (0 new, 1 open, 2 done).
    longest_.assign(n, 0);
    std::vector<std::uint8_t> color(n, 0);
    const auto longest = [&](auto&& self, std::size_t i) -> std::size_t {
        if (color[i] == 2) return longest_[i];
        if (color[i] == 1) return SIZE_MAX;  // a cycle
        color[i] = 1;
        std::size_t best = 0;
        if (states_[i].kind == Kind::kChar && has_bit(live_, static_cast<int>(i))) {
            for (std::size_t j = 0; j < n && best != SIZE_MAX; ++j) {
                if (!has_bit(after_[i], static_cast<int>(j))) continue;
                const std::size_t l = self(self, j);
                best = l == SIZE_MAX ? SIZE_MAX : std::max(best, l + 1);
            }
        }
        color[i] = 2;
        longest_[i] = best;
        return best;
    };
    for (std::size_t i = 0; i < n; ++i)
        longest(longest, i);
    for (std::size_t d : distance_)
        if (d != SIZE_MAX) max_distance_ = std::max(max_distance_, d);
    for (std::size_t d : longest_)
        if (d != SIZE_MAX) max_distance_ = std::max(max_distance_, d);
    std::fill(seen.begin(), seen.end(), 0);
    closure(entry, true, false, start_, seen);
    if (has_bit(start_, universal_)) {
        start_ = States{};
        set_bit(start_, universal_);
        set_bit(start_, states_[static_cast<std::size_t>(states_[static_cast<std::size_t>(universal_)].out)].out2);
    }
}

PatternNfa::States PatternNfa::step(const States& from, std::uint32_t c) const {
    States out{};
    for (std::size_t w = 0; w < from.size(); ++w) {
        for (std::uint64_t bits = from[w]; bits != 0; bits &= bits - 1) {
            const std::size_t i = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
            const State& st = states_[i];
            if (st.kind != Kind::kChar) continue;
            const auto at = std::upper_bound(st.cls.begin(), st.cls.end(), c,
                                             [](std::uint32_t v, const Range& r) { return v < r.lo; });
            if (at == st.cls.begin() || std::prev(at)->hi < c) continue;
            for (std::size_t k = 0; k < out.size(); ++k)
                out[k] |= after_[i][k];
        }
    }
    if (has_bit(out, universal_)) {  // a match happened: nothing else matters
        const int match = states_[static_cast<std::size_t>(states_[static_cast<std::size_t>(universal_)].out)].out2;
        out = States{};
        set_bit(out, universal_);
        set_bit(out, match);
    }
    return out;
}

std::size_t PatternNfa::min_via(const States& from, std::uint32_t lo, std::uint32_t hi) const {
    std::size_t best = SIZE_MAX;
    for (std::size_t w = 0; w < from.size(); ++w) {
        for (std::uint64_t bits = from[w]; bits != 0; bits &= bits - 1) {
            const std::size_t i = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
            const State& st = states_[i];
            if (st.kind != Kind::kChar || distance_[i] >= best) continue;
            for (const Range& r : st.cls) {
                if (r.lo <= hi && r.hi >= lo) {
                    best = distance_[i];  // 1 + the nearest match after it (SIZE_MAX: none)
                    break;
                }
            }
        }
    }
    return best;
}

bool PatternNfa::accepts(const States& from, bool empty) const {
    std::vector<char> seen(states_.size());
    for (std::size_t i = 0; i < states_.size(); ++i) {
        if (!has_bit(from, static_cast<int>(i))) continue;
        if (states_[i].kind == Kind::kMatch) return true;
        if (states_[i].kind != Kind::kEnd) continue;
        States reached{};
        closure(states_[i].out, empty, true, reached, seen);
        for (std::size_t j = 0; j < states_.size(); ++j)
            if (states_[j].kind == Kind::kMatch && has_bit(reached, static_cast<int>(j))) return true;
    }
    return false;
}

std::size_t PatternNfa::min_to_match(const States& from) const {
    std::size_t best = SIZE_MAX;
    for (std::size_t w = 0; w < from.size(); ++w) {
        for (std::uint64_t bits = from[w]; bits != 0; bits &= bits - 1)
            best = std::min(best, distance_[w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))]);
    }
    return best;
}

std::size_t PatternNfa::max_to_match(const States& from) const {
    std::size_t most = 0;
    for (std::size_t w = 0; w < from.size(); ++w) {
        for (std::uint64_t bits = from[w]; bits != 0; bits &= bits - 1)
            most = std::max(most, longest_[w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))]);
    }
    return most;
}

bool PatternNfa::settled(const States& s) const {
    return has_bit(s, universal_);
}

namespace {

void collect_patterns(const json::Value& v, PatternTable& out) {
    if (v.is_array()) {
        for (const json::Value& item : v.items())
            collect_patterns(item, out);
        return;
    }
    if (!v.is_object()) return;
    if (const json::Value* p = v.find("pattern"); p != nullptr && p->is_string()) {
        if (auto nfa = PatternNfa::compile(p->as_string())) out.emplace_back(&v, std::move(nfa));
    }
    for (const json::Member& m : v.members())
        collect_patterns(m.value, out);
}

}  // namespace

std::shared_ptr<const PatternTable> compile_patterns(const json::Value& schema) {
    auto table = std::make_shared<PatternTable>();
    collect_patterns(schema, *table);
    std::sort(table->begin(), table->end(),
              [](const auto& a, const auto& b) { return std::less<>()(a.first, b.first); });
    return table;
}

const PatternNfa* find_pattern(const PatternTable& table, const json::Value* node) {
    const auto at = std::lower_bound(table.begin(), table.end(), node, [](const auto& entry, const json::Value* n) {
        return std::less<>()(entry.first, n);
    });
    return at != table.end() && at->first == node ? at->second.get() : nullptr;
}

}  // namespace slipstream::agent::structured
