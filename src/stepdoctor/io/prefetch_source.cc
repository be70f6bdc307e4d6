#include "stepdoctor/io/prefetch_source.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace stepdoctor {
namespace {

class Prefetch final : public ByteSource {
 public:
  Prefetch(std::unique_ptr<ByteSource> inner, size_t chunk, int depth)
      : inner_(std::move(inner)), chunk_(chunk), depth_(depth) {
    worker_ = std::thread([this] { Produce(); });
  }
  ~Prefetch() override {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    while (cur_pos_ >= cur_.size()) {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return !ready_.empty() || done_; });
      if (ready_.empty()) {
        if (!error_.ok()) return Result<size_t>(error_);
        return size_t{0};
      }
      cur_ = std::move(ready_.front());
      ready_.pop_front();
      cur_pos_ = 0;
      cv_.notify_all();
    }
    size_t k = std::min(n, cur_.size() - cur_pos_);
    std::memcpy(buf, cur_.data() + cur_pos_, k);
    cur_pos_ += k;
    return k;
  }
  const std::string& name() const override { return inner_->name(); }
  uint64_t consumed() const override { return consumed_.load(); }
  uint64_t total() const override { return inner_->total(); }
  bool truncated() const override {
    std::lock_guard<std::mutex> l(mu_);
    return done_ && truncated_;
  }

 private:
  void Produce() {
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this] { return stop_ || int(ready_.size()) < depth_; });
        if (stop_) return;
      }
      std::string chunk(chunk_, '\0');
      size_t got = 0;
      Status err;
      while (got < chunk_) {
        auto r = inner_->Read(chunk.data() + got, chunk_ - got);
        if (!r.ok()) {
          err = r.status();
          break;
        }
        if (*r == 0) break;
        got += *r;
      }
      chunk.resize(got);
      consumed_.store(inner_->consumed());
      std::lock_guard<std::mutex> l(mu_);
      if (got > 0) ready_.push_back(std::move(chunk));
      if (got < chunk_ || !err.ok()) {
        error_ = err;
        truncated_ = inner_->truncated();
        done_ = true;
        cv_.notify_all();
        return;
      }
      cv_.notify_all();
    }
  }

  std::unique_ptr<ByteSource> inner_;
  const size_t chunk_;
  const int depth_;
  std::thread worker_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> ready_;
  bool done_ = false, stop_ = false, truncated_ = false;
  Status error_;
  std::string cur_;
  size_t cur_pos_ = 0;
  std::atomic<uint64_t> consumed_{0};
};

}  // namespace

std::unique_ptr<ByteSource> PrefetchSource(std::unique_ptr<ByteSource> inner, size_t chunk_bytes, int depth) {
  return std::make_unique<Prefetch>(std::move(inner), chunk_bytes, depth);
}

}  // namespace stepdoctor
