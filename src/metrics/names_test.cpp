// Metric and label name validation: accepted names and the exact rejection messages.
#include "metrics/names.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace slipstream::metrics {
namespace {

std::string metric_error(const std::string& name) {
    try {
        validate_metric_name(name);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "ok";
}

std::string label_error(const std::vector<std::string>& names, bool histogram = false) {
    try {
        validate_label_names("m", names, histogram);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "ok";
}

TEST(NamesTest, MetricNames) {
    struct Case {
        std::string name;
        std::string error;
    };
    const Case cases[] = {
        {"slipstream_http_requests_total", "ok"},
        {"_x", "ok"},
        {":x:y", "ok"},
        {"a1", "ok"},
        {"", "metrics: metric name is empty"},
        {"1abc", "metrics: invalid metric name \"1abc\": '1' at position 0 (must match [a-zA-Z_:][a-zA-Z0-9_:]*)"},
        {"http-requests",
         "metrics: invalid metric name \"http-requests\": '-' at position 4 (must match [a-zA-Z_:][a-zA-Z0-9_:]*)"},
        {"a b", "metrics: invalid metric name \"a b\": byte 0x20 at position 1 (must match [a-zA-Z_:][a-zA-Z0-9_:]*)"},
        {"caf\xc3\xa9",
         "metrics: invalid metric name \"caf\xc3\xa9\": byte 0xc3 at position 3 (must match "
         "[a-zA-Z_:][a-zA-Z0-9_:]*)"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(metric_error(c.name), c.error) << c.name;
}

TEST(NamesTest, LabelNames) {
    struct Case {
        std::vector<std::string> names;
        bool histogram;
        std::string error;
    };
    const Case cases[] = {
        {{}, false, "ok"},
        {{"route", "method", "status"}, false, "ok"},
        {{"le"}, false, "ok"},
        {{"_private"}, false, "ok"},
        {{"le"}, true, "metrics: metric \"m\": label name \"le\" is reserved for histogram buckets"},
        {{"route", ""}, false, "metrics: metric \"m\": label name 1 is empty"},
        {{"a:b"},
         false,
         "metrics: metric \"m\": invalid label name \"a:b\": ':' at position 1 (must match [a-zA-Z_][a-zA-Z0-9_]*)"},
        {{"9"},
         false,
         "metrics: metric \"m\": invalid label name \"9\": '9' at position 0 (must match [a-zA-Z_][a-zA-Z0-9_]*)"},
        {{"__name__"}, false, "metrics: metric \"m\": label name \"__name__\" starts with \"__\", which is reserved"},
        {{"route", "method", "route"}, false, "metrics: metric \"m\": label name \"route\" appears twice"},
    };
    for (const Case& c : cases)
        EXPECT_EQ(label_error(c.names, c.histogram), c.error);
}

}  // namespace
}  // namespace slipstream::metrics
