#!/usr/bin/env python3
"""A hostile or careless peer of a gridvec node, for tests/e2e_security.sh and
tests/e2e_flood.sh.

  peer_probe.py handshake PORT SECRET_FILE [node|client]
                                  prove the key; prints "open" or "closed"
  peer_probe.py reflect PORT SECRET_FILE
                                  send the node's own proof back as ours;
                                  prints "closed" if refused
  peer_probe.py bigframe PORT SECRET_FILE
                                  prove the secret, then send (sealed) a CAF
                                  header announcing 4 GB; prints "closed" if
                                  the node hung up
  peer_probe.py tamper PORT SECRET_FILE
                                  prove the secret, then send a record with
                                  one bit flipped; prints "closed" if refused
  peer_probe.py idle PORT N       open N connections that say nothing; prints
                                  how many the node closed at once
  peer_probe.py silent PORT       one connection that says nothing and nothing
                                  else happening: prints the seconds until the
                                  node closed it (the handshake deadline)
  peer_probe.py flood PORT N SECONDS ADDR...
                                  hold N idle connections from the ADDRs (in
                                  turn) for SECONDS, reopening none; prints
                                  "opened O closed C" at the end

The handshake is src/net/auth_handshake.hpp's and the records
src/net/session_cipher.hpp's, written again from their descriptions (the
python3-cryptography package does AES-GCM).
"""
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"GVAUTH02"
TRANSCRIPT = b"gridvec connection transcript v2\0"


def read_exactly(s, n):
    data = b""
    while len(data) < n:
        try:
            chunk = s.recv(n - len(data))
        except (ConnectionResetError, BrokenPipeError, socket.timeout):
            return None
        if not chunk:
            return None
        data += chunk
    return data


def endpoint(addr):
    return ("%s:%d" % (addr[0], addr[1])).encode()


class Session:
    """One connection as a connector: the handshake, then sealed records."""

    def __init__(self, port, secret_file, kind=b"N"):
        text = open(secret_file).read().strip()
        if text.startswith("client "):
            # A client key: all it can offer, whatever it claims to be.
            self.key = bytes.fromhex(text[len("client "):])
        else:
            secret = bytes.fromhex(text)
            self.key = secret if kind == b"N" else hmac.new(secret, b"gridvec client key v1", hashlib.sha256).digest()
        self.kind = kind
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.mine = os.urandom(32)
        self.theirs = None
        self.sent = 0

    def mac(self, label):
        text = label + b"\0" + TRANSCRIPT + self.kind + self.mine + self.theirs
        for e in (endpoint(self.s.getsockname()), endpoint(self.s.getpeername())):
            text += bytes([len(e)]) + e
        return hmac.new(self.key, text, hashlib.sha256).digest()

    def hello(self):
        """Sends our hello, reads the node's; returns (nonce, proof) or None."""
        self.s.sendall(MAGIC + self.kind + self.mine)
        reply = read_exactly(self.s, 96)  # banner (magic, 24 zeros), nonce, proof
        if reply is None or reply[:8] != MAGIC:
            return None
        self.theirs = reply[32:64]
        return reply[32:64], reply[64:96]

    def prove(self):
        got = self.hello()
        if got is None or not hmac.compare_digest(got[1], self.mac(b"acceptor proof")):
            return False
        self.s.sendall(self.mac(b"connector proof"))
        self.seal_key = self.mac(b"key connector to acceptor")
        return True

    def record(self, data):
        length = struct.pack(">I", len(data))
        nonce = b"\0" * 4 + struct.pack(">Q", self.sent)
        self.sent += 1
        return length + AESGCM(self.seal_key).encrypt(nonce, data, length)


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


def closed_now(s):
    s.setblocking(False)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def open_from(addr, port):
    s = socket.socket()
    s.bind((addr, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def main():
    what, port = sys.argv[1], int(sys.argv[2])
    if what == "handshake":
        kind = b"C" if len(sys.argv) > 4 and sys.argv[4] == "client" else b"N"
        p = Session(port, sys.argv[3], kind)
        ok = p.prove()
        # A wrong proof: the node closes the connection right after.
        print("open" if ok and not closed_by_peer(p.s, 1) else "closed")
    elif what == "reflect":
        p = Session(port, sys.argv[3])
        got = p.hello()
        if got is None:
            print("no hello")
            return 1
        p.s.sendall(got[1])  # the node's own proof, as if it were ours
        print("closed" if closed_by_peer(p.s, 3) else "open")
    elif what in ("bigframe", "tamper"):
        p = Session(port, sys.argv[3])
        if not p.prove():
            print("handshake failed")
            return 1
        # CAF 0.17's BASP header: operation 1 (client handshake), padding,
        # flags, payload length 0xFFFFFFF0 (big-endian), then 24 bytes.
        header = struct.pack(">BBBBIQQQ", 1, 0, 0, 0, 0xFFFFFFF0, 0, 0, 0)
        rec = bytearray(p.record(header))
        if what == "tamper":
            rec = bytearray(p.record(struct.pack(">BBBBIQQQ", 6, 0, 0, 0, 0, 0, 0, 0)))
            rec[6] ^= 1
        p.s.sendall(bytes(rec))
        print("closed" if closed_by_peer(p.s, 5) else "open")
    elif what == "idle":
        n = int(sys.argv[3])
        conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(n)]
        time.sleep(1)
        print(sum(1 for s in conns if closed_now(s)))
        for s in conns:
            s.close()
    elif what == "silent":
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        start = time.monotonic()
        closed = closed_by_peer(s, 30)
        print("%.1f" % (time.monotonic() - start) if closed else "never")
    elif what == "flood":
        n, seconds, addrs = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
        conns, failed = [], 0
        for i in range(n):
            try:
                conns.append(open_from(addrs[i % len(addrs)], port))
            except OSError:
                failed += 1
        print("flood: holding %d sockets (%d could not connect)" % (len(conns), failed), file=sys.stderr, flush=True)
        time.sleep(seconds)
        print("opened %d closed %d" % (len(conns), sum(1 for s in conns if closed_now(s))))
        for s in conns:
            s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
