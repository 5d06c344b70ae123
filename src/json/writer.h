// Writer: appends compact JSON text to a std::string, byte-identical to Python's json.dumps as FastAPI uses it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "json/value.h"

namespace slipstream::json {

struct WriteOptions {
    /// Escape every non-ASCII character as \uXXXX (surrogate pairs above U+FFFF), like Python's
    /// ensure_ascii=True. Off by default: FastAPI's JSONResponse writes UTF-8 as is (ensure_ascii=False).
    bool ensure_ascii = false;
};

/// Writes JSON with separators "," and ":" (no spaces), as Starlette's JSONResponse does. Commas are placed
/// automatically; the caller keeps the calls well nested (begin/end pairs, key() before each object member).
/// Strings escape '"', '\\', and control characters as json.dumps does (\n \r \t \b \f, else \u00xx);
/// other bytes are copied, so strings must be valid UTF-8 (ensure_ascii writes U+FFFD for invalid bytes).
/// Doubles use format_double() (Python's repr). Not thread-safe; one Writer per output.
class Writer {
  public:
    explicit Writer(std::string& out, WriteOptions options = {}) : out_(out), options_(options) {}

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    /// An object member's name; the member's value follows.
    void key(std::string_view name);

    void string(std::string_view s);
    void int64(std::int64_t i);
    void uint64(std::uint64_t u);
    /// Refuses NaN and infinities (writes nothing): out_of_range "Out of range float values are not JSON
    /// compliant", Python's message, as FastAPI's JSONResponse refuses them.
    [[nodiscard]] base::Status number(double d);
    void boolean(bool b);
    void null();
    /// Appends already-serialized JSON (one complete value) as the next value.
    void raw(std::string_view json);

    /// Writes a whole tree. Fails only on a non-finite double, leaving a partial output. Recursive: depth is
    /// that of the tree (parse() bounds it by ParseOptions::max_depth).
    [[nodiscard]] base::Status write_value(const Value& value);

    std::string& output() { return out_; }

  private:
    void separate() {
        if (need_comma_) out_.push_back(',');
    }
    void open(char c) {
        if (need_comma_) {
            const char two[2] = {',', c};
            out_.append(two, 2);
        } else {
            out_.push_back(c);
        }
        need_comma_ = false;
    }
    void close(char c) {
        out_.push_back(c);
        need_comma_ = true;
    }
    void write_string(std::string_view s, char suffix);
    void write_string_ascii(std::string_view s);

    std::string& out_;
    WriteOptions options_;
    bool need_comma_ = false;
};

}  // namespace slipstream::json
