// Conformance with llhttp's request cases: extracts every ```http / ```log pair from its Markdown files,
// runs the input through parse_request and ChunkedDecoder as a server would, and compares the verdicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "http/h1/chunked_decoder.h"
#include "http/h1/parser.h"

namespace slipstream::http::h1 {
namespace {

namespace fs = std::filesystem;

// ---- Extraction -------------------------------------------------------------------------------------------

struct MdCase {
    std::string file;  // "request/uri.md"
    std::string name;  // the heading above the case
    std::string type;  // meta "type": request, request-finish, request-lenient-*
    bool skip_body;    // meta "skipBody": the llhttp test callback said "no body follows"
    std::string input;
    std::vector<std::string> log;
};

std::string meta_type(const std::string& line) {
    const std::size_t key = line.find("\"type\"");
    if (key == std::string::npos) return {};
    const std::size_t open = line.find('"', line.find(':', key) + 1);
    const std::size_t close = line.find('"', open + 1);
    return open == std::string::npos || close == std::string::npos ? std::string{}
                                                                   : line.substr(open + 1, close - open - 1);
}

std::vector<MdCase> extract(const fs::path& path, const std::string& label) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    std::vector<MdCase> cases;
    std::string heading;
    std::string type;
    bool skip_body = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (l.starts_with("#")) {
            heading = l.substr(l.find_first_not_of("# "));
        } else if (l.find("<!-- meta=") != std::string::npos) {
            type = meta_type(l);
            skip_body = l.find("\"skipBody\": true") != std::string::npos;
        } else if (l == "```http") {
            MdCase c{label, heading, type, skip_body, {}, {}};
            for (++i; i < lines.size() && lines[i] != "```"; ++i)
                c.input += lines[i] + "\n";
            while (i < lines.size() && lines[i] != "```log")
                ++i;
            for (++i; i < lines.size() && lines[i] != "```"; ++i)
                c.log.push_back(lines[i]);
            cases.push_back(std::move(c));
            type.clear();
            skip_body = false;
        }
    }
    return cases;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
        s.replace(pos, from.size(), to);
    }
}

void append_utf8(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

// Escapes with a numeric argument: "\x" hex digits, or 1-3 octal digits. Node then sends the string as UTF-8.
std::string replace_numeric_escapes(const std::string& s, bool hex) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        std::size_t j = i + 1;
        if (s[i] == '\\' && hex && j < s.size() && s[j] == 'x') {
            std::size_t k = j + 1;
            while (k < s.size() && std::isxdigit(static_cast<unsigned char>(s[k])))
                ++k;
            if (k > j + 1) {
                append_utf8(out, std::strtoul(s.substr(j + 1, k - j - 1).c_str(), nullptr, 16) & 0x7ff);
                i = k - 1;
                continue;
            }
        }
        if (s[i] == '\\' && !hex && j < s.size() && s[j] >= '0' && s[j] <= '7') {
            std::size_t k = j;
            while (k < s.size() && k < j + 3 && s[k] >= '0' && s[k] <= '7')
                ++k;
            append_utf8(out, std::strtoul(s.substr(j, k - j).c_str(), nullptr, 8));
            i = k - 1;
            continue;
        }
        out += s[i];
    }
    return out;
}

// The input rules of llhttp's test/md-test.ts, in its order.
std::string normalize_input(std::string s) {
    if (!s.empty() && s.back() == '\n') s.pop_back();
    replace_all(s, "\\\n", "");  // escaped newlines
    replace_all(s, "\n", "\r\n");
    replace_all(s, "\\r", "\r");
    replace_all(s, "\\n", "\n");
    replace_all(s, "\\t", "\t");
    replace_all(s, "\\f", "\f");
    s = replace_numeric_escapes(s, true);
    return replace_numeric_escapes(s, false);
}

// ---- Verdicts ---------------------------------------------------------------------------------------------

struct Verdict {
    bool error = false;
    int messages = 0;
    bool host_added = false;
    bool fragment_removed = false;
    std::string detail;
};

// llhttp's verdict from the log; pauses on CONNECT/Upgrade (22) and PRI (23) are not errors.
Verdict llhttp_verdict(const MdCase& c) {
    Verdict v;
    for (const std::string& line : c.log) {
        if (line.ends_with("message complete")) ++v.messages;
        const std::size_t err = line.find(" error code=");
        if (err != std::string::npos) {
            const int code = std::atoi(line.c_str() + err + 12);
            if (code != 22 && code != 23) {
                v.error = true;
                v.detail = line.substr(err + 1);
            }
        }
        const std::size_t fin = line.find(" finish=");
        if (fin != std::string::npos && std::atoi(line.c_str() + fin + 8) != 0) {
            v.error = true;
            v.detail = line.substr(fin + 1);
        }
    }
    return v;
}

bool only_line_breaks(std::string_view s) {
    return s.find_first_not_of("\r\n") == std::string_view::npos;
}

// What a server connection does with these bytes arriving at once: parse heads, read bodies, stop at an
// upgrade/CONNECT (the rest is another protocol) or after a non-keep-alive message (then more data is an
// error, as in llhttp). `at_eof`: the peer closed after the input (request-finish cases).
// Two rules we apply and llhttp does not would hide the subject of many cases, so the driver repairs them once
// per message and goes on, and every other rule is still compared: a missing Host (400 here, RFC 9112 §3.2)
// gets "Host: llhttp.test"; a fragment in the target (400 here: no '#' in a request-target) is removed when
// llhttp rejects the case for another reason (so that reason is what we are compared on).
Verdict run_server(std::string input, bool at_eof, bool skip_body, bool remove_fragment) {
    Verdict v;
    std::size_t off = 0;
    bool host_added_here = false;
    bool fragment_removed_here = false;
    for (;;) {
        if (off == input.size() || (only_line_breaks(std::string_view(input).substr(off)) && !at_eof)) return v;
        RequestHead head;
        std::array<Header, 100> headers;
        const ParseStatus st =
            parse_request(std::string_view(input).substr(off), Limits{}, &head, headers.data(), headers.size());
        if (st.is_incomplete()) {
            v.error = at_eof;
            v.detail = "incomplete head at end of input";
            return v;
        }
        if (st.is_error()) {
            if (st.error == errors::kMissingHost && !host_added_here) {
                const std::size_t start = input.find_first_not_of("\r\n", off);
                input.insert(input.find("\r\n", start) + 2, "Host: llhttp.test\r\n");
                host_added_here = v.host_added = true;
                continue;
            }
            const std::size_t start = input.find_first_not_of("\r\n", off);
            const std::size_t line_end = input.find("\r\n", start);
            const std::size_t hash = input.find('#', start);
            if (remove_fragment && st.error == errors::kBadTarget && !fragment_removed_here && hash < line_end) {
                input.erase(hash, input.find(' ', hash) - hash);
                fragment_removed_here = v.fragment_removed = true;
                continue;
            }
            v.error = true;
            v.detail = std::string(st.error.reason);
            return v;
        }
        host_added_here = fragment_removed_here = false;
        off += st.consumed;
        if (skip_body) {
            // The llhttp test tells its parser there is no body (as for a response to HEAD).
        } else if (head.body_kind == BodyKind::kContentLength) {
            if (input.size() - off < head.content_length) {
                v.error = at_eof;
                v.detail = "incomplete body at end of input";
                return v;
            }
            off += head.content_length;
        } else if (head.body_kind == BodyKind::kChunked) {
            ChunkedDecoder dec;
            for (;;) {
                const ChunkedDecoder::Step step = dec.decode(std::string_view(input).substr(off));
                off += step.consumed;
                if (step.event == ChunkedDecoder::Event::kData) continue;
                if (step.event == ChunkedDecoder::Event::kDone) break;
                v.error = step.event == ChunkedDecoder::Event::kError || at_eof;
                v.detail = step.event == ChunkedDecoder::Event::kError ? std::string(step.error.reason)
                                                                       : "incomplete chunked body";
                return v;
            }
        }
        ++v.messages;
        if (head.upgrade || head.method_id == Method::kConnect) return v;
        if (!head.keep_alive && !only_line_breaks(std::string_view(input).substr(off))) {
            v.error = true;
            v.detail = "data after a message that closes the connection";
            return v;
        }
    }
}

// ---- Intentional differences --------------------------------------------------------------------------------

struct Difference {
    std::string_view our_reason;  // the reason we reject with; empty: we accept
    std::string_view why;
};

// Cases where we knowingly answer differently from llhttp ("file: heading"), what we answer, and why.
const std::map<std::string, Difference>& differences() {
    constexpr std::string_view kAnyMethod =
        "any token is a method (RFC 9110 §9.1); the router answers an unknown one with 405 or 501";
    constexpr std::string_view kNotHttp = "ICE and RTSP are not HTTP: only HTTP/1.x is parsed";
    constexpr std::string_view kChars = "not an RFC 3986 character: only unreserved, sub-delims, ':@/?%' are accepted";
    static const std::map<std::string, Difference> table = {
        {"request/invalid.md: HTTP protocol and ANNOUNCE method", {"", kAnyMethod}},
        {"request/invalid.md: Invalid method", {"", kAnyMethod}},
        {"request/method.md: M-SEARCH request",
         {"invalid request target", "asterisk-form is only for OPTIONS (RFC 9112 §3.2.4); SSDP is not HTTP/1.1"}},
        {"request/method.md: SOURCE request with ICE", {"malformed HTTP version", kNotHttp}},
        {"request/method.md: OPTIONS request with RTSP", {"malformed HTTP version", kNotHttp}},
        {"request/method.md: ANNOUNCE request with RTSP", {"malformed HTTP version", kNotHttp}},
        {"request/method.md: PRI request HTTP2",
         {"invalid request target",
          "the HTTP/2 preface: the server recognises it before HTTP/1.1 parsing; as HTTP/1.1 it is '*' for PRI"}},
        {"request/sample.md: No HTTP version", {"malformed request line", "HTTP/0.9 is not supported"}},
        {"request/transfer-encoding.md: POST with `chunked` as last transfer-encoding",
         {"invalid request target", "'#' is refused; without it, deflate before chunked is 501 (not decoded here)"}},
        {"request/transfer-encoding.md: POST with `chunked` as last transfer-encoding (multiple headers)",
         {"invalid request target", "'#' is refused; without it, deflate before chunked is 501 (not decoded here)"}},
        {"request/uri.md: Quotes in URI", {"invalid request target", kChars}},
        {"request/uri.md: Query URL with vertical bar character", {"invalid request target", kChars}},
        {"request/uri.md: Fragment in URI",
         {"invalid request target", "a request-target has no fragment (RFC 9112 §3.2)"}},
        {"request/uri.md: `host:port` and basic auth",
         {"invalid request target", "userinfo in an http URI must be refused (RFC 9110 §4.2.4)"}},
    };
    return table;
}

fs::path data_dir() {
    if (const char* env = std::getenv("SLIPSTREAM_TEST_DATA"); env != nullptr && *env != '\0') return env;
    if (const char* src = std::getenv("SLIPSTREAM_SOURCE_DIR"); src != nullptr && *src != '\0')
        return fs::path(src) / ".." / "shared" / "data";
    return fs::path(SLIPSTREAM_SOURCE_DIR_DEFAULT) / ".." / "shared" / "data";
}

TEST(LlhttpConformanceTest, RequestCases) {
    const fs::path dir = data_dir() / "llhttp-tests" / "test" / "request";
    if (!fs::is_directory(dir))
        GTEST_SKIP() << "llhttp test data not found at " << dir << " (set SLIPSTREAM_TEST_DATA)";

    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".md") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());

    const char* verbose_env = std::getenv("SLIPSTREAM_LLHTTP_VERBOSE");
    const bool verbose = verbose_env != nullptr && *verbose_env == '1';
    int total = 0, agree = 0, repaired = 0, differ = 0;
    std::set<std::string> differing_keys;
    for (const fs::path& file : files) {
        for (const MdCase& c : extract(file, "request/" + file.filename().string())) {
            ASSERT_TRUE(c.type.starts_with("request")) << c.file << ": " << c.name << " type " << c.type;
            ++total;
            const bool lenient = c.type.starts_with("request-lenient");
            Verdict want = llhttp_verdict(c);
            if (lenient) want.error = true;  // a leniency we must not have: the strict answer is a rejection
            const Verdict got =
                run_server(normalize_input(c.input), c.type == "request-finish", c.skip_body, want.error);
            if (verbose) {
                std::printf("%s | %s | llhttp %s %d (%s) | ours %s %d (%s)%s%s\n", c.file.c_str(), c.name.c_str(),
                            want.error ? "rejects" : "accepts", want.messages, want.detail.c_str(),
                            got.error ? "rejects" : "accepts", got.messages, got.detail.c_str(),
                            got.host_added ? " +host" : "", got.fragment_removed ? " -fragment" : "");
            }
            const bool same = got.error == want.error && (got.error || got.messages == want.messages);
            const std::string key = c.file + ": " + c.name;
            const auto diff = differences().find(key);
            if (diff != differences().end()) {
                EXPECT_FALSE(same) << key << " is listed as a difference but now agrees";
                EXPECT_EQ(got.error ? got.detail : std::string(), diff->second.our_reason) << key;
                differing_keys.insert(key);
                ++differ;
                if (verbose) std::printf("    listed difference: %s\n", std::string(diff->second.why).c_str());
                continue;
            }
            EXPECT_TRUE(same) << key << " [" << c.type << "]: llhttp " << (want.error ? "rejects" : "accepts") << " ("
                              << want.messages << " messages; " << want.detail << "), we "
                              << (got.error ? "reject" : "accept") << " (" << got.messages << " messages; "
                              << got.detail << ")";
            if (same) {
                ++agree;
                repaired += got.host_added || got.fragment_removed ? 1 : 0;
            }
        }
    }
    for (const auto& [key, reason] : differences()) {
        EXPECT_TRUE(differing_keys.count(key) == 1) << "no such differing case: " << key;
    }
    std::printf(
        "llhttp request cases: %d total, %d agree (%d of them after adding a Host or removing a fragment), "
        "%d intentional differences (SLIPSTREAM_LLHTTP_VERBOSE=1 lists every case)\n",
        total, agree, repaired, differ);
    EXPECT_GT(total, 150);
}

}  // namespace
}  // namespace slipstream::http::h1
