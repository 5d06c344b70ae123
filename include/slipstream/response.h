// Response: what a handler answers; plain data, built with small helpers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace slipstream {

/// A body sent straight from a file: the engine opens `path` when the response is written (on the
/// connection's I/O thread), sends `length` bytes from `offset` (sendfile(2) on plain TCP; read in bounded
/// pieces for TLS and HTTP/2) and closes the file when the body is sent or the connection ends. A missing
/// file or a region past its end is answered 500 (check first if a 404 is wanted). File bodies are never
/// compressed. A file that shrinks while it is sent cuts the connection (the body cannot be completed).
struct FileBody {
    /// `length` value meaning "up to the end of the file" (measured when the file is opened).
    static constexpr std::uint64_t kToEnd = UINT64_MAX;
    std::string path;
    std::uint64_t offset = 0;
    std::uint64_t length = kToEnd;
};

/// A Response's Content-Type: an owned string, or a constant known when the program is compiled (static
/// storage, checked at compile time) that costs no allocation and no check per response. Reads and writes
/// like a std::string for the common uses: assign any string, empty(), compare, convert to string_view.
class ContentType {
  public:
    ContentType() = default;
    ContentType(std::string value) : owned_(std::move(value)) {}               // NOLINT: implicit, as a std::string
    ContentType(std::string_view value) : owned_(value) {}                     // NOLINT
    ContentType(const char* value) : owned_(value != nullptr ? value : "") {}  // NOLINT

    /// A compile-time constant field value (no control byte but HTAB, no leading or trailing whitespace),
    /// checked when the program is compiled: a malformed one does not compile. Views static storage.
    class Constant {
      public:
        consteval explicit Constant(std::string_view value) : value_(value) {
            if (!valid(value)) throw "ContentType::Constant: not a valid field value";
        }
        constexpr std::string_view value() const { return value_; }

      private:
        static constexpr bool valid(std::string_view v) {
            if (v.empty()) return false;
            if (v.front() == ' ' || v.front() == '\t' || v.back() == ' ' || v.back() == '\t') return false;
            for (char ch : v) {
                const auto c = static_cast<unsigned char>(ch);
                if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
            }
            return true;
        }
        std::string_view value_;
    };
    /// A constant content type: nothing is allocated or copied, and the encoder skips checking it.
    static consteval Constant constant(std::string_view value) { return Constant(value); }
    ContentType(Constant value) : constant_(value.value()) {}  // NOLINT: implicit

    ContentType& operator=(Constant value) {
        owned_.clear();
        constant_ = value.value();
        return *this;
    }
    ContentType& operator=(std::string value) {
        owned_ = std::move(value);
        constant_ = {};
        return *this;
    }
    ContentType& operator=(std::string_view value) {
        owned_.assign(value);
        constant_ = {};
        return *this;
    }
    ContentType& operator=(const char* value) {  // nullptr (as from `= {}`) clears
        owned_.assign(value != nullptr ? value : "");
        constant_ = {};
        return *this;
    }

    std::string_view view() const { return constant_.data() != nullptr ? constant_ : std::string_view(owned_); }
    operator std::string_view() const { return view(); }  // NOLINT: implicit, as a std::string
    bool empty() const { return view().empty(); }
    std::size_t size() const { return view().size(); }
    const char* data() const { return view().data(); }
    /// True for a constant(): already known to be a valid field value.
    bool is_constant() const { return constant_.data() != nullptr; }

    friend bool operator==(const ContentType& a, std::string_view b) { return a.view() == b; }

  private:
    std::string owned_;
    std::string_view constant_;  // data() non-null for a constant
};

/// A complete response. The server adds Date, Server, Content-Length and Connection; a handler
/// sets the rest. Header names and values with CR, LF or NUL are refused (answered as 500).
struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    /// Content-Type of the body; empty means none is sent.
    ContentType content_type;
    /// When set, the body is this file region and `body` and `static_body` are ignored (see FileBody).
    std::optional<FileBody> file_body;
    /// When set (a non-null view, possibly empty), the body is these bytes, sent without an owned copy:
    /// nothing is allocated or copied into `body`. The bytes must outlive the response, so they belong to
    /// static storage (a string literal, a constant that lives as long as the program). `body` is then
    /// ignored. Set by static_json() and static_text(); read through body_bytes().
    std::string_view static_body;

    Response() = default;
    explicit Response(int status_code) : status(status_code) {}

    /// `body` must already be JSON text: sent as application/json.
    static Response json(std::string body, int status_code = 200) {
        Response r(status_code);
        r.body = std::move(body);
        r.content_type = ContentType::constant("application/json");
        return r;
    }
    /// A text/plain; charset=utf-8 response.
    static Response text(std::string body, int status_code = 200) {
        Response r(status_code);
        r.body = std::move(body);
        r.content_type = ContentType::constant("text/plain; charset=utf-8");
        return r;
    }
    /// As json(), for JSON text of static storage duration (a string literal): the body is `body` itself,
    /// never copied or allocated per response (see static_body). The bytes must outlive the response.
    static Response static_json(std::string_view body, int status_code = 200) {
        Response r(status_code);
        r.static_body = body.data() != nullptr ? body : std::string_view("");
        r.content_type = ContentType::constant("application/json");
        return r;
    }
    /// As text(), for text of static storage duration (see static_json()).
    static Response static_text(std::string_view body, int status_code = 200) {
        Response r(status_code);
        r.static_body = body.data() != nullptr ? body : std::string_view("");
        r.content_type = ContentType::constant("text/plain; charset=utf-8");
        return r;
    }
    /// A file region as the body (see FileBody); `content_type` empty means none is sent.
    static Response file(std::string path, std::uint64_t offset = 0, std::uint64_t length = FileBody::kToEnd,
                         std::string content_type = {}, int status_code = 200) {
        Response r(status_code);
        r.file_body = FileBody{std::move(path), offset, length};
        r.content_type = std::move(content_type);
        return r;
    }
    /// The body's bytes: `static_body` when set, else `body` (a file body is not among them).
    std::string_view body_bytes() const { return static_body.data() != nullptr ? static_body : std::string_view(body); }
    /// Copies a static body into `body` and clears `static_body`, for code that edits or takes `body`.
    void own_body() {
        if (static_body.data() == nullptr) return;
        body.assign(static_body);
        static_body = {};
    }
    Response& with_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
};

}  // namespace slipstream
