#include "cli/commands.h"

#include "cli/admin_call.h"

namespace vigil::cli {
namespace {

int print(const Result<std::string>& text, std::ostream& out, std::ostream& err) {
  if (!text) {
    err << text.error().message << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

}  // namespace

int run_members(const ClientOptions& options, std::optional<std::string> pool, bool json,
                std::ostream& out, std::ostream& err) {
  auto body = fetch_status(options);
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  return print(json ? format_members_json(*body, pool) : format_members_table(*body, pool), out,
               err);
}

int run_status(const ClientOptions& options, bool json, std::ostream& out, std::ostream& err) {
  auto body = fetch_status(options);
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  return print(json ? format_status_tree_json(*body) : format_status_tree(*body), out, err);
}

int run_upgrade(const ClientOptions& options, std::ostream& out, std::ostream& err) {
  auto body = post_json(options, "/v1/upgrade", "{}");
  if (!body) {
    err << body.error().message << "\n";
    return body.error().exit_code;
  }
  out << "upgrade started: " << *body << "\n"
      << "the old process stops accepting once the new one is ready (see vigil's log)\n";
  return 0;
}

}  // namespace vigil::cli
