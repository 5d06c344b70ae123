// The demo app: GET /hello and POST /echo (parse the JSON body, answer it re-serialized).
#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "app/help.h"
#include "app/load_config.h"
#include "base/log.h"
#include "slipstream/json.h"
#include "slipstream/slipstream.h"

int main(int argc, char** argv, char** envp) {
    namespace sa = slipstream::app;
    sa::Config cfg;
    try {
        cfg = sa::load_config(argc, argv, envp);
    } catch (const sa::ConfigError& e) {
        std::fprintf(stderr, "%s: %s\n%s", argv[0], e.what(), sa::usage_hint(argv[0]).c_str());
        return 2;
    }
    if (cfg.action == sa::ConfigAction::kHelp) {
        std::fputs(sa::help_text(argv[0]).c_str(), stdout);
        return 0;
    }
    if (cfg.action == sa::ConfigAction::kVersion) {
        std::fputs(sa::version_text(argv[0]).c_str(), stdout);
        return 0;
    }
    slipstream::base::set_log_level(cfg.run.log_level);
    if (cfg.run.access_log_path != "-") {
        int fd = ::open(cfg.run.access_log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            std::fprintf(stderr, "hello: cannot open %s: %s\n", cfg.run.access_log_path.c_str(), std::strerror(errno));
            return 1;
        }
        cfg.server.access_log_fd = fd;
    }
    slipstream::App app(cfg.server);

    app.get("/hello", [](slipstream::Request&) { return slipstream::Response::json(R"({"message":"hello"})"); });
    app.post("/echo", [](slipstream::Request& req) {
        std::string error;
        auto body = slipstream::json_reformat(req.body(), &error);
        if (!body) {
            slipstream::Response r(400);
            r.content_type = "application/problem+json";
            r.body = R"({"type":"about:blank","title":"Bad Request","status":400,"detail":)" +
                     slipstream::json_quote("invalid JSON body: " + error) + "}";
            return r;
        }
        return slipstream::Response::json(std::move(*body));
    });

    try {
        if (cfg.run.unix_path.empty()) {
            app.listen(cfg.run.host, cfg.run.port);
            bool v6 = cfg.run.host.find(':') != std::string::npos;
            std::printf("listening on %s%s%s:%u\n", v6 ? "[" : "", cfg.run.host.c_str(), v6 ? "]" : "", app.port());
        } else {
            app.listen_unix(cfg.run.unix_path);
            std::printf("listening on unix:%s\n", cfg.run.unix_path.c_str());
        }
        std::fflush(stdout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hello: %s\n", e.what());
        return 1;
    }
    return app.run();
}
