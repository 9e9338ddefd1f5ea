#!/usr/bin/env bash
# Installs what gridvec builds and tests with, all from Debian's packages:
# CAF 0.17, Cap'n Proto 0.9, Boost, spdlog, Catch2, libedit (the shell's
# line editing and history), gensim (the tests load and score the vectors
# with the real gensim), tmux (the shell's test types into a terminal), npm
# (the quality tests build the reference word2vec.c from npm's package) and
# clang (scripts/fuzz builds the libFuzzer targets with it; libFuzzer's
# runtime is libclang-rt-dev, named too: apt may skip what clang only recommends),
# chromium (tests/e2e_dashboard.sh loads the HTTP dashboard in headless
# Chromium and checks its page), pybind11-dev, python3-dev and
# python3-numpy: the build makes the Python module (python/) only where
# pybind11 and Python's headers are found, and its test (tests/e2e_python.py)
# fails without them, so CI always builds and tests it; the module returns
# vectors and table rows as numpy arrays. python3-cryptography
# (tests/peer_probe.py speaks the nodes' handshake and AES-GCM records as a
# hostile peer would) and curl (tests/e2e_flood.sh measures the HTTP port
# during a flood).
set -euo pipefail
packages=(build-essential cmake pkg-config libcaf-dev libssl-dev capnproto libcapnp-dev libboost-dev
          libspdlog-dev zlib1g-dev libedit-dev catch2 python3 python3-gensim python3-cryptography curl time tmux
          clang libclang-rt-dev clang-format chromium pybind11-dev python3-dev python3-numpy)
# python3-sklearn: tests/e2e_lbfgs.sh and scripts/lbfgs-vs-sklearn check gridvec's
# L-BFGS against scikit-learn's LogisticRegression(solver="lbfgs") on the same data.
packages+=(python3-sklearn)
# systemd: tests/e2e_deploy.sh checks deploy/systemd's unit with systemd-analyze verify.
packages+=(systemd)
# ninja-build: scripts/build.sh and scripts/checked-build configure with Ninja
# where it is installed (scripts/cmake-generator).
packages+=(ninja-build)
# strace: tests/e2e_vocab_partitions.sh records every file a learner node
# opens, to show it never opens the vocabulary file (the join).
packages+=(strace)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm may come with a Node.js that is not Debian's (whose npm package then
# conflicts with it): only an npm that is missing altogether is installed.
command -v npm >/dev/null || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
