// Disconnects: a mutex-guarded queue of ids and an eventfd written once per batch.
#include "disconnects.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace slipstream::python {

Disconnects::Disconnects() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

Disconnects::~Disconnects() {
    ::close(fd_);
}

void Disconnects::push(std::uint64_t id) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(id);
        wake = !notified_;
        notified_ = true;
    }
    if (wake) {
        std::uint64_t one = 1;
        (void)!::write(fd_, &one, sizeof one);
    }
}

std::vector<std::uint64_t> Disconnects::take() {
    std::uint64_t count = 0;
    (void)!::read(fd_, &count, sizeof count);
    std::vector<std::uint64_t> out;
    std::lock_guard<std::mutex> lock(mutex_);
    notified_ = false;
    out.swap(queue_);
    return out;
}

}  // namespace slipstream::python
