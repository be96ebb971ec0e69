/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types and byte-order helpers for the SMC wire code.
 *
 * Everything under kernel/wire/ is plain C that builds twice: into the kernel
 * module (kbuild defines __KERNEL__) and into host programs (unit tests, the
 * fuzzer, tools). This header is the only place that knows the difference.
 *
 * Rules for code that includes it: use only uint8_t..uint64_t, size_t, bool,
 * NULL, offsetof, ARRAY_SIZE and memcpy/memset/memcmp/strnlen; no floating
 * point, no VLAs, no recursion, small stack frames.
 */
#ifndef SMC_WIRE_TYPES_H
#define SMC_WIRE_TYPES_H

#ifdef __KERNEL__
#include <linux/kernel.h>	/* ARRAY_SIZE */
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifdef __cplusplus
#define SMC_WIRE_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SMC_WIRE_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/*
 * Big-endian loads and stores on byte pointers. The wire layouts are byte
 * arrays, so there is no alignment to respect and no host byte order to know.
 */
static inline uint16_t smc_wire_get_be16(const uint8_t *p)
{
	return (uint16_t)(((uint16_t)p[0] << 8) | p[1]);
}

static inline uint32_t smc_wire_get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
}

static inline uint32_t smc_wire_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t smc_wire_get_be64(const uint8_t *p)
{
	return ((uint64_t)smc_wire_get_be32(p) << 32) | smc_wire_get_be32(p + 4);
}

static inline void smc_wire_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void smc_wire_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void smc_wire_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void smc_wire_put_be64(uint8_t *p, uint64_t v)
{
	smc_wire_put_be32(p, (uint32_t)(v >> 32));
	smc_wire_put_be32(p + 4, (uint32_t)v);
}

#endif /* SMC_WIRE_TYPES_H */
