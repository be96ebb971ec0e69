// SPDX-License-Identifier: GPL-2.0
/* exchange.c: the server thread of exchange.h. */
#include "exchange.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stream.h"

void *exchange_serve(void *arg)
{
	struct exchange *x = arg;
	size_t wsize = x->write_size ? x->write_size : x->size;
	int fd;
	ssize_t n;

	x->bad = -1;
	x->sent = -1;
	x->extra = 0;
	__atomic_store_n(&x->fd, -1, __ATOMIC_RELEASE);
	fd = accept(x->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	/* Published before the reply, so a client that has it all finds it set. */
	__atomic_store_n(&x->fd, fd, __ATOMIC_RELEASE);
	x->bad = pattern_read(fd, EXCHANGE_TO_SERVER, 0, x->total, x->buf, x->size);
	x->sent = x->reply ? pattern_write(fd, EXCHANGE_TO_CLIENT, 0, x->total, x->buf, wsize) : 0;
	/* Until EOF, counting what the client should not have sent. */
	while ((n = read(fd, x->buf, x->size)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		x->extra += (uint64_t)n;
	}
	close(fd);
	return NULL;
}
