// evaluate_candidate(), report_members(), gate_reasons().
#include "agent/decide/evaluation_report.h"

#include "agent/decide/decide_json.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

void interval(json::Writer& w, std::string_view name, const Interval& i) {
    w.key(name);
    w.begin_object();
    for (auto [key, value] : {std::pair{"estimate", i.estimate}, {"low", i.low}, {"high", i.high}}) {
        w.key(key);
        if (!w.number(value).is_ok()) w.null();
    }
    w.end_object();
}

void policy(json::Writer& w, std::string_view name, const PolicyEvaluation& p) {
    w.key(name);
    w.begin_object();
    w.key("samples");
    w.uint64(p.estimates.samples);
    w.key("skipped");
    w.uint64(p.skipped);
    w.key("effectiveSamples");
    if (!w.number(p.estimates.effective_samples).is_ok()) w.null();
    interval(w, "ips", p.estimates.ips);
    interval(w, "snips", p.estimates.snips);
    interval(w, "dm", p.estimates.dm);
    interval(w, "dr", p.estimates.dr);
    w.end_object();
}

}  // namespace

EvaluationReport evaluate_candidate(const std::shared_ptr<const CapsuleSpec>& candidate,
                                    const std::shared_ptr<const CapsuleSpec>& current, const SpecLimits& limits,
                                    const std::vector<LoggedDecision>& log, std::size_t resamples, std::uint64_t seed) {
    EvaluationReport r;
    r.logged = log.size();
    r.resamples = resamples;
    r.candidate = evaluate_policy(candidate, limits, log, resamples, seed);
    r.current = evaluate_policy(current, limits, log, resamples, seed);
    return r;
}

std::string report_members(const EvaluationReport& report, std::optional<std::int64_t> spec_version) {
    std::string out;
    json::Writer w(out);
    w.key("logged");
    w.uint64(report.logged);
    if (spec_version) {
        w.key("specVersion");
        w.int64(*spec_version);
    }
    w.key("resamples");
    w.uint64(report.resamples);
    w.key("confidence");
    if (!w.number(0.95).is_ok()) w.null();
    interval(w, "logging", report.candidate.estimates.logging);
    policy(w, "candidate", report.candidate);
    policy(w, "current", report.current);
    return out;
}

std::vector<std::string> gate_reasons(const EvaluationReport& report, std::size_t min_samples) {
    std::vector<std::string> reasons;
    const std::size_t n = report.candidate.estimates.samples;
    if (n < min_samples)
        reasons.push_back("only " + std::to_string(n) + " logged decisions; the gate needs " +
                          std::to_string(min_samples));
    const double low = report.candidate.estimates.dr.low;
    const double current = report.current.estimates.dr.estimate;
    if (!(low > current)) {
        std::string text;
        append_number(text, low);
        text += " is not above the current policy's DR estimate ";
        append_number(text, current);
        reasons.push_back("the candidate's DR lower bound " + text);
    }
    return reasons;
}

}  // namespace slipstream::agent::decide
