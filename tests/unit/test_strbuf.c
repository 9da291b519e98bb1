/*
 * The growable string: the inline room checks of strbuf_add() and
 * strbuf_addch() at every distance from the end of the allocation, and the
 * empty buffer (no allocation yet) everywhere it is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* the invariant every strbuf function keeps once buf is set */
static void check(const struct strbuf *sb, const char *want, size_t want_len)
{
	assert_non_null(sb->buf);
	assert_true(sb->len < sb->alloc);
	assert_int_equal(sb->len, want_len);
	assert_int_equal(sb->buf[sb->len], '\0');
	assert_memory_equal(sb->buf, want, want_len);
}

static void test_empty(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 99;
	char *s;
	(void)state;
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_reset(&sb);
	strbuf_setlen(&sb, 0);
	assert_null(sb.buf);
	/* detaching nothing still hands over a string */
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	/* adding nothing allocates the NUL, and NULL data is fine with it */
	strbuf_add(&sb, NULL, 0);
	check(&sb, "", 0);
	strbuf_addstr(&sb, NULL);
	check(&sb, "", 0);
	strbuf_release(&sb);
	assert_null(sb.buf);
	assert_int_equal(sb.alloc, 0);
}

/* Each hint puts the end of the allocation somewhere else; every append length meets it. */
static void test_room_at_every_offset(void **state)
{
	static const size_t hints[] = {0, 1, 2, 3, 63, 64, 65, 100};
	static const char src[] = "0123456789abcdef";
	char want[8192]; /* the loop stops at 4 KiB; the last fill-up adds at most half again */
	size_t h, i;
	(void)state;
	for (h = 0; h < sizeof(hints) / sizeof(hints[0]); h++) {
		struct strbuf sb;
		size_t n = 0;
		strbuf_init(&sb, hints[h]);
		assert_int_equal(sb.len, 0);
		for (i = 0; n + 8 < 4096; i++) {
			size_t k = i % 9; /* 0..8 bytes, or one character */
			if (k == 8) {
				strbuf_addch(&sb, src[i % 16]);
				want[n++] = src[i % 16];
			} else {
				strbuf_add(&sb, src + i % 8, k);
				memcpy(want + n, src + i % 8, k);
				n += k;
			}
			check(&sb, want, n);
		}
		/* filled up to the last byte before the NUL, then one more */
		strbuf_grow(&sb, 0);
		while (sb.len + 1 < sb.alloc) {
			strbuf_addch(&sb, 'x');
			want[n++] = 'x';
		}
		check(&sb, want, n);
		strbuf_addch(&sb, 'y');
		want[n++] = 'y';
		check(&sb, want, n);
		strbuf_release(&sb);
	}
}

static void test_reuse(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t alloc, len;
	char *s;
	(void)state;
	strbuf_addf(&sb, "%0100d", 7);
	assert_int_equal(sb.len, 100);
	alloc = sb.alloc;
	/* reset keeps the allocation for the next text */
	strbuf_reset(&sb);
	check(&sb, "", 0);
	assert_int_equal(sb.alloc, alloc);
	strbuf_addstr(&sb, "gpu=\"0\"");
	strbuf_addch(&sb, ',');
	check(&sb, "gpu=\"0\",", 8);
	strbuf_setlen(&sb, 7);
	check(&sb, "gpu=\"0\"", 7);
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "gpu=\"0\"");
	assert_int_equal(len, 7);
	free(s);
	assert_null(sb.buf);
	strbuf_addch(&sb, 'z');
	check(&sb, "z", 1);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_room_at_every_offset),
		cmocka_unit_test(test_reuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
