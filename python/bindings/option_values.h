// Option values read from the keyword dicts the Python wrappers pass to native services (slipstream.infer.Model,
// slipstream.decide.Decisions, slipstream.llm_upstream.Upstream): each check throws std::invalid_argument naming
// the key, which nanobind raises as ValueError.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace slipstream::python::option_values {

/// An int (never a bool) in [min, max].
inline std::int64_t integer(const nanobind::handle& value, const std::string& key, std::int64_t min, std::int64_t max) {
    if (!nanobind::isinstance<nanobind::int_>(value) || nanobind::isinstance<nanobind::bool_>(value))
        throw std::invalid_argument(key + " must be an integer");
    const std::int64_t v = nanobind::cast<std::int64_t>(value);
    if (v < min || v > max)
        throw std::invalid_argument(key + " must be between " + std::to_string(min) + " and " + std::to_string(max));
    return v;
}

/// A non-negative int in [min, max] (max up to 2^63 - 1).
inline std::uint64_t count(const nanobind::handle& value, const std::string& key, std::uint64_t min,
                           std::uint64_t max) {
    return static_cast<std::uint64_t>(
        integer(value, key, static_cast<std::int64_t>(min), static_cast<std::int64_t>(max)));
}

inline std::string text(const nanobind::handle& value, const std::string& key) {
    if (!nanobind::isinstance<nanobind::str>(value)) throw std::invalid_argument(key + " must be a string");
    return nanobind::cast<std::string>(value);
}

inline bool flag(const nanobind::handle& value, const std::string& key) {
    if (!nanobind::isinstance<nanobind::bool_>(value)) throw std::invalid_argument(key + " must be True or False");
    return nanobind::cast<bool>(value);
}

}  // namespace slipstream::python::option_values
