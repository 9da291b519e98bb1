/* util/names.h: a name to its enumeration value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/names.h"

static void test_names_index(void **state)
{
	static const char *const names[] = {"index", "util", "memory"};
	(void)state;
	assert_int_equal(names_index(names, 3, "index"), 0);
	assert_int_equal(names_index(names, 3, "memory"), 2);
	/* exact: no prefix, no other case */
	assert_int_equal(names_index(names, 3, "mem"), -1);
	assert_int_equal(names_index(names, 3, "Util"), -1);
	/* only the first n count */
	assert_int_equal(names_index(names, 2, "memory"), -1);
	assert_int_equal(names_index(names, 3, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
