#!/usr/bin/env python3
"""A hostile or careless peer of a gridvec node, for tests/e2e_security.sh.

  peer_probe.py handshake PORT SECRET_FILE   prove the secret; prints "open"
                                             or "closed" (refused)
  peer_probe.py bigframe PORT SECRET_FILE    prove the secret, then send a
                                             CAF header announcing 4 GB;
                                             prints "closed" if the node hung up
  peer_probe.py idle PORT N                  open N connections that say
                                             nothing; prints how many the node
                                             closed at once

The handshake is src/net/auth_handshake.hpp's, written again from its
description: hello = "GVAUTH01" + 32-byte nonce, then proof =
HMAC-SHA256(secret, label + role + acceptor nonce + connector nonce).
"""
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

LABEL = b"gridvec cluster proof v1\0"


def read_exactly(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def handshake(port, secret_file):
    secret = bytes.fromhex(open(secret_file).read().strip())
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    nonce = os.urandom(32)
    s.sendall(b"GVAUTH01" + nonce)
    try:
        hello = read_exactly(s, 40)
    except ConnectionResetError:
        hello = None
    if hello is None or hello[:8] != b"GVAUTH01":
        return s, False
    theirs = hello[8:]
    mine = hmac.new(secret, LABEL + b"C" + theirs + nonce, hashlib.sha256).digest()
    try:
        s.sendall(mine)
        proof = read_exactly(s, 32)
    except (ConnectionResetError, BrokenPipeError):
        proof = None
    expected = hmac.new(secret, LABEL + b"A" + theirs + nonce, hashlib.sha256).digest()
    return s, proof is not None and hmac.compare_digest(proof, expected)


def closed_by_peer(s, seconds):
    s.settimeout(seconds)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except socket.timeout:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def main():
    what, port = sys.argv[1], int(sys.argv[2])
    if what == "handshake":
        s, ok = handshake(port, sys.argv[3])
        # A wrong proof: the node closes the connection right after.
        print("open" if ok and not closed_by_peer(s, 1) else "closed")
    elif what == "bigframe":
        s, ok = handshake(port, sys.argv[3])
        if not ok:
            print("handshake failed")
            return 1
        # CAF 0.17's BASP header: operation 1 (client handshake), padding,
        # flags, payload length 0xFFFFFFF0 (big-endian), then 24 bytes.
        s.sendall(struct.pack(">BBBBIQQQ", 1, 0, 0, 0, 0xFFFFFFF0, 0, 0, 0))
        print("closed" if closed_by_peer(s, 5) else "open")
    elif what == "idle":
        n = int(sys.argv[3])
        conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(n)]
        time.sleep(1)
        closed = 0
        for s in conns:
            s.setblocking(False)
            try:
                while True:
                    data = s.recv(65536)
                    if not data:
                        closed += 1
                        break
            except BlockingIOError:
                pass
            except (ConnectionResetError, BrokenPipeError):
                closed += 1
        print(closed)
        for s in conns:
            s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
