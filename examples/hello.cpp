// The demo app: GET /hello and POST /echo (parse the JSON body, answer it re-serialized).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "slipstream/json.h"
#include "slipstream/slipstream.h"

namespace {

struct Flags {
    std::string host = "127.0.0.1";
    int port = 8000;
    std::string unix_path;
    slipstream::ServerOptions options;
};

[[noreturn]] void usage(const char* argv0, int code) {
    std::fprintf(code ? stderr : stdout,
                 "usage: %s [--host H] [--port P] [--unix PATH] [--threads N] [--max-body-bytes N]\n"
                 "serves GET /hello and POST /echo\n",
                 argv0);
    std::exit(code);
}

Flags parse_flags(int argc, char** argv) {
    Flags f;
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(argv[0], 2);
            return argv[++i];
        };
        if (arg == "--host") {
            f.host = value();
        } else if (arg == "--port") {
            f.port = std::atoi(value().c_str());
        } else if (arg == "--unix") {
            f.unix_path = value();
        } else if (arg == "--threads") {
            f.options.threads = static_cast<unsigned>(std::atoi(value().c_str()));
        } else if (arg == "--max-body-bytes") {
            f.options.max_body_bytes = std::strtoull(value().c_str(), nullptr, 10);
        } else if (arg == "--help" || arg == "-h") {
            usage(argv[0], 0);
        } else {
            usage(argv[0], 2);
        }
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    Flags flags = parse_flags(argc, argv);
    slipstream::App app(flags.options);

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
        if (flags.unix_path.empty()) {
            app.listen(flags.host, static_cast<std::uint16_t>(flags.port));
            bool v6 = flags.host.find(':') != std::string::npos;
            std::printf("listening on %s%s%s:%u\n", v6 ? "[" : "", flags.host.c_str(), v6 ? "]" : "", app.port());
        } else {
            app.listen_unix(flags.unix_path);
            std::printf("listening on unix:%s\n", flags.unix_path.c_str());
        }
        std::fflush(stdout);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hello: %s\n", e.what());
        return 1;
    }
    return app.run();
}
