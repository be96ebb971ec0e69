/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exchange.h: the server half of a data test that runs client and server
 * in one process (smcr/sizes, smcr/slots, smcr/autocork), as a thread. It
 * takes one connection, reads the client's stream (stream.h) and compares
 * every byte, sends a stream of as many bytes back if asked to, then holds
 * the connection open until the client's EOF, so that the client can look
 * at both ends (sock_diag, debugfs) while they are still connected.
 */
#ifndef SMC_SELFTESTS_EXCHANGE_H
#define SMC_SELFTESTS_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

/* The seeds of the two directions' streams. */
#define EXCHANGE_TO_SERVER	1
#define EXCHANGE_TO_CLIENT	2

struct exchange {
	/* Set by the caller. */
	int lfd;		/* the listener to accept from */
	uint64_t total;		/* bytes each way */
	int reply;		/* send total bytes back; 0: only read */
	void *buf;		/* the thread's I/O buffer, size bytes */
	size_t size;		/* reads of at most size bytes */
	size_t write_size;	/* writes of at most write_size (<= size); 0: size */
	/* Set by exchange_serve(). */
	int fd;			/* the accepted one (atomic), -1 before */
	int64_t bad;		/* pattern_read()'s answer: total when all is right */
	int sent;		/* 0 when all went back (or nothing was to go) */
	uint64_t extra;		/* bytes past total, before the client's EOF */
};

/* The thread: pthread_create(&t, attr, exchange_serve, x). */
void *exchange_serve(void *arg);

#endif
