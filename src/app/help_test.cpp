// Tests for --help (every option with its env name and default), --version and the usage hint.
#include "app/help.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::app {
namespace {

TEST(Help, ListsEveryOptionWithEnvAndDefault) {
    Registry registry = make_config_registry();
    std::string help = help_text("/usr/local/bin/hello", registry);
    for (const Option& o : registry.options()) {
        SCOPED_TRACE(o.name);
        std::string def = default_text(o);
        EXPECT_NE(help.find("env: " + o.env_name()), std::string::npos);
        EXPECT_NE(help.find("default: " + (def.empty() ? std::string("\"\"") : def)), std::string::npos);
        EXPECT_NE(help.find(o.help), std::string::npos);
        std::string flag = o.kind == OptionKind::kBool ? "--[no-]" + o.name : o.flag() + " ";
        EXPECT_NE(help.find("  " + flag), std::string::npos);
    }
    EXPECT_EQ(help.rfind("usage: hello [OPTIONS]\n", 0), 0u);
    EXPECT_NE(help.find("  -h, --help"), std::string::npos);
    EXPECT_NE(help.find("  --version"), std::string::npos);
}

TEST(Help, GroupsInOrderAndExactLines) {
    std::string help = help_text("hello");
    std::size_t at = 0;
    for (const char* title :
         {"\ngeneral:\n", "\nlisten:\n", "\nlimits:\n", "\ntimeouts:\n", "\nconnections:\n", "\nlogging:\n",
          "\nbuiltin routes:\n", "\ncompression and streaming:\n", "\ntls:\n", "\nhttp/2:\n", "\ncors:\n"}) {
        std::size_t next = help.find(title, at);
        ASSERT_NE(next, std::string::npos) << title;
        at = next;
    }
    const char* kLines[] = {
        "  --port PORT                         TCP port; 0 picks a free one\n"
        "                                      default: 8000, range: 0..65535, env: SLIPSTREAM_PORT\n",
        "  --max-body-bytes SIZE               largest request body; 413 past it\n"
        "                                      default: 1m, range: 0..64g, env: SLIPSTREAM_MAX_BODY_BYTES\n",
        "  --max-requests-per-connection N     then Connection: close\n",
        "  --log-level debug|info|warn|error|off\n"
        "                                      least severe message logged\n"
        "                                      default: info, env: SLIPSTREAM_LOG_LEVEL\n",
        "  --[no-]access-log                   write one line per request\n"
        "                                      default: true, env: SLIPSTREAM_ACCESS_LOG\n",
        "                                      default: \"\", env: SLIPSTREAM_CONFIG (not in a config file)\n",
        "                                      default: 10s, range: 1ms..24h, env: SLIPSTREAM_HEADER_TIMEOUT\n",
        "  --cors-max-age SECONDS              how long browsers may keep a preflight's answer\n"
        "                                      default: 600, range: 0..4294967295, env: SLIPSTREAM_CORS_MAX_AGE\n",
        "  --[no-]cors-allow-credentials       send Access-Control-Allow-Credentials: true (a '*' origin is then "
        "answered with the origin)\n",
    };
    for (const char* line : kLines)
        EXPECT_NE(help.find(line), std::string::npos) << line;
}

TEST(Help, VersionAndHint) {
    EXPECT_EQ(version_text("./build/hello"), "hello (slipstream " + std::string(slipstream_version()) + ")\n");
    EXPECT_FALSE(slipstream_version().empty());
    EXPECT_EQ(usage_hint("/x/hello"), "Try 'hello --help' for more information.\n");
}

}  // namespace
}  // namespace slipstream::app
