/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only environment the iWARP wire-format layer (mpa_wire.c, ddp_wire.c)
 * depends on. In the kernel these are the usual headers; in user space
 * (unit tests, fuzz targets) the same names are provided here, so the wire
 * files compile unchanged in both worlds and can be tested without a kernel.
 */
#ifndef _SIW_LITE_WIRE_COMPAT_H
#define _SIW_LITE_WIRE_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/crc32c.h>
#include <asm/byteorder.h>
#ifdef SIWL_HAVE_LINUX_UNALIGNED_H	/* probed by Kbuild, see compat.h */
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#else /* !__KERNEL__ */

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;

#ifndef U16_MAX
#define U16_MAX		((u16)~0U)
#endif
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif

#ifndef BIT
#define BIT(nr)		(1UL << (nr))
#endif

#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

/*
 * The kernel's static_assert() (linux/build_bug.h) makes the message
 * optional, C11's does not (clang warns); a negative array size fails the
 * build just the same.
 */
#undef static_assert
#define static_assert(expr, ...) \
	extern char wire_static_assert[(expr) ? 1 : -1]

static inline __be16 cpu_to_be16(u16 v) { return (__be16)htobe16(v); }
static inline __be32 cpu_to_be32(u32 v) { return (__be32)htobe32(v); }
static inline __be64 cpu_to_be64(u64 v) { return (__be64)htobe64(v); }
static inline __le32 cpu_to_le32(u32 v) { return (__le32)htole32(v); }
static inline u16 be16_to_cpu(__be16 v) { return be16toh((u16)v); }
static inline u32 be32_to_cpu(__be32 v) { return be32toh((u32)v); }
static inline u64 be64_to_cpu(__be64 v) { return be64toh((u64)v); }
static inline u32 le32_to_cpu(__le32 v) { return le32toh((u32)v); }

static inline u16 get_unaligned_be16(const void *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static inline u32 get_unaligned_be32(const void *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 get_unaligned_be64(const void *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

static inline u32 get_unaligned_le32(const void *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static inline void put_unaligned_be16(u16 val, void *p)
{
	__be16 v = cpu_to_be16(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be32(u32 val, void *p)
{
	__be32 v = cpu_to_be32(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be64(u64 val, void *p)
{
	__be64 v = cpu_to_be64(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_le32(u32 val, void *p)
{
	__le32 v = cpu_to_le32(val);

	memcpy(p, &v, sizeof(v));
}

/*
 * Same contract as the kernel's lib/crc32c: Castagnoli polynomial in its
 * bit-reflected form (0x82F63B78), no pre- or post-inversion, the caller
 * passes the running value. Bit-serial because user space only runs it in
 * tests and fuzzing, where clarity beats speed.
 */
static inline u32 crc32c(u32 crc, const void *address, unsigned int length)
{
	const u8 *p = address;
	int bit;

	while (length--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0x82F63B78U & -(crc & 1U));
	}
	return crc;
}

#endif /* __KERNEL__ */

#endif /* _SIW_LITE_WIRE_COMPAT_H */
