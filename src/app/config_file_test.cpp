// Tests for config-file parsing: accepted forms, and errors with file:line.
#include "app/config_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/config_error.h"

namespace slipstream::app {
namespace {

std::string error_of(const char* text) {
    try {
        (void)parse_config_text(text, "app.conf", make_config_registry());
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ConfigFile, AcceptedForms) {
    Registry registry = make_config_registry();
    auto got = parse_config_text(
        "# limits\n"
        "\n"
        "max-body-bytes = 2m\n"
        "  port=9000  \r\n"
        "server-header = \" my server \"\n"
        "unix = \"\"\n"
        "access-log = false\n"
        "host = 0.0.0.0 # not a comment\n"
        "\t# indented comment\n"
        "health-path = off",  // no final newline
        "app.conf", registry);
    struct Want {
        const char* name;
        const char* text;
        const char* where;
    };
    const Want want[] = {
        {"max-body-bytes", "2m", "app.conf:3: max-body-bytes"},
        {"port", "9000", "app.conf:4: port"},
        {"server-header", " my server ", "app.conf:5: server-header"},
        {"unix", "", "app.conf:6: unix"},
        {"access-log", "false", "app.conf:7: access-log"},
        {"host", "0.0.0.0 # not a comment", "app.conf:8: host"},
        {"health-path", "off", "app.conf:10: health-path"},
    };
    ASSERT_EQ(got.size(), std::size(want));
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].option, registry.find(want[i].name)) << i;
        EXPECT_EQ(got[i].text, want[i].text) << i;
        EXPECT_EQ(got[i].where, want[i].where) << i;
    }
}

TEST(ConfigFile, EmptyTextHasNoAssignments) {
    EXPECT_TRUE(parse_config_text("", "x", make_config_registry()).empty());
    EXPECT_TRUE(parse_config_text("# only\n\n   \n", "x", make_config_registry()).empty());
}

TEST(ConfigFile, ErrorsNameFileAndLine) {
    const std::pair<const char*, const char*> cases[] = {
        {"port = 1\nmax-body = 2m\n", "app.conf:2: unknown key 'max-body'"},
        {"--port = 1\n", "app.conf:1: unknown key '--port'"},
        {"max_body_bytes = 1\n", "app.conf:1: unknown key 'max_body_bytes'"},
        {"\n\nport 9000\n", "app.conf:3: expected 'key = value'"},
        {"[server]\n", "app.conf:1: expected 'key = value'"},
        {" = 5\n", "app.conf:1: expected 'key = value'"},
        {"port =\n", "app.conf:1: missing value for 'port' (write \"\" for an empty string)"},
        {"port = 1\n# x\nport = 2\n", "app.conf:3: duplicate key 'port' (first set on line 1)"},
        {"config = other.conf\n", "app.conf:1: 'config' cannot be set in a config file"},
        {"host = \"abc\n", "app.conf:1: bad quoted value \"abc (expected \"text\")"},
        {"host = \"a\"b\"\n", "app.conf:1: bad quoted value \"a\"b\" (expected \"text\")"},
        {"host = \"\n", "app.conf:1: bad quoted value \" (expected \"text\")"},
    };
    for (const auto& [text, error] : cases)
        EXPECT_EQ(error_of(text), error) << text;
}

TEST(ConfigFile, MissingFileIsAnError) {
    std::string path = testing::TempDir() + "/slipstream_app_no_such_file.conf";
    try {
        (void)read_config_file(path, make_config_registry());
        ADD_FAILURE() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot read config file '" + path + "': No such file or directory");
    }
}

TEST(ConfigFile, DirectoryIsAnError) {
    std::string path = testing::TempDir();
    try {
        (void)read_config_file(path, make_config_registry());
        ADD_FAILURE() << "no error";
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot read config file '" + path + "': Is a directory");
    }
}

}  // namespace
}  // namespace slipstream::app
