// x-slipstream-pytype: pydantic's readings of UUID, datetime, date, time and Decimal (checked against pydantic 2.14).
#include <gtest/gtest.h>

#include <string>

#include "base/arena.h"
#include "json/parse.h"
#include "json/schema/error_sink.h"
#include "json/schema/formats/py_types.h"
#include "json/schema/schema.h"

namespace slipstream::json::schema {
namespace {

struct PyCase {
    const char* type;
    const char* instance;  // JSON
    const char* expected;  // "" when valid, else "type|msg"; the ctx error is the text after the prefix's ", "
};

const PyCase kCases[] = {
    {"uuid", R"("12345678-1234-5678-1234-567812345678")", ""},
    {"uuid", R"("12345678123456781234567812345678")", ""},
    {"uuid", R"("{12345678-1234-5678-1234-567812345678}")", ""},
    {"uuid", R"("urn:uuid:12345678-1234-5678-1234-567812345678")", ""},
    {"uuid", R"("ABCDEF78-1234-5678-1234-567812345678")", ""},
    {"uuid", R"("nope")", "uuid_parsing|Input should be a valid UUID, invalid character: found `n` at 0"},
    {"uuid", R"("")", "uuid_parsing|Input should be a valid UUID, invalid length: found 0"},
    {"uuid", R"("a")", "uuid_parsing|Input should be a valid UUID, invalid length: found 1"},
    {"uuid", R"("12345678-1234-5678-1234-56781234567")",
     "uuid_parsing|Input should be a valid UUID, invalid group length in group 4: expected 12, found 11"},
    {"uuid", R"("{12345678-1234-5678-1234-56781234567}")",
     "uuid_parsing|Input should be a valid UUID, invalid group length in group 4: expected 12, found 13"},
    {"uuid", R"("1234567-81234-5678-1234-567812345678")",
     "uuid_parsing|Input should be a valid UUID, invalid group length in group 0: expected 8, found 7"},
    {"uuid", R"("1234-5678")", "uuid_parsing|Input should be a valid UUID, invalid group count: expected 5, found 2"},
    {"uuid", R"("{12345678123456781234567812345678}")",
     "uuid_parsing|Input should be a valid UUID, invalid group count: expected 5, found 1"},
    {"uuid", R"("a-\u00e9")", "uuid_parsing|Input should be a valid UUID, invalid character: found `\xc3\xa9` at 2"},
    {"uuid", R"("urn:uuid:x")", "uuid_parsing|Input should be a valid UUID, invalid character: found `x` at 9"},
    {"uuid", R"("12345678-1234-5678-1234-567812345678}")",
     "uuid_parsing|Input should be a valid UUID, invalid character: found `}` at 36"},
    {"uuid", "5", "uuid_type|UUID input should be a string, bytes or UUID object"},
    {"datetime", R"("2024-01-02T03:04:05")", ""},
    {"datetime", R"("2024-01-02")", ""},
    {"datetime", R"("2024-01-02 03:04")", ""},
    {"datetime", R"("2024-01-02t03:04:05.123456789z")", ""},
    {"datetime", R"("2024-01-02T03:04:05+0100")", ""},
    {"datetime", R"("2024-01-02T03:04:05-23:59")", ""},
    {"datetime", R"("1700000000")", ""},
    {"datetime", R"("+5")", ""},
    {"datetime", R"(".5")", ""},
    {"datetime", "1700000000.5", ""},
    {"datetime", "253402300799999", ""},
    {"datetime", "-62135596800000", ""},
    {"datetime", R"("soon")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, input is too short"},
    {"datetime", R"("2024-13-01")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, month value is outside expected range of "
     "1-12"},
    {"datetime", R"("2024-02-30")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, day value is outside expected range"},
    {"datetime", R"("2024-01-02T25:00:00")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, unexpected extra characters at the end of "
     "the input"},
    {"datetime", R"("2024x01-02")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, invalid date separator, expected `-`"},
    {"datetime", R"("20x4-01-02")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, invalid character in year"},
    {"datetime", R"("2024-13-x1")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, invalid character in day"},
    {"datetime", R"("9999999999999999999")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, invalid date separator, expected `-`"},
    {"datetime", R"("253402300800000")",
     "datetime_from_date_parsing|Input should be a valid datetime or date, dates after 9999 are not supported as unix "
     "timestamps"},
    {"datetime", "1e20",
     "datetime_parsing|Input should be a valid datetime, dates after 9999 are not supported as unix timestamps"},
    {"datetime", "-1e16",
     "datetime_parsing|Input should be a valid datetime, dates before 0000 are not supported as unix timestamps"},
    {"datetime", R"("0000-01-01T00:00:00")",
     "datetime_parsing|Input should be a valid datetime, year 0 is out of range"},
    {"datetime", "true", "datetime_type|Input should be a valid datetime"},
    {"datetime", "null", "datetime_type|Input should be a valid datetime"},
    {"date", R"("2024-01-02")", ""},
    {"date", R"("2024-01-02T00:00:00+01:00")", ""},
    {"date", R"("2024-01-02_00:00")", ""},
    {"date", "86400", ""},
    {"date", R"("0")", ""},
    {"date", "86400.0", ""},
    {"date", R"("2024-01-02T03:04:05")",
     "date_from_datetime_inexact|Datetimes provided to dates should have zero time - e.g. be exact dates"},
    {"date", "1700000000",
     "date_from_datetime_inexact|Datetimes provided to dates should have zero time - e.g. be exact dates"},
    {"date", R"("2024-01-02x")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, invalid datetime separator, expected `T`, "
     "`t`, `_` or space"},
    {"date", R"("2024-01-02T25:00")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, hour value is outside expected range of "
     "0-23"},
    {"date", R"("2024-01-02T")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, input is too short"},
    {"date", R"("2024-01-02T00:00:")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, invalid character in second"},
    {"date", R"("2024-01-02T00:00:00.")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, second fraction digits missing after `.`"},
    {"date", R"("2024-01-02T00:00:00x")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, invalid timezone sign"},
    {"date", R"("2024-01-02T00:00:00+01")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, invalid timezone minute"},
    {"date", R"("2024-01-02T00:00:00+24:00")",
     "date_from_datetime_parsing|Input should be a valid date or datetime, timezone offset must be less than 24 hours"},
    {"date", "true", "date_type|Input should be a valid date"},
    {"time", R"("03:04:05")", ""},
    {"time", R"("03:04")", ""},
    {"time", R"("03:04:05.5+01:00")", ""},
    {"time", "86399.999", ""},
    {"time", R"("3600")", "time_parsing|Input should be in a valid time format, input is too short"},
    {"time", R"("24:00")",
     "time_parsing|Input should be in a valid time format, hour value is outside expected range of 0-23"},
    {"time", R"("03x04")", "time_parsing|Input should be in a valid time format, invalid time separator, expected `:`"},
    {"time", "86400",
     "time_parsing|Input should be in a valid time format, numeric times may not exceed 86,399 seconds"},
    {"time", "-1", "time_parsing|Input should be in a valid time format, time in seconds should be positive"},
    {"time", "null", "time_type|Input should be a valid time"},
    {"decimal", R"("1.50")", ""},
    {"decimal", R"(" 1_000.5e-3 ")", ""},
    {"decimal", R"("-.5")", ""},
    {"decimal", R"("5.")", ""},
    {"decimal", "1.5", ""},
    {"decimal", "7", ""},
    {"decimal", R"("abc")", "decimal_parsing|Input should be a valid decimal"},
    {"decimal", R"(".")", "decimal_parsing|Input should be a valid decimal"},
    {"decimal", R"("1__0")", ""},
    {"decimal", R"("_1.5_e_3")", ""},
    {"decimal", R"("__")", "decimal_parsing|Input should be a valid decimal"},
    {"decimal", R"("1e")", "decimal_parsing|Input should be a valid decimal"},
    {"decimal", R"("-Infinity")", "finite_number|Input should be a finite number"},
    {"decimal", R"("NaN")", "finite_number|Input should be a finite number"},
    {"decimal", "true", "decimal_type|Decimal input should be an integer, float, string or Decimal object"},
};

TEST(PyTypes, PydanticReadings) {
    for (const PyCase& c : kCases) {
        SCOPED_TRACE(std::string(c.type) + " " + c.instance);
        base::Arena arena;
        auto parsed = json::parse(c.instance, arena);
        ASSERT_TRUE(parsed.is_ok());
        formats::PyType type{};
        ASSERT_TRUE(formats::find_py_type(c.type, &type));
        formats::PyTypeFailure failure;
        bool ok = formats::check_py_value(type, **parsed, &failure);
        EXPECT_EQ(ok, formats::check_py_value(type, **parsed, nullptr));
        std::string got = ok ? "" : std::string(failure.type) + "|" + failure.msg;
        EXPECT_EQ(got, c.expected);
        if (!ok && !failure.error.empty()) {
            EXPECT_TRUE(failure.msg.ends_with(", " + failure.error));
        }
    }
}

TEST(PyTypes, KeywordReportsLocAndCtx) {
    base::Arena arena;
    auto doc = json::parse(R"({"type":"object","properties":{"u":{"x-slipstream-pytype":"uuid"},
        "d":{"anyOf":[{"x-slipstream-pytype":"date"},{"type":"null"}]}}})",
                           arena);
    ASSERT_TRUE(doc.is_ok());
    Schema schema = compile(**doc);
    auto bad = json::parse(R"({"u":"x","d":"2024-02-30"})", arena);
    ASSERT_TRUE(bad.is_ok());
    ErrorSink sink;
    EXPECT_FALSE(schema.validate(**bad, &sink));
    ASSERT_EQ(sink.errors().size(), 2u);
    EXPECT_EQ(sink.errors()[0].type, "uuid_parsing");
    ASSERT_EQ(sink.errors()[0].loc.size(), 1u);
    EXPECT_EQ(sink.errors()[0].loc[0].key, "u");
    const json::Value* reason = sink.errors()[0].ctx.find("error");
    ASSERT_NE(reason, nullptr);
    EXPECT_EQ(reason->as_string(), "invalid character: found `x` at 0");
    EXPECT_EQ(sink.errors()[1].type, "date_from_datetime_parsing");
    auto good = json::parse(R"({"u":"12345678123456781234567812345678","d":null})", arena);
    ASSERT_TRUE(good.is_ok());
    EXPECT_TRUE(schema.validate(**good));
}

TEST(PyTypes, UnknownNameIsACompileError) {
    base::Arena arena;
    auto doc = json::parse(R"({"x-slipstream-pytype":"money"})", arena);
    ASSERT_TRUE(doc.is_ok());
    EXPECT_THROW(compile(**doc), SchemaError);
}

}  // namespace
}  // namespace slipstream::json::schema
