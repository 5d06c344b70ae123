// Validation of metric and label names at registration (control plane: throws std::invalid_argument).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace slipstream::metrics {

/// Throws std::invalid_argument unless `name` matches [a-zA-Z_:][a-zA-Z0-9_:]*.
void validate_metric_name(std::string_view name);

/// Throws std::invalid_argument unless every label name matches [a-zA-Z_][a-zA-Z0-9_]*, does not start
/// with "__" (reserved), is not "le" for a histogram, and appears once. `metric` is named in the message.
void validate_label_names(std::string_view metric, const std::vector<std::string>& label_names, bool histogram);

}  // namespace slipstream::metrics
