// MultipartParser: parts, splits at every offset, grammar errors and limits (table-driven).
#include "http/multipart/multipart_parser.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace slipstream::http::multipart {
namespace {

struct Part {
    std::string name;
    std::optional<std::string> filename;
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string data;
    bool ended = false;
    bool operator==(const Part&) const = default;
};

class Recorder : public PartSink {
  public:
    base::Status on_part_begin(const PartHead& head) override {
        parts.push_back(Part{head.name, head.filename, head.content_type, head.headers, "", false});
        return base::Status::ok();
    }
    base::Status on_part_data(std::string_view data) override {
        if (data.empty()) return base::Status::internal("empty data event");
        parts.back().data.append(data);
        return base::Status::ok();
    }
    base::Status on_part_end() override {
        parts.back().ended = true;
        return base::Status::ok();
    }
    std::vector<Part> parts;
};

struct Outcome {
    std::vector<Part> parts;
    FormError error;
};

// Feeds `body` split at `cuts` (ascending offsets), then finishes.
Outcome parse(std::string_view body, const std::vector<std::size_t>& cuts, const FormLimits& limits = {},
              std::string_view boundary = "XyZ") {
    Recorder rec;
    MultipartParser parser(boundary, limits, rec);
    std::size_t at = 0;
    bool failed = false;
    for (std::size_t cut : cuts) {
        if (!parser.feed(body.substr(at, cut - at)).is_ok()) failed = true;
        at = cut;
    }
    if (!failed && !parser.feed(body.substr(at)).is_ok()) failed = true;
    if (!failed) parser.finish().ignore_error();
    return {rec.parts, parser.error()};
}

Part field(std::string name, std::string data) {
    return Part{name, std::nullopt, "", {{"content-disposition", "form-data; name=\"" + name + "\""}}, data, true};
}

const std::string kSimple =
    "--XyZ\r\n"
    "Content-Disposition: form-data; name=\"a\"\r\n"
    "\r\n"
    "1\r\n"
    "--XyZ\r\n"
    "Content-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n"
    "Content-Type: text/plain\r\n"
    "\r\n"
    "line one\r\nline two\r\n\r\n"
    "--XyZ--\r\n";

TEST(MultipartParser, ParsesFieldsAndFiles) {
    Outcome r = parse(kSimple, {});
    ASSERT_TRUE(r.error.ok()) << r.error.message;
    ASSERT_EQ(r.parts.size(), 2u);
    EXPECT_EQ(r.parts[0], field("a", "1"));
    EXPECT_EQ(r.parts[1].name, "f");
    EXPECT_EQ(r.parts[1].filename, "x.txt");
    EXPECT_EQ(r.parts[1].content_type, "text/plain");
    EXPECT_EQ(r.parts[1].data, "line one\r\nline two\r\n");
    EXPECT_EQ(r.parts[1].headers.size(), 2u);
    EXPECT_TRUE(r.parts[1].ended);
}

TEST(MultipartParser, SameResultForEverySplit) {
    const Outcome whole = parse(kSimple, {});
    for (std::size_t a = 0; a <= kSimple.size(); ++a) {
        Outcome one = parse(kSimple, {a});
        ASSERT_EQ(one.parts, whole.parts) << "split at " << a;
        ASSERT_TRUE(one.error.ok()) << "split at " << a << ": " << one.error.message;
    }
    std::vector<std::size_t> bytes;
    for (std::size_t i = 1; i < kSimple.size(); ++i)
        bytes.push_back(i);
    EXPECT_EQ(parse(kSimple, bytes).parts, whole.parts);
}

struct Case {
    const char* label;
    std::string body;
    std::vector<Part> parts;
    FormErrorKind error = FormErrorKind::kNone;
    std::string message = {};
};

const std::string kA = "Content-Disposition: form-data; name=\"a\"\r\n\r\n";

std::vector<Case> grammar_cases() {
    return {
        {"preamble and epilogue",
         "junk\r\nmore\r\n--XyZ\r\n" + kA + "v\r\n--XyZ--\r\nepilogue --XyZ\r\n",
         {field("a", "v")}},
        {"delimiter look-alikes stay data",
         "--XyZ\r\n" + kA + "\r\n--Xy\r\n-\r\r\n--XyZa\r\n--XyZ--",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: expected CRLF after a boundary."},
        {"partial delimiters inside data",
         "--XyZ\r\n" + kA + "\r\n--Xy\r\n-\r\rend\r\n--XyZ--",
         {field("a", "\r\n--Xy\r\n-\r\rend")}},
        {"empty value", "--XyZ\r\n" + kA + "\r\n--XyZ--", {field("a", "")}},
        {"padding after the delimiter",
         "--XyZ \t\r\n" + kA + "v\r\n--XyZ  \r\n" + kA + "w\r\n--XyZ--",
         {field("a", "v"), field("a", "w")}},
        {"no parts", "--XyZ--\r\n", {}},
        {"quoted, escaped and extended filenames",
         "--XyZ\r\nContent-Disposition: form-data; name=\"q\\\"n\"; filename=\"a;b.txt\"; "
         "filename*=UTF-8''%E2%82%AC.txt\r\n\r\nz\r\n--XyZ--",
         {Part{"q\"n",
               "\xE2\x82\xAC.txt",
               "",
               {{"content-disposition",
                 "form-data; name=\"q\\\"n\"; filename=\"a;b.txt\"; filename*=UTF-8''%E2%82%AC.txt"}},
               "z",
               true}}},
        {"windows path",
         "--XyZ\r\nContent-Disposition: form-data; name=f; filename=\"C:\\dir\\a.txt\"\r\n\r\nz\r\n--XyZ--",
         {Part{"f",
               "a.txt",
               "",
               {{"content-disposition", "form-data; name=f; filename=\"C:\\dir\\a.txt\""}},
               "z",
               true}}},
        {"empty filename is a file",
         "--XyZ\r\nContent-Disposition: form-data; name=f; filename=\"\"\r\n\r\n\r\n--XyZ--",
         {Part{"f", "", "", {{"content-disposition", "form-data; name=f; filename=\"\""}}, "", true}}},
        {"folded header",
         "--XyZ\r\nContent-Disposition: form-data;\r\n name=\"a\"\r\n\r\nv\r\n--XyZ--",
         {Part{"a", std::nullopt, "", {{"content-disposition", "form-data; name=\"a\""}}, "v", true}}},
        {"truncated",
         "--XyZ\r\n" + kA + "v\r\n--Xy",
         {Part{"a", std::nullopt, "", {{"content-disposition", "form-data; name=\"a\""}}, "v", false}},
         FormErrorKind::kTruncated,
         "Invalid multipart data: the body ended before the closing boundary."},
        {"empty body",
         "",
         {},
         FormErrorKind::kTruncated,
         "Invalid multipart data: the body ended before the closing boundary."},
        {"missing name",
         "--XyZ\r\nContent-Type: text/plain\r\n\r\nv\r\n--XyZ--",
         {},
         FormErrorKind::kMissingName,
         "The Content-Disposition header field \"name\" must be provided."},
        {"no headers at all",
         "--XyZ\r\n\r\nv\r\n--XyZ--",
         {},
         FormErrorKind::kMissingName,
         "The Content-Disposition header field \"name\" must be provided."},
        {"header without colon",
         "--XyZ\r\nContent-Disposition form-data\r\n\r\nv\r\n--XyZ--",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: a part header line without ':'."},
        {"bad header name",
         "--XyZ\r\nContent Disposition: x\r\n\r\nv\r\n--XyZ--",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: an invalid character in a part header name."},
        {"bare LF in a header",
         "--XyZ\r\nA: b\nc\r\n\r\nv\r\n--XyZ--",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: bare CR or LF in a part header."},
        {"junk after the delimiter",
         "--XyZ?\r\n",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: expected CRLF after a boundary."},
        {"CR without LF", "--XyZ\rX", {}, FormErrorKind::kMalformed, "Invalid multipart data: expected LF after CR."},
        {"single dash close",
         "--XyZ-x",
         {},
         FormErrorKind::kMalformed,
         "Invalid multipart data: expected '--' to close."},
    };
}

TEST(MultipartParser, Grammar) {
    for (const Case& c : grammar_cases()) {
        for (std::size_t split : {std::size_t{0}, c.body.size() / 2, c.body.size() > 0 ? c.body.size() - 1 : 0}) {
            Outcome r = parse(c.body, {split});
            EXPECT_EQ(r.error.kind, c.error) << c.label << " split " << split << ": " << r.error.message;
            EXPECT_EQ(r.error.message, c.message) << c.label;
            if (c.error == FormErrorKind::kNone || c.error == FormErrorKind::kTruncated) {
                EXPECT_EQ(r.parts, c.parts) << c.label << " split " << split;
            }
        }
    }
}

std::string body_of(int fields, int files, std::size_t field_size, std::size_t file_size) {
    std::string b;
    for (int i = 0; i < fields; ++i)
        b += "--XyZ\r\n" + kA + std::string(field_size, 'v') + "\r\n";
    for (int i = 0; i < files; ++i)
        b += "--XyZ\r\nContent-Disposition: form-data; name=f; filename=x\r\n\r\n" + std::string(file_size, 'z') +
             "\r\n";
    return b + "--XyZ--\r\n";
}

TEST(MultipartParser, Limits) {
    FormLimits limits;
    limits.max_fields = 2;
    limits.max_files = 1;
    limits.max_field_size = 2048;
    limits.max_file_size = 10;
    limits.max_part_header_bytes = 60;
    limits.max_part_headers = 2;
    struct LimitCase {
        std::string body;
        FormErrorKind error;
        std::string message;
    };
    const std::string long_header =
        "--XyZ\r\nContent-Disposition: form-data; name=\"" + std::string(19, 'n') + "\"\r\n\r\nv\r\n--XyZ--";
    const LimitCase cases[] = {
        {body_of(2, 1, 2048, 10), FormErrorKind::kNone, ""},
        {body_of(3, 0, 1, 0), FormErrorKind::kTooManyFields, "Too many fields. Maximum number of fields is 2."},
        {body_of(0, 2, 0, 1), FormErrorKind::kTooManyFiles, "Too many files. Maximum number of files is 1."},
        {body_of(1, 0, 2049, 0), FormErrorKind::kFieldTooLarge, "Part exceeded maximum size of 2KB."},
        {body_of(0, 1, 0, 11), FormErrorKind::kFileTooLarge, "File exceeded maximum size of 10 bytes."},
        {"--XyZ\r\nContent-Disposition: form-data; name=\"" + std::string(40, 'n') + "\"\r\n\r\nv\r\n--XyZ--",
         FormErrorKind::kHeaderTooLarge, "Part headers exceeded maximum size of 60 bytes."},
        {"--XyZ\r\n" + std::string(100, 'h'), FormErrorKind::kHeaderTooLarge,
         "Part headers exceeded maximum size of 60 bytes."},
        {long_header, FormErrorKind::kNone, ""},
        {"--XyZ\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\nv\r\n--XyZ--", FormErrorKind::kTooManyHeaders,
         "Too many part headers. Maximum number of headers is 2."},
    };
    for (const LimitCase& c : cases) {
        for (std::size_t split : {std::size_t{0}, std::size_t{9}, c.body.size() / 2}) {
            Outcome r = parse(c.body, {split}, limits);
            EXPECT_EQ(r.error.kind, c.error) << c.body.substr(0, 80) << " split " << split;
            EXPECT_EQ(r.error.message, c.message);
        }
    }
}

TEST(MultipartParser, ErrorsAreStickyAndCodesMatchKinds) {
    Recorder rec;
    FormLimits limits;
    limits.max_fields = 0;
    MultipartParser parser("XyZ", limits, rec);
    base::Status st = parser.feed("--XyZ\r\n" + kA + "v");
    EXPECT_TRUE(st.is_out_of_range());
    EXPECT_TRUE(parser.feed("more").is_out_of_range());
    EXPECT_TRUE(parser.finish().is_out_of_range());
    EXPECT_EQ(form_error_name(parser.error().kind), "too_many_fields");

    MultipartParser bad("XyZ", {}, rec);
    EXPECT_TRUE(bad.feed("--XyZ?").is_invalid_argument());
}

TEST(MultipartParser, UnusableBoundaryFailsFirstFeed) {
    Recorder rec;
    const std::string too_long(201, 'b');  // outlives the loop: a temporary in the list would dangle
    for (std::string_view b : {std::string_view(""), std::string_view("a\r\nb"), std::string_view(too_long)}) {
        MultipartParser parser(b, {}, rec);
        EXPECT_TRUE(parser.feed("--").is_invalid_argument());
        EXPECT_EQ(parser.error().kind, FormErrorKind::kMissingBoundary);
        EXPECT_EQ(parser.error().message, "Missing boundary in multipart.");
    }
}

class Refuser : public Recorder {
  public:
    base::Status on_part_data(std::string_view) override { return base::Status::io_error("disk full"); }
};

TEST(MultipartParser, SinkErrorsStopTheParser) {
    Refuser rec;
    MultipartParser parser("XyZ", {}, rec);
    base::Status st = parser.feed(kSimple);
    EXPECT_TRUE(st.is_io_error());
    EXPECT_EQ(st.message(), "disk full");
    EXPECT_EQ(parser.error().kind, FormErrorKind::kSinkFailed);
}

TEST(BoundaryFromContentType, Table) {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {"multipart/form-data; boundary=abc", "abc"},
        {"Multipart/Form-Data;boundary=\"a b;c\"", "a b;c"},
        {"multipart/form-data; charset=utf-8; BOUNDARY=----WebKit12", "----WebKit12"},
        {"multipart/form-data", ""},
        {"multipart/form-data; boundary=", ""},
        {"multipart/mixed; boundary=abc", ""},
        {"application/x-www-form-urlencoded", ""},
    };
    for (auto [ct, boundary] : cases)
        EXPECT_EQ(boundary_from_content_type(ct), boundary) << ct;
}

}  // namespace
}  // namespace slipstream::http::multipart
