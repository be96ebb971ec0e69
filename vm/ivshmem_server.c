// SPDX-License-Identifier: GPL-2.0
/*
 * smc-ivshmem-server: the host side of QEMU's ivshmem-doorbell device for
 * the VMs of one vm/run (Debian packages QEMU's device, not its server).
 *
 *   smc-ivshmem-server --socket PATH --shm FILE --size BYTES [--vectors N]
 *
 * It makes FILE BYTES long (a power of two, the size of every VM's BAR2),
 * listens on the UNIX socket PATH and speaks the protocol of QEMU's
 * docs/specs/ivshmem-spec.rst to every QEMU that connects. Each message is
 * one little-endian s64, some with a file descriptor (SCM_RIGHTS):
 *
 *   to a new client:  0 (protocol version); its ID; -1 with the region's fd;
 *                     for every other client, that client's ID N times, each
 *                     with one of its eventfds (to ring vector 0..N-1 there);
 *                     its own ID N times with its own eventfds (to be rung)
 *   to the others:    the new ID N times with its eventfds; later the ID
 *                     alone when that client has gone
 *
 * IDs count up from 0, as QEMU's own server gives them, skipping any still
 * in use and wrapping at 65536; at most MAX_PEERS clients at once. An ID
 * is never given back at once: QEMU 7.2's device corrupted its heap when
 * an ID it had been told was gone connected again (the other VM's QEMU
 * aborted in malloc_consolidate(), Documentation/decisions.md). The
 * eventfds go between the QEMUs directly; the server only hands them
 * out. It runs until SIGTERM or SIGINT, logs each connect and disconnect on
 * stderr, and removes PATH when it ends. FILE stays for the host to read.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_PEERS 16
#define MAX_VECTORS 8

#define MAX_ID 0xffff	/* IDs are 16 bits in the doorbell register */

/* A client, in a slot of peers[]; its ID is not its slot. */
struct peer {
	int sock;		/* -1: this slot is free */
	int id;
	int efd[MAX_VECTORS];
};

static struct peer peers[MAX_PEERS];
static int next_id;
static int vectors = 1;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One message: a little-endian s64, with fd when fd >= 0. */
static int send_msg(int sock, int64_t value, int fd)
{
	char control[CMSG_SPACE(sizeof(int))];
	int64_t le = (int64_t)htole64((uint64_t)value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(control, 0, sizeof(control));
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/*
	 * Non-blocking: eight bytes never fill a socket buffer unless the
	 * client stopped reading, and such a client must not stall the rest.
	 */
	do
		n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(le) ? 0 : -1;
}

/* Slot i's ID N times, each with one of its eventfds, to sock. */
static int send_vectors(int sock, int i)
{
	for (int v = 0; v < vectors; v++)
		if (send_msg(sock, peers[i].id, peers[i].efd[v]))
			return -1;
	return 0;
}

/*
 * A client that cannot take a message has missed part of the protocol: end
 * its connection. Its QEMU sees the end; the main loop sees it readable
 * (EOF) and drops it there, not in the middle of another client's turn.
 */
static void cut_off(int i)
{
	shutdown(peers[i].sock, SHUT_RDWR);
}

static void drop_peer(int slot)
{
	struct peer *p = &peers[slot];

	close(p->sock);
	p->sock = -1;
	for (int v = 0; v < vectors; v++)
		close(p->efd[v]);
	fprintf(stderr, "smc-ivshmem-server: peer %d disconnected\n", p->id);
	for (int i = 0; i < MAX_PEERS; i++)
		if (peers[i].sock >= 0 && send_msg(peers[i].sock, p->id, -1))
			cut_off(i);
}

static bool id_in_use(int id)
{
	for (int i = 0; i < MAX_PEERS; i++)
		if (peers[i].sock >= 0 && peers[i].id == id)
			return true;
	return false;
}

static void add_peer(int sock, int shm_fd)
{
	int slot, v, i;

	for (slot = 0; slot < MAX_PEERS && peers[slot].sock >= 0; slot++)
		;
	if (slot == MAX_PEERS) {
		fprintf(stderr, "smc-ivshmem-server: refused a client: %d peers already\n", MAX_PEERS);
		close(sock);
		return;
	}
	/* The next ID not in use; at most MAX_PEERS are, so this ends. */
	while (id_in_use(next_id))
		next_id = (next_id + 1) & MAX_ID;
	peers[slot].id = next_id;
	next_id = (next_id + 1) & MAX_ID;
	for (v = 0; v < vectors; v++) {
		peers[slot].efd[v] = eventfd(0, EFD_CLOEXEC);
		if (peers[slot].efd[v] < 0) {
			perror("smc-ivshmem-server: eventfd");
			while (v--)
				close(peers[slot].efd[v]);
			close(sock);
			return;
		}
	}
	peers[slot].sock = sock;
	if (send_msg(sock, 0, -1) || send_msg(sock, peers[slot].id, -1) ||
	    send_msg(sock, -1, shm_fd))
		goto lost;
	for (i = 0; i < MAX_PEERS; i++) {
		if (i == slot || peers[i].sock < 0)
			continue;
		if (send_vectors(sock, i))
			goto lost;
		/* The other way: i learns how to ring the new client. */
		if (send_vectors(peers[i].sock, slot))
			cut_off(i);
	}
	if (send_vectors(sock, slot))
		goto lost;
	fprintf(stderr, "smc-ivshmem-server: peer %d connected\n", peers[slot].id);
	return;
lost:
	fprintf(stderr, "smc-ivshmem-server: peer %d lost during set-up\n", peers[slot].id);
	drop_peer(slot);
}

static void usage(void)
{
	fprintf(stderr, "usage: smc-ivshmem-server --socket PATH --shm FILE --size BYTES [--vectors N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "shm", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 'l' },
		{ "vectors", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock_path = NULL, *shm_path = NULL;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	unsigned long long size = 0;
	struct pollfd pfd[MAX_PEERS + 1];
	int o, lfd, shm_fd, i;
	char *end;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			sock_path = optarg;
			break;
		case 'm':
			shm_path = optarg;
			break;
		case 'l':
			size = strtoull(optarg, &end, 0);
			if (*end)
				usage();
			break;
		case 'n':
			vectors = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!sock_path || !shm_path || optind != argc)
		usage();
	/* QEMU maps the region as BAR2, whose size is a power of two. */
	if (size < 4096 || size > (1ULL << 32) || (size & (size - 1))) {
		fprintf(stderr, "smc-ivshmem-server: --size %llu: a power of two from 4096 to 4 GiB, please\n", size);
		return 2;
	}
	if (vectors < 1 || vectors > MAX_VECTORS) {
		fprintf(stderr, "smc-ivshmem-server: --vectors %d: 1 to %d, please\n", vectors, MAX_VECTORS);
		return 2;
	}
	if (strlen(sock_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "smc-ivshmem-server: socket path too long: %s\n", sock_path);
		return 2;
	}
	strcpy(addr.sun_path, sock_path);

	shm_fd = open(shm_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (shm_fd < 0 || ftruncate(shm_fd, (off_t)size)) {
		fprintf(stderr, "smc-ivshmem-server: %s: %s\n", shm_path, strerror(errno));
		return 1;
	}
	unlink(sock_path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, MAX_PEERS)) {
		fprintf(stderr, "smc-ivshmem-server: %s: %s\n", sock_path, strerror(errno));
		return 1;
	}
	for (i = 0; i < MAX_PEERS; i++)
		peers[i].sock = -1;
	/* No SA_RESTART: poll() returns on the signal and the loop ends. */
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	fprintf(stderr, "smc-ivshmem-server: %s, %llu bytes, %d vector(s), on %s\n",
		shm_path, size, vectors, sock_path);

	while (!stop) {
		int n = 0;

		pfd[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < MAX_PEERS; i++)
			if (peers[i].sock >= 0)
				pfd[n++] = (struct pollfd){ .fd = peers[i].sock, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("smc-ivshmem-server: poll");
			break;
		}
		/*
		 * Clients never send: anything readable on theirs is the end of
		 * the connection (or bytes the protocol has not got, treated the
		 * same). Look before taking new ones, so a freed slot is free.
		 */
		for (int k = 1; k < n; k++) {
			ssize_t r;
			char b;

			if (!pfd[k].revents)
				continue;
			for (i = 0; i < MAX_PEERS && peers[i].sock != pfd[k].fd; i++)
				;
			if (i == MAX_PEERS)
				continue;
			r = recv(pfd[k].fd, &b, 1, MSG_DONTWAIT);
			if (r >= 0 || (errno != EAGAIN && errno != EINTR))
				drop_peer(i);
		}
		if (pfd[0].revents & POLLIN) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0)
				add_peer(c, shm_fd);
		}
	}
	unlink(sock_path);
	fprintf(stderr, "smc-ivshmem-server: stopped\n");
	return 0;
}
