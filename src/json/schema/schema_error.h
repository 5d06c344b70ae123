// SchemaError: the exception compile() throws for a malformed or unsupported schema.
#pragma once

#include <stdexcept>
#include <string>

namespace slipstream::json::schema {

/// Thrown by compile() (control plane only). `location()` is the absolute schema location of the
/// offending keyword ("#/properties/a/minLength", "http://x/y.json#/$defs/b/$ref"); what() is
/// "<location>: <reason>".
class SchemaError : public std::runtime_error {
  public:
    SchemaError(const std::string& location, const std::string& reason)
        : std::runtime_error(location + ": " + reason), location_(location), reason_(reason) {}

    const std::string& location() const { return location_; }
    const std::string& reason() const { return reason_; }

  private:
    std::string location_;
    std::string reason_;
};

}  // namespace slipstream::json::schema
