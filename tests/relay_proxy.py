#!/usr/bin/env python3
"""A relay on loopback, for tests/e2e_security.sh: what an outsider who can
accept a node's or client's connection (the port of a stopped node on a
shared host, a position on the path) would run to pass that connection's
handshake on to another node of the cluster.

  relay_proxy.py LISTEN_PORT TARGET_PORT SECONDS

Accepts connections on 127.0.0.1:LISTEN_PORT and forwards every byte, both
ways and unchanged, to and from a new connection to 127.0.0.1:TARGET_PORT.
Prints "listening" once ready and, on each line of stderr, what each relayed
connection carried; stops after SECONDS.
"""
import selectors
import socket
import sys
import time


def main():
    listen_port, target_port, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(16)
    server.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(server, selectors.EVENT_READ, None)
    peer_of, carried = {}, {}
    print("listening", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.2):
            if key.data is None:
                victim, _ = server.accept()
                onward = socket.create_connection(("127.0.0.1", target_port))
                for a, b in ((victim, onward), (onward, victim)):
                    a.setblocking(True)
                    peer_of[a] = b
                    carried[a] = 0
                    sel.register(a, selectors.EVENT_READ, "conn")
                continue
            s = key.fileobj
            if s not in peer_of:
                continue  # closed with its other half in this round
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                carried[s] += len(data)
                try:
                    peer_of[s].sendall(data)
                    continue
                except OSError:
                    pass
            other = peer_of.pop(s, None)
            print("relay: a connection closed after %d bytes one way" % carried.pop(s, 0), file=sys.stderr)
            sel.unregister(s)
            s.close()
            if other is not None and other in peer_of:
                peer_of.pop(other)
                carried.pop(other, None)
                sel.unregister(other)
                other.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
