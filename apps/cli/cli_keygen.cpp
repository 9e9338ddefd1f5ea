// gridvec keygen FILE: writes a new cluster secret (src/net/cluster_secret.hpp).
// gridvec keygen --http-token FILE: prints the HTTP API's bearer token
// derived from that secret (src/http/http_token.hpp, docs/http.md).
#include <cstdio>

#include "apps/cli/cli.hpp"
#include "src/http/http_token.hpp"
#include "src/net/cluster_secret.hpp"

namespace gridvec {

int cli_keygen(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::puts("usage: gridvec keygen FILE\n"
              "       gridvec keygen --http-token FILE\n"
              "Writes a new random cluster secret to FILE (mode 0600; an existing FILE is never\n"
              "replaced). Name it in the cluster config's [cluster] section (secret = FILE) and\n"
              "copy it, readable only by the nodes' user, to every machine of the cluster.\n"
              "--http-token prints the bearer token of the nodes' HTTP API (docs/http.md),\n"
              "which is derived from the secret in FILE and does not reveal it.");
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
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr, "gridvec keygen: usage: gridvec keygen FILE | gridvec keygen --http-token FILE\n");
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
