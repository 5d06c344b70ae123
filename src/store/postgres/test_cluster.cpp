// TestCluster: initdb / pg_ctl through the shell, as an unprivileged user when run as root.
#include "store/postgres/test_cluster.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace slipstream::store::postgres {

namespace {

std::string run_capture(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return out;
    char buf[256];
    while (fgets(buf, sizeof buf, p) != nullptr)
        out += buf;
    pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    return out;
}

bool executable(const std::string& path) {
    return access(path.c_str(), X_OK) == 0;
}

std::string tail_of(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

}  // namespace

std::string TestCluster::find_bindir() {
    if (const char* forced = std::getenv("SLIPSTREAM_TEST_PG_BINDIR")) {
        std::string dir = forced;
        return executable(dir + "/initdb") && executable(dir + "/pg_ctl") ? dir : std::string();
    }
    std::string dir = run_capture("pg_config --bindir 2>/dev/null");
    if (!dir.empty() && executable(dir + "/initdb") && executable(dir + "/pg_ctl")) return dir;
    std::vector<std::string> found;
    if (DIR* d = opendir("/usr/lib/postgresql")) {
        while (dirent* e = readdir(d)) {
            std::string bin = std::string("/usr/lib/postgresql/") + e->d_name + "/bin";
            if (e->d_name[0] != '.' && executable(bin + "/initdb") && executable(bin + "/pg_ctl")) found.push_back(bin);
        }
        closedir(d);
    }
    std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
        return std::atoi(a.c_str() + 20) < std::atoi(b.c_str() + 20);  // by major version
    });
    return found.empty() ? std::string() : found.back();
}

TestCluster::~TestCluster() {
    if (running_) stop().ignore_error();
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
}

base::Status TestCluster::start() {
    bindir_ = find_bindir();
    if (bindir_.empty()) return base::Status::not_found("PostgreSQL server binaries (initdb, pg_ctl) not found");
    char tmpl[] = "/tmp/ss-pg-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return base::Status::from_errno("mkdtemp", errno);
    dir_ = tmpl;
    if (geteuid() == 0) {
        run_as_ = "runuser -u nobody -- ";
        if (std::system(("chown nobody '" + dir_ + "'").c_str()) != 0) {
            return base::Status::internal("chown nobody " + dir_ + " failed");
        }
    }
    chmod(dir_.c_str(), 0755);
    std::string initdb = run_as_ + "'" + bindir_ + "/initdb' -D '" + dir_ +
                         "/data' -U slipstream --auth=trust -N -E UTF8 --locale=C >'" + dir_ + "/initdb.log' 2>&1";
    if (std::system(initdb.c_str()) != 0) {
        return base::Status::internal("initdb failed: " + tail_of(dir_ + "/initdb.log"));
    }
    base::Status s = pg_ctl("start");
    if (s.is_ok()) running_ = true;
    return s;
}

base::Status TestCluster::pg_ctl(const std::string& action) {
    // Unix socket only (no TCP port to collide with), no fsync: a test cluster holds nothing worth keeping.
    std::string cmd = run_as_ + "'" + bindir_ + "/pg_ctl' -D '" + dir_ + "/data' -l '" + dir_ +
                      "/server.log' -w -t 30 " + (action == "start" ? "" : "-m fast ") + "-o \"-k " + dir_ +
                      " -c listen_addresses='' -p 5432 -c fsync=off -c full_page_writes=off\" " + action + " >>'" +
                      dir_ + "/pg_ctl.log' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
        return base::Status::internal("pg_ctl " + action + " failed: " + tail_of(dir_ + "/server.log"));
    }
    return base::Status::ok();
}

base::Status TestCluster::restart() {
    return pg_ctl("restart");
}

base::Status TestCluster::stop() {
    base::Status s = pg_ctl("stop");
    if (s.is_ok()) running_ = false;
    return s;
}

std::string TestCluster::conninfo() const {
    return "host=" + dir_ + " port=5432 user=slipstream dbname=postgres";
}

}  // namespace slipstream::store::postgres
