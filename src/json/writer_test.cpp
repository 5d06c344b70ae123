// Tests for Writer and format_double: bytes identical to Python's json.dumps / repr(float).
#include "json/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "json/format_double.h"
#include "json/parse.h"

namespace slipstream::json {
namespace {

struct DoubleCase {
    double value;
    std::string_view repr;
};

// Hex literals (exact bits) and CPython 3.11's repr() of each: hand-picked edge cases, then 40 random bit
// patterns and 20 random values in [-1e6, 1e6] (random.seed(7)).
const DoubleCase kDoubles[] = {
    {0x0.0p+0, "0.0"},
    {-0x0.0p+0, "-0.0"},
    {0x1.0000000000000p+0, "1.0"},
    {-0x1.0000000000000p+0, "-1.0"},
    {0x1.999999999999ap-4, "0.1"},
    {0x1.3333333333334p-2, "0.30000000000000004"},
    {0x1.1c37937e08000p+53, "1e+16"},
    {0x1.c6bf526340000p+49, "1000000000000000.0"},
    {0x1.b69b4ba630f35p+56, "1.2345678901234568e+17"},
    {0x1.a36e2eb1c432dp-14, "0.0001"},
    {0x1.4f8b588e368f1p-17, "1e-05"},
    {0x1.02e4b6ce5dc68p-13, "0.00012345"},
    {0x1.421f5f40d8376p-23, "1.5e-07"},
    {0x0.0000000000001p-1022, "5e-324"},
    {0x1.0000000000000p-1022, "2.2250738585072014e-308"},
    {0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
    {0x1.0f0cf064dd592p+73, "1e+22"},
    {0x1.52d02c7e14af6p+76, "1e+23"},
    {0x1.0000000000000p+53, "9007199254740992.0"},
    {0x1.9000000000000p+6, "100.0"},
    {0x1.18b54f22aeb03p+50, "1234567890123456.8"},
    {0x1.1c37937e07fffp+53, "9999999999999998.0"},
    {0x1.3333333333333p-2, "0.3"},
    {0x1.5555555555555p-1, "0.6666666666666666"},
    {0x1.5555555555555p-2, "0.3333333333333333"},
    {0x1.edd2f1a9fbe77p+6, "123.456"},
    {-0x1.8000000000000p+0, "-1.5"},
    {0x1.921f9f01b866ep+1, "3.14159"},
    {0x1.249ad2594c37dp+332, "1e+100"},
    {0x1.a749ec2ff5c8ap-997, "1.2345e-300"},
    {0x1.1666666666666p+2, "4.35"},
    {0x1.0000000000000p-1, "0.5"},
    {0x1.ad7f29abcaf48p-24, "1e-07"},
    {0x1.56a95319d63e1p+63, "1.2345678901234567e+19"},
    {0x1.aa535d3d0c000p+53, "1.5e+16"},
    {0x1.1c37937e08000p+53, "1e+16"},
    {0x1.0624dd2f1a9fcp-10, "0.001"},
    {0x1.47ae147ae147ap-7, "0.009999999999999998"},
    {0x1.b1ae4d6e2ef50p+69, "1e+21"},
    {-0x1.a36e2eb1c432dp-16, "-2.5e-05"},
    {0x1.0800000000000p+5, "33.0"},
    {0x1.ddd4baa009303p+999, "1e+301"},
    {0x1.fe185ca57c517p+78, "6.02214076e+23"},
    {0x1.1de784a000000p+28, "299792458.0"},
    {0x1.199999999999ap+0, "1.1"},
    {0x1.5666666666666p+1, "2.675"},
    {0x0.00000000007e8p-1022, "1e-320"},
    {-0x1.74de452e6b438p+811, "-1.989032661366619e+244"},
    {0x1.3270e269e0d37p+594, "7.761117632285041e+178"},
    {0x1.c7fd0a6a3a450p-826, "3.980498358697587e-249"},
    {-0x1.f0824128b2f33p+292, "-1.5432835417340557e+88"},
    {0x1.8e811892f902bp-638, "1.3647584518757569e-192"},
    {-0x1.1985d5d9dc9f8p-684, "-1.3701135617873088e-206"},
    {-0x1.25d940ed90475p+655, "-1.7160537630466207e+197"},
    {0x1.675cc81e74ef5p-144, "6.294675241195386e-44"},
    {0x1.0a35a099950d8p-671, "1.0613447212142254e-202"},
    {0x1.d549b6f03675ap+689, "4.708325160387546e+207"},
    {0x1.c172411e20b8fp-38, "6.387016158513563e-12"},
    {-0x1.16ece1738f7d9p-814, "-9.973130378568733e-246"},
    {0x1.1ddb66cad4a26p-781, "8.779753225680271e-236"},
    {-0x1.192cfd3ac94afp-755, "-5.795503248498993e-228"},
    {-0x1.c105d1fb17c23p+809, "-5.988180159386011e+243"},
    {-0x1.0b33839263059p-488, "-1.306052388527796e-147"},
    {-0x1.f48f1a09f76b5p-684, "-2.436117699484841e-206"},
    {0x1.630f1f29d0da9p-770, "2.233386999150174e-232"},
    {-0x1.60af593bd04cfp-673, "-3.51527970626667e-203"},
    {0x1.1e29c658cda14p-820, "1.5987381841032883e-247"},
    {0x1.8d190f9ebdaccp-118, "4.6678633181812096e-36"},
    {-0x1.1973e0becd7b0p-791, "-8.441872792105456e-239"},
    {0x1.7beaddbc496cbp-478, "1.9015657400796622e-144"},
    {0x1.cb2424a23d596p+693, "7.370437700706684e+208"},
    {-0x1.a63ec24ede6a4p-857, "-1.7163996725272777e-258"},
    {-0x1.766581e27a1c0p-733, "-3.2367190832119987e-221"},
    {-0x1.d05584ef8aa38p-777, "-2.2818334634712625e-234"},
    {-0x1.7ba94d0eda82fp-278, "-3.0536383926309363e-84"},
    {0x1.1dbe22e44158bp-601, "1.3449551894627777e-181"},
    {-0x1.a736994e3bf91p-732, "-7.317495976062606e-221"},
    {0x1.850c5a38fd547p-254, "5.249822308814304e-77"},
    {0x1.135d25f557203p-624, "1.5450754142984396e-188"},
    {-0x1.ce4228c38fb29p-155, "-3.953625698224792e-47"},
    {-0x1.a70c31012f037p-760, "-2.72491267476498e-229"},
    {-0x1.769b10f4205b4p-536, "-6.505141861548772e-162"},
    {0x1.5052434b9b5dfp+1010, "1.441484839555994e+304"},
    {-0x1.ed162ae2eb154p-894, "-1.4583679262758548e-269"},
    {-0x1.877186d76b07ep+112, "-7.939416668807721e+33"},
    {0x1.1af10506bf2efp+884, "1.4255183989699612e+266"},
    {-0x1.6a78795e761d1p+711, "-1.525315701232403e+214"},
    {-0x1.6dbf3f4c54698p+16, "-93631.24725844932"},
    {-0x1.87148066c556ep+18, "-400466.0062726353"},
    {0x1.1f7aded143b60p+19, "588758.9630449824"},
    {0x1.84a93784735a0p+18, "397988.8674591426"},
    {-0x1.f3cfbea0a8100p+18, "-511806.9785556942"},
    {0x1.22b7b5d383238p+17, "148847.42051734193"},
    {0x1.89b203e7262e0p+15, "50393.00762290298"},
    {0x1.6e585fb7799d8p+19, "750274.9911468579"},
    {0x1.c022a50c58230p+18, "458890.5788784353"},
    {-0x1.9e2f1e18140fep+18, "-424124.4702196269"},
    {0x1.d4ebb63d5186ep+19, "960349.6949851641"},
    {-0x1.74fb8e3112197p+19, "-763868.4434900758"},
    {-0x1.3fd52d9f7bbccp+17, "-163754.35642954556"},
    {0x1.f63a76fbfe7ccp+18, "514281.8591304987"},
    {-0x1.53dbddc81f4e6p+19, "-696030.9306789904"},
    {-0x1.58e73239bda80p+14, "-22073.799048388842"},
    {-0x1.c1fe2f8c88e77p+19, "-921585.4859051247"},
    {0x1.488beda2eb478p+18, "336431.71306879027"},
    {0x1.025eb77007ddep+19, "529141.7324256261"},
    {0x1.1d41f0b604c58p+17, "146051.88055476802"},
};

TEST(FormatDoubleTest, MatchesPythonRepr) {
    for (const DoubleCase& c : kDoubles) {
        char buf[kMaxDoubleChars];
        const std::size_t n = format_double(c.value, buf);
        EXPECT_EQ(std::string_view(buf, n), c.repr);
    }
}

TEST(FormatDoubleTest, RoundTrips) {
    for (const DoubleCase& c : kDoubles) {
        char buf[kMaxDoubleChars];
        const std::size_t n = format_double(c.value, buf);
        base::Arena arena;
        base::Result<const Value*> r = parse(std::string_view(buf, n), arena);
        ASSERT_TRUE(r.is_ok()) << std::string_view(buf, n);
        EXPECT_EQ((*r)->as_double(), c.value);
        EXPECT_EQ(std::signbit((*r)->as_double()), std::signbit(c.value));
    }
}

struct EscapeCase {
    std::string_view input;
    std::string_view utf8;   // json.dumps(s, ensure_ascii=False)
    std::string_view ascii;  // json.dumps(s)
};

const EscapeCase kEscapes[] = {
    {std::string_view("", 0), "\"\"", "\"\""},
    {std::string_view("plain", 5), "\"plain\"", "\"plain\""},
    {std::string_view("quote\"", 6), "\"quote\\\"\"", "\"quote\\\"\""},
    {std::string_view("back\\slash", 10), "\"back\\\\slash\"", "\"back\\\\slash\""},
    {std::string_view("nl\x0a"
                      "",
                      3),
     "\"nl\\n\"", "\"nl\\n\""},
    {std::string_view("tab\x09"
                      "",
                      4),
     "\"tab\\t\"", "\"tab\\t\""},
    {std::string_view("cr\x0d"
                      "",
                      3),
     "\"cr\\r\"", "\"cr\\r\""},
    {std::string_view("bs\x08"
                      "",
                      3),
     "\"bs\\b\"", "\"bs\\b\""},
    {std::string_view("ff\x0c"
                      "",
                      3),
     "\"ff\\f\"", "\"ff\\f\""},
    {std::string_view("\x00"
                      "",
                      1),
     "\"\\u0000\"", "\"\\u0000\""},
    {std::string_view("\x01"
                      "\x1f"
                      "",
                      2),
     "\"\\u0001\\u001f\"", "\"\\u0001\\u001f\""},
    {std::string_view("\x7f"
                      "",
                      1),
     "\"\x7f"
     "\"",
     "\"\\u007f\""},
    {std::string_view("/", 1), "\"/\"", "\"/\""},
    {std::string_view("\xc3"
                      "\xa9"
                      "",
                      2),
     "\"\xc3"
     "\xa9"
     "\"",
     "\"\\u00e9\""},
    {std::string_view("\xe2"
                      "\x82"
                      "\xac"
                      "",
                      3),
     "\"\xe2"
     "\x82"
     "\xac"
     "\"",
     "\"\\u20ac\""},
    {std::string_view("\xf0"
                      "\x9f"
                      "\x98"
                      "\x80"
                      "",
                      4),
     "\"\xf0"
     "\x9f"
     "\x98"
     "\x80"
     "\"",
     "\"\\ud83d\\ude00\""},
    {std::string_view("a\"b\\c\x0a"
                      "d",
                      7),
     "\"a\\\"b\\\\c\\nd\"", "\"a\\\"b\\\\c\\nd\""},
    {std::string_view("ctl\x10"
                      "x",
                      5),
     "\"ctl\\u0010x\"", "\"ctl\\u0010x\""},
    {std::string_view("\xe2"
                      "\x80"
                      "\xa8"
                      "\xe2"
                      "\x80"
                      "\xa9"
                      "",
                      6),
     "\"\xe2"
     "\x80"
     "\xa8"
     "\xe2"
     "\x80"
     "\xa9"
     "\"",
     "\"\\u2028\\u2029\""},
};

TEST(WriterTest, StringEscapesMatchPython) {
    for (const EscapeCase& c : kEscapes) {
        SCOPED_TRACE(std::string(c.input));
        std::string utf8, ascii;
        Writer(utf8).string(c.input);
        Writer(ascii, {.ensure_ascii = true}).string(c.input);
        EXPECT_EQ(utf8, c.utf8);
        EXPECT_EQ(ascii, c.ascii);
    }
}

// Every escaped byte at every position of strings up to 40 bytes (the scanner reads 8 bytes at a time),
// against a byte-at-a-time reference.
TEST(WriterTest, EscapesAtEveryPosition) {
    const auto reference = [](std::string_view s) {
        std::string out = "\"";
        for (char ch : s) {
            const auto c = static_cast<unsigned char>(ch);
            if (c == '"' || c == '\\') {
                out += '\\';
                out += ch;
            } else if (c == '\n') {
                out += "\\n";
            } else if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : buf;
            } else {
                out += ch;
            }
        }
        return out + "\"";
    };
    int checked = 0;
    for (std::size_t len = 1; len <= 40; ++len) {
        for (std::size_t pos = 0; pos < len; ++pos) {
            for (char special : {'"', '\\', '\n', '\x01', '\x1f', '\x7f', '\x80', ' ', '~'}) {
                std::string s(len, 'x');
                s[pos] = special;
                if (pos + 3 < len) s[pos + 3] = '"';
                std::string out;
                Writer(out).string(s);
                ASSERT_EQ(out, reference(s)) << len << " " << pos << " " << int(special);
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 820 * 9);
}

// Runs of \u00XX escapes (six bytes each, where two were made room for) after a comma and as a key.
TEST(WriterTest, RunsOfUnicodeEscapesInArraysAndKeys) {
    for (std::size_t len = 0; len <= 24; ++len) {
        const std::string s(len, '\x01');
        std::string expected;
        for (std::size_t i = 0; i < len; ++i)
            expected += "\\u0001";
        std::string out;
        Writer w(out);
        w.begin_array();
        w.string("a");
        w.string(s + "\"");
        w.end_array();
        EXPECT_EQ(out, "[\"a\",\"" + expected + "\\\"\"]");
        std::string keyed;
        Writer k(keyed);
        k.begin_object();
        k.key(s);
        k.int64(1);
        k.end_object();
        EXPECT_EQ(keyed, "{\"" + expected + "\":1}");
    }
}

TEST(WriterTest, EnsureAsciiKeysAndValues) {
    std::string out;
    Writer w(out, {.ensure_ascii = true});
    w.begin_object();
    w.key("\xc3\xa9");
    w.string("\xe2\x82\xac");
    w.key("k");
    w.begin_array();
    w.string("a");
    w.string("\x7f");
    w.end_array();
    w.end_object();
    EXPECT_EQ(out, R"({"\u00e9":"\u20ac","k":["a","\u007f"]})");
}

TEST(WriterTest, EnsureAsciiReplacesInvalidBytes) {
    std::string out;
    Writer(out, {.ensure_ascii = true})
        .string(
            "a\xff"
            "b\xe2\x82");
    EXPECT_EQ(out, R"("a\ufffdb\ufffd\ufffd")");
}

TEST(WriterTest, ExplicitApiPlacesCommas) {
    std::string out = "prefix:";
    Writer w(out);
    w.begin_object();
    w.key("a");
    w.begin_array();
    w.int64(-1);
    w.uint64(18446744073709551615ULL);
    ASSERT_TRUE(w.number(2.5).is_ok());
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.end_array();
    w.null();
    w.end_array();
    w.key("b");
    w.boolean(true);
    w.key("c");
    w.raw(R"({"pre":"built"})");
    w.key("d");
    w.string("x");
    w.end_object();
    EXPECT_EQ(out, R"(prefix:{"a":[-1,18446744073709551615,2.5,{},[],null],"b":true,"c":{"pre":"built"},"d":"x"})");
}

TEST(WriterTest, NonFiniteDoublesAreRefused) {
    for (double d : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
        std::string out;
        Writer w(out);
        w.begin_array();
        base::Status s = w.number(d);
        EXPECT_TRUE(s.is_out_of_range());
        EXPECT_EQ(s.message(), "Out of range float values are not JSON compliant");
        EXPECT_EQ(out, "[");

        const Value items[] = {Value::integer(1), Value::number(d)};
        out.clear();
        EXPECT_TRUE(Writer(out).write_value(Value::array(items, 2)).is_out_of_range());
    }
}

struct RoundTripCase {
    std::string_view input;
    std::string_view output;  // json.dumps(json.loads(input), ensure_ascii=False, separators=(",", ":"))
};

const RoundTripCase kRoundTrips[] = {
    {"{\"user\":{\"name\":\"test\",\"id\":42},\"items\":[1,2,3],\"meta\":{\"version\":\"1.0\"}}",
     "{\"user\":{\"name\":\"test\",\"id\":42},\"items\":[1,2,3],\"meta\":{\"version\":\"1.0\"}}"},
    {"[]", "[]"},
    {"{}", "{}"},
    {"[[],{},[[]],{\"\":{}}]", "[[],{},[[]],{\"\":{}}]"},
    {"null", "null"},
    {"true", "true"},
    {"false", "false"},
    {"0", "0"},
    {"-0", "0"},
    {"-0.0", "-0.0"},
    {"1.0", "1.0"},
    {"1E2", "100.0"},
    {"1e16", "1e+16"},
    {"1.5e-7", "1.5e-07"},
    {"0.1", "0.1"},
    {"18446744073709551615", "18446744073709551615"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"9223372036854775808", "9223372036854775808"},
    {"123.456e-7", "1.23456e-05"},
    {"\"\\u00e9\\ud83d\\ude00\\n\\u0000\\/\"",
     "\"\xc3"
     "\xa9"
     "\xf0"
     "\x9f"
     "\x98"
     "\x80"
     "\\n\\u0000/\""},
    {"{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":3,\"b\":2}"},
    {" { \"k\" : [ 1 , 2.50 , \"x\" ] } ", "{\"k\":[1,2.5,\"x\"]}"},
    {"{\"nested\":{\"deep\":[{\"x\":[null,true,false]}]},\"s\":\"line\\u2028sep\"}",
     "{\"nested\":{\"deep\":[{\"x\":[null,true,false]}]},\"s\":\"line\xe2"
     "\x80"
     "\xa8"
     "sep\"}"},
    {"[1.7976931348623157e308,5e-324,-1e-400]", "[1.7976931348623157e+308,5e-324,-0.0]"},
    {"\"\xe2\x82\xac\"", "\"\xe2\x82\xac\""},
    // Integers beyond 64 bits are exact, as Python's ints.
    {"18446744073709551616", "18446744073709551616"},
    {"[-123456789012345678901234567890,{\"n\":1e30}]", "[-123456789012345678901234567890,{\"n\":1e+30}]"},
};

TEST(WriterTest, ParseThenWriteMatchesPython) {
    for (const RoundTripCase& c : kRoundTrips) {
        SCOPED_TRACE(std::string(c.input));
        base::Arena arena;
        base::Result<const Value*> r = parse(c.input, arena);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        std::string out;
        ASSERT_TRUE(Writer(out).write_value(**r).is_ok());
        EXPECT_EQ(out, c.output);
    }
}

}  // namespace
}  // namespace slipstream::json
