#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of smc-ivshmem-server against the protocol of QEMU's
docs/specs/ivshmem-spec.rst, with clients of our own in the place of QEMU.

usage: ivshmem_server_test.py SERVER-BINARY

Each check prints "ok" or "FAIL ..." on a line; the exit status is 1 when any
failed. It checks: bad arguments refused; the messages a first and a second
client get, in the spec's order; that the region's descriptor is the file's
memory; that a peer's eventfd is the very one its owner reads (a doorbell
crosses); the notice when a client goes, and the next ID (not the freed one)
given to the next client; SIGTERM.
"""
import mmap
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

SIZE = 1 << 20
VECTORS = 2
failed = 0


def check(what, cond, detail=""):
    global failed
    if cond:
        print(f"ok {what}")
    else:
        failed += 1
        print(f"FAIL {what} {detail}")


class Client:
    """One connection, read the way QEMU reads it: 8 bytes at a time."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(path)

    def msg(self):
        """(value, fd or None); (None, None) at the end of the connection."""
        data, fds, _, _ = socket.recv_fds(self.sock, 8, 2)
        if not data:
            return None, None
        if len(data) != 8 or len(fds) > 1:
            raise RuntimeError(f"a message of {len(data)} bytes with {len(fds)} fds")
        return struct.unpack("<q", data)[0], (fds[0] if fds else None)

    def vectors(self):
        """VECTORS messages of one ID, each with an fd: (id, [fd...])."""
        got = [self.msg() for _ in range(VECTORS)]
        ids = {v for v, _ in got}
        if len(ids) != 1 or any(fd is None for _, fd in got):
            raise RuntimeError(f"not {VECTORS} messages of one ID with an fd each: {got}")
        return ids.pop(), [fd for _, fd in got]

    def nothing_pending(self):
        self.sock.settimeout(0.3)
        try:
            data = self.sock.recv(8, socket.MSG_PEEK)
            return False if data else True
        except (socket.timeout, BlockingIOError):
            return True
        finally:
            self.sock.settimeout(5)

    def close(self):
        self.sock.close()


def setup(c):
    """The first three messages: version, ID, region. Returns (id, shm fd)."""
    version, fd0 = c.msg()
    ident, fd1 = c.msg()
    minus1, shm = c.msg()
    ok = version == 0 and fd0 is None and fd1 is None and minus1 == -1 and shm is not None
    if not ok:
        raise RuntimeError(f"set-up messages {version} {fd0} {ident} {fd1} {minus1} {shm}")
    return ident, shm


def main():
    server = sys.argv[1]
    d = tempfile.mkdtemp(prefix="ivshmem-test.")
    sock_path, shm_path = os.path.join(d, "s"), os.path.join(d, "shm")

    for args, what in (([f"--size={SIZE + 1}"], "a size that is not a power of two"),
                       (["--size=1024"], "a size under 4096"),
                       ([f"--size={SIZE}", "--vectors=0"], "no vectors"),
                       ([f"--size={SIZE}", "--vectors=9"], "9 vectors")):
        r = subprocess.run([server, "--socket", sock_path, "--shm", shm_path, *args],
                           capture_output=True, text=True, timeout=10)
        check(f"refuses {what}", r.returncode == 2 and "please" in r.stderr,
              f"status {r.returncode}, stderr {r.stderr!r}")

    srv = subprocess.Popen([server, "--socket", sock_path, "--shm", shm_path,
                            f"--size={SIZE}", f"--vectors={VECTORS}"],
                           stderr=subprocess.PIPE, text=True)
    try:
        talk(srv, sock_path, shm_path)
    except (OSError, RuntimeError) as e:
        # A message missing (a timeout), out of order or malformed.
        check("the conversation went as the spec says", False, repr(e))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    print(f"{'FAILED' if failed else 'passed'}: {failed} check(s) failed")
    return 1 if failed else 0


def first_client(sock_path):
    """The first connection, within 5 s of the start. The server binds (the
    path appears) before it listens, and a connect in between is refused:
    the path alone does not say it listens (CI, 2026-12-03, under load)."""
    for _ in range(100):
        try:
            return Client(sock_path)
        except (FileNotFoundError, ConnectionRefusedError):
            time.sleep(0.05)
    return None


def talk(srv, sock_path, shm_path):
    a = first_client(sock_path)
    check("listens on its socket", a is not None)
    if a is None:
        raise RuntimeError("nothing accepted a connection on the socket within 5 s")
    a_id, a_shm = setup(a)
    check("the first client gets ID 0", a_id == 0, f"got {a_id}")
    own, a_fds = a.vectors()
    check("the first client gets its own vectors, nothing before them", own == 0)
    check("the region's descriptor is SIZE bytes", os.fstat(a_shm).st_size == SIZE)
    m = mmap.mmap(a_shm, SIZE)
    m[4096:4100] = b"SMCD"
    with open(shm_path, "rb") as f:
        f.seek(4096)
        check("the region's descriptor is the file's memory", f.read(4) == b"SMCD")

    b = Client(sock_path)
    b_id, b_shm = setup(b)
    check("the second client gets ID 1", b_id == 1, f"got {b_id}")
    peer, b_to_a = b.vectors()
    check("the second client first hears of the first, with its vectors", peer == 0)
    own, b_fds = b.vectors()
    check("then gets its own vectors", own == 1)
    peer, a_to_b = a.vectors()
    check("the first client hears of the second, with its vectors", peer == 1)
    mb = mmap.mmap(b_shm, SIZE)
    check("both clients map one region", mb[4096:4100] == b"SMCD")

    # A doorbell: B rings A's vector 1 through the fd the server gave it;
    # A's own fd for vector 1 has the count, vector 0's has none.
    os.write(b_to_a[1], struct.pack("=Q", 1))
    os.set_blocking(a_fds[0], False)
    os.set_blocking(a_fds[1], False)
    check("a peer's vector-1 eventfd is the one its owner reads",
          struct.unpack("=Q", os.read(a_fds[1], 8))[0] == 1)
    try:
        os.read(a_fds[0], 8)
        check("vector 0 is another eventfd", False)
    except BlockingIOError:
        check("vector 0 is another eventfd", True)
    check("nothing more is sent to either", a.nothing_pending() and b.nothing_pending())

    b.close()
    gone, fd = a.msg()
    check("a client's end is announced to the others, without an fd", gone == 1 and fd is None,
          f"got {gone} {fd}")
    c = Client(sock_path)
    c_id, _ = setup(c)
    # QEMU 7.2 corrupts its heap when an ID it was told is gone comes back.
    check("the freed ID is not given again: the next one is", c_id == 2, f"got {c_id}")

    srv.send_signal(signal.SIGTERM)
    try:
        rc = srv.wait(timeout=5)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = None
    log = srv.stderr.read()
    check("SIGTERM ends it with status 0", rc == 0, f"status {rc}")
    check("and it removes its socket", not os.path.exists(sock_path))
    check("its log names every connect and disconnect",
          all(s in log for s in ("peer 0 connected", "peer 1 connected", "peer 1 disconnected")),
          repr(log))
    a.close()
    c.close()


if __name__ == "__main__":
    sys.exit(main())
