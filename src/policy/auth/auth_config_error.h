// AuthConfigError: the exception for a bad API key file line, key file or verifier setting.
#pragma once

#include <stdexcept>
#include <string>

namespace slipstream::policy::auth {

/// Thrown while building an ApiKeyStore, JwtVerifier or Authenticator (control plane only; verification
/// and lookup never throw). `location()` names the source: "keys.txt:7" (file and line), "entry 3"
/// (an in-memory key list, 1-based), "jwt.pem" (a key file), "JwtOptions" or "AuthenticatorConfig".
/// what() is "<location>: <reason>". No message ever contains a key or secret.
class AuthConfigError : public std::invalid_argument {
  public:
    AuthConfigError(const std::string& location, const std::string& reason)
        : std::invalid_argument(location + ": " + reason), location_(location), reason_(reason) {}

    const std::string& location() const { return location_; }
    const std::string& reason() const { return reason_; }

  private:
    std::string location_;
    std::string reason_;
};

}  // namespace slipstream::policy::auth
