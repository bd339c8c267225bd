#include "base/asio_timer.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>

namespace vigil {

namespace {

namespace asio = boost::asio;

class AsioTimer final : public Timer {
 public:
  AsioTimer(asio::io_context& io, std::function<void()> on_fire)
      : timer_(io), on_fire_(std::move(on_fire)) {}

  void arm(TimePoint at) override {
    armed_ = true;
    const uint64_t seq = ++seq_;
    timer_.expires_at(at);
    // A completion already queued when the timer is re-armed or cancelled still runs, with
    // success: the sequence number tells it is stale. `alive` covers one queued at destruction.
    timer_.async_wait([this, seq, alive = std::weak_ptr<int>(alive_)](const auto&) {
      if (alive.expired() || seq != seq_) return;
      armed_ = false;
      on_fire_();
    });
  }

  void cancel() override {
    if (!armed_) return;
    armed_ = false;
    ++seq_;
    timer_.cancel();
  }

  bool armed() const override { return armed_; }

 private:
  asio::steady_timer timer_;
  std::function<void()> on_fire_;
  uint64_t seq_ = 0;
  bool armed_ = false;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace

std::unique_ptr<Timer> AsioTimerSource::create_timer(std::function<void()> on_fire) {
  return std::make_unique<AsioTimer>(io_, std::move(on_fire));
}

}  // namespace vigil
