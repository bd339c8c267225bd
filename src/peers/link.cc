#include "peers/link.h"

#include <boost/asio/write.hpp>

namespace vigil::peers {

Link::Link(boost::asio::ip::tcp::socket socket, Handlers handlers)
    : socket_(std::move(socket)), handlers_(std::move(handlers)) {
  boost::system::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  remote_ = ec ? "?" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(boost::asio::ip::tcp::no_delay(true), ec);
}

void Link::start() { read(); }

void Link::read() {
  socket_.async_read_some(boost::asio::buffer(in_), [self = shared_from_this()](
                                                        boost::system::error_code ec, size_t n) {
    if (!self->open_) return;
    if (ec) return self->fail(ec == boost::asio::error::eof ? "closed by the peer" : ec.message());
    self->reader_.feed(std::span(self->in_.data(), n));
    for (;;) {
      auto frame = self->reader_.next();
      if (!frame) return self->fail("sent garbage: " + frame.error().message);
      if (!*frame) break;
      std::string why;
      if (!self->handlers_.on_frame(**frame, why)) return self->fail(why);
      if (!self->open_) return;  // the handler closed it
    }
    self->read();
  });
}

void Link::send(const std::vector<uint8_t>& bytes) {
  if (!open_ || bytes.empty()) return;
  if (queued_.size() + bytes.size() > kMaxQueued) {
    return fail("does not read what it is sent (over 16 MiB waiting)");
  }
  queued_.insert(queued_.end(), bytes.begin(), bytes.end());
  if (writing_.empty()) write();
}

void Link::write() {
  writing_.swap(queued_);
  queued_.clear();
  boost::asio::async_write(socket_, boost::asio::buffer(writing_),
                           [self = shared_from_this()](boost::system::error_code ec, size_t) {
                             if (!self->open_) return;
                             if (ec) return self->fail(ec.message());
                             self->writing_.clear();
                             if (!self->queued_.empty()) self->write();
                           });
}

void Link::fail(const std::string& why) {
  if (!open_) return;
  close();
  if (handlers_.on_closed) handlers_.on_closed(why);
}

void Link::close() {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ec;
  socket_.close(ec);
}

}  // namespace vigil::peers
