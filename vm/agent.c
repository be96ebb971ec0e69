// SPDX-License-Identifier: GPL-2.0
/*
 * smc-vm-agent: lets a test running on one VM run shell commands on the
 * other VMs of a multi-VM topology, over the control network (eth1), which is
 * kept apart from the test network (eth0) so that captures and failure tests on
 * eth0 see only the traffic under test.
 *
 *   smc-vm-agent serve              (started by the guest init of every VM)
 *   smc-vm-exec [-w SECONDS] VM COMMAND...
 *   smc-vm-host kill VM | boot VM | claim ENTRY | claimed ENTRY
 *                                   (VM 0 only: a request to vm/run)
 *
 * The client joins COMMAND's words with spaces, like ssh does, and the server
 * runs them with "sh -c". The command's stdout and stderr come back on the
 * client's stdout, and the client exits with the command's exit status (128+N
 * for a signal). The server returns as soon as the shell exits: a command that
 * leaves a daemon behind must redirect the daemon's output itself, otherwise
 * that output is lost once the shell is gone.
 *
 * Wire format (both directions), all integers big-endian:
 *   request:  u32 length, then the command bytes
 *   reply:    frames of u8 type, u32 length, payload
 *             type 'o' output bytes; type 'x' exit status (u32), last frame
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define AGENT_PORT 4343
#define MAX_COMMAND (64 * 1024)
#define CONTROL_NET "10.42.0." /* VM i is 10.42.0.(i+1) on eth1 */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_frame(int fd, char type, const void *data, uint32_t len)
{
	unsigned char hdr[5];
	uint32_t be = htonl(len);

	hdr[0] = (unsigned char)type;
	memcpy(hdr + 1, &be, 4);
	if (write_all(fd, hdr, sizeof(hdr)))
		return -1;
	return write_all(fd, data, len);
}

/* Copy what the command printed so far to the client; 0 at EOF or EAGAIN. */
static int forward_output(int from, int to)
{
	char buf[16384];

	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (send_frame(to, 'o', buf, (uint32_t)n))
			return -1;
	}
}

static int encode_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 255;
}

/* One client connection: run its command and stream the result back. */
static void serve_one(int conn)
{
	int out[2], pidfd, wstatus = 0;
	uint32_t len_be, len, status_be;
	struct pollfd pfd[2];
	char *cmd;
	pid_t pid;

	if (read_all(conn, &len_be, 4))
		return;
	len = ntohl(len_be);
	if (len == 0 || len > MAX_COMMAND)
		return;
	cmd = calloc(1, len + 1);
	if (!cmd || read_all(conn, cmd, len) || pipe2(out, O_CLOEXEC))
		return;

	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		signal(SIGCHLD, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((pfd[0].revents & (POLLIN | POLLHUP)) &&
		    forward_output(out[0], conn))
			break;
		if (pfd[0].revents & POLLHUP)
			pfd[0].fd = -1; /* all writers gone; wait for the exit */
		if (pfd[1].revents & POLLIN)
			break; /* the shell exited */
	}
	waitpid(pid, &wstatus, 0);
	forward_output(out[0], conn);
	status_be = htonl((uint32_t)encode_status(wstatus));
	send_frame(conn, 'x', &status_be, 4);
	free(cmd);
}

static int serve(void)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_port = htons(AGENT_PORT),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, lfd;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 64)) {
		perror("smc-vm-agent: listen");
		return 1;
	}
	/* Connection handlers are reaped by the kernel; they reset this. */
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (conn < 0)
			continue;
		if (fork() == 0) {
			close(lfd);
			signal(SIGCHLD, SIG_DFL);
			serve_one(conn);
			_exit(0);
		}
		close(conn);
	}
}

static int connect_with_retry(const char *ip, int wait_seconds)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(AGENT_PORT) };
	time_t deadline = time(NULL) + wait_seconds;

	if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1)
		return -1;
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		close(fd);
		/* The peer may still be booting: its agent is not up yet. */
		if (time(NULL) >= deadline)
			return -1;
		usleep(200 * 1000);
	}
}

/*
 * How long smc-vm-exec waits for a VM's agent by default: vm/run boots a VM
 * again when its boot stalls for SMC_BOOT_TIMEOUT (180 s by default), and a
 * boot takes 5-20 s here (more on a loaded host), so a test's first command
 * to a peer must outwait both (Documentation/vm-harness.md).
 */
#define EXEC_WAIT_S 300

static int exec_remote(int argc, char **argv)
{
	int wait_seconds = EXEC_WAIT_S, i, fd, vm;
	size_t len = 0;
	uint32_t len_be;
	char ip[32], *cmd;

	if (argc > 2 && strcmp(argv[1], "-w") == 0) {
		wait_seconds = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: smc-vm-exec [-w SECONDS] VM COMMAND...\n");
		return 2;
	}
	vm = atoi(argv[1]);
	if (vm < 0 || vm > 250) {
		fprintf(stderr, "smc-vm-exec: bad VM index '%s'\n", argv[1]);
		return 2;
	}
	snprintf(ip, sizeof(ip), CONTROL_NET "%d", vm + 1);

	for (i = 2; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (len > MAX_COMMAND) {
		fprintf(stderr, "smc-vm-exec: command too long\n");
		return 2;
	}
	cmd = calloc(1, len + 1);
	if (!cmd)
		return 2;
	for (i = 2; i < argc; i++) {
		strcat(cmd, argv[i]);
		if (i + 1 < argc)
			strcat(cmd, " ");
	}

	fd = connect_with_retry(ip, wait_seconds);
	if (fd < 0) {
		fprintf(stderr, "smc-vm-exec: cannot reach the agent of VM %d at %s: %s\n",
			vm, ip, strerror(errno));
		return 255;
	}
	len_be = htonl((uint32_t)strlen(cmd));
	if (write_all(fd, &len_be, 4) || write_all(fd, cmd, strlen(cmd)))
		goto lost;
	for (;;) {
		unsigned char hdr[5];
		uint32_t flen;
		char buf[16384];

		if (read_all(fd, hdr, 5))
			goto lost;
		memcpy(&flen, hdr + 1, 4);
		flen = ntohl(flen);
		if (hdr[0] == 'x' && flen == 4) {
			uint32_t status;

			if (read_all(fd, &status, 4))
				goto lost;
			return (int)ntohl(status);
		}
		if (hdr[0] != 'o' || flen > sizeof(buf) || read_all(fd, buf, flen))
			goto lost;
		if (write_all(1, buf, flen))
			return 255;
	}
lost:
	fprintf(stderr, "smc-vm-exec: lost the connection to VM %d\n", vm);
	return 255;
}

/*
 * smc-vm-host: a request to vm/run on the host, for what only the host can
 * do: "kill VM" (SIGKILL of that VM's QEMU, so the VM sends nothing more,
 * not even a FIN), "boot VM" (start it again, same settings), "claim
 * ENTRY" (one of two VMs that share a suite's entries asks whether it runs
 * this one: "ok claimed" to the first that asks, "taken" to the other)
 * and "claimed ENTRY" (whether some VM has claimed it: "ok claimed", or
 * "free"; it claims nothing).
 * VM 0's fourth serial port is a pipe to vm/run
 * (Documentation/vm-harness.md); vm/run answers one line, "ok ..." once
 * done, anything else on refusal. The port is raw: no echo of the answer
 * back to the host, no CR added.
 */
#define HOST_TTY "/dev/ttyS3"
#define HOST_WAIT_MS (60 * 1000)
/*
 * "boot" is answered once the VM has reached init, which may take a stalled
 * boot (vm/run's SMC_BOOT_TIMEOUT, 180 s) and the one more that follows.
 */
#define HOST_BOOT_WAIT_MS (600 * 1000)

/* What a claimed entry's name may hold: vm/run makes a directory of it. */
#define ENTRY_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/@,+"
#define ENTRY_MAX 160

static bool host_request_ok(int argc, char **argv)
{
	if (argc != 3)
		return false;
	if (strcmp(argv[1], "claim") == 0 || strcmp(argv[1], "claimed") == 0)
		return strspn(argv[2], ENTRY_CHARS) == strlen(argv[2]) &&
		       strlen(argv[2]) > 0 && strlen(argv[2]) <= ENTRY_MAX &&
		       !strstr(argv[2], "..");
	return (strcmp(argv[1], "kill") == 0 || strcmp(argv[1], "boot") == 0) &&
	       strspn(argv[2], "0123456789") == strlen(argv[2]) &&
	       strlen(argv[2]) > 0 && strlen(argv[2]) <= 3;
}

static int host_request(int argc, char **argv)
{
	char req[ENTRY_MAX + 16], reply[256];
	int fd, wait_ms = HOST_WAIT_MS;
	struct termios t;
	size_t got = 0;

	if (!host_request_ok(argc, argv)) {
		fprintf(stderr, "usage: smc-vm-host kill VM | boot VM | claim ENTRY | claimed ENTRY\n");
		return 2;
	}
	if (strcmp(argv[1], "boot") == 0)
		wait_ms = HOST_BOOT_WAIT_MS;
	fd = open(HOST_TTY, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || tcgetattr(fd, &t)) {
		fprintf(stderr, "smc-vm-host: %s: %s (only VM 0 has the host channel)\n",
			HOST_TTY, strerror(errno));
		return 255;
	}
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSANOW, &t) || tcflush(fd, TCIFLUSH)) {
		fprintf(stderr, "smc-vm-host: %s: %s\n", HOST_TTY, strerror(errno));
		return 255;
	}
	snprintf(req, sizeof(req), "%s %s\n", argv[1], argv[2]);
	if (write_all(fd, req, strlen(req)) || tcdrain(fd)) {
		fprintf(stderr, "smc-vm-host: write: %s\n", strerror(errno));
		return 255;
	}
	while (got < sizeof(reply) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, wait_ms);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "smc-vm-host: no answer from vm/run within %d s\n",
				wait_ms / 1000);
			return 255;
		}
		n = read(fd, reply + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "smc-vm-host: read: %s\n", n ? strerror(errno) : "EOF");
			return 255;
		}
		if (reply[got] == '\n')
			break;
		if (reply[got] != '\r')
			got++;
	}
	reply[got] = 0;
	printf("%s\n", reply);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');

	name = name ? name + 1 : argv[0];
	if (strcmp(name, "smc-vm-exec") == 0)
		return exec_remote(argc, argv);
	if (strcmp(name, "smc-vm-host") == 0)
		return host_request(argc, argv);
	if (argc == 2 && strcmp(argv[1], "serve") == 0)
		return serve();
	fprintf(stderr, "usage: smc-vm-agent serve | smc-vm-exec [-w SECONDS] VM COMMAND...\n"
			"       smc-vm-host kill VM | boot VM | claim ENTRY | claimed ENTRY\n");
	return 2;
}
