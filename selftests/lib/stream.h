/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h: the test data of the stream tests and its checks.
 *
 * The data is a pseudo-random byte stream defined by a seed, addressable by
 * offset, so a receiver can regenerate exactly the bytes it should have got
 * at any point and compare them, however the stream was cut into reads.
 * A running checksum summarizes a stream for comparison across processes
 * and machines (sender, echo server, receiver).
 */
#ifndef SMC_SELFTESTS_STREAM_H
#define SMC_SELFTESTS_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* Fill buf with bytes [offset, offset + len) of the stream of "seed". */
void pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t offset);
/*
 * Compare buf with bytes [offset, offset + len) of the stream; returns the
 * index of the first differing byte, or len when all match.
 */
size_t pattern_mismatch(const void *buf, size_t len, uint64_t seed, uint64_t offset);
/*
 * Send bytes [offset, offset + len) of the stream on socket fd, generated
 * in buf and sent in pieces of at most size bytes (a test that needs small
 * writes passes a small buffer); 0 when all went, -1 (errno set) when a
 * send failed (sf_write_all(): EINTR retried, no SIGPIPE). buf is the
 * caller's so that threads can send at once.
 */
int pattern_write(int fd, uint64_t seed, uint64_t offset, uint64_t len,
		  void *buf, size_t size);
/*
 * Read exactly len bytes from fd into buf, size bytes at the most per
 * read, and compare them with bytes [offset, offset + len) of the stream.
 * Returns the index of the first differing byte (all len bytes are read
 * all the same, so the connection stays in step), len when all match, or
 * -1 (errno set) when a read failed or EOF came first.
 */
int64_t pattern_read(int fd, uint64_t seed, uint64_t offset, uint64_t len,
		     void *buf, size_t size);

/* A checksum over a byte stream fed in pieces of any size. */
struct stream_sum {
	uint64_t hash;
	uint64_t bytes;
	uint64_t word;    /* bytes not yet folded in, little-endian */
	unsigned int nword;
};

void stream_sum_init(struct stream_sum *s);
void stream_sum_add(struct stream_sum *s, const void *buf, size_t len);
/* The checksum of everything added so far (the state is left usable). */
uint64_t stream_sum_value(const struct stream_sum *s);

/*
 * Bring lo up in the calling thread's network namespace (a new one, just
 * unshared, has it down): 0, or -1 with errno.
 */
int sf_lo_up(void);

/* Parse "64M", "16K", "1G", "1000": bytes, or -1 when malformed. */
long long parse_size(const char *s);

#endif
