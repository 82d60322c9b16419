// SPDX-License-Identifier: GPL-2.0
/*
 * Placement checks: tagged buffers (RFC 5041 section 7.2 Tagged Buffer
 * errors, RFC 5040 section 7 Remote Protection errors) including the
 * 2^64 edge, and untagged MO / MSN checks.
 */
#include "unit.h"
#include "ddp_wire.h"

#define RW	(IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE)
#define MD	(RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)
#define MDR	(MD | RDMAP_TERM_HDRCT_R)

static const struct iw_tagged_region mr = {
	.base = 0x1000, .len = 0x1000, .access = RW,
	.stag_valid = 1, .stag_assoc = 1,
};

/* the last 256 octets of the 64-bit space: ends exactly at 2^64 */
static const struct iw_tagged_region top = {
	.base = 0xffffffffffffff00ULL, .len = 0x100, .access = RW,
	.stag_valid = 1, .stag_assoc = 1,
};

static int ddp_check(const struct iw_tagged_region *r, u64 to, u64 len,
		     struct iw_term *t)
{
	return iw_tagged_check(r, IW_ACCESS_REMOTE_WRITE, to, len,
			       IW_TERM_LAYER_DDP, t);
}

#define CHECK_DDP_BOUNDS(t)						\
	CHECK_TERM(t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,		\
		   DDP_TECODE_BASE_BOUNDS, MD)

static void tagged_inside(void)
{
	struct iw_term t;

	CHECK_EQ(ddp_check(&mr, 0x1000, 0x1000, &t), 0);
	CHECK_NO_TERM(&t);
	CHECK_EQ(ddp_check(&mr, 0x1000, 1, &t), 0);
	CHECK_EQ(ddp_check(&mr, 0x1fff, 1, &t), 0);
	CHECK_EQ(ddp_check(&mr, 0x1800, 0x800, &t), 0);
}

static void tagged_end_edges(void)
{
	struct iw_term t;

	/* zero length exactly at the end is inside, one past is not */
	CHECK_EQ(ddp_check(&mr, 0x2000, 0, &t), 0);
	CHECK_EQ(ddp_check(&mr, 0x2001, 0, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&mr, 0x1000, 0, &t), 0);
	/* one octet too many */
	CHECK_EQ(ddp_check(&mr, 0x1fff, 2, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&mr, 0x1000, 0x1001, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&mr, 0x2000, 1, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
}

static void tagged_below_base(void)
{
	struct iw_term t;

	CHECK_EQ(ddp_check(&mr, 0xfff, 1, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&mr, 0xfff, 0, &t), -ERANGE);
	CHECK_EQ(ddp_check(&mr, 0, 0x2000, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
}

/* A huge length must not wrap the arithmetic back into the region. */
static void tagged_no_overflow(void)
{
	struct iw_term t;

	CHECK_EQ(ddp_check(&mr, 0x1000, 0xfffffffffffff000ULL, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&mr, 0x1800, U64_MAX - 0x1800 + 1, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
}

static void tagged_wrap_at_2_64(void)
{
	struct iw_term t;

	/* ending exactly at 2^64 is not a wrap */
	CHECK_EQ(ddp_check(&top, U64_MAX, 1, &t), 0);
	CHECK_EQ(ddp_check(&top, 0xffffffffffffff00ULL, 0x100, &t), 0);
	CHECK_EQ(ddp_check(&top, U64_MAX, 0, &t), 0);
	/* one further is */
	CHECK_EQ(ddp_check(&top, U64_MAX, 2, &t), -ERANGE);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_TECODE_TO_WRAP, MD);
	CHECK_EQ(ddp_check(&top, 0xffffffffffffff00ULL, 0x101, &t), -ERANGE);
	CHECK_EQ(t.ecode, DDP_TECODE_TO_WRAP);
	CHECK_EQ(ddp_check(&mr, 0x1800, U64_MAX, &t), -ERANGE);
	CHECK_EQ(t.ecode, DDP_TECODE_TO_WRAP);
	CHECK_EQ(iw_tagged_check(&top, IW_ACCESS_REMOTE_READ, U64_MAX, 2,
				 IW_TERM_LAYER_RDMAP, &t), -ERANGE);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		   RDMAP_ECODE_TO_WRAP, MDR);
	/* below the region that ends at 2^64 */
	CHECK_EQ(ddp_check(&top, 0, 1, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
}

static void tagged_whole_space(void)
{
	struct iw_tagged_region all = {
		.base = 0, .len = U64_MAX, .access = RW,
		.stag_valid = 1, .stag_assoc = 1,
	};
	struct iw_term t;

	CHECK_EQ(ddp_check(&all, 0, U64_MAX, &t), 0);
	CHECK_EQ(ddp_check(&all, U64_MAX - 1, 1, &t), 0);
	/* the region stops one short of 2^64 */
	CHECK_EQ(ddp_check(&all, U64_MAX, 1, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
	CHECK_EQ(ddp_check(&all, 1, U64_MAX, &t), -ERANGE);
	CHECK_DDP_BOUNDS(&t);
}

static void tagged_stag_errors_ddp(void)
{
	struct iw_tagged_region r = mr;
	struct iw_term t;

	r.stag_valid = 0;
	/* STag errors win over bounds errors */
	CHECK_EQ(ddp_check(&r, 0, 0x10000, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_TECODE_INVALID_STAG, MD);
	r.stag_valid = 1;
	r.stag_assoc = 0;
	CHECK_EQ(ddp_check(&r, 0x1000, 1, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_TECODE_STAG_NOT_ASSOC, MD);
	/* no access-rights code in RFC 5041: Invalid STag */
	r.stag_assoc = 1;
	r.access = IW_ACCESS_REMOTE_READ;
	CHECK_EQ(ddp_check(&r, 0x1000, 1, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_TECODE_INVALID_STAG, MD);
}

static void tagged_stag_errors_rdmap(void)
{
	struct iw_tagged_region r = mr;
	struct iw_term t;

	r.access = IW_ACCESS_REMOTE_WRITE;
	CHECK_EQ(iw_tagged_check(&r, IW_ACCESS_REMOTE_READ, 0x1000, 8,
				 IW_TERM_LAYER_RDMAP, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		   RDMAP_ECODE_ACCESS_RIGHTS, MDR);
	r.stag_assoc = 0;
	CHECK_EQ(iw_tagged_check(&r, IW_ACCESS_REMOTE_READ, 0x1000, 8,
				 IW_TERM_LAYER_RDMAP, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		   RDMAP_ECODE_STAG_NOT_ASSOC, MDR);
	r.stag_valid = 0;
	CHECK_EQ(iw_tagged_check(&r, IW_ACCESS_REMOTE_READ, 0x1000, 8,
				 IW_TERM_LAYER_RDMAP, &t), -EACCES);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		   RDMAP_ECODE_INVALID_STAG, MDR);
	r = mr;
	CHECK_EQ(iw_tagged_check(&r, IW_ACCESS_REMOTE_READ, 0x1fff, 2,
				 IW_TERM_LAYER_RDMAP, &t), -ERANGE);
	CHECK_TERM(&t, IW_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		   RDMAP_ECODE_BASE_BOUNDS, MDR);
	CHECK_EQ(iw_tagged_check(&r, IW_ACCESS_REMOTE_READ, 0x1fff, 1,
				 IW_TERM_LAYER_RDMAP, &t), 0);
	CHECK_EQ(iw_tagged_check(&r, RW, 0x1000, 1, IW_TERM_LAYER_LLP, &t),
		 -EINVAL);
	CHECK_NO_TERM(&t);
}

static void untagged_mo_and_length(void)
{
	struct iw_term t;

	CHECK_EQ(ddp_untagged_check(0, 4096, 4096, &t), 0);
	CHECK_EQ(ddp_untagged_check(4096, 0, 4096, &t), 0);
	CHECK_EQ(ddp_untagged_check(4000, 96, 4096, &t), 0);
	CHECK_EQ(ddp_untagged_check(4000, 97, 4096, &t), -EMSGSIZE);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_TOO_LONG, MD);
	CHECK_EQ(ddp_untagged_check(4097, 0, 4096, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_INVALID_MO, MD);
	CHECK_EQ(ddp_untagged_check(0xffffffff, 0xffffffff, 4096, &t),
		 -EPROTO);
	CHECK_EQ(ddp_untagged_check(1, 0xffffffff, 0xffffffff, &t),
		 -EMSGSIZE);
}

static void untagged_msn(void)
{
	struct iw_term t;
	u32 idx = 99;

	CHECK_EQ(ddp_msn_check(5, 5, 1, 16, &idx, &t), 0);
	CHECK_EQ(idx, 0);
	CHECK_EQ(ddp_msn_check(7, 5, 4, 16, &idx, &t), 0);
	CHECK_EQ(idx, 2);
	CHECK_EQ(ddp_msn_check(9, 5, 4, 16, &idx, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_MSN_NO_BUFFER, MD);
	CHECK_EQ(ddp_msn_check(21, 5, 4, 16, &idx, &t), -EPROTO);
	CHECK_TERM(&t, IW_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_UECODE_MSN_RANGE, MD);
	/* an old MSN is far "ahead" in serial arithmetic */
	CHECK_EQ(ddp_msn_check(4, 5, 4, 16, &idx, &t), -EPROTO);
	CHECK_EQ(t.ecode, DDP_UECODE_MSN_RANGE);
	/* MSNs wrap modulo 2^32 */
	CHECK_EQ(ddp_msn_check(0, 0xffffffff, 2, 16, &idx, &t), 0);
	CHECK_EQ(idx, 1);
	/* nothing posted */
	CHECK_EQ(ddp_msn_check(5, 5, 0, 16, &idx, &t), -EPROTO);
	CHECK_EQ(t.ecode, DDP_UECODE_MSN_NO_BUFFER);
}

const struct unit_test place_tests[] = {
	UNIT_TEST(tagged_inside),
	UNIT_TEST(tagged_end_edges),
	UNIT_TEST(tagged_below_base),
	UNIT_TEST(tagged_no_overflow),
	UNIT_TEST(tagged_wrap_at_2_64),
	UNIT_TEST(tagged_whole_space),
	UNIT_TEST(tagged_stag_errors_ddp),
	UNIT_TEST(tagged_stag_errors_rdmap),
	UNIT_TEST(untagged_mo_and_length),
	UNIT_TEST(untagged_msn),
};

const size_t place_tests_n = ARRAY_LEN(place_tests);
