// Tests for json::parse: values, Python-compatible errors, limits, duplicate keys, both parse paths.
#include "json/parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "json/strict_parser.h"
#include "json/writer.h"

namespace slipstream::json {
namespace {

struct ErrorCase {
    std::string_view input;
    std::string_view message;
    std::size_t offset;
    std::size_t char_offset;
};

// Expected message and position computed with CPython 3.11's json.loads (JSONDecodeError .msg and .pos);
// `offset` is the byte offset of .pos in the UTF-8 input.
const ErrorCase kPythonErrors[] = {
    {"", "Expecting value", 0, 0},
    {"   ", "Expecting value", 3, 3},
    {"[", "Expecting value", 1, 1},
    {"[1,]", "Expecting value", 3, 3},
    {"{", "Expecting property name enclosed in double quotes", 1, 1},
    {"{\"a\"", "Expecting ':' delimiter", 4, 4},
    {"{\"a\" 1}", "Expecting ':' delimiter", 5, 5},
    {"{\"a\":}", "Expecting value", 5, 5},
    {"{\"a\":1,}", "Expecting property name enclosed in double quotes", 7, 7},
    {"{\"a\":1 \"b\":2}", "Expecting ',' delimiter", 7, 7},
    {"[1 2]", "Expecting ',' delimiter", 3, 3},
    {"\"abc", "Unterminated string starting at", 0, 0},
    {"\"a\\x\"", "Invalid \\escape", 2, 2},
    {"\"\\u12\"", "Invalid \\uXXXX escape", 2, 2},
    {"\"\\u12g4\"", "Invalid \\uXXXX escape", 2, 2},
    {"\"\\u", "Invalid \\uXXXX escape", 2, 2},
    {"\"\\u123", "Invalid \\uXXXX escape", 2, 2},
    {"\"\\u1234", "Invalid \\uXXXX escape", 2, 2},
    {"\"a\x01"
     "\"",
     "Invalid control character at", 2, 2},
    {"1 2", "Extra data", 2, 2},
    {"01", "Extra data", 1, 1},
    {"-", "Expecting value", 0, 0},
    {"-a", "Expecting value", 0, 0},
    {"1.", "Extra data", 1, 1},
    {"[1.]", "Expecting ',' delimiter", 2, 2},
    {"[1e]", "Expecting ',' delimiter", 2, 2},
    {"1e5x", "Extra data", 3, 3},
    {"nul", "Expecting value", 0, 0},
    {"tru", "Expecting value", 0, 0},
    {"fals", "Expecting value", 0, 0},
    {"\"\\", "Unterminated string starting at", 0, 0},
    {"{\"a\":1}}", "Extra data", 7, 7},
    {"[1]]", "Extra data", 3, 3},
    {"[-]", "Expecting value", 1, 1},
    {"{1:2}", "Expecting property name enclosed in double quotes", 1, 1},
    {"[1,,2]", "Expecting value", 3, 3},
    {"{,}", "Expecting property name enclosed in double quotes", 1, 1},
    {"[,1]", "Expecting value", 1, 1},
    {" \"\\uD800\\u12\"", "Invalid \\uXXXX escape", 9, 9},
    {"['a']", "Expecting value", 1, 1},
    {"{\"a\":1,\"b\"}", "Expecting ':' delimiter", 10, 10},
    {"[true false]", "Expecting ',' delimiter", 6, 6},
    {"[1}", "Expecting ',' delimiter", 2, 2},
    {"{\"a\":1]", "Expecting ',' delimiter", 6, 6},
    {"\x09"
     "\x0a"
     " [\x0d"
     "\x0a"
     " 1 , {\"x\" : [ ] } ]  x",
     "Extra data", 27, 27},
    {"\"\\t\\n\x7f"
     "\"x",
     "Extra data", 7, 7},
    {"1e", "Extra data", 1, 1},
    {"1e+", "Extra data", 1, 1},
    {"1E-2.", "Extra data", 4, 4},
    {"-0x1", "Extra data", 2, 2},
    {".5", "Expecting value", 0, 0},
    {"+1", "Expecting value", 0, 0},
    {"\"\xc3"
     "\xa9"
     "\" x",
     "Extra data", 5, 4},
    {"[\"\xc3"
     "\xa9"
     "\", x]",
     "Expecting value", 7, 6},
    {"{\"\xe2"
     "\x82"
     "\xac"
     "\":1,}",
     "Expecting property name enclosed in double quotes", 9, 7},
};

TEST(ParseTest, SyntaxErrorsMatchPython) {
    for (const ErrorCase& c : kPythonErrors) {
        SCOPED_TRACE(std::string(c.input));
        base::Arena arena;
        ParseError error;
        base::Result<const Value*> r = parse(c.input, arena, {}, &error);
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_EQ(error.kind, ParseErrorKind::kSyntax);
        EXPECT_EQ(error.message, c.message);
        EXPECT_EQ(error.offset, c.offset);
        EXPECT_EQ(error.char_offset, c.char_offset);
        EXPECT_EQ(r.status().message(), std::string(c.message) + " at byte " + std::to_string(c.offset));
    }
}

struct OwnErrorCase {
    std::string_view input;
    ParseErrorKind kind;
    std::string_view message;
    std::size_t offset;
};

// Where we differ from Python on purpose (see README): NaN/Infinity literals, lone surrogates, doubles beyond
// the double range and bytes that are not UTF-8 are refused.
const OwnErrorCase kOwnErrors[] = {
    {"[NaN]", ParseErrorKind::kSyntax, "Expecting value", 1},
    {"[Infinity]", ParseErrorKind::kSyntax, "Expecting value", 1},
    {"-Infinity", ParseErrorKind::kSyntax, "Expecting value", 0},
    {"[\"\\ud800\"]", ParseErrorKind::kSyntax, "Lone surrogate in \\uXXXX escape", 3},
    {"[\"\\udc00\\ud800\"]", ParseErrorKind::kSyntax, "Lone surrogate in \\uXXXX escape", 3},
    {"[\"\\ud800\\u0041\"]", ParseErrorKind::kSyntax, "Lone surrogate in \\uXXXX escape", 3},
    {"[\"\\ud800\"", ParseErrorKind::kSyntax, "Lone surrogate in \\uXXXX escape", 3},
    {"[\"\\ud800\\u12x4\"]", ParseErrorKind::kSyntax, "Invalid \\uXXXX escape", 9},
    {"[1e400]", ParseErrorKind::kSyntax, "Number out of range", 1},
    {"-1.5E+309", ParseErrorKind::kSyntax, "Number out of range", 0},
    {"[0.0000001e316]", ParseErrorKind::kSyntax, "Number out of range", 1},
    {"[\"\xff\"]", ParseErrorKind::kEncoding, "Invalid UTF-8", 2},
    {"[1,]\xc3", ParseErrorKind::kEncoding, "Invalid UTF-8", 4},                    // like Python: decoding comes first
    {"\"\xed\xa0\x80\"", ParseErrorKind::kEncoding, "Invalid UTF-8", 1},            // an encoded surrogate
    {"\"\xc0\xaf\"", ParseErrorKind::kEncoding, "Invalid UTF-8", 1},                // overlong '/'
    {"\"\xf4\x90\x80\x80\"", ParseErrorKind::kEncoding, "Invalid UTF-8", 1},        // above U+10FFFF
    {"\xef\xbb\xbf\xef\xbb\xbf[]", ParseErrorKind::kSyntax, "Expecting value", 3},  // one BOM only
};

TEST(ParseTest, OwnErrors) {
    for (const OwnErrorCase& c : kOwnErrors) {
        SCOPED_TRACE(std::string(c.input));
        base::Arena arena;
        ParseError error;
        base::Result<const Value*> r = parse(c.input, arena, {}, &error);
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_EQ(error.kind, c.kind);
        EXPECT_EQ(error.message, c.message);
        EXPECT_EQ(error.offset, c.offset);
    }
}

TEST(ParseTest, ByteOrderMarkIsSkippedAndNotCountedInCharOffset) {
    base::Arena arena;
    base::Result<const Value*> ok = parse("\xef\xbb\xbf{\"a\":1}", arena);
    ASSERT_TRUE(ok.is_ok());
    EXPECT_EQ((*ok)->find("a")->as_int(), 1);

    ParseError error;
    base::Result<const Value*> bad = parse("\xef\xbb\xbf[\"\xc3\xa9\",]", arena, {}, &error);
    ASSERT_FALSE(bad.is_ok());
    EXPECT_EQ(error.message, "Expecting value");
    EXPECT_EQ(error.offset, 9u);
    EXPECT_EQ(error.char_offset, 5u);
}

struct NumberCase {
    std::string_view input;
    Type type;
    std::int64_t i;
    std::uint64_t u;
    double d;
    std::string_view decimal = {};  // kBigInt text
};

const NumberCase kNumbers[] = {
    {"0", Type::kInt, 0, 0, 0},
    {"-0", Type::kInt, 0, 0, 0},
    {"42", Type::kInt, 42, 0, 0},
    {"-42", Type::kInt, -42, 0, 0},
    {"9223372036854775807", Type::kInt, INT64_MAX, 0, 0},
    {"-9223372036854775808", Type::kInt, INT64_MIN, 0, 0},
    {"9223372036854775808", Type::kUint, 0, 9223372036854775808ULL, 0},
    {"18446744073709551615", Type::kUint, 0, UINT64_MAX, 0},
    // Integers beyond uint64 (and below int64) stay exact (kBigInt), as Python's int; as_double() is the nearest.
    {"18446744073709551616", Type::kBigInt, 0, 0, 18446744073709551616.0, "18446744073709551616"},
    {"-9223372036854775809", Type::kBigInt, 0, 0, -9223372036854775808.0, "-9223372036854775809"},
    {"123456789012345678901234567890", Type::kBigInt, 0, 0, 1.2345678901234568e+29, "123456789012345678901234567890"},
    {"-123456789012345678901234567890", Type::kBigInt, 0, 0, -1.2345678901234568e+29,
     "-123456789012345678901234567890"},
    {"123456789012345678901234567890.0", Type::kDouble, 0, 0, 1.2345678901234568e+29},
    {"1e30", Type::kDouble, 0, 0, 1e30},
    {"1.5", Type::kDouble, 0, 0, 1.5},
    {"1.0", Type::kDouble, 0, 0, 1.0},
    {"1e2", Type::kDouble, 0, 0, 100.0},
    {"1E+2", Type::kDouble, 0, 0, 100.0},
    {"-2.5e-3", Type::kDouble, 0, 0, -0.0025},
    {"0.1", Type::kDouble, 0, 0, 0.1},
    {"1.7976931348623157e308", Type::kDouble, 0, 0, 1.7976931348623157e308},
    {"4.9e-324", Type::kDouble, 0, 0, 4.9e-324},
    {"1e-400", Type::kDouble, 0, 0, 0.0},  // underflow reads as zero, like Python
};

TEST(ParseTest, NumbersAtRootAndInsideArray) {
    for (const NumberCase& c : kNumbers) {
        for (bool wrapped : {false, true}) {
            const std::string text = wrapped ? "[" + std::string(c.input) + "]" : std::string(c.input);
            SCOPED_TRACE(text);
            base::Arena arena;
            base::Result<const Value*> r = parse(text, arena);
            ASSERT_TRUE(r.is_ok()) << r.status().to_string();
            const Value& v = wrapped ? (*r)->items()[0] : **r;
            ASSERT_EQ(v.type(), c.type);
            if (c.type == Type::kInt) {
                EXPECT_EQ(v.as_int(), c.i);
            } else if (c.type == Type::kUint) {
                EXPECT_EQ(v.as_uint(), c.u);
            } else if (c.type == Type::kBigInt) {
                EXPECT_EQ(v.as_decimal(), c.decimal);
                EXPECT_EQ(v.as_double(), c.d);
                EXPECT_TRUE(v.is_integer());
            } else {
                EXPECT_EQ(v.as_double(), c.d);
            }
        }
    }
}

TEST(ParseTest, NegativeZeroKeepsItsSign) {
    base::Arena arena;
    for (std::string_view text : {"-0.0", "-1e-400", "[-0.0]"}) {
        base::Result<const Value*> r = parse(text, arena);
        ASSERT_TRUE(r.is_ok());
        const Value& v = (*r)->is_array() ? (*r)->items()[0] : **r;
        ASSERT_EQ(v.type(), Type::kDouble);
        EXPECT_TRUE(std::signbit(v.as_double())) << text;
    }
}

struct StringCase {
    std::string_view input;
    std::string_view expected;
};

const StringCase kStrings[] = {
    {R"("")", ""},
    {R"("plain")", "plain"},
    {R"("\"\\\/\b\f\n\r\t")", "\"\\/\b\f\n\r\t"},
    {R"("\u00e9\u20AC")", "\xc3\xa9\xe2\x82\xac"},
    {R"("\ud834\udd1e")", "\xf0\x9d\x84\x9e"},
    {R"("a\u0000b")", std::string_view("a\0b", 3)},
    {"\"\xf0\x9f\x98\x80 raw\"", "\xf0\x9f\x98\x80 raw"},
};

TEST(ParseTest, StringsAreUnescaped) {
    for (const StringCase& c : kStrings) {
        SCOPED_TRACE(std::string(c.input));
        base::Arena arena;
        base::Result<const Value*> r = parse(c.input, arena);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        EXPECT_EQ((*r)->as_string(), c.expected);
    }
}

TEST(ParseTest, TreeOutlivesInputAndKeepsMemberOrder) {
    base::Arena arena;
    const Value* root = nullptr;
    {
        std::string text = R"({"z":1,"a":[true,null,"s"],"m":{"k":-1.5}})";
        base::Result<const Value*> r = parse(text, arena);
        ASSERT_TRUE(r.is_ok());
        root = *r;
        text.assign(text.size(), 'x');
    }
    ASSERT_EQ(root->size(), 3u);
    EXPECT_EQ(root->members()[0].key, "z");
    EXPECT_EQ(root->members()[1].key, "a");
    EXPECT_EQ(root->members()[2].key, "m");
    const Value* a = root->find("a");
    ASSERT_EQ(a->size(), 3u);
    EXPECT_TRUE(a->items()[0].as_bool());
    EXPECT_TRUE(a->items()[1].is_null());
    EXPECT_EQ(a->items()[2].as_string(), "s");
    EXPECT_EQ(root->find("m")->find("k")->as_double(), -1.5);
}

TEST(ParseTest, DeepNestingIsRefusedWithoutRecursion) {
    const std::string opens(100'000, '[');
    base::Arena arena;
    ParseError error;
    base::Result<const Value*> r = parse(opens, arena, {}, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_out_of_range());
    EXPECT_EQ(error.kind, ParseErrorKind::kLimit);
    EXPECT_EQ(error.message, "Nesting deeper than 64");
    EXPECT_EQ(error.offset, 64u);

    // With the limit lifted, 100k levels still parse (or fail) without recursion.
    ParseOptions unlimited;
    unlimited.max_depth = 1'000'000;
    r = parse(opens, arena, unlimited, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(error.message, "Expecting value");
    EXPECT_EQ(error.offset, 100'000u);

    const std::string nested = opens + std::string(100'000, ']');
    r = parse(nested, arena, unlimited, &error);
    ASSERT_TRUE(r.is_ok());
    std::size_t depth = 0;
    for (const Value* v = *r; v->is_array() && v->size() == 1; v = &v->items()[0])
        ++depth;
    EXPECT_EQ(depth, 99'999u);
}

TEST(ParseTest, DepthLimitIsExact) {
    ParseOptions options;
    options.max_depth = 3;
    base::Arena arena;
    EXPECT_TRUE(parse("[{\"a\":[1]}]", arena, options).is_ok());
    ParseError error;
    EXPECT_FALSE(parse("[{\"a\":[[1]]}]", arena, options, &error).is_ok());
    EXPECT_EQ(error.message, "Nesting deeper than 3");
    EXPECT_EQ(error.offset, 7u);
    options.max_depth = 0;
    EXPECT_TRUE(parse("\"scalar\"", arena, options).is_ok());
    EXPECT_FALSE(parse("[]", arena, options, &error).is_ok());
    EXPECT_EQ(error.offset, 0u);
}

struct LimitCase {
    std::string_view input;
    ParseOptions options;
    std::string_view message;
    std::size_t offset;
};

ParseOptions limits(std::size_t strings, std::size_t members) {
    ParseOptions o;
    o.max_string_bytes = strings;
    o.max_members = members;
    return o;
}

const LimitCase kLimits[] = {
    {R"(["abcd","abcde"])", limits(4, 10), "String longer than 4 bytes", 8},
    {R"({"abcde":1})", limits(4, 10), "String longer than 4 bytes", 1},
    {R"(["\u00e9\u00e9\u00e9"])", limits(5, 10), "String longer than 5 bytes", 1},  // 6 bytes once unescaped
    {"[1,2,3,4]", limits(10, 3), "Array has more than 3 elements", 7},
    {R"({"a":1,"b":2,"c":3,"d":4})", limits(10, 3), "Object has more than 3 members", 19},
    {R"([[1,2],[1,2,3,4]])", limits(10, 3), "Array has more than 3 elements", 14},
};

TEST(ParseTest, LimitsAreEnforcedWithOffsets) {
    for (const LimitCase& c : kLimits) {
        SCOPED_TRACE(std::string(c.input));
        base::Arena arena;
        ParseError error;
        base::Result<const Value*> r = parse(c.input, arena, c.options, &error);
        ASSERT_FALSE(r.is_ok());
        EXPECT_TRUE(r.status().is_out_of_range());
        EXPECT_EQ(error.kind, ParseErrorKind::kLimit);
        EXPECT_EQ(error.message, c.message);
        EXPECT_EQ(error.offset, c.offset);
    }
    base::Arena arena;
    EXPECT_TRUE(parse(R"(["abcd",[1,2,3],{"a":1,"b":2,"c":3}])", arena, limits(4, 3)).is_ok());
}

std::string write(const Value& v) {
    std::string out;
    Writer w(out);
    EXPECT_TRUE(w.write_value(v).is_ok());
    return out;
}

TEST(ParseTest, DuplicateKeysKeepLastAtFirstPosition) {
    base::Arena arena;
    base::Result<const Value*> r = parse(R"({"a":1,"b":2,"a":3,"c":{"x":1,"x":[2]},"b":4})", arena);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ((*r)->size(), 3u);
    EXPECT_EQ(write(**r), R"({"a":3,"b":4,"c":{"x":[2]}})");

    // Above 16 members the hashed path runs.
    std::string big = "{";
    for (int i = 0; i < 40; ++i)
        big += "\"k" + std::to_string(i % 20) + "\":" + std::to_string(i) + ",";
    big += "\"last\":true}";
    r = parse(big, arena);
    ASSERT_TRUE(r.is_ok());
    ASSERT_EQ((*r)->size(), 21u);
    EXPECT_EQ((*r)->members()[0].key, "k0");
    EXPECT_EQ((*r)->members()[0].value.as_int(), 20);
    EXPECT_EQ((*r)->members()[19].value.as_int(), 39);
    EXPECT_EQ((*r)->members()[20].key, "last");
}

TEST(ParseTest, DuplicateKeysRejected) {
    ParseOptions options;
    options.duplicate_keys = DuplicateKeys::kReject;
    base::Arena arena;
    ParseError error;
    base::Result<const Value*> r = parse(R"({"a":1,"b":{"c":1},"a":3})", arena, options, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_TRUE(r.status().is_invalid_argument());
    EXPECT_EQ(error.kind, ParseErrorKind::kDuplicateKey);
    EXPECT_EQ(error.message, "Duplicate key \"a\"");
    EXPECT_EQ(error.offset, 19u);

    std::string big = "{";
    for (int i = 0; i < 30; ++i)
        big += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    const std::size_t dup = big.size();
    big += "\"k7\":0}";
    r = parse(big, arena, options, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(error.message, "Duplicate key \"k7\"");
    EXPECT_EQ(error.offset, dup);

    const std::string long_key(60, 'k');
    r = parse("{\"" + long_key + "\":1,\"" + long_key + "\":2}", arena, options, &error);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(error.message, "Duplicate key \"" + std::string(40, 'k') + "...\"");

    EXPECT_TRUE(parse(R"({"a":1,"b":{"a":2}})", arena, options).is_ok());
}

// Documents both paths accept: parse() (simdjson) and the strict parser must build equal trees that
// write the same bytes.
const std::string_view kDocuments[] = {
    R"({"user":{"name":"test","id":42},"items":[1,2,3],"meta":{"version":"1.0"}})",
    R"([0,-0,-0.0,1.5e300,-2.5E-300,18446744073709551615,-9223372036854775808,9223372036854775808])",
    R"(["\u00e9","\ud83d\ude00","\"\\\/\b\f\n\r\t","",{"":""}])",
    " \t\r\n[ [ ] , { } , [ [ null ] ] , true , false ] \n",
    R"({"a":1,"b":2,"a":{"c":[1,{"c":2,"c":3}]}})",
    "\"\xe2\x82\xac\xf0\x9f\x98\x80\"",
    "12345",
    "[1.0,2.50,1e16,0.1,123456789.123456789]",
    R"({"big":123456789012345678901234567890,"neg":[-18446744073709551617,{"n":99999999999999999999}]})",
};

TEST(ParseTest, SimdjsonAndStrictPathsAgree) {
    for (std::string_view doc : kDocuments) {
        SCOPED_TRACE(std::string(doc));
        base::Arena arena;
        base::Result<const Value*> fast = parse(doc, arena);
        base::Result<const Value*> strict = detail::parse_strict(doc, arena, {}, nullptr);
        ASSERT_TRUE(fast.is_ok()) << fast.status().to_string();
        ASSERT_TRUE(strict.is_ok()) << strict.status().to_string();
        EXPECT_TRUE(equal(**fast, **strict));
        EXPECT_EQ(write(**fast), write(**strict));
    }
}

TEST(ParseTest, PaddedInputIgnoresBytesAfterTheEnd) {
    for (std::string_view doc : kDocuments) {
        for (char fill : {'1', '"', ']', '\\', '\0', '\xff'}) {
            std::string buffer(doc);
            buffer.append(kParsePadding, fill);
            base::Arena arena;
            base::Result<const Value*> padded = parse_padded(std::string_view(buffer).substr(0, doc.size()), arena);
            base::Result<const Value*> plain = parse(doc, arena);
            ASSERT_TRUE(padded.is_ok()) << doc;
            EXPECT_EQ(write(**padded), write(**plain));
        }
    }
    std::string buffer = "[1,2";
    buffer.append(kParsePadding, ']');
    base::Arena arena;
    ParseError error;
    EXPECT_FALSE(parse_padded(std::string_view(buffer).substr(0, 4), arena, {}, &error).is_ok());
    EXPECT_EQ(error.message, "Expecting ',' delimiter");
    EXPECT_EQ(error.offset, 4u);
}

TEST(ParseTest, LargeDocumentReleasesThreadBuffersAndStillParses) {
    std::string big = "[";
    for (int i = 0; i < 60'000; ++i)
        big += "\"item-" + std::to_string(i) + "\",";
    big += "0]";
    ASSERT_GT(big.size(), 256u * 1024);
    base::Arena arena;
    ParseOptions options;
    options.max_members = 100'000;
    base::Result<const Value*> r = parse(big, arena, options);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ((*r)->size(), 60'001u);
    EXPECT_EQ((*r)->items()[59'999].as_string(), "item-59999");
    r = parse("[1]", arena);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ((*r)->items()[0].as_int(), 1);
}

}  // namespace
}  // namespace slipstream::json
