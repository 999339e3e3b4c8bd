/* check_numtext.c - numtext_g against snprintf's "%g" (note [six digits]
 * in src/base/numtext.h): the same bytes on every value tried, and the
 * fast path taken for the constants rules and folds spell. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "numtext.h"
#include "check_main.h"

/* Fails unless numtext_g(v) is snprintf's "%g" of v, byte for byte. */
static void same_as_printf(double v)
{
    char want[64], got[NUMTEXT_G_MAX];
    int n = snprintf(want, sizeof want, "%g", v);
    size_t len = numtext_g(v, got);
    if (len != (size_t)n || strcmp(got, want) != 0)
        ck_abort_msg("%a: numtext_g gives \"%s\", printf \"%s\"", v, got, want);
}

/* The next number of a 64-bit linear congruential generator (Knuth's
 * MMIX constants): the same values on every run. */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state;
}

static double from_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

START_TEST(spells_special_values)
{
    static const char *const want[] = {"0", "-0", "1e-05", "0.001", "0.0001", "1e-05",
                                       "100000", "1e+06", "3.14159", "-2.5", "inf", "nan"};
    const double values[] = {0.0, -0.0, (double)1e-5f, 0.001, 1e-4, 1e-5,
                             1e5, 1e6, 3.14159265, -2.5, INFINITY, NAN};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char got[NUMTEXT_G_MAX];
        numtext_g(values[i], got);
        ck_assert_str_eq(got, want[i]);
        same_as_printf(values[i]);
    }
    same_as_printf(-INFINITY);
    same_as_printf(-NAN);
    same_as_printf(DBL_MIN);
    same_as_printf(DBL_MAX);
    same_as_printf(-DBL_MAX);
    same_as_printf(DBL_EPSILON);
    same_as_printf(from_bits(1));                  /* the least denormal */
    same_as_printf(from_bits(0x000fffffffffffffu)); /* the largest */
    same_as_printf(-from_bits(12345));
    same_as_printf((double)FLT_MIN);
    same_as_printf((double)FLT_MAX);
    same_as_printf((double)FLT_TRUE_MIN);
}
END_TEST

/* Ties of six digits, where only exact arithmetic decides (left to
 * printf), and the values either side of them. */
START_TEST(spells_ties_and_their_neighbours)
{
    const double ties[] = {1234565, 1234575, 2.5e-7, 999999.5, 9999995, 0.1234565,
                           1000005, 100000.5, 0.000123456, 123456.5, 5e-5, 12345650};
    for (size_t i = 0; i < sizeof ties / sizeof *ties; i++) {
        double v = ties[i];
        same_as_printf(v);
        same_as_printf(-v);
        same_as_printf(nextafter(v, 0));
        same_as_printf(nextafter(v, INFINITY));
    }
}
END_TEST

/* Every power of ten a double can be near, and its neighbours. */
START_TEST(spells_powers_of_ten)
{
    for (int e = -320; e <= 308; e++) {
        double v = pow(10, e);
        same_as_printf(v);
        same_as_printf(nextafter(v, 0));
        same_as_printf(nextafter(v, INFINITY));
        same_as_printf(-v * 9.999995);
        same_as_printf(v * 9.9999949999);
    }
}
END_TEST

/* Whole numbers, as int constants spelled as floats. */
START_TEST(spells_whole_numbers)
{
    for (int i = -100000; i <= 2000000; i += 7)
        same_as_printf(i);
    for (int64_t i = 1; i < INT64_MAX / 3; i *= 3)
        same_as_printf((double)i);
}
END_TEST

/* Numbers written with few decimals (1e-05, 0.125, 6.02e23), as rules
 * write them, and every float32 near them. */
START_TEST(spells_short_decimals)
{
    for (int digits = 1; digits <= 99999; digits += 13)
        for (int e = -20; e <= 22; e++) {
            double v = digits * pow(10, e);
            same_as_printf(v);
            same_as_printf((double)(float)v);
        }
}
END_TEST

/* Random bit patterns (every exponent, denormals, NaNs) and random
 * numbers in the range the fast path covers. */
START_TEST(spells_random_values)
{
    uint64_t state = 34;
    for (int i = 0; i < 1000000; i++)
        same_as_printf(from_bits(next_random(&state)));
    for (int i = 0; i < 1000000; i++) {
        double unit = (double)(next_random(&state) >> 11) / 9007199254740992.0;
        int e = (int)(next_random(&state) % 40) - 18;
        same_as_printf(unit * pow(10, e));
        same_as_printf((double)(float)(unit * pow(10, e)));
    }
}
END_TEST

/* The constants rules and folds spell take the fast path, not printf. */
START_TEST(takes_the_fast_path)
{
    const double values[] = {(double)1e-5f, (double)1e-3f, 0.5, 1, 2, -1, 3.0, 6.0, 0.044715,
                             0.7978845608, 1.702, 255, (double)0.1f, 1e-12, 65504};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char got[NUMTEXT_G_MAX];
        size_t len = 0;
        ck_assert_msg(numtext_g_fast(values[i], got, &len), "%g left to printf", values[i]);
        ck_assert_uint_eq(len, strlen(got));
    }
    char got[NUMTEXT_G_MAX];
    size_t len = 0;
    ck_assert(!numtext_g_fast(1234565, got, &len)); /* a tie */
    ck_assert(!numtext_g_fast(from_bits(1), got, &len)); /* a denormal */
    ck_assert(!numtext_g_fast(1e300, got, &len));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numtext");
    TCase *tc = tcase_create("numtext");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, spells_special_values);
    tcase_add_test(tc, spells_ties_and_their_neighbours);
    tcase_add_test(tc, spells_powers_of_ten);
    tcase_add_test(tc, spells_whole_numbers);
    tcase_add_test(tc, spells_short_decimals);
    tcase_add_test(tc, spells_random_values);
    tcase_add_test(tc, takes_the_fast_path);
    suite_add_tcase(s, tc);
    return check_run_suite(s);
}
