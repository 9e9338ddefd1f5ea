// gridvec keygen FILE: writes a new cluster secret (src/net/cluster_secret.hpp).
// gridvec keygen --http-token FILE: prints the HTTP API's bearer token
// derived from that secret (src/http/http_token.hpp, docs/http.md).
// gridvec keygen --client-key SECRET FILE: writes the client key derived
// from the secret (src/net/auth_handshake.hpp, docs/security.md).
#include <cstdio>

#include "apps/cli/cli.hpp"
#include "src/http/http_token.hpp"
#include "src/net/cluster_secret.hpp"

namespace gridvec {

int cli_keygen(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::puts("usage: gridvec keygen FILE\n"
              "       gridvec keygen --http-token FILE\n"
              "       gridvec keygen --client-key SECRET FILE\n"
              "Writes a new random cluster secret to FILE (mode 0600; an existing FILE is never\n"
              "replaced). Name it in the cluster config's [cluster] section (secret = FILE) and\n"
              "copy it, readable only by the nodes' user, to every machine of the cluster.\n"
              "--http-token prints the bearer token of the nodes' HTTP API (docs/http.md),\n"
              "which is derived from the secret in FILE and does not reveal it.\n"
              "--client-key writes to FILE (mode 0600) the client key derived from the secret in\n"
              "SECRET: what shells, submits and embedding applications need (--secret FILE, or\n"
              "secret = FILE in their config). It reaches the controller and the tables, never a\n"
              "node's internal actors, and does not reveal the secret.");
    return 0;
  }
  if (args.size() == 2 && args[0] == "--http-token") {
    auto secret = net::load_secret(args[1]);
    if (!secret) {
      std::fprintf(stderr, "gridvec keygen: %s\n", secret.error().c_str());
      return 1;
    }
    std::printf("%s\n", http::derive_token(*secret).c_str());
    return 0;
  }
  if (args.size() == 3 && args[0] == "--client-key") {
    if (auto ok = net::write_client_key(args[1], args[2]); !ok) {
      std::fprintf(stderr, "gridvec keygen: %s\n", ok.error().c_str());
      return 1;
    }
    std::printf("wrote the client key of %s to %s (mode 0600)\n", args[1].c_str(), args[2].c_str());
    return 0;
  }
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr, "gridvec keygen: usage: gridvec keygen FILE | gridvec keygen --http-token FILE | "
                         "gridvec keygen --client-key SECRET FILE\n");
    return 2;
  }
  if (auto ok = net::write_new_secret(args[0]); !ok) {
    std::fprintf(stderr, "gridvec keygen: %s\n", ok.error().c_str());
    return 1;
  }
  std::printf("wrote a new cluster secret to %s (mode 0600)\n", args[0].c_str());
  return 0;
}

} // namespace gridvec
