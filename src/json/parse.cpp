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
    std::string_view key;  // objects: the key whose value comes next
    std::uint32_t n;       // slots filled
    bool object;
    bool want_key;
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
    // (simdjson: ~150 ns), ~100 us of ~175 us for the 64 KiB list (simdjson: ~75 us).
    bool read(Value* root) {
        frames_.clear();
        const std::size_t end = (tape_[0] & simdjson::internal::JSON_VALUE_MASK) - 1;  // the closing root word
        std::size_t i = 1;
        while (i < end) {
            const std::uint64_t word = tape_[i];
            const char type = static_cast<char>(word >> 56);
            const std::uint64_t payload = word & simdjson::internal::JSON_VALUE_MASK;
            Value v;
            std::size_t step = 1;  // tape words of this entry (numbers take two)
            switch (type) {
                case '"':
                    if (!read_string(payload, &v)) return false;
                    if (!frames_.empty() && frames_.back().want_key) {
                        frames_.back().key = v.as_string();
                        frames_.back().want_key = false;
                        ++i;
                        continue;
                    }
                    break;
                case 'l':
                    v = Value::integer(static_cast<std::int64_t>(tape_[i + 1]));
                    step = 2;
                    break;
                case 'u':
                    v = Value::unsigned_integer(tape_[i + 1]);
                    step = 2;
                    break;
                case 'd': {
                    double d;
                    std::memcpy(&d, &tape_[i + 1], sizeof d);
                    v = Value::number(d);
                    step = 2;
                    break;
                }
                case 't':
                    v = Value::boolean(true);
                    break;
                case 'f':
                    v = Value::boolean(false);
                    break;
                case 'n':
                    break;
                case '[':
                case '{':
                    if (!open(type == '{', i, payload)) return false;
                    ++i;
                    continue;
                default:  // ']' or '}'
                    if (!close(&v)) return false;
                    break;
            }
            i += step;
            place(v, root);
        }
        return true;
    }

  private:
    bool read_string(std::uint64_t offset, Value* v) {
        std::uint32_t len;
        std::memcpy(&len, strings_ + offset, sizeof len);
        if (len > options_.max_string_bytes) return false;
        *v = Value::string(arena_.copy({reinterpret_cast<const char*>(strings_ + offset + sizeof len), len}));
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

    bool open(bool object, std::size_t i, std::uint64_t payload) {
        if (frames_.size() >= options_.max_depth) return false;
        std::size_t n = (payload >> 32) & simdjson::internal::JSON_COUNT_MASK;
        if (n == simdjson::internal::JSON_COUNT_MASK) n = count_children(i, payload, object);
        if (n > options_.max_members) return false;
        Frame f{nullptr, nullptr, {}, 0, object, object};
        if (n != 0 && object) f.members = static_cast<Member*>(arena_.allocate(n * sizeof(Member), alignof(Member)));
        if (n != 0 && !object) f.items = static_cast<Value*>(arena_.allocate(n * sizeof(Value), alignof(Value)));
        frames_.push_back(f);
        return true;
    }

    bool close(Value* v) {
        const Frame f = frames_.back();
        frames_.pop_back();
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

    void place(Value v, Value* root) {
        if (frames_.empty()) {
            *root = v;
            return;
        }
        Frame& f = frames_.back();
        if (f.object) {
            new (&f.members[f.n++]) Member{f.key, v};
            f.want_key = true;
        } else {
            new (&f.items[f.n++]) Value(v);
        }
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
