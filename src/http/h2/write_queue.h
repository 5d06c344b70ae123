// WriteQueue: the streams with response DATA ready to frame, served round robin.
#pragma once

#include "http/h2/stream.h"

namespace slipstream::http::h2::detail {

/// An intrusive FIFO through Stream::prev_writer / next_writer: no allocation, O(1) removal when a stream
/// closes. A stream is in it while it has body bytes to send and window to send them in.
class WriteQueue {
  public:
    bool empty() const { return head_ == nullptr; }
    void push_back(Stream& s) {
        if (s.writing) return;
        s.writing = true;
        s.prev_writer = tail_;
        s.next_writer = nullptr;
        if (tail_ != nullptr) {
            tail_->next_writer = &s;
        } else {
            head_ = &s;
        }
        tail_ = &s;
    }
    Stream& pop_front() {
        Stream& s = *head_;
        remove(s);
        return s;
    }
    void remove(Stream& s) {
        if (!s.writing) return;
        (s.prev_writer != nullptr ? s.prev_writer->next_writer : head_) = s.next_writer;
        (s.next_writer != nullptr ? s.next_writer->prev_writer : tail_) = s.prev_writer;
        s.prev_writer = s.next_writer = nullptr;
        s.writing = false;
    }
    void clear() {
        while (!empty())
            pop_front();
    }

  private:
    Stream* head_ = nullptr;
    Stream* tail_ = nullptr;
};

}  // namespace slipstream::http::h2::detail
