// Test support: a temporary folder for database files, removed with everything in it.
#pragma once

#include <stdlib.h>

#include <string>

namespace slipstream::store::sqlite::testing {

class TempDir {
  public:
    TempDir() {
        char tmpl[] = "/tmp/ss-sqlite-XXXXXX";
        path_ = mkdtemp(tmpl) != nullptr ? tmpl : "";
    }
    ~TempDir() {
        if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

}  // namespace slipstream::store::sqlite::testing
