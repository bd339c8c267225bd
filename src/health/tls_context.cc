#include "health/tls_context.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <array>
#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <optional>

#include "health/local_failure.h"

namespace vigil::health {

namespace ssl = boost::asio::ssl;
using boost::system::error_code;
using FileTimes = std::array<std::optional<std::filesystem::file_time_type>, 3>;

struct TlsContexts::Entry {
  std::shared_ptr<ssl::context> context;
  FileTimes times;
};

namespace {

std::string key_of(const model::TlsCheck& tls) {
  return fmt::format("{}\n{}\n{}\n{}", tls.verify ? "verify" : "-", tls.ca_file, tls.client_cert,
                     tls.client_key);
}

FileTimes file_times(const model::TlsCheck& tls) {
  FileTimes out;
  const std::array<const std::string*, 3> files = {&tls.ca_file, &tls.client_cert, &tls.client_key};
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i]->empty()) continue;
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(*files[i], ec);
    if (!ec) out[i] = t;
  }
  return out;
}

using Failure = std::unexpected<TlsContextError>;

// OpenSSL reports a file it could not open as the first error of its queue (the one Asio
// keeps): a system error carrying errno, e.g. EMFILE when clients hold every descriptor.
bool local(const error_code& ec) {
  if (ec.category() == boost::system::system_category()) return is_local_errno(ec.value());
  const auto e = static_cast<unsigned long>(static_cast<uint32_t>(ec.value()));
  if (ERR_SYSTEM_ERROR(e)) return is_local_errno(static_cast<int>(ERR_GET_REASON(e)));
  return ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE;
}

Failure failure(std::string message, bool is_local = false) {
  return Failure(TlsContextError{.message = std::move(message), .local = is_local});
}

std::expected<void, TlsContextError> load_files(ssl::context& ctx, const model::TlsCheck& tls) {
  error_code ec;
  const auto failed = [&](std::string_view what, const std::string& file) {
    return failure(fmt::format("{} {}: {}", what, file, ec.message()), local(ec));
  };
  if (tls.verify) {
    if (!tls.ca_file.empty()) {
      if (ctx.load_verify_file(tls.ca_file, ec); ec) return failed("ca_file", tls.ca_file);
    } else if (ctx.set_default_verify_paths(ec); ec) {
      return failure("system CA store: " + ec.message(), local(ec));
    }
  }
  if (!tls.client_cert.empty()) {
    if (ctx.use_certificate_chain_file(tls.client_cert, ec); ec) {
      return failed("client_cert", tls.client_cert);
    }
    const std::string& key = tls.client_key.empty() ? tls.client_cert : tls.client_key;
    if (ctx.use_private_key_file(key, ssl::context::pem, ec); ec) return failed("client_key", key);
    if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
      return failure(
          fmt::format("client_key {} does not match client_cert {}", key, tls.client_cert));
    }
  }
  return {};
}

std::expected<std::shared_ptr<ssl::context>, TlsContextError> build(const model::TlsCheck& tls) {
  std::shared_ptr<ssl::context> ctx;
  try {
    ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  } catch (const std::exception& e) {  // SSL_CTX_new: out of memory
    return failure(fmt::format("cannot create a TLS context: {}", e.what()), true);
  }
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  // A kept check connection is idle between checks: without this, each holds OpenSSL's read and
  // write buffers all the time (3,000 HTTPS members: 322 MB RSS before, 283 after; bench/scale).
  SSL_CTX_set_mode(ctx->native_handle(), SSL_MODE_RELEASE_BUFFERS);
  error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression, ec);
  ctx->set_verify_mode(tls.verify ? ssl::verify_peer : ssl::verify_none, ec);
  if (auto loaded = load_files(*ctx, tls); !loaded) return std::unexpected(loaded.error());
  return ctx;
}

}  // namespace

TlsContexts::TlsContexts() = default;
TlsContexts::~TlsContexts() = default;

std::expected<std::shared_ptr<ssl::context>, TlsContextError> TlsContexts::get(
    const model::TlsCheck& tls) {
  const std::string key = key_of(tls);
  const FileTimes times = file_times(tls);
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second->times == times) return it->second->context;
  auto built = build(tls);
  if (!built) {
    if (it != entries_.end() && built.error().local) return it->second->context;
    if (it != entries_.end()) entries_.erase(it);
    return built;
  }
  entries_[key] = std::make_unique<Entry>(Entry{*built, times});
  return built;
}

}  // namespace vigil::health
