// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Deterministic data: random numbers, byte patterns, message plans and
 * buffer layouts, all derived from the seed the client sends the server.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "verbs_test.h"

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t finalize(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t vt_mix(uint64_t x)
{
	return finalize(x + GOLDEN);
}

void vt_rng_init(struct vt_rng *r, uint64_t seed, uint64_t a, uint64_t b)
{
	r->s = vt_mix(seed ^ vt_mix(a ^ vt_mix(b)));
}

uint64_t vt_rand(struct vt_rng *r)
{
	r->s += GOLDEN;
	return finalize(r->s);
}

uint64_t vt_rand_range(struct vt_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo + 1;

	if (hi < lo)
		return lo;
	return span ? lo + vt_rand(r) % span : vt_rand(r);
}

uint64_t vt_pat_key(uint64_t seed, uint32_t stream, uint32_t msg)
{
	return vt_mix(seed ^ vt_mix(((uint64_t)stream << 32) | msg));
}

static uint64_t pat_word(uint64_t key, uint64_t w)
{
	return htole64(finalize(key + w * GOLDEN));
}

static uint8_t pat_byte(uint64_t key, uint64_t off)
{
	uint64_t w = pat_word(key, off >> 3);

	return ((const uint8_t *)&w)[off & 7];
}

void vt_pat_fill(void *dst, uint64_t key, uint64_t off, size_t len)
{
	uint8_t *p = dst;
	uint64_t w;

	for (; len && (off & 7); len--)
		*p++ = pat_byte(key, off++);
	for (; len >= 8; len -= 8, p += 8, off += 8) {
		w = pat_word(key, off >> 3);
		memcpy(p, &w, 8);
	}
	for (; len; len--)
		*p++ = pat_byte(key, off++);
}

size_t vt_pat_check(const void *src, uint64_t key, uint64_t off, size_t len)
{
	const uint8_t *p = src;
	size_t i = 0, j;
	uint64_t w;

	for (; i < len && ((off + i) & 7); i++)
		if (p[i] != pat_byte(key, off + i))
			return i;
	for (; i + 8 <= len; i += 8) {
		w = pat_word(key, (off + i) >> 3);
		if (memcmp(p + i, &w, 8))
			for (j = 0; j < 8; j++)
				if (p[i + j] != ((const uint8_t *)&w)[j])
					return i + j;
	}
	for (; i < len; i++)
		if (p[i] != pat_byte(key, off + i))
			return i;
	return SIZE_MAX;
}

size_t vt_canary_check(const void *src, size_t len)
{
	const uint8_t *p = src;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != VT_CANARY)
			return i;
	return SIZE_MAX;
}

/* Sizes spread over 0 B .. size_max, small ones more often. */
static uint32_t plan_size(struct vt_rng *r, uint32_t size_max)
{
	uint64_t c = vt_rand(r) % 100;

	if (c < 30)
		return vt_rand_range(r, 0, VT_MIN(64u, size_max));
	if (c < 60)
		return vt_rand_range(r, VT_MIN(65u, size_max),
				     VT_MIN(4096u, size_max));
	if (c < 85)
		return vt_rand_range(r, VT_MIN(4097u, size_max),
				     VT_MIN(65536u, size_max));
	return vt_rand_range(r, VT_MIN(65537u, size_max), size_max);
}

void vt_plan_make(struct vt_plan *p, uint64_t seed, uint32_t stream,
		  uint32_t budget, uint32_t size_max, bool no_empty)
{
	struct vt_rng r;
	uint64_t cursor = 0;
	unsigned int i, j, misses = 0;
	uint32_t s;

	vt_rng_init(&r, seed, stream, 0x504c414e);
	memset(p, 0, sizeof(*p));
	if (size_max > budget)
		size_max = budget;

	/* the edges always: empty (unless excluded), the largest, one byte */
	if (!no_empty)
		p->size[p->n++] = 0;
	p->size[p->n++] = size_max;
	p->total = size_max;
	if (p->total + 1 <= budget) {
		p->size[p->n++] = 1;
		p->total++;
	}
	while (p->n < VT_PLAN_MAX && misses < 8) {
		s = plan_size(&r, size_max);
		if (!s && no_empty)
			s = 1;
		if (p->total + s > budget) {
			misses++;
			continue;
		}
		p->size[p->n++] = s;
		p->total += s;
	}
	/* shuffle, so the big one is not always second */
	for (i = p->n - 1; i > 0; i--) {
		j = vt_rand_range(&r, 0, i);
		s = p->size[i];
		p->size[i] = p->size[j];
		p->size[j] = s;
	}
	/* where each lands in the peer's buffer, for RDMA */
	for (i = 0; i < p->n; i++) {
		cursor += vt_rand_range(&r, 0, 63);
		p->roff[i] = cursor;
		cursor += p->size[i];
	}
	p->rspan = cursor + 64;
}

uint64_t vt_layout_room(uint32_t cap)
{
	return (uint64_t)cap + 64 + 16 * VT_SGE_MAX + 16;
}

void vt_layout_make(struct vt_layout *l, struct vt_rng *r, uint8_t *base,
		    uint32_t lkey, uint64_t *cursor, uint32_t cap,
		    unsigned int max_sge)
{
	uint32_t left = cap, part, most;
	unsigned int k, i;

	memset(l, 0, sizeof(*l));
	*cursor += vt_rand_range(r, 0, 63);
	l->start = *cursor;
	l->cap = cap;
	max_sge = VT_MIN(max_sge, VT_SGE_MAX);
	k = cap && max_sge ? vt_rand_range(r, 1, VT_MIN(max_sge, cap)) : 0;
	for (i = 0; i < k; i++) {
		if (i)
			*cursor += vt_rand_range(r, 0, 15);
		if (i + 1 == k) {
			part = left;
		} else {
			/* leave at least one byte for every later piece */
			most = VT_MIN(left - (k - 1 - i), 2 * left / (k - i));
			part = vt_rand_range(r, 1, VT_MAX(1u, most));
		}
		l->sge[i].addr = (uintptr_t)(base + *cursor);
		l->sge[i].length = part;
		l->sge[i].lkey = lkey;
		*cursor += part;
		left -= part;
	}
	l->nsge = k;
	l->end = *cursor;
	*cursor += 16;
}

void vt_layout_fill(const struct vt_layout *l, uint64_t key)
{
	uint64_t moff = 0;
	unsigned int i;

	for (i = 0; i < l->nsge; i++) {
		vt_pat_fill((void *)(uintptr_t)l->sge[i].addr, key, moff,
			    l->sge[i].length);
		moff += l->sge[i].length;
	}
}

bool vt_layout_check(const struct vt_layout *l, uint8_t *base, uint64_t key,
		     uint32_t len, bool canary_rest, char *why, size_t whylen)
{
	uint64_t moff = 0, prev_end = l->start;
	unsigned int i;
	size_t bad;

	if (len > l->cap) {
		snprintf(why, whylen, "%u bytes do not fit %u", len, l->cap);
		return false;
	}
	for (i = 0; i < l->nsge; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)l->sge[i].addr;
		uint32_t n = VT_MIN((uint64_t)l->sge[i].length, len - moff);

		if (canary_rest) {
			bad = vt_canary_check(base + prev_end,
					      p - (base + prev_end));
			if (bad != SIZE_MAX) {
				snprintf(why, whylen,
					 "gap byte before piece %u of %u overwritten (0x%02x)",
					 i, l->nsge, base[prev_end + bad]);
				return false;
			}
		}
		bad = vt_pat_check(p, key, moff, n);
		if (bad != SIZE_MAX) {
			snprintf(why, whylen,
				 "byte %llu (piece %u of %u, +%zu) is 0x%02x, want 0x%02x",
				 (unsigned long long)(moff + bad), i, l->nsge,
				 bad, p[bad], pat_byte(key, moff + bad));
			return false;
		}
		if (canary_rest) {
			bad = vt_canary_check(p + n, l->sge[i].length - n);
			if (bad != SIZE_MAX) {
				snprintf(why, whylen,
					 "byte past the message end overwritten (piece %u, +%zu)",
					 i, n + bad);
				return false;
			}
		}
		moff += n;
		prev_end = p + l->sge[i].length - base;
	}
	if (canary_rest) {
		bad = vt_canary_check(base + prev_end, l->end - prev_end);
		if (bad != SIZE_MAX) {
			snprintf(why, whylen, "trailing gap byte overwritten");
			return false;
		}
	}
	return true;
}
