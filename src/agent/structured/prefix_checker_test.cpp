// PrefixChecker: on JSON-Schema-Test-Suite every document gets a StreamValidator's early rejections (same byte) and,
// with CompiledSchema::accepts at the end, its verdict; a copy or an assignment made at any byte goes on to the same
// verdict without touching the original; keys that no declared property starts with are refused at once.
#include "agent/structured/prefix_checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "agent/structured/schema_suite_test_support.h"
#include "agent/structured/stream_validator.h"
#include "json/writer.h"

namespace slipstream::agent::structured {
namespace {

namespace fs = std::filesystem;
using json::schema::Draft;
using testing::deep;
using testing::read_file;
using testing::test_data_dir;

std::string to_json(const json::Value& v) {
    std::string out;
    json::Writer w(out);
    EXPECT_TRUE(w.write_value(v).is_ok());
    return out;
}

// The verdict of a checker fed `rest` in one piece: kComplete only for a valid document.
StreamState finish_with(PrefixChecker& c, std::string_view rest, std::string_view text) {
    if (c.feed(rest) == StreamState::kInvalid) return StreamState::kInvalid;
    if (c.finish() != StreamState::kComplete) return StreamState::kInvalid;
    return c.schema().accepts(text, deep()) ? StreamState::kComplete : StreamState::kInvalid;
}

struct Counts {
    int documents = 0, forks = 0;
};

// One document: byte by byte against a StreamValidator, then a copy and an assignment at every byte.
void check_document(const std::shared_ptr<const CompiledSchema>& schema, const std::string& text,
                    PrefixChecker& scratch, Counts& counts) {
    StreamValidator v(schema->document(), schema->schema(), deep());
    PrefixChecker p(schema, deep());
    std::vector<PrefixChecker> before;  // p before byte i
    for (std::size_t i = 0; i < text.size(); ++i) {
        before.push_back(p);
        const StreamState want = v.feed(text.substr(i, 1));
        const StreamState got = p.feed(text.substr(i, 1));
        if (got == StreamState::kInvalid) {
            ASSERT_EQ(want, StreamState::kInvalid) << text << " at " << i << ": " << p.error().message;
            EXPECT_EQ(v.failure().offset, p.error().offset) << text;
            EXPECT_EQ(v.failure().keyword, p.failure().keyword.empty() ? "json" : p.failure().keyword) << text;
            break;
        }
        if (want == StreamState::kInvalid) {  // only the whole value's final verdict, at the document's end
            ASSERT_EQ(got, StreamState::kComplete) << text << " at " << i << ": " << v.failure().message;
        }
    }
    const StreamState want = v.state() == StreamState::kInvalid ? StreamState::kInvalid : v.finish();
    PrefixChecker whole(schema, deep());
    const StreamState verdict = finish_with(whole, text, text);
    ASSERT_EQ(verdict, want) << text;
    for (std::size_t i = 0; i < before.size(); ++i) {
        PrefixChecker copy(before[i]);
        EXPECT_EQ(finish_with(copy, std::string_view(text).substr(i), text), verdict) << text << " forked at " << i;
        scratch = before[i];
        EXPECT_EQ(finish_with(scratch, std::string_view(text).substr(i), text), verdict)
            << text << " assigned at " << i;
        ++counts.forks;
    }
    ++counts.documents;
}

void run_folder(const fs::path& root, const std::string& folder, Draft draft, Counts& counts) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / "tests" / folder))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    auto trivial = CompiledSchema::create("true");
    ASSERT_TRUE(trivial.is_ok());
    PrefixChecker scratch(*trivial, deep());  // assigned from checkers of every schema in turn
    for (const fs::path& file : files) {
        SCOPED_TRACE(file.filename().string());
        base::Arena arena;
        auto suite = json::parse(*read_file(file), arena, deep());
        ASSERT_TRUE(suite.is_ok());
        for (const json::Value& group : (*suite)->items()) {
            SCOPED_TRACE(std::string(group.find("description")->as_string()));
            json::schema::CompileOptions options;
            options.default_draft = draft;
            options.resolver = [&root](std::string_view uri) -> std::optional<std::string> {
                constexpr std::string_view kPrefix = "http://localhost:1234/";
                if (!uri.starts_with(kPrefix)) return std::nullopt;
                return read_file(root / "remotes" / std::string(uri.substr(kPrefix.size())));
            };
            auto schema = CompiledSchema::create(to_json(*group.find("schema")), options);
            if (!schema.is_ok()) continue;  // schema_suite_test owns these (its skip list)
            for (const json::Value& test : group.find("tests")->items()) {
                SCOPED_TRACE(std::string(test.find("description")->as_string()));
                check_document(*schema, to_json(*test.find("data")), scratch, counts);
            }
        }
    }
}

class PrefixCheckerSuite : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = test_data_dir() / "json-schema-test-suite";
        if (!fs::is_directory(root_ / "tests"))
            GTEST_SKIP() << "JSON-Schema-Test-Suite not found at " << root_ << " (set SLIPSTREAM_TEST_DATA)";
    }
    fs::path root_;
};

TEST_F(PrefixCheckerSuite, Draft2020ForksReachTheStreamValidatorsVerdict) {
    Counts c;
    run_folder(root_, "draft2020-12", Draft::kDraft2020_12, c);
    EXPECT_GT(c.documents, 1000);
    EXPECT_GT(c.forks, 10000);
}

TEST_F(PrefixCheckerSuite, Draft7ForksReachTheStreamValidatorsVerdict) {
    Counts c;
    run_folder(root_, "draft7", Draft::kDraft7, c);
    EXPECT_GT(c.documents, 700);
}

const char* const kPerson = R"({"type":"object","required":["name","kind"],"additionalProperties":false,
  "properties":{"name":{"type":"string","maxLength":5},"kind":{"enum":["cat","dog"]},
  "age":{"type":"integer","minimum":0}}})";

TEST(PrefixCheckerTest, ACopyGoesOnWithoutTheOriginal) {
    auto schema = CompiledSchema::create(kPerson);
    ASSERT_TRUE(schema.is_ok());
    PrefixChecker p(*schema);
    ASSERT_EQ(p.feed(R"({"name":"Tom","kind":")"), StreamState::kPartial);
    PrefixChecker bad(p);
    EXPECT_EQ(bad.feed("cow"), StreamState::kInvalid);
    EXPECT_EQ(bad.error().offset, 24u);  // a string piece is checked whole: its last byte
    EXPECT_EQ(bad.failure().keyword, "enum");
    EXPECT_EQ(p.state(), StreamState::kPartial);
    EXPECT_EQ(p.offset(), 22u);
    EXPECT_TRUE(p.in_string());
    PrefixChecker good = bad;
    good = p;
    EXPECT_EQ(good.feed(R"(dog"})"), StreamState::kComplete);
    EXPECT_FALSE(good.in_string());
    EXPECT_EQ(p.feed(R"(cat")"), StreamState::kPartial);
    EXPECT_EQ(p.feed("}"), StreamState::kComplete);
}

TEST(PrefixCheckerTest, KeysNoPropertyStartsWithAreRefusedAtTheirFirstByte) {
    auto schema = CompiledSchema::create(kPerson);
    ASSERT_TRUE(schema.is_ok());
    struct Case {
        const char* text;
        StreamState state;
        std::size_t offset;
    } cases[] = {
        {R"({"n)", StreamState::kPartial, 0},
        {R"({"nam)", StreamState::kPartial, 0},
        {R"({"x)", StreamState::kInvalid, 2},
        {R"({"namex)", StreamState::kInvalid, 6},
        {R"({"name":"a","ki)", StreamState::kPartial, 0},
        {R"({"name":"a","kx)", StreamState::kInvalid, 14},
        {R"({"name":"a","nam":)", StreamState::kInvalid, 16},  // a prefix of a property, closed
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        PrefixChecker p(*schema);
        std::string_view text = c.text;
        for (std::size_t i = 0; i < text.size(); ++i)
            p.feed(text.substr(i, 1));
        EXPECT_EQ(p.state(), c.state);
        if (c.state == StreamState::kInvalid) {
            EXPECT_EQ(p.error().offset, c.offset);
            EXPECT_EQ(p.failure().keyword, "additionalProperties");
        }
    }
    // Without additionalProperties: false any key may come.
    auto open = CompiledSchema::create(R"({"type":"object","properties":{"name":{"type":"string"}}})");
    ASSERT_TRUE(open.is_ok());
    PrefixChecker p(*open);
    EXPECT_EQ(p.feed(R"({"x":1})"), StreamState::kComplete);
}

TEST(PrefixCheckerTest, TheFinalVerdictIsTheCallers) {
    auto schema = CompiledSchema::create(kPerson);
    ASSERT_TRUE(schema.is_ok());
    PrefixChecker p(*schema);
    EXPECT_EQ(p.feed(R"({"name":"a","kind":"cat","age":-1})"), StreamState::kInvalid);  // minimum, as -1 ends
    // A pattern outside PatternNfa's subset (a word boundary) is settled by the whole value.
    auto patterned = CompiledSchema::create(R"({"properties":{"name":{"type":"string","pattern":"^A\\b"}}})");
    ASSERT_TRUE(patterned.is_ok());
    PrefixChecker q(*patterned);
    const std::string text = R"({"name":"Ab"})";
    EXPECT_EQ(q.feed(text), StreamState::kComplete);
    EXPECT_FALSE(q.schema().accepts(text));
    EXPECT_TRUE(q.schema().accepts(R"({"name":"A-b"})"));
    EXPECT_FALSE(CompiledSchema::create(R"({"type":)").is_ok());
    EXPECT_FALSE(CompiledSchema::create(R"({"type":"nothing"})").is_ok());
}

// The key a constrained decoder's mask cache uses: what a finished escape or UTF-8 sequence left behind is not in
// it, and a bounded string's length only as far as continuations of at most room_cap bytes could tell.
TEST(PrefixCheckerTest, StateKeysLeaveOutWhatNoShortContinuationReads) {
    auto schema = CompiledSchema::create(
        R"({"type":"object","properties":{"a":{"type":"string"},"t":{"type":"string","minLength":3,"maxLength":40}}})");
    ASSERT_TRUE(schema.is_ok());
    const auto key = [&](std::string_view text, std::size_t room_cap = 8) {
        PrefixChecker p(*schema);
        EXPECT_EQ(p.feed(text), StreamState::kPartial) << text;
        std::string out;
        p.state_key(out, room_cap, 0, 8, 8);
        return out;
    };
    // After strings with a UTF-8 character, an escape, a surrogate pair, or none: one key.
    EXPECT_EQ(key("{\"a\":\"\xC3\xA9\",\""), key(R"({"a":"e",")"));
    EXPECT_EQ(key(R"({"a":"\n",")"), key(R"({"a":"e",")"));
    EXPECT_EQ(key(R"({"a":"\ud83d\ude00",")"), key(R"({"a":"e",")"));
    EXPECT_EQ(key("{\"a\":\"\xF0\x9F\x98\x80x"), key(R"({"a":"ex)"));
    // Inside a UTF-8 sequence or an escape the key still tells where it is.
    EXPECT_NE(key("{\"a\":\"\xE0"), key("{\"a\":\"\xE1"));
    EXPECT_NE(key(R"({"a":"\u00)"), key(R"({"a":"\u0)"));
    // A bounded string: 5 and 6 characters are alike (more than room_cap from either bound), 2 and 3 are not
    // (minLength), nor 32 and 33 (maxLength within reach); with a larger room_cap 5 and 6 differ too.
    const auto title = [](std::size_t n) { return R"({"t":")" + std::string(n, 'x'); };
    EXPECT_EQ(key(title(5)), key(title(6)));
    EXPECT_EQ(key(title(11)), key(title(30)));
    EXPECT_NE(key(title(2)), key(title(3)));
    EXPECT_NE(key(title(32)), key(title(33)));
    EXPECT_NE(key(title(5), 40), key(title(6), 40));
    // Free strings: the text never matters.
    EXPECT_EQ(key(R"({"a":"x)"), key(R"({"a":"xyzzy)"));
}

}  // namespace
}  // namespace slipstream::agent::structured
