// slipstream-decide: the decision service's command-line tools. `replay` runs the off-policy evaluation and the
// promotion gate of POST .../promote over an exported decision log, for CI: exit 0 when the gate holds, 1 when it
// does not, 2 on bad input.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "agent/decide/decide_replay.h"

namespace {

using slipstream::agent::decide::ReplayOptions;

constexpr const char* kUsage =
    "usage: slipstream-decide replay --spec FILE [--candidate FILE] [--log FILE ...] [options]\n"
    "\n"
    "Judges a candidate spec against the current one on an exported decision log, with the estimators and the gate\n"
    "of POST .../promote. Prints the evaluation as JSON; exits 0 when the gate holds, 1 when it does not, 2 on bad\n"
    "input.\n"
    "\n"
    "  --spec FILE           the current spec (JSON or YAML; or GET .../spec's answer)\n"
    "  --candidate FILE      an RFC 7396 merge patch onto it (JSON or YAML); absent: the current spec itself\n"
    "  --log FILE            exported lines (GET .../decisions?format=jsonl, every page); '-' or none: stdin\n"
    "  --min-samples N       the gate's sample floor (default 100)\n"
    "  --resamples N         bootstrap resamples (default 200, at most 100000)\n"
    "  --seed N              the bootstrap's seed (default 1)\n"
    "  --max-decisions N     closed decisions read at most (default 1000000)\n"
    "  --no-gate             exit 0 whatever the gate says (report only)\n";

bool read_file(const std::string& path, std::string& out) {
    if (path == "-") {
        std::ostringstream s;
        s << std::cin.rdbuf();
        out += s.str();
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    out += s.str();
    if (!out.empty() && out.back() != '\n') out += '\n';
    return true;
}

bool number(const char* text, std::size_t max, std::size_t& out) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || v > max || text[0] == '-') return false;
    out = static_cast<std::size_t>(v);
    return true;
}

int fail(const std::string& message) {
    std::fprintf(stderr, "slipstream-decide replay: %s\n", message.c_str());
    return 2;
}

int replay(int argc, char** argv) {
    std::string spec_path, candidate_path;
    std::vector<std::string> logs;
    ReplayOptions options;
    bool gate = true;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        std::size_t n = 0;
        if (arg == "--spec" && (v = value())) {
            spec_path = v;
        } else if (arg == "--candidate" && (v = value())) {
            candidate_path = v;
        } else if (arg == "--log" && (v = value())) {
            logs.emplace_back(v);
        } else if (arg == "--min-samples" && (v = value()) && number(v, 1'000'000'000, n)) {
            options.min_samples = n;
        } else if (arg == "--resamples" && (v = value()) && number(v, 100'000, n)) {
            options.resamples = n;
        } else if (arg == "--seed" && (v = value()) && number(v, SIZE_MAX, n)) {
            options.seed = n;
        } else if (arg == "--max-decisions" && (v = value()) && number(v, 100'000'000, n) && n > 0) {
            options.max_decisions = n;
        } else if (arg == "--no-gate") {
            gate = false;
        } else if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else {
            std::fputs(kUsage, stderr);
            return fail("bad or incomplete argument \"" + arg + "\"");
        }
    }
    if (spec_path.empty()) {
        std::fputs(kUsage, stderr);
        return fail("--spec is required");
    }
    std::string spec_text, candidate, log;
    if (!read_file(spec_path, spec_text)) return fail("cannot read " + spec_path);
    if (!candidate_path.empty() && !read_file(candidate_path, candidate)) return fail("cannot read " + candidate_path);
    if (logs.empty()) logs.emplace_back("-");
    for (const std::string& path : logs)
        if (!read_file(path, log)) return fail("cannot read " + path);
    auto spec = slipstream::agent::decide::read_spec_document(spec_text);
    if (!spec.is_ok()) return fail(spec_path + ": " + spec.status().message());
    auto outcome = slipstream::agent::decide::replay_log(*spec, candidate, log, options);
    if (!outcome.is_ok()) return fail(outcome.status().message());
    std::printf("%s\n", outcome->report_json.c_str());
    for (const std::string& reason : outcome->reasons)
        std::fprintf(stderr, "gate: %s\n", reason.c_str());
    return gate && !outcome->reasons.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string(argv[1]) == "replay") return replay(argc - 2, argv + 2);
    std::fputs(kUsage,
               argc >= 2 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") ? stdout : stderr);
    return argc >= 2 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") ? 0 : 2;
}
