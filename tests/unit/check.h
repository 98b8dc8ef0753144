/*
 * check.h - the checks the unit tests share, beyond cmocka's own.
 * Include after <cmocka.h>.  Each failure prints what was compared and
 * fails the test at the caller's line.
 */
#ifndef STAFFER_TEST_CHECK_H
#define STAFFER_TEST_CHECK_H

#include <math.h>
#include <string.h>

/* |a - b| <= tol; NaN never passes. */
#define assert_near(a, b, tol) \
	check_near_at((a), (b), (tol), 0, #a, __FILE__, __LINE__)
/* |a - b| <= rtol * |b| */
#define assert_rel(a, b, rtol) \
	check_near_at((a), (b), (rtol), 1, #a, __FILE__, __LINE__)
/* strstr(hay, needle) */
#define check_contains(hay, needle) \
	check_contains_at((hay), (needle), __FILE__, __LINE__)

static inline void check_near_at(double a, double b, double tol,
				 int relative, const char *what,
				 const char *file, int line)
{
	double lim = relative ? tol * fabs(b) : tol;

	if (!(fabs(a - b) <= lim)) {
		print_error("%s = %.17g, want %.17g (tolerance %g%s)\n",
			    what, a, b, tol, relative ? " relative" : "");
		_fail(file, line);
	}
}

static inline void check_contains_at(const char *hay, const char *needle,
				     const char *file, int line)
{
	if (!strstr(hay, needle)) {
		print_error("'%s'\n  does not contain '%s'\n", hay, needle);
		_fail(file, line);
	}
}

#endif
