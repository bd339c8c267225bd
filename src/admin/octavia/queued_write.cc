#include "admin/octavia/queued_write.h"

#include <chrono>
#include <memory>
#include <string>

#include "admin/octavia/shared_store.h"
#include "admin/routes.h"

namespace vigil::admin {
namespace {

// A request kept whole until its turn: the connection's buffers are not the queue's.
struct KeptRequest {
  std::string method, target, x_auth_token, authorization, x_project_id, body, cookie, host, accept,
      origin, sec_fetch_site, source;

  explicit KeptRequest(const Request& r)
      : method(r.method),
        target(r.target),
        x_auth_token(r.x_auth_token),
        authorization(r.authorization),
        x_project_id(r.x_project_id),
        body(r.body),
        cookie(r.cookie),
        host(r.host),
        accept(r.accept),
        origin(r.origin),
        sec_fetch_site(r.sec_fetch_site),
        source(r.source) {}
  Request view() const {
    return {.method = method,
            .target = target,
            .x_auth_token = x_auth_token,
            .authorization = authorization,
            .x_project_id = x_project_id,
            .body = body,
            .cookie = cookie,
            .host = host,
            .accept = accept,
            .origin = origin,
            .sec_fetch_site = sec_fetch_site,
            .source = source};
  }
};

}  // namespace

Response queued_write(const Request& request, const RouteContext& ctx) {
  Response r;
  r.later = [kept = std::make_shared<KeptRequest>(request),
             ctx](std::function<void(Response)> send) {
    auto job = [kept, ctx, send](std::function<void()> done) {
      RouteContext turn = ctx;
      turn.in_turn = true;
      turn.now = std::chrono::system_clock::now();
      Response answer = route(kept->view(), turn);
      if (!answer.later) {
        send(std::move(answer));
        return done();
      }
      answer.later([send, done](Response ready) {
        send(std::move(ready));
        done();
      });
    };
    if (!ctx.shared->enqueue(std::move(job))) {
      send(fault(503, "too many writes wait for the store; try again"));
    }
  };
  return r;
}

}  // namespace vigil::admin
