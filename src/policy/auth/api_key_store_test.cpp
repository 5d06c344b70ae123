// ApiKeyStore: key file grammar, each refusal with its exact message, lookup, the in-memory list.
#include "policy/auth/api_key_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/auth/auth_config_error.h"
#include "policy/auth/test_tokens.h"

namespace slipstream::policy::auth {
namespace {

constexpr std::string_view kKeyA = "ak_test_0123456789abcdef";
constexpr std::string_view kKeyB = "ak_test_fedcba9876543210";

TEST(ApiKeyStoreTest, ParsesLinesCommentsBlanksCrlfAndTabs) {
    const std::string text =
        "# service keys\n"
        "\n"
        "alice ak_test_0123456789abcdef 100/s\r\n"
        "   # indented comment\n"
        "\tbob@example.com\t\tak_test_fedcba9876543210   \n"
        "svc.batch:worker-1 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ 5/m\n"
        "   \t  \n";
    const ApiKeyStore store = ApiKeyStore::parse(text, "keys.txt");
    EXPECT_EQ(store.size(), 3u);

    const ApiKeyEntry* a = store.find(kKeyA);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->principal, "alice");
    EXPECT_EQ(a->rate, "100/s");

    const ApiKeyEntry* b = store.find(kKeyB);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->principal, "bob@example.com");
    EXPECT_EQ(b->rate, "");

    const ApiKeyEntry* c = store.find("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->principal, "svc.batch:worker-1");
    EXPECT_EQ(c->rate, "5/m");
}

TEST(ApiKeyStoreTest, EmptyTextGivesEmptyStore) {
    EXPECT_EQ(ApiKeyStore::parse("", "keys.txt").size(), 0u);
    EXPECT_EQ(ApiKeyStore::parse("# nothing yet\n\n", "keys.txt").size(), 0u);
}

TEST(ApiKeyStoreTest, FindMatchesOnlyTheWholeKey) {
    const std::vector<ApiKey> keys = {{"alice", std::string(kKeyA), "10/s"}};
    const ApiKeyStore store(keys);
    struct Case {
        std::string presented;
        bool found;
    };
    const std::string a(kKeyA);
    const std::vector<Case> cases = {
        {a, true},
        {a.substr(0, a.size() - 1), false},        // prefix
        {a + "0", false},                          // extension
        {"S" + a.substr(1), false},                // case differs in the first byte
        {a.substr(0, a.size() - 1) + "e", false},  // last byte differs
        {"", false},
        {"short", false},
        {std::string(513, 'a'), false},
        {std::string(kKeyB), false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.presented);
        const ApiKeyEntry* e = store.find(c.presented);
        EXPECT_EQ(e != nullptr, c.found);
        if (e != nullptr) {
            EXPECT_EQ(e->principal, "alice");
        }
    }
}

TEST(ApiKeyStoreTest, KeyLengthBoundsAreInclusive) {
    const std::vector<ApiKey> keys = {{"min", std::string(16, 'k'), ""}, {"max", std::string(512, 'm'), ""}};
    const ApiKeyStore store(keys);
    ASSERT_NE(store.find(std::string(16, 'k')), nullptr);
    EXPECT_EQ(store.find(std::string(16, 'k'))->principal, "min");
    ASSERT_NE(store.find(std::string(512, 'm')), nullptr);
    EXPECT_EQ(store.find(std::string(512, 'm'))->principal, "max");
    // A 128-character principal and a 64-character rate are the longest accepted.
    const std::vector<ApiKey> longest = {{std::string(128, 'p'), std::string(kKeyA), std::string(64, 'r')}};
    EXPECT_EQ(ApiKeyStore(longest).find(kKeyA)->principal, std::string(128, 'p'));
}

struct BadFile {
    std::string text;
    std::string message;
};

TEST(ApiKeyStoreTest, RefusesEachBadLineWithFileLineAndReason) {
    const std::string k(kKeyA);
    const std::vector<BadFile> cases = {
        {"alice\n", "keys.txt:1: expected '<principal> <key> [<rate>]', found 1 field"},
        {"# c\n\nalice " + k + " 1/s extra\n", "keys.txt:3: expected '<principal> <key> [<rate>]', found 4 fields"},
        {"alice " + k + " # trailing comment\n", "keys.txt:1: expected '<principal> <key> [<rate>]', found 5 fields"},
        {"al!ce " + k + "\n", "keys.txt:1: principal has a character outside A-Z a-z 0-9 . _ @ : -"},
        {"al/ce " + k + "\n", "keys.txt:1: principal has a character outside A-Z a-z 0-9 . _ @ : -"},
        {"\xC3\xA9lise " + k + "\n", "keys.txt:1: principal has a character outside A-Z a-z 0-9 . _ @ : -"},
        {std::string(129, 'p') + " " + k + "\n", "keys.txt:1: principal is longer than 128 characters"},
        {"alice 0123456789abcde\n", "keys.txt:1: key is shorter than 16 characters"},
        {"alice " + std::string(513, 'k') + "\n", "keys.txt:1: key is longer than 512 characters"},
        {"alice 0123456789abcdef\x7f\n", "keys.txt:1: key has a character outside printable ASCII"},
        {"alice 0123456789abcdef\xC3\xA9\n", "keys.txt:1: key has a character outside printable ASCII"},
        {"alice 0123456789abcdef\r\r\n", "keys.txt:1: key has a character outside printable ASCII"},
        {"alice " + k + " 10/s\x01\n", "keys.txt:1: rate has a character outside printable ASCII"},
        {"alice " + k + " " + std::string(65, '1') + "\n", "keys.txt:1: rate is longer than 64 characters"},
        {"alice " + k + " #10/s\n", "keys.txt:1: rate starts with '#' (a comment takes a whole line)"},
        {"alice " + k + "\nbob " + std::string(kKeyB) + "\n# x\ncarol " + k + "\n",
         "keys.txt:4: duplicate key (same as line 1)"},
        {"alice " + k + "\r\n\r\nalice " + std::string(kKeyB) + "\r\n",
         "keys.txt:3: duplicate principal \"alice\" (same as line 1)"},
    };
    for (const BadFile& c : cases) {
        SCOPED_TRACE(c.text);
        const std::string error = testkit::config_error([&] { (void)ApiKeyStore::parse(c.text, "keys.txt"); });
        EXPECT_EQ(error, c.message);
        EXPECT_EQ(error.find(k), std::string::npos);  // a key never appears in a message
    }
}

TEST(ApiKeyStoreTest, LoadsFileAndNamesItInErrors) {
    const testkit::TempFile good("alice " + std::string(kKeyA) + " 100/s\n");
    const ApiKeyStore store = ApiKeyStore::load_file(good.path());
    ASSERT_NE(store.find(kKeyA), nullptr);
    EXPECT_EQ(store.find(kKeyA)->rate, "100/s");

    const testkit::TempFile bad("# keys\nalice short\n");
    try {
        (void)ApiKeyStore::load_file(bad.path());
        ADD_FAILURE() << "accepted";
    } catch (const AuthConfigError& e) {
        EXPECT_EQ(std::string(e.what()), bad.path() + ":2: key is shorter than 16 characters");
        EXPECT_EQ(e.location(), bad.path() + ":2");
        EXPECT_EQ(e.reason(), "key is shorter than 16 characters");
    }

    EXPECT_EQ(testkit::config_error([] { (void)ApiKeyStore::load_file("/nonexistent/slipstream/keys.txt"); }),
              "/nonexistent/slipstream/keys.txt: cannot read: No such file or directory");
}

TEST(ApiKeyStoreTest, ListConstructorValidatesLikeTheFile) {
    const std::string a(kKeyA), b(kKeyB);
    struct Case {
        std::vector<ApiKey> keys;
        std::string message;
    };
    const std::vector<Case> cases = {
        {{{"alice", a, ""}, {"bob", "tooshort", ""}}, "entry 2: key is shorter than 16 characters"},
        {{{"", a, ""}}, "entry 1: principal is empty"},
        {{{"al ice", a, ""}}, "entry 1: principal has a character outside A-Z a-z 0-9 . _ @ : -"},
        {{{"alice", a + " x", ""}}, "entry 1: key has a character outside printable ASCII"},
        {{{"alice", a, "1 /s"}}, "entry 1: rate has a character outside printable ASCII"},
        {{{"alice", a, ""}, {"bob", b, ""}, {"carol", a, ""}}, "entry 3: duplicate key (same as entry 1)"},
        {{{"alice", a, ""}, {"alice", b, ""}}, "entry 2: duplicate principal \"alice\" (same as entry 1)"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.message);
        EXPECT_EQ(testkit::config_error([&] { (void)ApiKeyStore(c.keys); }), c.message);
    }
    const std::vector<ApiKey> good = {{"alice", a, "1/s"}, {"bob", b, ""}};
    const ApiKeyStore store(good);
    EXPECT_EQ(store.size(), 2u);
    EXPECT_EQ(store.find(b)->principal, "bob");
}

TEST(ApiKeyStoreTest, MovedStoreKeepsItsEntries) {
    const std::vector<ApiKey> keys = {{"alice", std::string(kKeyA), "1/s"}};
    ApiKeyStore first(keys);
    const ApiKeyEntry* before = first.find(kKeyA);
    ApiKeyStore second(std::move(first));
    EXPECT_EQ(second.find(kKeyA), before);  // entries do not move: views handed out stay valid
    EXPECT_EQ(second.find(kKeyA)->principal, "alice");
}

}  // namespace
}  // namespace slipstream::policy::auth
