// SPDX-License-Identifier: GPL-2.0
/* stream.c: the pattern, its socket I/O and the checksum of stream.h. */
#define _DEFAULT_SOURCE
#include "stream.h"

#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "family.h"

/* One 64-bit output per 8-byte block: a counter run through a mixer. */
static uint64_t block(uint64_t seed, uint64_t index)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index * 0xbf58476d1ce4e5b9ULL +
		     0x94d049bb133111ebULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned char byte_at(uint64_t seed, uint64_t offset)
{
	return (unsigned char)(block(seed, offset / 8) >> (8 * (offset % 8)));
}

void pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t offset)
{
	unsigned char *p = buf;

	/* Byte by byte up to a block boundary, then whole blocks. */
	while (len && offset % 8) {
		*p++ = byte_at(seed, offset++);
		len--;
	}
	while (len >= 8) {
		uint64_t v = block(seed, offset / 8);

		for (int i = 0; i < 8; i++)
			p[i] = (unsigned char)(v >> (8 * i));
		p += 8;
		offset += 8;
		len -= 8;
	}
	while (len--)
		*p++ = byte_at(seed, offset++);
}

size_t pattern_mismatch(const void *buf, size_t len, uint64_t seed, uint64_t offset)
{
	const unsigned char *p = buf;
	unsigned char expect[4096];
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < sizeof(expect) ? len - done : sizeof(expect);

		pattern_fill(expect, n, seed, offset + done);
		if (memcmp(expect, p + done, n) != 0) {
			for (size_t i = 0; i < n; i++)
				if (expect[i] != p[done + i])
					return done + i;
		}
		done += n;
	}
	return len;
}

int pattern_write(int fd, uint64_t seed, uint64_t offset, uint64_t len,
		  void *buf, size_t size)
{
	while (len) {
		size_t n = len < size ? (size_t)len : size;

		pattern_fill(buf, n, seed, offset);
		if (sf_write_all(fd, buf, n))
			return -1;
		offset += n;
		len -= n;
	}
	return 0;
}

int64_t pattern_read(int fd, uint64_t seed, uint64_t offset, uint64_t len,
		     void *buf, size_t size)
{
	int64_t bad = (int64_t)len;
	uint64_t got = 0;

	while (got < len) {
		size_t n = len - got < size ? (size_t)(len - got) : size;
		size_t at;

		if (sf_read_all(fd, buf, n))
			return -1;
		at = pattern_mismatch(buf, n, seed, offset + got);
		if (at != n && bad == (int64_t)len)
			bad = (int64_t)(got + at);
		got += n;
	}
	return bad;
}

void stream_sum_init(struct stream_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->hash = 0xcbf29ce484222325ULL;
}

static void fold(struct stream_sum *s, uint64_t w)
{
	s->hash = (s->hash ^ w) * 0x100000001b3ULL;
	s->hash ^= s->hash >> 29;
}

static void add_byte(struct stream_sum *s, unsigned char b)
{
	s->word |= (uint64_t)b << (8 * s->nword);
	if (++s->nword == 8) {
		fold(s, s->word);
		s->word = 0;
		s->nword = 0;
	}
}

void stream_sum_add(struct stream_sum *s, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	s->bytes += len;
	/* Complete a pending word, then whole words (the hot path), then the tail. */
	while (len && s->nword) {
		add_byte(s, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		fold(s, le64toh(w));
		p += 8;
		len -= 8;
	}
	while (len--)
		add_byte(s, *p++);
}

uint64_t stream_sum_value(const struct stream_sum *s)
{
	struct stream_sum t = *s;

	/* The tail and the length go in, so "ab" and "ab\0" differ. */
	if (t.nword)
		fold(&t, t.word);
	fold(&t, t.bytes);
	return t.hash;
}

long long parse_size(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || v < 0)
		return -1;
	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	return *end ? -1 : v;
}

int sf_lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc, err;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!rc) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	err = errno;
	close(fd);
	errno = err;
	return rc;
}
