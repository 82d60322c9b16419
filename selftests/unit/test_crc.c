// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32c and FPDU framing (RFC 5044 sections 4.1, 4.4, 4.5).
 *
 * Reference values: the CRC-32C check value of "123456789" (0xE3069283)
 * and the iSCSI examples of RFC 3720 appendix B.4, which also fix the
 * order the four CRC octets are sent in. ref_crc32c() is a deliberately
 * different algorithm (MSB-first over bit-reversed data with the normal
 * polynomial 0x1EDC6F41) so that it cannot share a bug with crc32c().
 */
#include "unit.h"
#include "mpa_wire.h"

static u8 bitrev8(u8 x)
{
	u8 r = 0;
	int i;

	for (i = 0; i < 8; i++)
		r |= ((x >> i) & 1) << (7 - i);
	return r;
}

static u32 bitrev32(u32 x)
{
	u32 r = 0;
	int i;

	for (i = 0; i < 32; i++)
		r |= ((x >> i) & 1U) << (31 - i);
	return r;
}

static u32 ref_crc32c(const void *buf, size_t n)
{
	const u8 *p = buf;
	u32 crc = 0xffffffff;
	int i;

	while (n--) {
		crc ^= (u32)bitrev8(*p++) << 24;
		for (i = 0; i < 8; i++)
			crc = crc & 0x80000000U ? (crc << 1) ^ 0x1EDC6F41U :
						  crc << 1;
	}
	return bitrev32(crc) ^ 0xffffffff;
}

static void wire_crc(const void *buf, size_t n, u8 out[4])
{
	__le32 c = mpa_crc_final(mpa_crc_update(MPA_CRC_SEED, buf, n));

	memcpy(out, &c, 4);
}

static void crc32c_check_value(void)
{
	CHECK_EQ(crc32c(~0U, "123456789", 9) ^ ~0U, 0xE3069283U);
}

static void crc32c_reference_check_value(void)
{
	CHECK_EQ(ref_crc32c("123456789", 9), 0xE3069283U);
	CHECK_EQ(ref_crc32c("", 0), 0);
}

static void crc_rfc3720_zeros(void)
{
	static const u8 want[4] = { 0xaa, 0x36, 0x91, 0x8a };
	u8 buf[32], got[4];

	memset(buf, 0, sizeof(buf));
	wire_crc(buf, sizeof(buf), got);
	CHECK_MEM(got, want, 4);
}

static void crc_rfc3720_ones(void)
{
	static const u8 want[4] = { 0x43, 0xab, 0xa8, 0x62 };
	u8 buf[32], got[4];

	memset(buf, 0xff, sizeof(buf));
	wire_crc(buf, sizeof(buf), got);
	CHECK_MEM(got, want, 4);
}

static void crc_rfc3720_incrementing(void)
{
	static const u8 want[4] = { 0x4e, 0x79, 0xdd, 0x46 };
	u8 buf[32], got[4];
	int i;

	for (i = 0; i < 32; i++)
		buf[i] = (u8)i;
	wire_crc(buf, sizeof(buf), got);
	CHECK_MEM(got, want, 4);
}

static void crc_rfc3720_decrementing(void)
{
	static const u8 want[4] = { 0x5c, 0xdb, 0x3f, 0x11 };
	u8 buf[32], got[4];
	int i;

	for (i = 0; i < 32; i++)
		buf[i] = (u8)(31 - i);
	wire_crc(buf, sizeof(buf), got);
	CHECK_MEM(got, want, 4);
}

/* The kernel's crc32c() chains through its seed argument. */
static void crc_streaming_equals_oneshot(void)
{
	u8 buf[301];
	u32 c;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 7 + 3);
	c = mpa_crc_update(MPA_CRC_SEED, buf, 1);
	c = mpa_crc_update(c, buf + 1, 150);
	c = mpa_crc_update(c, buf + 151, 150);
	CHECK_EQ(le32_to_cpu(mpa_crc_final(c)), ref_crc32c(buf, sizeof(buf)));
}

/* RFC 5044 section 4.1: 2 + ULPDU + PAD is a multiple of four. */
static void mpa_pad_len_values(void)
{
	CHECK_EQ(mpa_pad_len(0), 2);
	CHECK_EQ(mpa_pad_len(1), 1);
	CHECK_EQ(mpa_pad_len(2), 0);
	CHECK_EQ(mpa_pad_len(3), 3);
	CHECK_EQ(mpa_pad_len(4), 2);
	CHECK_EQ(mpa_pad_len(14), 0);
	CHECK_EQ(mpa_pad_len(18), 0);
	CHECK_EQ(mpa_pad_len(19), 3);
	CHECK_EQ(mpa_pad_len(65535), 3);
}

static void mpa_fpdu_len_values(void)
{
	CHECK_EQ(mpa_fpdu_len(0), 8);
	CHECK_EQ(mpa_fpdu_len(18), 24);
	CHECK_EQ(mpa_fpdu_len(19), 28);
	CHECK_EQ(mpa_fpdu_len(22), 28);
	CHECK_EQ(mpa_fpdu_len(46), 52);
	CHECK_EQ(mpa_fpdu_len(65535), 65544);
}

/* RFC 5044 section 4.5 without Markers: EMSS - (6 + EMSS mod 4). */
static void mpa_mulpdu_values(void)
{
	CHECK_EQ(mpa_mulpdu(1460), 1454);
	CHECK_EQ(mpa_mulpdu(1448), 1442);
	CHECK_EQ(mpa_mulpdu(1449), 1442);
	CHECK_EQ(mpa_mulpdu(1451), 1442);
	CHECK_EQ(mpa_mulpdu(1452), 1446);
	CHECK_EQ(mpa_mulpdu(8948), 8942);
	CHECK_EQ(mpa_mulpdu(8), 2);
	CHECK_EQ(mpa_mulpdu(9), 2);
	CHECK_EQ(mpa_mulpdu(7), 0);
	CHECK_EQ(mpa_mulpdu(0), 0);
	/* ULPDU_Length is 16 bits */
	CHECK_EQ(mpa_mulpdu(65540), 65534);
	CHECK_EQ(mpa_mulpdu(65535), 65526);
	CHECK_EQ(mpa_mulpdu(100000), 65534);
	CHECK_EQ(mpa_mulpdu(0xffffffff), 65534);
}

static void mpa_fpdu_finish_layout(void)
{
	u8 buf[16];
	u8 want[12] = { 0x00, 0x03, 'a', 'b', 'c', 0, 0, 0 };
	u32 crc = ref_crc32c(want, 8);

	want[8] = crc & 0xff;
	want[9] = (crc >> 8) & 0xff;
	want[10] = (crc >> 16) & 0xff;
	want[11] = crc >> 24;

	memset(buf, 0xee, sizeof(buf));
	memcpy(buf + 2, "abc", 3);
	CHECK_EQ(mpa_fpdu_finish(buf, sizeof(buf), 3, true), 12);
	CHECK_MEM(buf, want, 12);
	CHECK_EQ(buf[12], 0xee);
}

static void mpa_fpdu_finish_no_crc(void)
{
	static const u8 want[8] = { 0x00, 0x02, 'h', 'i', 0, 0, 0, 0 };
	u8 buf[8];

	memset(buf, 0xee, sizeof(buf));
	memcpy(buf + 2, "hi", 2);
	CHECK_EQ(mpa_fpdu_finish(buf, sizeof(buf), 2, false), 8);
	CHECK_MEM(buf, want, 8);
}

static void mpa_fpdu_finish_errors(void)
{
	u8 buf[16];

	CHECK_EQ(mpa_fpdu_finish(buf, sizeof(buf), 65536, true), -EMSGSIZE);
	CHECK_EQ(mpa_fpdu_finish(buf, 11, 3, true), -ENOSPC);
	CHECK_EQ(mpa_fpdu_finish(buf, 12, 3, true), 12);
}

/*
 * The zero-copy trailer, fed the ULPDU in uneven pieces, must give the same
 * bytes as framing the FPDU whole, for every PAD length and both CRC modes.
 */
static void mpa_fpdu_trailer_matches_finish(void)
{
	u8 whole[64], split[64];
	u32 len, cut, crc, n;
	int with_crc;

	for (with_crc = 0; with_crc < 2; with_crc++) {
		for (len = 0; len <= 9; len++) {
			memset(whole, 0xee, sizeof(whole));
			for (n = 0; n < len; n++)
				whole[2 + n] = (u8)(0x31 + 7 * n);
			memcpy(split, whole, sizeof(split));
			CHECK_EQ(mpa_fpdu_finish(whole, sizeof(whole), len,
						 with_crc), mpa_fpdu_len(len));

			split[0] = len >> 8;
			split[1] = len & 0xff;
			cut = len / 3;
			crc = mpa_crc_update(MPA_CRC_SEED, split, 2 + cut);
			crc = mpa_crc_update(crc, split + 2 + cut, len - cut);
			CHECK_EQ(mpa_fpdu_trailer(split + 2 + len, len,
						  with_crc ? &crc : NULL),
				 mpa_pad_len(len) + MPA_CRC_SIZE);
			CHECK_MEM(split, whole, mpa_fpdu_len(len));
			CHECK_EQ(split[mpa_fpdu_len(len)], 0xee);
		}
	}
}

/* A FPDU carrying the 5 octets "hello": 2 + 5 + PAD 1 + CRC 4. */
static void make_hello_fpdu(u8 f[12])
{
	u32 crc;

	memcpy(f, "\x00\x05hello\x00", 8);
	crc = ref_crc32c(f, 8);
	f[8] = crc & 0xff;
	f[9] = (crc >> 8) & 0xff;
	f[10] = (crc >> 16) & 0xff;
	f[11] = crc >> 24;
}

static void mpa_fpdu_check_crc_good(void)
{
	struct iw_term t;
	u8 f[12];

	make_hello_fpdu(f);
	CHECK_EQ(mpa_fpdu_check_crc(f, sizeof(f), &t), 0);
	CHECK_NO_TERM(&t);
}

static void mpa_fpdu_check_crc_bad_payload(void)
{
	struct iw_term t;
	u8 f[12];

	make_hello_fpdu(f);
	f[4] ^= 0x01;
	CHECK_EQ(mpa_fpdu_check_crc(f, sizeof(f), &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, 0);
}

/* The PAD octets are covered by the CRC, RFC 5044 section 4.4. */
static void mpa_fpdu_check_crc_bad_pad(void)
{
	struct iw_term t;
	u8 f[12];

	make_hello_fpdu(f);
	f[7] = 0x80;
	CHECK_EQ(mpa_fpdu_check_crc(f, sizeof(f), &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, 0);
}

static void mpa_fpdu_check_crc_bad_crc(void)
{
	struct iw_term t;
	u8 f[12];

	make_hello_fpdu(f);
	f[11] ^= 0x80;
	CHECK_EQ(mpa_fpdu_check_crc(f, sizeof(f), &t), -EBADMSG);
	CHECK_TERM(&t, IW_TERM_LAYER_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, 0);
}

static void mpa_fpdu_check_crc_incomplete(void)
{
	struct iw_term t;
	u8 f[12];

	make_hello_fpdu(f);
	CHECK_EQ(mpa_fpdu_check_crc(f, 11, &t), -EAGAIN);
	CHECK_NO_TERM(&t);
	CHECK_EQ(mpa_fpdu_check_crc(f, 1, &t), -EAGAIN);
	CHECK_NO_TERM(&t);
}

const struct unit_test crc_tests[] = {
	UNIT_TEST(crc32c_check_value),
	UNIT_TEST(crc32c_reference_check_value),
	UNIT_TEST(crc_rfc3720_zeros),
	UNIT_TEST(crc_rfc3720_ones),
	UNIT_TEST(crc_rfc3720_incrementing),
	UNIT_TEST(crc_rfc3720_decrementing),
	UNIT_TEST(crc_streaming_equals_oneshot),
	UNIT_TEST(mpa_pad_len_values),
	UNIT_TEST(mpa_fpdu_len_values),
	UNIT_TEST(mpa_mulpdu_values),
	UNIT_TEST(mpa_fpdu_finish_layout),
	UNIT_TEST(mpa_fpdu_finish_no_crc),
	UNIT_TEST(mpa_fpdu_finish_errors),
	UNIT_TEST(mpa_fpdu_trailer_matches_finish),
	UNIT_TEST(mpa_fpdu_check_crc_good),
	UNIT_TEST(mpa_fpdu_check_crc_bad_payload),
	UNIT_TEST(mpa_fpdu_check_crc_bad_pad),
	UNIT_TEST(mpa_fpdu_check_crc_bad_crc),
	UNIT_TEST(mpa_fpdu_check_crc_incomplete),
};

const size_t crc_tests_n = ARRAY_LEN(crc_tests);
