// serve_main(): configuration, access log, listeners and the run loop shared by every C++ application.
#include "app/serve_main.h"

#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/decide.h"
#include "app/help.h"
#include "app/llm_proxy.h"
#include "app/load_config.h"
#include "app/model.h"
#include "app/sessions.h"
#include "app/shared_state.h"
#include "base/log.h"
#include "base/log_line.h"

namespace slipstream::app {

namespace {

// The access log file descriptor: stdout for "-", else the file opened for appending. -1 on failure.
int open_access_log(const std::string& path) {
    if (path == "-") return 1;
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void listen_and_announce(slipstream::App& app, const RunSettings& run) {
    if (!run.unix_path.empty()) {
        app.listen_unix(run.unix_path);
        std::printf("listening on unix:%s\n", run.unix_path.c_str());
    } else {
        app.listen(run.host, run.port);
        bool v6 = run.host.find(':') != std::string::npos;
        std::printf("listening on %s%s%s:%u\n", v6 ? "[" : "", run.host.c_str(), v6 ? "]" : "", app.port());
    }
    std::fflush(stdout);
}

}  // namespace

int serve_main(int argc, char** argv, char** envp, const char* name, const RouteSetup& setup) {
    Config cfg;
    try {
        cfg = load_config(argc, argv, envp);
    } catch (const ConfigError& e) {
        std::fprintf(stderr, "%s: %s\n%s", name, e.what(), usage_hint(argv[0]).c_str());
        return 2;
    }
    if (cfg.action == ConfigAction::kHelp) {
        std::fputs(help_text(argv[0]).c_str(), stdout);
        return 0;
    }
    if (cfg.action == ConfigAction::kVersion) {
        std::fputs(version_text(argv[0]).c_str(), stdout);
        return 0;
    }
    base::set_log_level(cfg.run.log_level);
    if (base::LogFormat format; base::parse_log_format(cfg.run.log_format, &format)) base::set_log_format(format);
    if (cfg.server.access_log) {
        int fd = open_access_log(cfg.run.access_log_path);
        if (fd < 0) {
            std::fprintf(stderr, "%s: cannot open %s: %s\n", name, cfg.run.access_log_path.c_str(),
                         std::strerror(errno));
            return 1;
        }
        cfg.server.access_log_fd = fd;
    }
    try {
        base::Result<std::unique_ptr<SharedState>> shared = open_shared_state(cfg);
        if (!shared.is_ok()) {
            std::fprintf(stderr, "%s: %s\n", name, shared.status().message().c_str());
            return 1;
        }
        slipstream::App app(cfg.server);
        mount_shared_state(**shared, app);
        setup(app, cfg);
        base::Result<std::unique_ptr<Sessions>> sessions = open_sessions(cfg, app);
        if (!sessions.is_ok()) {
            std::fprintf(stderr, "%s: sessions: %s\n", name, sessions.status().message().c_str());
            return 1;
        }
        base::Result<std::unique_ptr<Decide>> decide = open_decide(cfg, app);
        if (!decide.is_ok()) {
            std::fprintf(stderr, "%s: decide: %s\n", name, decide.status().message().c_str());
            return 1;
        }
        auto model = open_model(cfg, app);
        if (!model.is_ok()) {
            std::fprintf(stderr, "%s: model: %s\n", name, model.status().message().c_str());
            return 1;
        }
        auto llm_proxy = open_llm_proxy(cfg, app);
        if (!llm_proxy.is_ok()) {
            std::fprintf(stderr, "%s: llm proxy: %s\n", name, llm_proxy.status().message().c_str());
            return 1;
        }
        listen_and_announce(app, cfg.run);
        return app.run();  // then the decision service and the sessions close (stores after sweepers), before the App
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", name, e.what());
        return 1;
    }
}

}  // namespace slipstream::app
