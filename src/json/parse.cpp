// json::parse: simdjson's DOM parser validates and builds its tape; one linear pass turns the tape into Values.
#include "json/parse.h"

#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "json/member_dedupe.h"
#include "json/strict_parser.h"
#include "json/utf8.h"

namespace slipstream::json {

namespace {

static_assert(kParsePadding == simdjson::SIMDJSON_PADDING);

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Parser buffers kept per thread after a document of at most this many bytes (simdjson needs ~15 bytes of
// buffers per input byte); a larger document's buffers are released after its tree is built.
constexpr std::size_t kRetainCapacity = 256 * 1024;
// Smallest capacity allocated; capacities grow in powers of two, so bodies of slowly growing sizes do not
// reallocate every time (simdjson alone would grow to each new exact size).
constexpr std::size_t kMinCapacity = 4096;

struct Frame {
    Value* items;          // arrays
    Member* members;       // objects
    std::string_view key;  // objects: the key of the member being read
    std::uint32_t n;       // slots filled
    bool object;
};

// Per-thread state: simdjson's parser reuses its buffers (structural index, tape, strings) and we reuse the
// padded input copy between documents, which saves about 1 us of allocation per small body. parse() does not
// call itself, so one per thread is enough. simdjson's own depth limit stays at its default (1024): deeper
// documents, allowed only when ParseOptions::max_depth is raised above that, take the strict parser.
struct ThreadState {
    simdjson::dom::parser parser;
    std::unique_ptr<char[]> copy;  // padded input copy for parse()
    std::size_t copy_capacity = 0;
    std::vector<Frame> frames;

    // Makes room for a document of `size` bytes; false when memory is short (the strict parser then runs).
    bool reserve(std::size_t size, bool need_copy) {
        if (size > parser.capacity()) {
            if (parser.allocate(std::bit_ceil(std::max(size, kMinCapacity))) != simdjson::SUCCESS) return false;
        }
        if (need_copy && size > copy_capacity) {
            copy_capacity = std::bit_ceil(std::max(size, kMinCapacity));
            copy = std::make_unique<char[]>(copy_capacity + simdjson::SIMDJSON_PADDING);  // zeroed: defined padding
        }
        return true;
    }

    void release_if_large() {
        if (parser.capacity() > kRetainCapacity) parser = simdjson::dom::parser();
        if (copy_capacity > kRetainCapacity) {
            copy.reset();
            copy_capacity = 0;
        }
    }
};

ThreadState& thread_state() {
    thread_local ThreadState state;
    return state;
}

// memcpy for the short strings and keys of request bodies, inline: two overlapping loads and stores up to
// 16 bytes (never past either end), a call above.
inline void copy_bytes(char* dst, const char* src, std::size_t n) {
    if (n > 16) {
        std::memcpy(dst, src, n);
    } else if (n >= 8) {
        std::uint64_t a, b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        std::uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            dst[i] = src[i];
    }
}

// Reads one simdjson tape (format: simdjson doc/tape.md) into Values. Returns false when the document breaks a
// limit or (with kReject) repeats a key; the strict parser then finds and reports the first such place.
class TapeReader {
  public:
    TapeReader(const simdjson::dom::parser& parser, std::vector<Frame>& frames, base::Arena& arena,
               const ParseOptions& options)
        : tape_(parser.doc.tape.get()),
          strings_(parser.doc.string_buf.get()),
          frames_(frames),
          arena_(arena),
          options_(options) {}

    // Budget (json_bench, Release, shared 2-core VM): ~160 ns of parse()'s ~310 ns for the 80-byte echo body
    // (simdjson: ~150 ns), ~100 us of ~175 us for the 64 KiB list (simdjson: ~75 us). In instructions
    // (callgrind, compare_bench's 211-byte body): parse() ~4,650, simdjson ~2,650 of them.
    bool read(Value* root) {
        // One frame per open container, indexed by depth: simdjson refuses documents deeper than its
        // DEFAULT_MAX_DEPTH and open() those deeper than max_depth, so the stack never grows while reading.
        const std::size_t max_frames = std::min<std::size_t>(options_.max_depth, simdjson::DEFAULT_MAX_DEPTH) + 1;
        if (frames_.size() < max_frames) frames_.resize(max_frames);
        Frame* const bottom = frames_.data();
        Frame* top = nullptr;                                                          // the innermost open container
        const std::size_t end = (tape_[0] & simdjson::internal::JSON_VALUE_MASK) - 1;  // the closing root word
        std::size_t i = 1;
        while (i < end) {
            std::uint64_t word = tape_[i];
            char type = static_cast<char>(word >> 56);
            Value v;
            if (type == '}' || type == ']') {
                if (!close(*top, &v)) return false;
                top = top == bottom ? nullptr : top - 1;
                ++i;
            } else {
                if (top != nullptr && top->object) {  // a member: its key, then its value
                    if (!read_string(word & simdjson::internal::JSON_VALUE_MASK, &top->key)) return false;
                    word = tape_[++i];
                    type = static_cast<char>(word >> 56);
                }
                switch (type) {
                    case '"': {
                        std::string_view s;
                        if (!read_string(word & simdjson::internal::JSON_VALUE_MASK, &s)) return false;
                        v = Value::string(s);
                        i += 1;
                        break;
                    }
                    case 'l':
                        v = Value::integer(static_cast<std::int64_t>(tape_[i + 1]));
                        i += 2;
                        break;
                    case 'u':
                        v = Value::unsigned_integer(tape_[i + 1]);
                        i += 2;
                        break;
                    case 'd': {
                        double d;
                        std::memcpy(&d, &tape_[i + 1], sizeof d);
                        v = Value::number(d);
                        i += 2;
                        break;
                    }
                    case 't':
                        v = Value::boolean(true);
                        i += 1;
                        break;
                    case 'f':
                        v = Value::boolean(false);
                        i += 1;
                        break;
                    case 'n':
                        i += 1;
                        break;
                    default: {  // '[' or '{'
                        Frame* next = top == nullptr ? bottom : top + 1;
                        if (!open(next, static_cast<std::size_t>(next - bottom), type == '{', i, word)) return false;
                        top = next;
                        ++i;
                        continue;
                    }
                }
            }
            if (top == nullptr) {
                *root = v;
            } else if (top->object) {
                new (&top->members[top->n++]) Member{top->key, v};
            } else {
                new (&top->items[top->n++]) Value(v);
            }
        }
        return true;
    }

  private:
    bool read_string(std::uint64_t offset, std::string_view* out) {
        std::uint32_t len;
        std::memcpy(&len, strings_ + offset, sizeof len);
        if (len > options_.max_string_bytes) return false;
        if (len == 0) {
            *out = {};
            return true;
        }
        char* copy = static_cast<char*>(arena_.allocate(len, 1));
        copy_bytes(copy, reinterpret_cast<const char*>(strings_ + offset + sizeof len), len);
        *out = {copy, len};
        return true;
    }

    // Children of the container at tape index i (pairs for an object), counted when the tape's 24-bit count
    // saturates.
    std::size_t count_children(std::size_t i, std::uint64_t payload, bool object) const {
        const std::size_t close = static_cast<std::uint32_t>(payload) - 1;
        std::size_t n = 0;
        for (std::size_t j = i + 1; j < close; ++n) {
            const char t = static_cast<char>(tape_[j] >> 56);
            if (t == '[' || t == '{') {
                j = static_cast<std::uint32_t>(tape_[j]);
            } else {
                j += (t == 'l' || t == 'u' || t == 'd') ? 2 : 1;
            }
        }
        return object ? n / 2 : n;
    }

    // Fills *f for the container at tape index i, `depth` containers deep.
    bool open(Frame* f, std::size_t depth, bool object, std::size_t i, std::uint64_t word) {
        if (depth >= options_.max_depth) return false;
        const std::uint64_t payload = word & simdjson::internal::JSON_VALUE_MASK;
        std::size_t n = (payload >> 32) & simdjson::internal::JSON_COUNT_MASK;
        if (n == simdjson::internal::JSON_COUNT_MASK) n = count_children(i, payload, object);
        if (n > options_.max_members) return false;
        *f = Frame{nullptr, nullptr, {}, 0, object};
        if (n != 0 && object) f->members = static_cast<Member*>(arena_.allocate(n * sizeof(Member), alignof(Member)));
        if (n != 0 && !object) f->items = static_cast<Value*>(arena_.allocate(n * sizeof(Value), alignof(Value)));
        return true;
    }

    bool close(const Frame& f, Value* v) {
        if (!f.object) {
            *v = Value::array(f.items, f.n);
            return true;
        }
        std::uint32_t n = f.n;
        if (n > 1) {
            const detail::DedupeResult d = detail::dedupe_members(f.members, n, options_.duplicate_keys);
            if (d.duplicate != detail::DedupeResult::kNone) return false;
            n = d.size;
        }
        *v = Value::object(f.members, n);
        return true;
    }

    const std::uint64_t* tape_;
    const std::uint8_t* strings_;
    std::vector<Frame>& frames_;
    base::Arena& arena_;
    const ParseOptions& options_;
};

base::Result<const Value*> parse_impl(std::string_view text, bool padded, base::Arena& arena,
                                      const ParseOptions& options, ParseError* error) {
    // A leading UTF-8 BOM is skipped, as Python's json.loads(bytes) does (FastAPI parses request bytes).
    std::size_t skipped = 0;
    if (text.starts_with(kBom)) {
        text.remove_prefix(kBom.size());
        skipped = kBom.size();
    }
    ThreadState& state = thread_state();
    Value root;
    bool ok = false;
    if (state.reserve(text.size(), !padded)) {
        // parse() copies the input into the reused padded buffer: a few ns for 80 bytes, ~6 us for 64 KiB;
        // BM_Parse* vs BM_Parse*Padded differ by less than the noise of the shared bench machine.
        const char* input = text.data();
        if (!padded) {
            if (!text.empty()) std::memcpy(state.copy.get(), text.data(), text.size());
            input = state.copy.get();
        }
        auto parsed = state.parser.parse(input, text.size(), /*realloc_if_needed=*/false);
        if (parsed.error() == simdjson::SUCCESS) {
            ok = TapeReader(state.parser, state.frames, arena, options).read(&root);
        }
        state.release_if_large();
    }
    if (ok) return static_cast<const Value*>(arena.make<Value>(root));

    // simdjson refused the document (or a limit was hit): the strict parser decides, reads integers beyond
    // uint64, and locates the error. The rare path, so its speed matters less.
    ParseError local;
    base::Result<const Value*> result = detail::parse_strict(text, arena, options, &local);
    if (result.is_ok()) return result;
    local.char_offset = detail::count_code_points(text.substr(0, local.offset));
    local.offset += skipped;
    if (error != nullptr) *error = local;
    return detail::parse_error_status(local);
}

}  // namespace

base::Result<const Value*> parse(std::string_view text, base::Arena& arena, const ParseOptions& options,
                                 ParseError* error) {
    return parse_impl(text, /*padded=*/false, arena, options, error);
}

base::Result<const Value*> parse_padded(std::string_view text, base::Arena& arena, const ParseOptions& options,
                                        ParseError* error) {
    return parse_impl(text, /*padded=*/true, arena, options, error);
}

}  // namespace slipstream::json
