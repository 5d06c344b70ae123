// Tests for load_config(): precedence of flags > environment > config file > defaults, flag forms, errors.
#include "app/load_config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace slipstream::app {
namespace {

using Strings = std::vector<std::string>;

// A config file under the test temp dir, named after the running test so tests never share one.
std::string write_file(const std::string& tag, const std::string& text) {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    std::string path = testing::TempDir() + "/slipstream_app_" + info->name() + "_" + tag + ".conf";
    std::ofstream(path, std::ios::trunc) << text;
    return path;
}

std::string error_of(const Strings& args, const Strings& env = {}) {
    try {
        (void)load_config(args, env);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(LoadConfig, Precedence) {
    const std::string file = write_file("p", "port = 9001\nmax-body-bytes = 2m\nhost = file.host\n");
    struct Case {
        const char* what;
        bool use_file;
        Strings env;
        Strings args;
        int port;
        std::uint64_t body;
        const char* host;
    };
    const Case cases[] = {
        {"defaults", false, {}, {}, 8000, 1 << 20, "127.0.0.1"},
        {"file", true, {}, {}, 9001, 2 << 20, "file.host"},
        {"env over file", true, {"SLIPSTREAM_PORT=9002"}, {}, 9002, 2 << 20, "file.host"},
        {"flag over env", true, {"SLIPSTREAM_PORT=9002"}, {"--port", "9003"}, 9003, 2 << 20, "file.host"},
        {"flag over file", true, {}, {"--max-body-bytes=3m"}, 9001, 3 << 20, "file.host"},
        {"env over default", false, {"SLIPSTREAM_HOST=env.host"}, {}, 8000, 1 << 20, "env.host"},
        {"all three",
         true,
         {"SLIPSTREAM_HOST=env.host", "SLIPSTREAM_PORT=9002"},
         {"--host", "flag.host"},
         9002,
         2 << 20,
         "flag.host"},
        {"last flag wins", false, {}, {"--port", "1", "--port=2"}, 2, 1 << 20, "127.0.0.1"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        Strings args = c.args;
        if (c.use_file) args.insert(args.begin(), {"--config", file});
        Config config = load_config(args, c.env);
        EXPECT_EQ(config.run.port, c.port);
        EXPECT_EQ(config.server.max_body_bytes, c.body);
        EXPECT_EQ(config.run.host, c.host);
        EXPECT_EQ(config.config_path, c.use_file ? file : "");
        EXPECT_EQ(config.action, ConfigAction::kRun);
    }
}

TEST(LoadConfig, ConfigPathFromEnvAndFlagOverridesIt) {
    const std::string good = write_file("good", "port = 9100\n");
    const std::string bad = write_file("bad", "port = nope\n");
    Config from_env = load_config(Strings{}, Strings{"SLIPSTREAM_CONFIG=" + good});
    EXPECT_EQ(from_env.run.port, 9100);
    EXPECT_EQ(from_env.config_path, good);
    // The flag's file is the only one read: the env's broken file would throw.
    Config from_flag = load_config(Strings{"--config=" + good}, Strings{"SLIPSTREAM_CONFIG=" + bad});
    EXPECT_EQ(from_flag.run.port, 9100);
    EXPECT_EQ(from_flag.config_path, good);
    EXPECT_EQ(error_of({}, {"SLIPSTREAM_CONFIG=" + bad}), bad + ":1: port: invalid integer 'nope'");
}

TEST(LoadConfig, BoolForms) {
    struct Case {
        Strings args;
        Strings env;
        bool access_log;
    };
    const Case cases[] = {
        {{}, {}, true},
        {{"--no-access-log"}, {}, false},
        {{"--access-log=false"}, {}, false},
        {{"--access-log=0"}, {}, false},
        {{"--no-access-log", "--access-log"}, {}, true},
        {{"--access-log=true"}, {"SLIPSTREAM_ACCESS_LOG=off"}, true},
        {{}, {"SLIPSTREAM_ACCESS_LOG=off"}, false},
        {{}, {"SLIPSTREAM_ACCESS_LOG=no"}, false},
        {{"--access-log"}, {"SLIPSTREAM_ACCESS_LOG=false"}, true},
    };
    for (const auto& c : cases) {
        Config config = load_config(c.args, c.env);
        EXPECT_EQ(config.server.access_log, c.access_log) << testing::PrintToString(c.args);
    }
}

TEST(LoadConfig, ValueForms) {
    Config c = load_config(Strings{"--unix=", "--server-header", "--odd", "--header-timeout=250ms", "--unix", "/s"},
                           Strings{"SLIPSTREAM_SERVER_HEADER="});
    EXPECT_EQ(c.run.unix_path, "/s");
    EXPECT_EQ(c.server.server_header, "--odd");  // the next argument is always the value
    EXPECT_EQ(c.server.header_timeout_ms, 250u);
    Config empty = load_config(Strings{}, Strings{"SLIPSTREAM_SERVER_HEADER="});
    EXPECT_EQ(empty.server.server_header, "");
}

TEST(LoadConfig, Errors) {
    const std::string file = write_file("e", "max-body-bytes = 2q\n");
    const std::pair<std::pair<Strings, Strings>, std::string> cases[] = {
        {{{"--prot", "1"}, {}}, "unknown option '--prot'"},
        {{{"--port"}, {}}, "option '--port' needs a value"},
        {{{"--no-access-log=1"}, {}}, "option '--no-access-log' takes no value"},
        {{{"--no-port"}, {}}, "unknown option '--no-port'"},
        {{{"serve"}, {}}, "unexpected argument 'serve'"},
        {{{"--access-log", "maybe"}, {}}, "unexpected argument 'maybe'"},
        {{{"--"}, {}}, "unknown option '--'"},
        {{{"-p", "1"}, {}}, "unknown option '-p'"},
        {{{"--port", "abc"}, {}}, "--port: invalid integer 'abc'"},
        {{{"--port=70000"}, {}}, "--port: 70000 is out of range (0..65535)"},
        {{{}, {"SLIPSTREAM_PORT=x"}}, "SLIPSTREAM_PORT: invalid integer 'x'"},
        {{{}, {"SLIPSTREAM_MAX_BODY_BYTES=1kb"}},
         "SLIPSTREAM_MAX_BODY_BYTES: invalid size '1kb' (expected bytes with optional suffix k, m or g)"},
        {{{"--config", file}, {}},
         file + ":1: max-body-bytes: invalid size '2q' (expected bytes with optional suffix k, m or g)"},
        // The file is checked even when a flag overrides the bad key.
        {{{"--config", file, "--max-body-bytes=1m"}, {}},
         file + ":1: max-body-bytes: invalid size '2q' (expected bytes with optional suffix k, m or g)"},
    };
    for (const auto& [sources, error] : cases)
        EXPECT_EQ(error_of(sources.first, sources.second), error);
}

TEST(LoadConfig, HelpAndVersionStopTheParse) {
    // No value is parsed once help or version is asked for: the broken env and flag are never read.
    const Strings bad_env{"SLIPSTREAM_PORT=bad"};
    const std::pair<Strings, ConfigAction> cases[] = {
        {{"--help"}, ConfigAction::kHelp},
        {{"-h"}, ConfigAction::kHelp},
        {{"--port", "bad", "--help"}, ConfigAction::kHelp},
        {{"--version"}, ConfigAction::kVersion},
        {{"--version", "--help"}, ConfigAction::kVersion},
    };
    for (const auto& [args, action] : cases)
        EXPECT_EQ(load_config(args, bad_env).action, action) << testing::PrintToString(args);
    EXPECT_EQ(error_of({"--port", "1"}, bad_env), "SLIPSTREAM_PORT: invalid integer 'bad'");
}

TEST(LoadConfig, EnvironmentFiltering) {
    Config c = load_config(Strings{}, Strings{"PORT=1", "SLIPSTREAM_TEST_DATA=/d", "SLIPSTREAM_PORT=8123",
                                              "SLIPSTREAM_MAX_BODY=1", "slipstream_port=2", "SLIPSTREAM_BROKEN"});
    EXPECT_EQ(c.run.port, 8123);
    EXPECT_EQ(c.unknown_env, (Strings{"SLIPSTREAM_TEST_DATA", "SLIPSTREAM_MAX_BODY"}));
}

TEST(LoadConfig, ArgvAndEnvpArrays) {
    const char* argv[] = {"/usr/bin/hello", "--port", "8200", "--no-access-log", nullptr};
    const char* envp[] = {"HOME=/root", "SLIPSTREAM_LOG_LEVEL=warn", nullptr};
    Config c = load_config(4, argv, envp);
    EXPECT_EQ(c.run.port, 8200);
    EXPECT_FALSE(c.server.access_log);
    EXPECT_EQ(c.run.log_level, base::LogLevel::kWarn);
    Config no_env = load_config(1, argv, nullptr);
    EXPECT_EQ(no_env.run.port, 8000);
}

}  // namespace
}  // namespace slipstream::app
