// The demo app: GET /hello, POST /echo (parse the JSON body, answer it re-serialized), GET /delay/{ms}.
#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

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

    // An asynchronous handler: answers from another thread after `ms` milliseconds (at most 10 s).
    app.route_async("GET", "/delay/{ms:int}", [](slipstream::Request& req, slipstream::Responder responder) {
        long ms = std::strtol(std::string(*req.path_param("ms")).c_str(), nullptr, 10);
        if (ms < 0 || ms > 10'000) {
            responder.send(slipstream::Response::json(R"({"detail":"ms must be within 0..10000"})", 400));
            return;
        }
        std::thread([ms, r = std::move(responder)]() mutable {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            r.send(slipstream::Response::json(R"({"delayed_ms":)" + std::to_string(ms) + "}"));
        }).detach();
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
