// SPDX-License-Identifier: GPL-2.0
/*
 * socket/transfer: data moved by the kernel between descriptors:
 * sendfile() from a file into the socket, splice() socket -> pipe -> socket,
 * and their edge cases. Every case is differential (diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "stream.h"
#include "tap.h"

#define FILE_SIZE (1024 * 1024 + 123)

/* A temporary file holding FILE_SIZE pattern bytes of seed; unlinked at once. */
static int pattern_file(uint64_t seed)
{
	const char *dir = getenv("TMPDIR");
	char path[256];
	static char buf[65536];
	int fd;

	snprintf(path, sizeof(path), "%s/sendfile-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = (int)ASSERT_SYS(mkstemp(path));
	unlink(path);
	for (size_t off = 0; off < FILE_SIZE; off += sizeof(buf)) {
		size_t n = FILE_SIZE - off < sizeof(buf) ? FILE_SIZE - off : sizeof(buf);

		pattern_fill(buf, n, seed, off);
		ASSERT_EQ(ASSERT_SYS(write(fd, buf, n)), n);
	}
	return fd;
}

/* The reader runs in a child so the sender may block on a full socket. */
static pid_t spawn_receiver(int fd, size_t n, uint64_t seed, uint64_t offset)
{
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		static char buf[65536];

		_exit(pattern_read(fd, seed, offset, n, buf, sizeof(buf)) == (int64_t)n ? 0 : 1);
	}
	return pid;
}

static int receiver_ok(pid_t pid)
{
	int status;

	ASSERT_SYS(waitpid(pid, &status, 0));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void observe_sendfile_case(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int file = pattern_file(41);
	off_t off = 0;
	size_t sent = 0;
	pid_t pid;

	diff_establish(f, &c);
	pid = spawn_receiver(c.server, FILE_SIZE, 41, 0);
	while (sent < FILE_SIZE) {
		ssize_t n = sendfile(c.client, file, &off, FILE_SIZE - sent);

		if (n <= 0) {
			OBS_RET(o, "sendfile", n);
			break;
		}
		sent += (size_t)n;
	}
	obs_int(o, "sent", (long long)sent);
	obs_int(o, "offset advanced", off == (off_t)sent);
	obs_int(o, "peer got the file", receiver_ok(pid));
	/* A range from the middle, with the file position left alone. */
	off = 1000;
	pid = spawn_receiver(c.server, 5000, 41, 1000);
	OBS_RET(o, "sendfile 5000 at 1000", sendfile(c.client, file, &off, 5000));
	obs_int(o, "offset", off);
	obs_int(o, "file position", lseek(file, 0, SEEK_CUR));
	obs_int(o, "peer got the range", receiver_ok(pid));
	/* Past the end: nothing to send. */
	off = FILE_SIZE;
	OBS_RET(o, "sendfile at EOF", sendfile(c.client, file, &off, 100));
	ASSERT_SYS(shutdown(c.client, SHUT_WR));
	OBS_RET(o, "sendfile after SHUT_WR", (off = 0, sendfile(c.client, file, &off, 100)));
	close(file);
	diff_conn_close(&c);
	obs_want(o, "sent", 1048699);
	obs_want(o, "peer got the file", 1);
	obs_want(o, "sendfile 5000 at 1000", 5000);
	obs_want(o, "offset", 6000);
	obs_want(o, "peer got the range", 1);
	obs_want(o, "sendfile at EOF", 0);
	obs_want(o, "sendfile after SHUT_WR errno", EPIPE);
}
DIFF_CASE(sendfile_case)

static void observe_sendfile_unconnected(const struct sf_family *f, struct obs *o)
{
	int file = pattern_file(42);
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	off_t off = 0;

	OBS_RET(o, "sendfile to an unconnected socket", sendfile(fd, file, &off, 100));
	OBS_RET(o, "sendfile from the socket", sendfile(file, fd, NULL, 100));
	close(fd);
	close(file);
	obs_want(o, "sendfile to an unconnected socket errno", EPIPE);
}
DIFF_CASE(sendfile_unconnected)

/* socket A's peer -> pipe -> socket B: a proxy with no user copy. */
static void observe_splice_proxy(const struct sf_family *f, struct obs *o)
{
	enum { LEN = 512 * 1024 };
	struct sf_conn in, out;
	int p[2];
	size_t moved = 0;
	pid_t pid, rx;

	diff_establish(f, &in);
	diff_establish(f, &out);
	ASSERT_SYS(pipe(p));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		static char buf[65536];

		if (pattern_write(in.client, 43, 0, LEN, buf, sizeof(buf)))
			_exit(1);
		shutdown(in.client, SHUT_WR);
		_exit(0);
	}
	rx = spawn_receiver(out.server, LEN, 43, 0);
	for (;;) {
		ssize_t n = splice(in.server, NULL, p[1], NULL, 65536, SPLICE_F_MOVE);

		if (n <= 0) {
			OBS_RET(o, "splice socket->pipe at the end", n);
			break;
		}
		while (n > 0) {
			ssize_t m = splice(p[0], NULL, out.client, NULL, (size_t)n, SPLICE_F_MOVE);

			if (m <= 0) {
				OBS_RET(o, "splice pipe->socket", m);
				goto done;
			}
			n -= m;
			moved += (size_t)m;
		}
	}
done:
	obs_int(o, "moved", (long long)moved);
	obs_int(o, "far end got the stream", receiver_ok(rx));
	obs_int(o, "writer ok", receiver_ok(pid));
	close(p[0]);
	close(p[1]);
	diff_conn_close(&in);
	diff_conn_close(&out);
	obs_want(o, "moved", 524288);
	obs_want(o, "far end got the stream", 1);
}
DIFF_CASE(splice_proxy)

static void observe_splice_edges(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int p[2], fd;

	diff_establish(f, &c);
	ASSERT_SYS(pipe(p));
	/* SPLICE_F_NONBLOCK is about the pipe: the socket's own O_NONBLOCK decides for it. */
	diff_set_nonblock(c.server, 1);
	OBS_RET(o, "splice from an empty O_NONBLOCK socket",
		splice(c.server, NULL, p[1], NULL, 100, SPLICE_F_NONBLOCK));
	diff_set_nonblock(c.server, 0);
	ASSERT_SYS(send(c.client, "0123456789", 10, 0));
	diff_wait_inq(c.server, 10);
	OBS_RET(o, "splice 4 of 10", splice(c.server, NULL, p[1], NULL, 4, 0));
	OBS_RET(o, "splice the rest", splice(c.server, NULL, p[1], NULL, 100, SPLICE_F_NONBLOCK));
	{
		char buf[16] = { 0 };

		OBS_RET(o, "read pipe", read(p[0], buf, sizeof(buf)));
		obs_int(o, "pipe holds the bytes", memcmp(buf, "0123456789", 10) == 0);
	}
	ASSERT_SYS(shutdown(c.client, SHUT_WR));
	OBS_RET(o, "splice at EOF", splice(c.server, NULL, p[1], NULL, 100, 0));
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC | SOCK_NONBLOCK));
	OBS_RET(o, "splice from an unconnected socket", splice(fd, NULL, p[1], NULL, 100, SPLICE_F_NONBLOCK));
	ASSERT_SYS(write(p[1], "x", 1));
	OBS_RET(o, "splice into an unconnected socket", splice(p[0], NULL, fd, NULL, 1, SPLICE_F_NONBLOCK));
	close(fd);
	close(p[0]);
	close(p[1]);
	diff_conn_close(&c);
	obs_want(o, "splice from an empty O_NONBLOCK socket errno", EAGAIN);
	obs_want(o, "splice 4 of 10", 4);
	obs_want(o, "pipe holds the bytes", 1);
	obs_want(o, "splice at EOF", 0);
	obs_want(o, "splice from an unconnected socket errno", ENOTCONN);
}
DIFF_CASE(splice_edges)

static const struct sf_case cases[] = {
	{ "sendfile() of a 1 MiB file and of a range; EOF; after SHUT_WR", sendfile_case, 0 },
	{ "sendfile() to and from an unconnected socket", sendfile_unconnected, 0 },
	{ "splice() socket -> pipe -> socket moves 512 KiB intact", splice_proxy, 0 },
	{ "splice() from an empty non-blocking socket, partial, at EOF, unconnected", splice_edges, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
