// StreamValidator: on JSON-Schema-Test-Suite (draft 2020-12 and draft 7) every document, fed whole, byte by byte and
// in random chunks, gets the whole-document validator's verdict; early rejections name the keyword and pointer
// at the byte that proves them; snapshots of partial values.
#include "agent/structured/stream_validator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agent/structured/schema_suite_test_support.h"
#include "json/schema/schema.h"
#include "json/writer.h"

namespace slipstream::agent::structured {
namespace {

namespace fs = std::filesystem;
using json::schema::Draft;
using testing::deep;
using testing::read_file;
using testing::test_data_dir;

StreamState run(StreamValidator& v, std::string_view text, const std::vector<std::size_t>& sizes) {
    std::size_t at = 0, k = 0;
    while (at < text.size()) {
        const std::size_t n = std::min(sizes[k++ % sizes.size()], text.size() - at);
        if (v.feed(text.substr(at, n)) == StreamState::kInvalid) return StreamState::kInvalid;
        at += n;
    }
    return v.finish();
}

struct Counts {
    int documents = 0, early = 0, uncompiled = 0;
};

void run_folder(const fs::path& root, const std::string& folder, Draft draft, Counts& counts) {
    std::mt19937 rng(11);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / "tests" / folder))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
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
            std::optional<json::schema::Schema> schema;
            try {
                schema = json::schema::compile(*group.find("schema"), options);
            } catch (const json::schema::SchemaError&) {
                ++counts.uncompiled;  // schema_suite_test owns these (its skip list)
                continue;
            }
            for (const json::Value& test : group.find("tests")->items()) {
                SCOPED_TRACE(std::string(test.find("description")->as_string()));
                std::string text;
                json::Writer w(text);
                ASSERT_TRUE(w.write_value(*test.find("data")).is_ok());
                base::Arena doc_arena;
                auto doc = json::parse(text, doc_arena, deep());
                ASSERT_TRUE(doc.is_ok()) << text;
                const bool expected = schema->validate(**doc);
                std::vector<std::vector<std::size_t>> splits = {{text.size() + 1}, {1}, {1 + rng() % 5, 1 + rng() % 9}};
                for (const auto& sizes : splits) {
                    StreamValidator v(*group.find("schema"), *schema, deep());
                    const StreamState st = run(v, text, sizes);
                    EXPECT_EQ(st == StreamState::kComplete, expected)
                        << text << ": " << v.failure().keyword << " at " << v.failure().pointer << ": "
                        << v.failure().message;
                    if (st == StreamState::kInvalid && v.failure().offset < text.size() && sizes[0] == 1)
                        ++counts.early;
                }
                ++counts.documents;
            }
        }
    }
}

class StreamValidatorSuite : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = test_data_dir() / "json-schema-test-suite";
        if (!fs::is_directory(root_ / "tests"))
            GTEST_SKIP() << "JSON-Schema-Test-Suite not found at " << root_ << " (set SLIPSTREAM_TEST_DATA)";
    }
    fs::path root_;
};

TEST_F(StreamValidatorSuite, Draft2020VerdictsMatchTheWholeDocumentValidatorInEverySplit) {
    Counts c;
    run_folder(root_, "draft2020-12", Draft::kDraft2020_12, c);
    std::printf("[stream] draft2020-12: %d documents, %d rejected before their last byte, %d schemas not compiled\n",
                c.documents, c.early, c.uncompiled);
    EXPECT_GT(c.documents, 1000);
    EXPECT_GT(c.early, 100);
}

TEST_F(StreamValidatorSuite, Draft7VerdictsMatchTheWholeDocumentValidatorInEverySplit) {
    Counts c;
    run_folder(root_, "draft7", Draft::kDraft7, c);
    std::printf("[stream] draft7: %d documents, %d rejected before their last byte, %d schemas not compiled\n",
                c.documents, c.early, c.uncompiled);
    EXPECT_GT(c.documents, 700);
}

struct Compiled {
    base::Arena arena;
    const json::Value* doc = nullptr;
    json::schema::Schema schema;
    explicit Compiled(std::string_view text) {
        doc = *json::parse(text, arena);
        schema = json::schema::compile(*doc);
    }
};

const char* const kPerson = R"({"type":"object","required":["name","kind"],"additionalProperties":false,
  "properties":{"name":{"type":"string","maxLength":5},"kind":{"enum":["cat","dog"]},
  "tags":{"type":"array","maxItems":2,"items":{"type":"integer"}}}})";

struct Early {
    const char* text;
    std::size_t offset;
    const char* keyword;
    const char* pointer;
};

TEST(StreamValidatorTest, RejectsAtTheByteThatProvesIt) {
    Compiled c(kPerson);
    const Early cases[] = {
        {R"([1])", 0, "type", ""},
        {R"({"name":"abcdef"})", 14, "maxLength", "/name"},
        {R"({"name":"a","kind":"cow"})", 21, "enum", "/kind"},
        {R"({"name":"a","kind":"ca"})", 22, "enum", "/kind"},
        {R"({"name":"a","kind":3})", 19, "enum", "/kind"},
        {R"({"name":"a","age":3})", 13, "additionalProperties", "/a"},
        {R"({"name":"a","tags":[1,2,3]})", 23, "maxItems", "/tags/2"},
        {R"({"name":"a","tags":[1.5]})", 23, "type", "/tags/0"},
        {R"({"name":"a"})", 11, "required", ""},
    };
    for (const Early& e : cases) {
        SCOPED_TRACE(e.text);
        StreamValidator v(*c.doc, c.schema);
        EXPECT_EQ(run(v, e.text, {1}), StreamState::kInvalid);
        EXPECT_EQ(v.failure().offset, e.offset);
        EXPECT_EQ(v.failure().keyword, e.keyword);
        EXPECT_EQ(v.failure().pointer, e.pointer);
    }
    StreamValidator ok(*c.doc, c.schema);
    EXPECT_EQ(run(ok, R"({"name":"Tom","kind":"cat","tags":[1,2]})", {3}), StreamState::kComplete);
}

TEST(StreamValidatorTest, AnyOfBranchesAndRefsAreFollowed) {
    // pydantic's `items: list[Item] | None` and `mode: Literal["a"] | int`.
    Compiled c(R"({"type":"object","properties":{
        "items":{"anyOf":[{"type":"array","items":{"$ref":"#/$defs/Item"}},{"type":"null"}]},
        "mode":{"anyOf":[{"const":"auto"},{"type":"integer"}]}},
      "$defs":{"Item":{"type":"object","required":["qty"],"properties":{"qty":{"type":"integer"}},
                        "additionalProperties":false}}})");
    const Early cases[] = {
        {R"({"items":[{"qty":"2"}]})", 17, "type", "/items/0/qty"},
        {R"({"items":[{"qty":2,"x":1}]})", 20, "additionalProperties", "/items/0/x"},
        {R"({"items":[{}]})", 11, "required", "/items/0"},
        {R"({"items":"none"})", 9, "type", "/items"},
        {R"({"mode":"manual"})", 9, "const", "/mode"},
        {R"({"mode":1.5})", 11, "type", "/mode"},
    };
    for (const Early& e : cases) {
        SCOPED_TRACE(e.text);
        StreamValidator v(*c.doc, c.schema);
        EXPECT_EQ(run(v, e.text, {1}), StreamState::kInvalid);
        EXPECT_EQ(v.failure().offset, e.offset);
        EXPECT_EQ(v.failure().keyword, e.keyword);
        EXPECT_EQ(v.failure().pointer, e.pointer);
    }
    for (const char* ok : {R"({"items":null,"mode":"auto"})", R"({"items":[{"qty":1}],"mode":7})"}) {
        StreamValidator v(*c.doc, c.schema);
        EXPECT_EQ(run(v, ok, {1}), StreamState::kComplete) << ok << ": " << v.failure().message;
    }
}

TEST(StreamValidatorTest, BytesAfterACompleteDocumentMakeItInvalid) {
    Compiled c(kPerson);
    StreamValidator v(*c.doc, c.schema);
    EXPECT_EQ(v.feed(R"({"name":"a","kind":"cat"})"), StreamState::kComplete);
    EXPECT_EQ(v.feed(" \n"), StreamState::kComplete);
    EXPECT_EQ(v.feed(R"(,"x")"), StreamState::kInvalid);
    EXPECT_EQ(v.failure().keyword, "json");
    EXPECT_EQ(v.failure().message, "Extra data");
    EXPECT_EQ(v.finish(), StreamState::kInvalid);
}

TEST(StreamValidatorTest, SnapshotsShowThePartialValue) {
    Compiled c(kPerson);
    StreamValidator v(*c.doc, c.schema);
    EXPECT_EQ(v.snapshot(), nullptr);
    EXPECT_EQ(v.feed(R"({"name":"To)"), StreamState::kPartial);
    std::vector<std::string> partial;
    std::string out;
    json::Writer w(out);
    ASSERT_TRUE(w.write_value(*v.snapshot(&partial)).is_ok());
    EXPECT_EQ(out, R"({"name":"To"})");
    EXPECT_EQ(partial, (std::vector<std::string>{"", "/name"}));
    EXPECT_EQ(v.feed(R"(m","tags":[1,)"), StreamState::kPartial);
    out.clear();
    json::Writer w2(out);
    ASSERT_TRUE(w2.write_value(*v.snapshot(&partial)).is_ok());
    EXPECT_EQ(out, R"({"name":"Tom","tags":[1]})");
    EXPECT_EQ(partial, (std::vector<std::string>{"", "/tags"}));
}

TEST(StreamValidatorTest, TheCompiledSchemaGivesTheFinalVerdict) {
    // A word boundary is outside the patterns checked while streaming: the whole value settles it.
    Compiled c(R"({"type":"object","properties":{"n":{"type":"string","pattern":"^a\\b"}}})");
    StreamValidator v(*c.doc, c.schema);
    EXPECT_EQ(run(v, R"({"n":"ab"})", {2}), StreamState::kInvalid);
    EXPECT_EQ(v.failure().keyword, "pattern");
    EXPECT_EQ(v.failure().pointer, "/n");
    EXPECT_EQ(v.failure().offset, 10u);
}

TEST(StreamValidatorTest, PatternsRefuseTheFirstCharacterNoCompletionMatches) {
    Compiled c(R"({"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}}})");
    const auto refused_at = [&](std::string_view text) {
        StreamValidator v(*c.doc, c.schema);
        for (std::size_t i = 0; i < text.size(); ++i) {  // byte by byte
            if (v.feed(text.substr(i, 1)) == StreamState::kInvalid) {
                EXPECT_EQ(v.failure().keyword, "pattern") << text;
                EXPECT_EQ(v.failure().pointer, "/code") << text;
                return static_cast<long>(v.failure().offset);
            }
        }
        return v.finish() == StreamState::kInvalid ? static_cast<long>(text.size()) : -1L;
    };
    EXPECT_EQ(refused_at(R"({"code":"ABC-1234"})"), -1);
    EXPECT_EQ(refused_at(R"({"code":"ABc-1234"})"), 11);     // the 'c'
    EXPECT_EQ(refused_at(R"({"code":"ABC-12345"})"), 17);    // the fifth digit
    EXPECT_EQ(refused_at(R"({"code":"ABC-123"})"), 16);      // the quote: the match is not finished
    EXPECT_EQ(refused_at(R"({"code":"AB\u0043-1"})"), 19);   // the escape is a 'C': refused at the quote
    EXPECT_EQ(refused_at(R"({"code":"AB\u00e9"})"), 15);     // the 'e': nothing in U+00E0-U+00EF is A-Z
    EXPECT_EQ(refused_at("{\"code\":\"AB\xc3\xa9\"}"), 11);  // the lead byte: nothing from U+0080 matches
    // With the length keywords: the shortest match must fit maxLength, the longest reach minLength.
    Compiled longest(R"({"type":"string","pattern":"^(?:ab|cdefgh)$","minLength":4})");
    Compiled shortest(R"({"type":"string","pattern":"^[a-z]+@x\\.io$","maxLength":8})");
    for (const auto& [schema, text, at] :
         std::vector<std::tuple<const Compiled*, std::string, std::size_t>>{{&longest, R"("ab)", 2},
                                                                            {&longest, R"("cdefgh")", 0},
                                                                            {&shortest, R"("abc@x.io")", 0},
                                                                            {&shortest, R"("abcd)", 4}}) {
        StreamValidator v(*schema->doc, schema->schema);
        const StreamState state = v.feed(text);
        if (at == 0) {
            EXPECT_NE(state, StreamState::kInvalid) << text;
        } else {
            EXPECT_EQ(state, StreamState::kInvalid) << text;
            EXPECT_EQ(v.failure().offset, at) << text;
        }
    }
    // Anchors and search: unanchored patterns match anywhere, so only a missing match at the end refuses.
    Compiled d(R"({"type":"string","pattern":"ab"})");
    StreamValidator w(*d.doc, d.schema);
    EXPECT_EQ(w.feed(R"("xxxa)"), StreamState::kPartial);
    EXPECT_EQ(w.feed(R"(b")"), StreamState::kComplete);
    StreamValidator x(*d.doc, d.schema);
    EXPECT_EQ(x.feed(R"("xxxa")"), StreamState::kInvalid);
}

TEST(StreamValidatorTest, IntegerBoundsAreCheckedWhenTheNumberEnds) {
    Compiled c(R"({"type":"object","properties":{"n":{"type":"integer","minimum":10,"multipleOf":4}}})");
    StreamValidator v(*c.doc, c.schema);
    EXPECT_EQ(run(v, R"({"n":3})", {2}), StreamState::kInvalid);
    EXPECT_EQ(v.failure().keyword, "minimum");
    EXPECT_EQ(v.failure().pointer, "/n");
    EXPECT_EQ(v.failure().offset, 6u);  // the byte that ends the number
    StreamValidator w(*c.doc, c.schema);
    EXPECT_EQ(run(w, R"({"n":14,"m":1})", {3}), StreamState::kInvalid);
    EXPECT_EQ(w.failure().keyword, "multipleOf");
    EXPECT_EQ(w.failure().offset, 7u);
    StreamValidator ok(*c.doc, c.schema);
    EXPECT_EQ(run(ok, R"({"n":12})", {3}), StreamState::kComplete);
}

}  // namespace
}  // namespace slipstream::agent::structured
