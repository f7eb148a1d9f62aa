/*
 * forge_doors_test.c - portable tests of forge_doors_runtime.h.
 *
 * Builds with any C11 compiler: gcc/clang -std=c11 -Wall -Wextra -Wpedantic
 * -Werror (also under -fsanitize=address,undefined), and MSVC /W4 /WX
 * (test-forge-doors.ps1). The Go test of package native builds and runs it.
 * Exit status 0 when every check passes; each failure prints its line.
 */
#define FORGE_DOORS_IMPLEMENTATION
#include "forge_doors_runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int checks;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                    \
    } while (0)

#define CHECK_STATUS(got, want)                                                      \
    do {                                                                             \
        fd_status got_ = (got), want_ = (want);                                      \
        checks++;                                                                    \
        if (got_ != want_) {                                                         \
            failures++;                                                              \
            printf("%s:%d: %s = %d (%s); want %d (%s)\n", __FILE__, __LINE__, #got,   \
                   (int)got_, fd_status_text(got_), (int)want_, fd_status_text(want_)); \
        }                                                                            \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                                  \
    do {                                                                            \
        double got_ = (got), want_ = (want);                                        \
        checks++;                                                                   \
        if (!(fabs(got_ - want_) <= (tol))) {                                       \
            failures++;                                                             \
            printf("%s:%d: %s = %.17g; want %.17g\n", __FILE__, __LINE__, #got, got_, \
                   want_);                                                          \
        }                                                                           \
    } while (0)

/* Non-finite values made at run time: MSVC's INFINITY/NAN macros can warn
 * about constant overflow under /W4. */
static double fd_test_inf(void)
{
    volatile double big = 1e308;
    return big * 10.0;
}

static double fd_test_nan(void)
{
    volatile double inf = fd_test_inf();
    return inf - inf;
}

#define DT (1.0 / 64.0) /* exact in binary: motion sums stay exact */

static const char DOORS[] =
    "forge-doors 1\n"
    "mjolnir\\forge\\lockout-gates\\gate_infantry\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
    "mjolnir\\forge\\lockout-gates\\gate_vehicle\t6\t4\t12\t20\t8\t2\t10\t0.75\t7.5\n"
    "mjolnir\\forge\\lockout-gates\\gate_unbound\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
    "mjolnir\\forge\\lockout-gates\\wall_glass\t4\t4\t8\t16\t6\t2\t4\t0.25\t3\n";

static const char INSTALLED[] =
    "forge-installed 1\n"
    "mjolnir\\forge\\lockout-gates\\gate_infantry\tlockout-gates\t0.3.1\tgate_infantry\tpanel\t"
    "/Game/MJOLNIR/Forge/lockout-gates/Panels/BP_GateInfantry.BP_GateInfantry_C\n"
    "mjolnir\\forge\\lockout-gates\\gate_vehicle\tlockout-gates\t0.3.1\tgate_vehicle\tpanel\t"
    "/Game/MJOLNIR/Forge/lockout-gates/Panels/BP_GateVehicle.BP_GateVehicle_C\n"
    "mjolnir\\forge\\lockout-gates\\wall_glass\tlockout-gates\t0.3.1\twall_glass\tblock\t"
    "/Game/MJOLNIR/Forge/lockout-gates/Panels/BP_WallGlass.BP_WallGlass_C\n";

#define TAG_INF "mjolnir\\forge\\lockout-gates\\gate_infantry"
#define TAG_VEH "mjolnir\\forge\\lockout-gates\\gate_vehicle"
#define TAG_UNBOUND "mjolnir\\forge\\lockout-gates\\gate_unbound"
#define TAG_BLOCK "mjolnir\\forge\\lockout-gates\\wall_glass"

static fd_runtime rt_storage; /* the tests' own storage */
static fd_inventory inv_storage;

static fd_pose identity_at(double x, double y, double z)
{
    fd_pose p;
    memset(&p, 0, sizeof p);
    p.origin.x = x;
    p.origin.y = y;
    p.origin.z = z;
    p.axis_x.x = 1;
    p.axis_y.y = 1;
    p.axis_z.z = 1;
    return p;
}

static fd_vec3 v3(double x, double y, double z)
{
    fd_vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

/* rotation from yaw (about Z), then pitch (about Y), then roll (about X),
 * applied as R = Rz(yaw) * Ry(pitch) * Rx(roll). */
static fd_pose rotated(fd_vec3 origin, double yaw, double pitch, double roll)
{
    double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch), cr = cos(roll),
           sr = sin(roll);
    fd_pose p;
    p.origin = origin;
    p.axis_x = v3(cy * cp, sy * cp, -sp);
    p.axis_y = v3(cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, cp * sr);
    p.axis_z = v3(cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr);
    return p;
}

static fd_vec3 to_world(const fd_pose *p, double x, double y, double z)
{
    return v3(p->origin.x + x * p->axis_x.x + y * p->axis_y.x + z * p->axis_z.x,
              p->origin.y + x * p->axis_x.y + y * p->axis_y.y + z * p->axis_z.y,
              p->origin.z + x * p->axis_x.z + y * p->axis_y.z + z * p->axis_z.z);
}

static fd_obstacle biped_at(fd_vec3 c)
{
    fd_obstacle o;
    memset(&o, 0, sizeof o);
    o.kind = FD_OBSTACLE_BIPED;
    o.centre = c;
    o.radius = 0.4;
    return o;
}

static fd_obstacle sphere_at(fd_obstacle_kind kind, fd_vec3 c, double r)
{
    fd_obstacle o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.centre = c;
    o.radius = r;
    return o;
}

static fd_runtime *ready_runtime(void)
{
    fd_runtime *rt = &rt_storage;
    fd_runtime_init(rt);
    fd_runtime_report_build(rt, "CU4");
    fd_runtime_report_forge(rt, 1, FD_FORGE_NATIVE_API_MIN);
    fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, INSTALLED, sizeof INSTALLED - 1);
    fd_runtime_begin_world(rt, 1, FD_ROLE_HOST);
    return rt;
}

static fd_panel_observation panel_obs(uint32_t handle, uint32_t entry, const char *tag,
                                      fd_pose pose)
{
    fd_panel_observation o;
    memset(&o, 0, sizeof o);
    o.handle = handle;
    o.live_salt = (uint16_t)(handle >> 16);
    o.entry = entry;
    o.tag = tag;
    o.tag_len = strlen(tag);
    o.physics = FD_PHYSICS_FIXED;
    o.pose = pose;
    return o;
}

/* tick observes the panel at its current published pose (as Forge's
 * update would reapply it) and steps once. */
static fd_status tick(fd_runtime *rt, fd_panel_observation *o, uint64_t n,
                      const fd_obstacle *obs, size_t count)
{
    const fd_panel *p = fd_runtime_find_panel(rt, o->handle);
    if (p)
        o->pose = p->published;
    fd_runtime_begin_scan(rt);
    fd_runtime_observe_panel(rt, o, NULL);
    return fd_runtime_step(rt, n, DT, obs, count);
}

static double height_of(const fd_runtime *rt, uint32_t handle)
{
    const fd_panel *p = fd_runtime_find_panel(rt, handle);
    return p ? p->height : -1.0;
}

static int state_of(const fd_runtime *rt, uint32_t handle)
{
    const fd_panel *p = fd_runtime_find_panel(rt, handle);
    return p ? p->state : -1;
}

/* ---- parser ---------------------------------------------------------------- */

static void test_decimal(void)
{
    static const char *good[] = {"0", "4", "0.45", "-0.5", "64", "0.01", "7.5",
                                 "0.30000000000000004", "7.999999999999999",
                                 "31.999999999999996447286321199499070644378662109375",
                                 "0.1", "16.000000000000004", "123456789012345678",
                                 "9007199254740993", "0.000000000000000000001"};
    static const char *bad[] = {"", "-", ".5", "5.", "+1", "1e3", "1E3", "0x10", "inf", "nan",
                                "1,5", " 4", "4 ", "--1", "1.2.3", "Infinity", "4\t",
                                "12345678901234567890123456789012345678901"};
    double v;
    size_t i;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        double want;
        if (strlen(good[i]) > FD_MAX_NUMBER)
            continue; /* too long on purpose: covered below */
        want = strtod(good[i], NULL);
        CHECK(fd_parse_decimal(good[i], strlen(good[i]), &v));
        if (v != want)
            printf("fd_parse_decimal(%s) = %.17g; want %.17g\n", good[i], v, want);
        CHECK(v == want);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ok = fd_parse_decimal(bad[i], strlen(bad[i]), &v);
        if (ok)
            printf("fd_parse_decimal(%s) accepted\n", bad[i]);
        CHECK(!ok);
    }
    CHECK(!fd_parse_decimal("31.999999999999996447286321199499070644378662109375", 51, &v));
    CHECK(fd_parse_decimal("-0", 2, &v) && v == 0.0 && !signbit(v));
    /* Correct rounding against strtod for many shortest-form values. */
    {
        uint64_t s = 0x9e3779b97f4a7c15u;
        int k, mismatches = 0;
        for (k = 0; k < 20000; k++) {
            char buf[64];
            double x, want, got;
            int prec;
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            x = (double)(s >> 11) / 9007199254740992.0 * 64.0;
            prec = 1 + (int)(s % 17);
            sprintf(buf, "%.*f", prec, x);
            want = strtod(buf, NULL);
            if (!fd_parse_decimal(buf, strlen(buf), &got) || got != want) {
                if (mismatches++ < 5)
                    printf("fd_parse_decimal(%s) = %.17g; want %.17g\n", buf, got, want);
            }
            sprintf(buf, "%.17g", x); /* 17 significant digits, x < 64: no exponent */
            if (strchr(buf, 'e') == NULL) {
                want = strtod(buf, NULL);
                if (!fd_parse_decimal(buf, strlen(buf), &got) || got != want) {
                    if (mismatches++ < 5)
                        printf("fd_parse_decimal(%s) = %.17g; want %.17g\n", buf, got, want);
                }
            }
        }
        CHECK(mismatches == 0);
    }
}

/* fd_test_xorshift is the tests' deterministic random source. */
static uint64_t fd_test_xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* fd_check_decimal_text compares fd_parse_decimal with strtod on one
 * number; it returns 1 on a match and prints the first few mismatches. */
static int fd_check_decimal_text(const char *buf, int *mismatches)
{
    double want = strtod(buf, NULL), got = 0.0;
    if (fd_parse_decimal(buf, strlen(buf), &got) && memcmp(&got, &want, sizeof got) == 0)
        return 1;
    if (want == 0.0 && got == 0.0 && fd_parse_decimal(buf, strlen(buf), &got))
        return 1; /* "-0..." reads as +0 on purpose (test_decimal) */
    if ((*mismatches)++ < 5)
        printf("fd_parse_decimal(%s) = %.17g; strtod says %.17g\n", buf, got, want);
    return 0;
}

/* test_decimal_17_digits checks the 19-digit fast path (Eisel-Lemire) and
 * its exact fallback against strtod: 17-digit renderings of random
 * doubles over the whole reachable exponent range, random digit strings,
 * the neighbours of 2^53, exact halfway points between doubles (which the
 * fast path must decline), 17 and 19 nines, and the smallest and largest
 * magnitudes a 40-byte number can hold. Subnormals and overflow are out
 * of reach: without an exponent, 40 bytes span 1e-38 to 1e40. */
static void test_decimal_17_digits(void)
{
    static const char *edge[] = {
        "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994",
        "9007199254740995", "18014398509481985", "18014398509481987", "99999999999999999",
        "9999999999999999999", "10000000000000000000", "18446744073709551615",
        "18446744073709551616", "0.99999999999999999", "0.30000000000000001",
        "0.1000000000000000055511151231257827", "0.00000000000000000000000000000000000001",
        "0.00000000000000000000000000000000000009", "9999999999999999999999999999999999999999",
        "1000000000000000000000000000000000000000", "4.9406564584124654", "2.2250738585072014",
        "1.7976931348623157", "63.999999999999993", "63.999999999999996", "0.010000000000000000",
        "0.0099999999999999985", "15.999999999999998", "16.000000000000002", "1.0000000000000002",
        "1.00000000000000011102230246251565", "1.00000000000000033306690738754696"};
    uint64_t s = 0x243f6a8885a308d3u;
    int k, mismatches = 0, declined = 0, fast = 0;
    char buf[64];
    double v;
    size_t i;
    for (i = 0; i < sizeof edge / sizeof edge[0]; i++)
        fd_check_decimal_text(edge[i], &mismatches);
    /* exact halfway points between neighbouring doubles in [2^53, 2^54)
     * (spaced 2 apart, so every odd integer there): Eisel-Lemire cannot
     * decide them and must leave them to the exact path */
    for (k = 0; k < 2000; k++) {
        uint64_t half = ((uint64_t)1 << 53) + (fd_test_xorshift(&s) >> 11) * 2 + 1;
        if (half >= ((uint64_t)1 << 54))
            continue;
        sprintf(buf, "%llu", (unsigned long long)half);
        if (!fd_eisel_lemire(half, 0, &v))
            declined++;
        fd_check_decimal_text(buf, &mismatches);
        /* and the same digits scaled by 10^-3 */
        sprintf(buf, "%llu.%03llu", (unsigned long long)(half / 1000),
                (unsigned long long)(half % 1000));
        fd_check_decimal_text(buf, &mismatches);
    }
    CHECK(declined > 0);
    for (k = 0; k < 200000; k++) {
        uint64_t r = fd_test_xorshift(&s);
        double x;
        int digits, point, j;
        if (k % 2 == 0) {
            /* a random double in [1e-38, 1e22) rendered with 17 digits */
            uint64_t bits = ((uint64_t)(896 + r % 178) << 52) | (fd_test_xorshift(&s) >> 12);
            memcpy(&x, &bits, sizeof x);
            if (x >= 1e-4)
                sprintf(buf, "%.17g", x); /* no exponent below 1e17 */
            else
                sprintf(buf, "%.*f", 16 - (int)floor(log10(x)), x);
            if (strchr(buf, 'e') != NULL || strlen(buf) > FD_MAX_NUMBER)
                continue;
        } else {
            /* 1-19 random significant digits, the point anywhere: before
             * them (with up to 20 zeros), inside, or after */
            int intlen, zeros;
            digits = 1 + (int)(r % 19);
            intlen = (int)((r >> 8) % (uint64_t)(digits + 1));
            zeros = (int)((r >> 16) % 21);
            j = 0;
            if ((r >> 24) & 1)
                buf[j++] = '-';
            if (intlen == 0) {
                buf[j++] = '0';
                buf[j++] = '.';
                for (point = 0; point < zeros; point++)
                    buf[j++] = '0';
            }
            for (point = 0; point < digits; point++) {
                if (point == intlen && intlen > 0)
                    buf[j++] = '.';
                buf[j++] = (char)('0' + fd_test_xorshift(&s) % 10);
            }
            buf[j] = '\0';
            if (j > FD_MAX_NUMBER)
                continue;
            fast += fd_parse_decimal(buf, strlen(buf), &v) && digits > 15;
        }
        fd_check_decimal_text(buf, &mismatches);
    }
    CHECK(fast > 10000); /* the generator reached the long-digit paths */
    /* the fast path itself, over its whole table: whenever it accepts, it
     * agrees with strtod, and it accepts all but the rare undecidable */
    {
        int accepted = 0, tried = 0, wrong = 0;
        for (k = 0; k < 100000; k++) {
            uint64_t m = fd_test_xorshift(&s) % 10000000000000000000u;
            int e = FD_POW10_MIN + (int)(fd_test_xorshift(&s) % (FD_POW10_MAX - FD_POW10_MIN + 1));
            double want;
            if (k % 4 == 0)
                m %= 100000000000000000u; /* 17 digits */
            if (m == 0)
                continue;
            sprintf(buf, "%llue%d", (unsigned long long)m, e);
            want = strtod(buf, NULL);
            tried++;
            if (!fd_eisel_lemire(m, e, &v))
                continue;
            accepted++;
            if (memcmp(&v, &want, sizeof v) != 0 && wrong++ < 5)
                printf("fd_eisel_lemire(%s) = %.17g; strtod says %.17g\n", buf, v, want);
        }
        CHECK(wrong == 0);
        CHECK(accepted > tried - tried / 100);
    }
    CHECK(mismatches == 0);
}

/* test_decimal_fast_exact checks fd_parse_decimal's one-pass reader
 * against the general one it falls back to (fd_parse_decimal_exact) and
 * against strtod, bit for bit: random numbers of 1 to 40 bytes whose
 * fraction has every length across the 8-digit steps, with leading and
 * trailing zeros (so more than 19 digits that are fewer after trimming),
 * signs, and 17-digit renderings; then the same texts with one byte
 * changed, inserted or dropped, which both readers must accept or refuse
 * alike. */
static void test_decimal_fast_exact(void)
{
    static const char alphabet[] = "0123456789.-+e x\t";
    uint64_t s = 0x13198a2e03707344u;
    int k, mismatches = 0, differ = 0, long_digits = 0;
    char buf[128]; /* up to 1 + 6 + 1 + 9 + 32 + 23 bytes before the length check */
    for (k = 0; k < 300000; k++) {
        uint64_t r = fd_test_xorshift(&s);
        int intlen = (int)(r % 6), fraclen = (int)((r >> 8) % 33), lead = (int)((r >> 16) % 4);
        int trail = (int)((r >> 24) % 24), j = 0, i, ok_fast, ok_exact;
        double fast = 0.0, exact = 0.0;
        if ((r >> 32) & 1)
            buf[j++] = '-';
        if (intlen == 0 || lead == 3)
            buf[j++] = '0';
        for (i = 0; i < intlen; i++)
            buf[j++] = (char)('0' + (i == 0 ? 1 + fd_test_xorshift(&s) % 9 : fd_test_xorshift(&s) % 10));
        if (fraclen > 0 || trail > 0) {
            buf[j++] = '.';
            if (intlen == 0)
                for (i = 0; i < lead * 3; i++)
                    buf[j++] = '0';
            for (i = 0; i < fraclen; i++)
                buf[j++] = (char)('0' + fd_test_xorshift(&s) % 10);
            for (i = 0; i < trail; i++)
                buf[j++] = '0';
        }
        buf[j] = '\0';
        if (j > FD_MAX_NUMBER)
            continue;
        long_digits += intlen + fraclen > 19;
        fd_check_decimal_text(buf, &mismatches);
        ok_fast = fd_parse_decimal(buf, (size_t)j, &fast);
        ok_exact = fd_parse_decimal_exact(buf, (size_t)j, &exact);
        if (ok_fast != ok_exact || memcmp(&fast, &exact, sizeof fast) != 0) {
            if (differ++ < 5)
                printf("fd_parse_decimal(%s) = %d %.17g; exact reader %d %.17g\n", buf, ok_fast, fast,
                       ok_exact, exact);
        }
        /* one byte changed, inserted or dropped: both readers agree */
        {
            int at = (int)(fd_test_xorshift(&s) % (uint64_t)(j + 1)), op = (int)(fd_test_xorshift(&s) % 3);
            char c = alphabet[fd_test_xorshift(&s) % (sizeof alphabet - 1)];
            if (op == 0 && at < j)
                buf[at] = c;
            else if (op == 1 && j < FD_MAX_NUMBER) {
                memmove(buf + at + 1, buf + at, (size_t)(j - at + 1));
                buf[at] = c;
                j++;
            } else if (j > 0 && at < j) {
                memmove(buf + at, buf + at + 1, (size_t)(j - at));
                j--;
            }
            fast = exact = 0.0;
            ok_fast = fd_parse_decimal(buf, (size_t)j, &fast);
            ok_exact = fd_parse_decimal_exact(buf, (size_t)j, &exact);
            if (ok_fast != ok_exact || (ok_fast && memcmp(&fast, &exact, sizeof fast) != 0)) {
                if (differ++ < 5)
                    printf("fd_parse_decimal(%s) = %d %.17g; exact reader %d %.17g\n", buf, ok_fast,
                           fast, ok_exact, exact);
            }
        }
    }
    CHECK(long_digits > 10000); /* the fallback for over 19 digits was reached */
    CHECK(mismatches == 0);
    CHECK(differ == 0);
}

/* ref_split is fd_split as it was: a byte loop, then each field checked
 * for control characters. */
static size_t ref_split(fd_span row, fd_span *fields, size_t max, size_t *control)
{
    size_t n = 0, start = 0, i, j;
    *control = 0;
    for (i = 0; i <= row.len; i++) {
        if (i == row.len || row.ptr[i] == '\t') {
            if (n == max)
                return max + 1;
            fields[n].ptr = row.ptr + start;
            fields[n].len = i - start;
            n++;
            start = i + 1;
        }
    }
    for (i = 0; i < n && *control == 0; i++)
        for (j = 0; j < fields[i].len; j++) {
            unsigned char c = (unsigned char)fields[i].ptr[j];
            if (c < 0x20 || c == 0x7f) {
                *control = i + 1;
                break;
            }
        }
    return n;
}

/* ref_valid_class is fd_valid_class as it was, one byte at a time. */
static int ref_valid_class(fd_span c, fd_span pack)
{
    static const char prefix[] = "/Game/MJOLNIR/Forge/";
    size_t plen = sizeof prefix - 1, i, slash = 0, dot = 0, ndots = 0;
    if (c.len > 200 || c.len < plen + pack.len + 2 || memcmp(c.ptr, prefix, plen) != 0)
        return 0;
    for (i = 0; i < c.len; i++) {
        char ch = c.ptr[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '/' || ch == '.' || ch == '-'))
            return 0;
        if (ch == '/')
            slash = i;
        if (ch == '.') {
            dot = i;
            ndots++;
        }
    }
    if (ndots != 1 || dot < slash + 2)
        return 0;
    {
        size_t an = dot - slash - 1;
        if (c.len - dot - 1 != an + 2 || memcmp(c.ptr + slash + 1, c.ptr + dot + 1, an) != 0 ||
            memcmp(c.ptr + c.len - 2, "_C", 2) != 0)
            return 0;
    }
    return 1;
}

/* test_row_scanning checks the word-at-a-time row reading against the
 * byte loops it replaced: the control-character mask on every byte value
 * in every position of a word, fd_split on random rows of tabs, control
 * characters, DEL, high bytes and text (every alignment, lengths 0-99),
 * fd_valid_class on random and near-valid class paths, and the tag lookup
 * near a hint against the plain binary search for every hint. */
static void test_row_scanning(void)
{
    static const char alphabet[] = "\t\t\t\x01\r\x1f\x7f\x80\xff a_Z0./-\\C";
    static char text[128];
    uint64_t s = 0xa4093822299f31d0u;
    int k, bad = 0, valid = 0;
    unsigned b, pos;
    /* the mask: zero exactly when no byte is a control character, and its
     * lowest flagged byte is the first control character */
    for (b = 0; b < 256; b++)
        for (pos = 0; pos < 8; pos++) {
            unsigned char bytes[8];
            uint64_t w, mask;
            unsigned first = 8, i;
            memset(bytes, 'a', sizeof bytes);
            bytes[pos] = (unsigned char)b;
            if (pos < 7)
                bytes[7] = (unsigned char)(fd_test_xorshift(&s) & 0xff);
            for (i = 0; i < 8 && first == 8; i++)
                if (bytes[i] < 0x20 || bytes[i] == 0x7f)
                    first = i;
            memcpy(&w, bytes, sizeof w);
            mask = fd_control_mask(w);
            if ((mask == 0) != (first == 8))
                bad++;
            if (mask && fd_little_endian()) {
                uint64_t low = mask & (~mask + 1);
                unsigned at = 0;
                while (low >>= 8)
                    at++;
                if (at != first)
                    bad++;
            }
        }
    CHECK(bad == 0);
    for (k = 0; k < 200000; k++) {
        fd_span row, got[11], want[11];
        size_t len = (size_t)(fd_test_xorshift(&s) % 100), off = (size_t)(fd_test_xorshift(&s) % 8);
        size_t max = k % 2 ? 10 : 6, gn, wn, gc, wc, i;
        uint64_t r = fd_test_xorshift(&s);
        for (i = 0; i < len; i++) {
            /* mostly plain text, so that clean words occur */
            r = fd_test_xorshift(&s);
            text[off + i] = r % 4 ? (char)('a' + r % 26)
                                  : alphabet[(r >> 8) % (sizeof alphabet - 1)];
        }
        row.ptr = text + off;
        row.len = len;
        gn = fd_split(row, got, max, &gc);
        wn = ref_split(row, want, max, &wc);
        if (gn != wn || (gn <= max && (gc != wc || memcmp(got, want, gn * sizeof got[0]) != 0))) {
            if (bad++ < 5)
                printf("fd_split (len %u, max %u): %u fields, control %u; want %u, %u\n",
                       (unsigned)len, (unsigned)max, (unsigned)gn, (unsigned)gc, (unsigned)wn,
                       (unsigned)wc);
        }
    }
    CHECK(bad == 0);
    for (k = 0; k < 100000; k++) {
        static const char *parts[] = {"/Game/MJOLNIR/Forge/", "pk", "/", "BP_A", ".", "BP_A_C",
                                      "_C", "a", "B", "..", "/x", "-", "$", "BP_A.BP_A_C"};
        fd_span c, pack;
        size_t len = 0;
        int n = 1 + (int)(fd_test_xorshift(&s) % 8), i;
        if (k % 3)
            len += (size_t)sprintf(text, "/Game/MJOLNIR/Forge/pk/");
        for (i = 0; i < n && len < 100; i++)
            len += (size_t)sprintf(text + len, "%s",
                                   parts[fd_test_xorshift(&s) % (sizeof parts / sizeof parts[0])]);
        c.ptr = text;
        c.len = len;
        pack.ptr = "pk";
        pack.len = 2;
        valid += ref_valid_class(c, pack);
        if (fd_valid_class(c, pack) != ref_valid_class(c, pack) && bad++ < 5)
            printf("fd_valid_class(%.*s) = %d\n", (int)len, text, fd_valid_class(c, pack));
    }
    CHECK(valid > 100); /* valid paths were made too */
    CHECK(bad == 0);
    {
        fd_inventory *inv = &inv_storage;
        static char doors[64 * 80];
        size_t dn = 0, i, hint;
        dn += (size_t)sprintf(doors, "forge-doors 1\n");
        for (i = 0; i < 40; i++) /* out of order, with gaps */
            dn += (size_t)sprintf(doors + dn, "mjolnir\\forge\\p-k\\d%03u\t1\t1\t1\t1\t1\t1\t1\t1\t1\n",
                                  (unsigned)((i * 37) % 100));
        fd_inventory_init(inv);
        CHECK_STATUS(fd_inventory_parse_doors(inv, doors, dn), FD_OK);
        CHECK(inv->def_count == 40);
        for (i = 1; i < inv->def_count; i++)
            CHECK(fd_tag_cmp(inv->defs[inv->by_tag[i - 1]].tag, inv->defs[inv->by_tag[i - 1]].tag_len,
                             inv->defs[inv->by_tag[i]].tag, inv->defs[inv->by_tag[i]].tag_len) < 0);
        for (i = 0; i < 100; i++) {
            char tag[40];
            size_t len = (size_t)sprintf(tag, "mjolnir\\forge\\p-k\\d%03u", (unsigned)i);
            int f1, f2;
            size_t want = fd_find_index(inv, tag, len, &f1);
            for (hint = 0; hint <= inv->def_count + 1; hint++)
                if (fd_find_index_near(inv, tag, len, hint, &f2) != want || f2 != f1)
                    bad++;
        }
        CHECK(bad == 0);
    }
}

static void test_parse_companion(void)
{
    fd_inventory *inv = &inv_storage;
    const fd_door_def *d;
    fd_inventory_init(inv);
    CHECK_STATUS(fd_inventory_parse_doors(inv, DOORS, sizeof DOORS - 1), FD_OK);
    CHECK(inv->def_count == 4);
    CHECK(inv->doors_rejected == 0);
    d = fd_inventory_find(inv, TAG_VEH, strlen(TAG_VEH));
    CHECK(d != NULL);
    if (d) {
        CHECK(d->travel == 6 && d->speed == 4 && d->trigger[0] == 12 && d->trigger[1] == 20 &&
              d->trigger[2] == 8 && d->hold == 2 && d->panel[0] == 10 && d->panel[1] == 0.75 &&
              d->panel[2] == 7.5);
        CHECK(d->line == 3);
        CHECK(strcmp(d->tag, TAG_VEH) == 0);
    }
    CHECK(fd_inventory_find(inv, "mjolnir\\forge\\x", 15) == NULL);
}

/* reject_one parses a header plus one row and returns the rejection. */
static fd_rejection reject_one(const char *row, size_t *accepted)
{
    static char buf[1024];
    fd_rejection r;
    fd_inventory *inv = &inv_storage;
    memset(&r, 0, sizeof r);
    snprintf(buf, sizeof buf, "forge-doors 1\n%s\n", row);
    fd_inventory_init(inv);
    fd_inventory_parse_doors(inv, buf, strlen(buf));
    *accepted = inv->def_count;
    if (inv->doors_rejected > 0)
        r = inv->doors_rejections[0];
    return r;
}

static void test_field_limits(void)
{
    static const struct {
        const char *row;
        fd_status reason; /* FD_OK: accepted */
        int field;
    } cases[] = {
        {"mjolnir\\forge\\abc\\d\t16\t8\t32\t32\t32\t10\t64\t64\t64", FD_OK, 0},
        {"mjolnir\\forge\\abc\\d\t0.001\t0.001\t0.001\t0.001\t0.001\t0\t0.01\t0.01\t0.01", FD_OK, 0},
        {"mjolnir\\forge\\abc\\d\t0\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_TRAVEL_RANGE, 2},
        {"mjolnir\\forge\\abc\\d\t16.000001\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_TRAVEL_RANGE, 2},
        {"mjolnir\\forge\\abc\\d\t-1\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_TRAVEL_RANGE, 2},
        {"mjolnir\\forge\\abc\\d\t4\t0\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_SPEED_RANGE, 3},
        {"mjolnir\\forge\\abc\\d\t4\t8.01\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_SPEED_RANGE, 3},
        {"mjolnir\\forge\\abc\\d\t4\t4\t0\t16\t6\t2\t4\t0.5\t4", FD_ROW_TRIGGER_RANGE, 4},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t32.5\t6\t2\t4\t0.5\t4", FD_ROW_TRIGGER_RANGE, 5},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t33\t2\t4\t0.5\t4", FD_ROW_TRIGGER_RANGE, 6},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t10.5\t4\t0.5\t4", FD_ROW_HOLD_RANGE, 7},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t-0.5\t4\t0.5\t4", FD_ROW_HOLD_RANGE, 7},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t64.01\t0.5\t4", FD_ROW_PANEL_RANGE, 8},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.009\t4", FD_ROW_PANEL_RANGE, 9},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t65", FD_ROW_PANEL_RANGE, 10},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t1e1", FD_ROW_BAD_NUMBER, 10},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0,5\t4", FD_ROW_BAD_NUMBER, 9},
        {"mjolnir\\forge\\abc\\d\tnan\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_NUMBER, 2},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5", FD_ROW_FIELD_COUNT, 0},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\t", FD_ROW_FIELD_COUNT, 0},
        {"mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\t9", FD_ROW_FIELD_COUNT, 0},
        {"mjolnir\\forge\\ab\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"mjolnir\\forge\\abc\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"mjolnir\\forge\\abc\\D\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"mjolnir\\forge\\abc\\..\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"mjolnir\\forge\\abc\\\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"other\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_BAD_TAG, 1},
        {"mjolnir\\forge\\abc\\d\x01\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_CONTROL_CHAR, 1},
        {"mjolnir\\forge\\abc\\d\t4\r\t4\t8\t16\t6\t2\t4\t0.5\t4", FD_ROW_CONTROL_CHAR, 2},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t accepted;
        fd_rejection r = reject_one(cases[i].row, &accepted);
        if (cases[i].reason == FD_OK) {
            CHECK(accepted == 1);
            continue;
        }
        if (accepted != 0 || r.reason != cases[i].reason || r.field != cases[i].field || r.line != 2)
            printf("case %u: accepted %u, reason %d field %d line %u; want reason %d field %d\n",
                   (unsigned)i, (unsigned)accepted, r.reason, r.field, (unsigned)r.line,
                   cases[i].reason, cases[i].field);
        CHECK(accepted == 0 && r.reason == cases[i].reason && r.field == cases[i].field &&
              r.line == 2);
    }
    {
        /* a tag of 241 bytes is refused, 240 accepted */
        char row[512], tag[256];
        size_t accepted, n;
        fd_rejection r;
        strcpy(tag, "mjolnir\\forge\\abc\\");
        n = strlen(tag);
        while (n < 240)
            tag[n++] = 'a';
        tag[n] = '\0';
        snprintf(row, sizeof row, "%s\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", tag);
        r = reject_one(row, &accepted);
        CHECK(accepted == 1);
        snprintf(row, sizeof row, "%sa\t4\t4\t8\t16\t6\t2\t4\t0.5\t4", tag);
        r = reject_one(row, &accepted);
        CHECK(accepted == 0 && r.reason == FD_ROW_BAD_TAG);
    }
}

static void test_rejected_row_isolation(void)
{
    static const char text[] =
        "forge-doors 1\n"
        "mjolnir\\forge\\abc\\a\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
        "mjolnir\\forge\\abc\\b\t40\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
        "\n"
        "garbage\n"
        "mjolnir\\forge\\abc\\c\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
        "mjolnir\\forge\\abc\\a\t6\t4\t8\t16\t6\t2\t4\t0.5\t4\n"
        "mjolnir\\forge\\abc\\d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4"; /* no final newline */
    fd_inventory *inv = &inv_storage;
    const fd_door_def *a;
    fd_inventory_init(inv);
    CHECK_STATUS(fd_inventory_parse_doors(inv, text, sizeof text - 1), FD_OK);
    CHECK(inv->def_count == 3);
    CHECK(inv->doors_rejected == 4);
    CHECK(inv->doors_rejections[0].line == 3 && inv->doors_rejections[0].reason == FD_ROW_TRAVEL_RANGE);
    CHECK(inv->doors_rejections[1].line == 4 && inv->doors_rejections[1].reason == FD_ROW_EMPTY);
    CHECK(inv->doors_rejections[2].line == 5 && inv->doors_rejections[2].reason == FD_ROW_FIELD_COUNT);
    CHECK(inv->doors_rejections[3].line == 7 &&
          inv->doors_rejections[3].reason == FD_ROW_DUPLICATE_TAG);
    a = fd_inventory_find(inv, "mjolnir\\forge\\abc\\a", 19);
    CHECK(a && a->travel == 4 && a->line == 2); /* the earlier row wins */
    CHECK(fd_inventory_find(inv, "mjolnir\\forge\\abc\\d", 19) != NULL);
    CHECK(strlen(fd_status_text(FD_ROW_DUPLICATE_TAG)) > 10);
}

static void test_crlf_and_header(void)
{
    static const char crlf[] =
        "forge-doors 1\r\n"
        "mjolnir\\forge\\abc\\a\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\r\n"
        "mjolnir\\forge\\abc\\b\t6\t4\t12\t20\t8\t2\t10\t0.75\t7.5\r\n";
    static const char *bad_headers[] = {"", "forge-doors 2\n", "forge-doors 1 \n",
                                        "\357\273\277forge-doors 1\n", "Forge-doors 1\n",
                                        "forge-installed 1\n", "\nforge-doors 1\n"};
    fd_inventory *inv = &inv_storage;
    const fd_door_def *b;
    size_t i;
    fd_inventory_init(inv);
    CHECK_STATUS(fd_inventory_parse_doors(inv, crlf, sizeof crlf - 1), FD_OK);
    CHECK(inv->def_count == 2 && inv->doors_rejected == 0);
    b = fd_inventory_find(inv, "mjolnir\\forge\\abc\\b", 19);
    CHECK(b && b->panel[2] == 7.5);
    for (i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++) {
        fd_inventory_init(inv);
        CHECK_STATUS(fd_inventory_parse_doors(inv, bad_headers[i], strlen(bad_headers[i])),
                     FD_FILE_BAD_HEADER);
        CHECK(inv->def_count == 0);
    }
    /* header-only file: valid, no definitions */
    fd_inventory_init(inv);
    CHECK_STATUS(fd_inventory_parse_doors(inv, "forge-doors 1\n", 14), FD_OK);
    CHECK(inv->def_count == 0);
    CHECK_STATUS(fd_inventory_parse_doors(inv, NULL, 0), FD_FILE_MISSING);
}

static char big[256 * 128 + 4096];

static void test_definition_limit(void)
{
    fd_inventory *inv = &inv_storage;
    size_t n = 0;
    int i;
    n += (size_t)sprintf(big + n, "forge-doors 1\n");
    for (i = 0; i < 258; i++)
        n += (size_t)sprintf(big + n, "mjolnir\\forge\\abc\\door_%03d\t4\t4\t8\t16\t6\t2\t4\t0.5\t4\n", i);
    fd_inventory_init(inv);
    CHECK_STATUS(fd_inventory_parse_doors(inv, big, n), FD_OK);
    CHECK(inv->def_count == FD_MAX_DEFINITIONS);
    CHECK(inv->doors_rejected == 2);
    CHECK(inv->doors_rejections[0].line == 258 && inv->doors_rejections[0].reason == FD_ROW_LIMIT);
    CHECK(inv->doors_rejections[1].line == 259 && inv->doors_rejections[1].reason == FD_ROW_LIMIT);
    CHECK(fd_inventory_find(inv, "mjolnir\\forge\\abc\\door_255", 26) != NULL);
    CHECK(fd_inventory_find(inv, "mjolnir\\forge\\abc\\door_256", 26) == NULL);
}

static void count_row(void *ctx, const fd_installed_row *r)
{
    int *n = (int *)ctx;
    (void)r;
    (*n)++;
}

static void test_installed_binding(void)
{
    static const char bad[] =
        "forge-installed 1\n"
        "mjolnir\\forge\\lockout-gates\\gate_infantry\tlockout-gates\t0.3.1\tgate_infantry\tpanel\t"
        "/Game/MJOLNIR/Forge/lockout-gates/Panels/BP_GateInfantry.BP_GateInfantry_C\n"
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t0.3.1\tx\tpanel\n"                                  /* 3: 5 fields */
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t0.3\tx\tpanel\t/Game/MJOLNIR/Forge/lockout-gates/P/A.A_C\n" /* 4 */
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t1.0.0\tX\tpanel\t/Game/MJOLNIR/Forge/lockout-gates/P/A.A_C\n" /* 5 */
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t1.0.0\tx\tslab\t/Game/MJOLNIR/Forge/lockout-gates/P/A.A_C\n" /* 6 */
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t1.0.0\tx\tpanel\t/Game/MJOLNIR/Forge/lockout-gates/P/A.B_C\n" /* 7 */
        "mjolnir\\forge\\lockout-gates\\x\tother-pack\t1.0.0\tx\tpanel\t/Game/MJOLNIR/Forge/other-pack/P/A.A_C\n" /* 8 */
        "mjolnir\\forge\\lockout-gates\\x\tlockout-gates\t1.0.0\tx\tpanel\t/Game/MJOLNIR/Forge/other-pack/P/A.A_C\n" /* 9 */
        "mjolnir\\forge\\lockout-gates\\x\tLockout\t1.0.0\tx\tpanel\t/Game/MJOLNIR/Forge/lockout-gates/P/A.A_C\n" /* 10 */
        "mjolnir\\forge\\lockout-gates\\gate_infantry\tlockout-gates\t0.3.1\tgate_infantry\tpanel\t"
        "/Game/MJOLNIR/Forge/lockout-gates/Panels/BP_GateInfantry.BP_GateInfantry_C\n" /* 11: duplicate */
        "mjolnir\\forge\\lockout-gates\\y\tlockout-gates\t1.0.0-rc.1+b.7\ty\tpanel\t/Game/MJOLNIR/Forge/lockout-gates/P/A.A_C\n"; /* ok */
    static const fd_status want[] = {FD_ROW_FIELD_COUNT, FD_ROW_BAD_VERSION, FD_ROW_BAD_PIECE_ID,
                                     FD_ROW_BAD_KIND, FD_ROW_BAD_CLASS, FD_ROW_PACK_MISMATCH,
                                     FD_ROW_PACK_MISMATCH, FD_ROW_BAD_PACK_ID,
                                     FD_ROW_DUPLICATE_TAG};
    fd_inventory *inv = &inv_storage;
    const fd_door_def *d;
    int rows = 0;
    size_t i;
    fd_inventory_init(inv);
    fd_inventory_parse_doors(inv, DOORS, sizeof DOORS - 1);
    CHECK_STATUS(fd_inventory_bind_installed(inv, INSTALLED, sizeof INSTALLED - 1, count_row, &rows),
                 FD_OK);
    CHECK(rows == 3 && inv->installed_rows == 3 && inv->installed_rejected == 0);
    CHECK(inv->bound_count == 2);
    d = fd_inventory_find(inv, TAG_INF, strlen(TAG_INF));
    CHECK(d && d->binding == FD_BOUND);
    d = fd_inventory_find(inv, TAG_UNBOUND, strlen(TAG_UNBOUND));
    CHECK(d && d->binding == FD_UNBOUND); /* rows published before bindings: inert */
    d = fd_inventory_find(inv, TAG_BLOCK, strlen(TAG_BLOCK));
    CHECK(d && d->binding == FD_BOUND_NOT_PANEL);

    rows = 0;
    CHECK_STATUS(fd_inventory_bind_installed(inv, bad, sizeof bad - 1, count_row, &rows), FD_OK);
    CHECK(rows == 2);
    CHECK(inv->installed_rejected == sizeof want / sizeof want[0]);
    for (i = 0; i < sizeof want / sizeof want[0] && i < inv->installed_rejected; i++) {
        if (inv->installed_rejections[i].reason != want[i] || inv->installed_rejections[i].line != i + 3)
            printf("installed rejection %u: line %u reason %d; want line %u reason %d\n",
                   (unsigned)i, (unsigned)inv->installed_rejections[i].line,
                   inv->installed_rejections[i].reason, (unsigned)(i + 3), want[i]);
        CHECK(inv->installed_rejections[i].reason == want[i] &&
              inv->installed_rejections[i].line == i + 3);
    }
    d = fd_inventory_find(inv, TAG_VEH, strlen(TAG_VEH));
    CHECK(d && d->binding == FD_UNBOUND); /* rebinding forgets old bindings */
    CHECK_STATUS(fd_inventory_bind_installed(inv, "forge-installed 2\n", 18, NULL, NULL),
                 FD_FILE_BAD_HEADER);
}

/* ---- geometry ---------------------------------------------------------------- */

static void test_trigger(void)
{
    fd_inventory *inv = &inv_storage;
    const fd_door_def *d;
    fd_pose p;
    double angles[][3] = {{0, 0, 0}, {0.7, 0, 0}, {0, 0.6, 0}, {0, 0, -0.9}, {2.1, -0.4, 1.3}};
    size_t i;
    fd_inventory_init(inv);
    fd_inventory_parse_doors(inv, DOORS, sizeof DOORS - 1);
    d = fd_inventory_find(inv, TAG_INF, strlen(TAG_INF)); /* trigger 8 x 16 x 6 */
    if (!d) {
        CHECK(d != NULL);
        return;
    }
    /* translated, unrotated */
    p = identity_at(100, -20, 5);
    CHECK(fd_in_trigger(d, &p, v3(100, -20, 5)));
    CHECK(fd_in_trigger(d, &p, v3(103.9, -27.9, 10.9)));
    CHECK(!fd_in_trigger(d, &p, v3(104.1, -20, 6)));
    CHECK(!fd_in_trigger(d, &p, v3(100, -28.1, 6)));
    CHECK(fd_in_trigger(d, &p, v3(100, -20, 4.6)));  /* down to -0.5 below the origin */
    CHECK(!fd_in_trigger(d, &p, v3(100, -20, 4.4)));
    CHECK(fd_in_trigger(d, &p, v3(100, -20, 11)));   /* up to trigger Z */
    CHECK(!fd_in_trigger(d, &p, v3(100, -20, 11.1)));
    /* rotated: yaw, pitch, roll and all three; test points in local terms */
    for (i = 0; i < sizeof angles / sizeof angles[0]; i++) {
        p = rotated(v3(10, 20, 3), angles[i][0], angles[i][1], angles[i][2]);
        CHECK(fd_pose_valid(&p));
        CHECK(fd_in_trigger(d, &p, to_world(&p, 3.9, 7.9, 5.9)));
        CHECK(fd_in_trigger(d, &p, to_world(&p, -3.9, -7.9, -0.45)));
        CHECK(!fd_in_trigger(d, &p, to_world(&p, 4.1, 0, 1)));
        CHECK(!fd_in_trigger(d, &p, to_world(&p, 0, -8.1, 1)));
        CHECK(!fd_in_trigger(d, &p, to_world(&p, 0, 0, -0.6)));
        CHECK(!fd_in_trigger(d, &p, to_world(&p, 0, 0, 6.1)));
    }
    /* a 90-degree yaw swaps the trigger's X and Y extents in the world */
    p = rotated(v3(0, 0, 0), 3.14159265358979323846 / 2, 0, 0);
    CHECK(fd_in_trigger(d, &p, v3(7.9, 0, 1)));   /* local y = -7.9 */
    CHECK(!fd_in_trigger(d, &p, v3(0, 7.9, 1)));  /* local x = 7.9 */
}

static void test_sweep_clearance(void)
{
    fd_inventory *inv = &inv_storage;
    const fd_door_def *d;
    fd_pose p;
    fd_obstacle o;
    fd_inventory_init(inv);
    fd_inventory_parse_doors(inv, DOORS, sizeof DOORS - 1);
    d = fd_inventory_find(inv, TAG_INF, strlen(TAG_INF)); /* panel 4 x 0.5 x 4 */
    if (!d) {
        CHECK(d != NULL);
        return;
    }
    p = identity_at(0, 0, 0);
    /* raised by 3: sweep spans z 0..7 */
    CHECK(fd_sphere_hits_sweep(d, &p, 3, v3(0, 0, 1), 0.4));        /* in the doorway */
    CHECK(fd_sphere_hits_sweep(d, &p, 3, v3(0, 0.6, 1), 0.4));      /* 0.35 from the face */
    CHECK(!fd_sphere_hits_sweep(d, &p, 3, v3(0, 0.7, 1), 0.4));     /* 0.45 away */
    CHECK(!fd_sphere_hits_sweep(d, &p, 3, v3(0, 0.65, 1), 0.4));    /* touching: not a hit */
    CHECK(fd_sphere_hits_sweep(d, &p, 3, v3(2.3, 0.45, 1), 0.4));   /* near an edge: 0.2, 0.3 */
    CHECK(!fd_sphere_hits_sweep(d, &p, 3, v3(2.3, 0.6, 1), 0.4));   /* corner 0.3, 0.35: 0.46 */
    CHECK(fd_sphere_hits_sweep(d, &p, 3, v3(0, 0, 7.3), 0.4));      /* above the raised top */
    CHECK(!fd_sphere_hits_sweep(d, &p, 3, v3(0, 0, 7.5), 0.4));
    CHECK(!fd_sphere_hits_sweep(d, &p, 0, v3(0, 0, 4.5), 0.4));     /* closed: z 0..4 */
    CHECK(!fd_sphere_hits_sweep(d, &p, 3, v3(0, 0, 1), 0));          /* no radius */
    /* rotated panel: use local coordinates */
    p = rotated(v3(5, 5, 1), 0.8, 0.3, -0.2);
    CHECK(fd_sphere_hits_sweep(d, &p, 2, to_world(&p, 1.9, 0.5, 5.5), 0.3));
    CHECK(!fd_sphere_hits_sweep(d, &p, 2, to_world(&p, 1.9, 0.6, 5.5), 0.3));
    CHECK(!fd_sphere_hits_sweep(d, &p, 2, to_world(&p, 0, 0, 6.35), 0.3));
    /* obstacle classes */
    o = sphere_at(FD_OBSTACLE_CRATE, v3(0, 0, 0), 1);
    o.physics = FD_PHYSICS_NORMAL;
    o.body = FD_BODY_DYNAMIC;
    CHECK(fd_obstacle_counts(&o));
    o.body = FD_BODY_FIXED_ONLY;
    CHECK(!fd_obstacle_counts(&o));                 /* unparented, only fixed bodies */
    o.parented = 1;
    CHECK(fd_obstacle_counts(&o));
    o.parented = 0;
    o.body = FD_BODY_KEYFRAMED;
    CHECK(fd_obstacle_counts(&o));
    o.body = FD_BODY_MIXED;
    CHECK(fd_obstacle_counts(&o));
    o.body = FD_BODY_UNKNOWN;
    CHECK(fd_obstacle_counts(&o));
    o.physics = FD_PHYSICS_FIXED;
    CHECK(!fd_obstacle_counts(&o));                 /* construction piece */
    o.physics = FD_PHYSICS_PHASED;
    CHECK(!fd_obstacle_counts(&o));
    o = sphere_at(FD_OBSTACLE_VEHICLE, v3(0, 0, 0), 2);
    CHECK(fd_obstacle_counts(&o));
    o = biped_at(v3(0, 0, 0));
    CHECK(fd_obstacle_counts(&o));
    o.centre.x = fd_test_nan();
    CHECK(!fd_obstacle_counts(&o));
}

static void test_pose_validity(void)
{
    fd_pose p = identity_at(0, 0, 0);
    CHECK(fd_pose_valid(&p));
    p.axis_x.x = 1.00009; /* length within 1e-4 */
    CHECK(fd_pose_valid(&p));
    p.axis_x.x = 1.0002;  /* scaled */
    CHECK(!fd_pose_valid(&p));
    p = identity_at(0, 0, 0);
    p.axis_y = v3(0.01, 1, 0); /* skewed */
    CHECK(!fd_pose_valid(&p));
    p = identity_at(0, 0, 0);
    p.axis_z.z = -1;      /* reflection */
    CHECK(!fd_pose_valid(&p));
    p = identity_at(0, 0, 0);
    p.origin.y = fd_test_inf();
    CHECK(!fd_pose_valid(&p));
    p = identity_at(0, 0, 0);
    p.axis_x.y = fd_test_nan();
    CHECK(!fd_pose_valid(&p));
}

/* ---- motion ------------------------------------------------------------------ */

static void test_open_hold_close(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 7, TAG_INF, identity_at(10, 0, 0));
    fd_obstacle inside = biped_at(v3(10, 5, 1)), far = biped_at(v3(50, 0, 1));
    uint64_t t = 1;
    int i, open_tick = -1, close_start = -1, closed_tick = -1;
    fd_pose_update u;
    size_t it;

    CHECK_STATUS(tick(rt, &o, t++, &far, 1), FD_OK);
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSED && height_of(rt, o.handle) == 0);
    it = 0;
    CHECK(!fd_runtime_next_update(rt, &it, &u)); /* nothing moved */

    /* a biped in the trigger opens it at 4 m/s: 0.0625 m per 1/64 s tick */
    CHECK_STATUS(tick(rt, &o, t++, &inside, 1), FD_OK);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPENING);
    CHECK_NEAR(height_of(rt, o.handle), 0.0625, 1e-12);
    it = 0;
    CHECK(fd_runtime_next_update(rt, &it, &u));
    CHECK(u.handle == o.handle && u.entry == 7);
    CHECK_NEAR(u.pose.origin.z, 0.0625, 1e-12);
    CHECK(!fd_runtime_next_update(rt, &it, &u)); /* each change handed out once */
    it = 0;
    CHECK(!fd_runtime_next_update(rt, &it, &u));

    for (i = 2; i <= 400; i++) {
        tick(rt, &o, t++, &far, 1); /* the biped left: opening continues */
        if (open_tick < 0 && state_of(rt, o.handle) == FD_DOOR_OPEN)
            open_tick = i;
        if (i == 64)
            CHECK(height_of(rt, o.handle) == 4);
        if (close_start < 0 && state_of(rt, o.handle) == FD_DOOR_CLOSING)
            close_start = i;
        if (closed_tick < 0 && state_of(rt, o.handle) == FD_DOOR_CLOSED)
            closed_tick = i;
    }
    CHECK(open_tick == 64); /* 4 m at 4 m/s = 1 s = 64 ticks */
    /* hold 2 s = 128 ticks from reaching the top, then close */
    CHECK(close_start == 64 + 128);
    CHECK(closed_tick == 64 + 128 + 63);
    CHECK(height_of(rt, o.handle) == 0);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.z, 0, 0);
}

static void test_hold_renewed_while_occupied(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1)), far = biped_at(v3(50, 0, 1));
    uint64_t t = 1;
    int i;
    for (i = 0; i < 64 + 300; i++)
        tick(rt, &o, t++, &inside, 1); /* stays in the trigger: never closes */
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPEN && height_of(rt, o.handle) == 4);
    for (i = 0; i < 127; i++)
        tick(rt, &o, t++, &far, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPEN);
    tick(rt, &o, t++, &far, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSING);
}

static void test_reopen(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1)), far = biped_at(v3(50, 0, 1));
    fd_obstacle crate = sphere_at(FD_OBSTACLE_CRATE, v3(0, 0.5, 0.5), 0.5);
    uint64_t t = 1;
    int i;
    tick(rt, &o, t++, &inside, 1);
    for (i = 0; i < 64 + 128 + 10; i++)
        tick(rt, &o, t++, &far, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSING);
    /* opened on tick 64, closing since tick 192: 12 ticks down by tick 203 */
    CHECK_NEAR(height_of(rt, o.handle), 4 - 12 * 0.0625, 1e-12);
    /* a biped returning to the trigger reopens it */
    tick(rt, &o, t++, &inside, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPENING);
    CHECK_NEAR(height_of(rt, o.handle), 4 - 11 * 0.0625, 1e-12);
    for (i = 0; i < 200; i++)
        tick(rt, &o, t++, &far, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSING);
    /* a movable Normal crate rolling into the closing path reopens it too */
    crate.physics = FD_PHYSICS_NORMAL;
    crate.body = FD_BODY_DYNAMIC;
    tick(rt, &o, t++, &crate, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPENING);
    /* ... but a Fixed construction crate there does not keep it open */
    crate.physics = FD_PHYSICS_FIXED;
    for (i = 0; i < 400; i++)
        tick(rt, &o, t++, &crate, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSED);
}

static void test_kept_open_by_vehicle(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1)), far = biped_at(v3(50, 0, 1));
    /* a parked vehicle outside the trigger's biped test but in the doorway */
    fd_obstacle hog = sphere_at(FD_OBSTACLE_VEHICLE, v3(1, 0, 1.5), 1.5);
    uint64_t t = 1;
    int i;
    tick(rt, &o, t++, &inside, 1);
    for (i = 0; i < 64 + 300; i++)
        tick(rt, &o, t++, &hog, 1);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPEN && height_of(rt, o.handle) == 4);
    tick(rt, &o, t++, &far, 1); /* it drives away: hold already spent, close */
    CHECK(state_of(rt, o.handle) == FD_DOOR_CLOSING);
}

static void test_opening_stopped_by_obstacle(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    /* panel top at 4 when closed; a vehicle whose lowest point is at 6 */
    fd_obstacle obs[2];
    uint64_t t = 1;
    int i;
    obs[0] = biped_at(v3(0, -6, 1));
    obs[1] = sphere_at(FD_OBSTACLE_VEHICLE, v3(0.5, 0, 7), 1);
    for (i = 0; i < 100; i++)
        tick(rt, &o, t++, obs, 2);
    CHECK_NEAR(height_of(rt, o.handle), 2, 1e-12); /* stopped beneath it */
    CHECK(fd_runtime_find_panel(rt, o.handle)->stopped);
    CHECK(state_of(rt, o.handle) == FD_DOOR_OPEN);
    /* the vehicle moves off: opening resumes while the biped stays */
    obs[1].centre.x = 40;
    for (i = 0; i < 40; i++)
        tick(rt, &o, t++, obs, 2);
    CHECK(height_of(rt, o.handle) == 4);
    /* an obstacle beside the column (outside its footprint) does not stop it */
    rt = ready_runtime();
    o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    obs[1] = sphere_at(FD_OBSTACLE_VEHICLE, v3(0, 2, 7), 1);
    for (i = 0; i < 100; i++)
        tick(rt, &o, t++, obs, 2);
    CHECK(height_of(rt, o.handle) == 4);
    /* rotated panel (rolled 90 degrees: local +Z is world -Y) */
    rt = ready_runtime();
    o = panel_obs(0x00010001u, 1, TAG_INF, rotated(v3(0, 0, 10), 0, 0, 3.14159265358979323846 / 2));
    obs[0] = biped_at(to_world(&o.pose, 0, 0, 1));
    obs[1] = sphere_at(FD_OBSTACLE_VEHICLE, to_world(&o.pose, 0, 0, 6.5), 1); /* lowest 5.5 */
    for (i = 0; i < 100; i++)
        tick(rt, &o, t++, obs, 2);
    CHECK_NEAR(height_of(rt, o.handle), 1.5, 1e-9);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.y, -1.5, 1e-9);
}

static void test_time_steps(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1)), far = biped_at(v3(50, 0, 1));
    double bad[] = {0.0, -DT, fd_test_nan(), fd_test_inf(), -fd_test_inf(), 1.5};
    size_t i;
    double h;
    CHECK_STATUS(tick(rt, &o, 10, &inside, 1), FD_OK);
    h = height_of(rt, o.handle);
    CHECK_NEAR(h, 0.0625, 0);
    /* paused redraws repeat the tick number: nothing advances */
    for (i = 0; i < 50; i++)
        CHECK_STATUS(tick(rt, &o, 10, &inside, 1), FD_STEP_PAUSED);
    CHECK(height_of(rt, o.handle) == h);
    /* a catch-up frame (tick jumped by 30) advances exactly one tick */
    CHECK_STATUS(tick(rt, &o, 40, &inside, 1), FD_OK);
    CHECK_NEAR(height_of(rt, o.handle), 0.125, 0);
    /* invalid step lengths advance nothing */
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fd_runtime_begin_scan(rt);
        o.pose = fd_runtime_find_panel(rt, o.handle)->published;
        fd_runtime_observe_panel(rt, &o, NULL);
        CHECK_STATUS(fd_runtime_step(rt, 41 + i, bad[i], &inside, 1), FD_STEP_INVALID);
    }
    CHECK_NEAR(height_of(rt, o.handle), 0.125, 0);
    /* 1 s exactly is the largest accepted step */
    fd_runtime_begin_scan(rt);
    o.pose = fd_runtime_find_panel(rt, o.handle)->published;
    fd_runtime_observe_panel(rt, &o, NULL);
    CHECK_STATUS(fd_runtime_step(rt, 100, 1.0, &inside, 1), FD_OK);
    CHECK(height_of(rt, o.handle) == 4);
    /* paused redraws do not consume hold time */
    {
        uint64_t t = 200;
        int k;
        tick(rt, &o, t++, &far, 1);
        for (k = 0; k < 1000; k++)
            tick(rt, &o, t - 1, &far, 1);
        CHECK(state_of(rt, o.handle) == FD_DOOR_OPEN);
        CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->hold_left, 2 - DT, 1e-12);
    }
}

/* ref_scan is the step's scan as it was before obstacles were sorted and
 * boxed per panel: every counted obstacle against every panel. */
static void ref_scan(const fd_door_def *def, const fd_panel *p, const fd_obstacle *obs,
                     size_t count, fd_scan *s)
{
    const double hx = def->panel[0] * 0.5, hy = def->panel[1] * 0.5, h = def->panel[2];
    const double tx = def->trigger[0] * 0.5, ty = def->trigger[1] * 0.5, tz = def->trigger[2];
    const double top = p->height + h;
    const int raised = p->height > 0.0;
    const fd_vec3 o = p->closed.origin, ax = p->closed.axis_x, ay = p->closed.axis_y,
                  az = p->closed.axis_z;
    size_t i;
    for (i = 0; i < count; i++) {
        double cx, cy, cz, r, r2, lx, ly, lz, dx, dy, dxy2;
        if (!fd_obstacle_counts(&obs[i]))
            continue;
        cx = obs[i].centre.x - o.x;
        cy = obs[i].centre.y - o.y;
        cz = obs[i].centre.z - o.z;
        r = obs[i].radius;
        r2 = r * r;
        lx = cx * ax.x + cy * ax.y + cz * ax.z;
        ly = cx * ay.x + cy * ay.y + cz * ay.z;
        lz = cx * az.x + cy * az.y + cz * az.z;
        dx = fd_clamp_dist(lx, -hx, hx);
        dy = fd_clamp_dist(ly, -hy, hy);
        dxy2 = dx * dx + dy * dy;
        if (obs[i].kind == FD_OBSTACLE_BIPED && fabs(lx) <= tx && fabs(ly) <= ty && lz >= -0.5 &&
            lz <= tz)
            s->occupied = 1;
        if (dxy2 >= r2)
            continue;
        if (raised) {
            const double dz = fd_clamp_dist(lz, 0.0, top);
            if (dxy2 + dz * dz < r2)
                s->close_blocked = 1;
        }
        if (lz >= top) {
            const double lim = lz - sqrt(r2 - dxy2) - h;
            if (lim < s->open_limit)
                s->open_limit = lim;
        }
    }
}

/* fd_test_unit is a uniform random number in [0, 1). */
static double fd_test_unit(uint64_t *s)
{
    return (double)(fd_test_xorshift(s) >> 11) / 9007199254740992.0;
}

/* test_step_matches_reference runs 128 panels (random sizes, rotations a
 * little off orthonormal, a quarter of them a billion metres out) through
 * many ticks of obstacles, half of them placed on the edges of a panel's
 * trigger, column, sweep and lift cap, and checks that every panel ends
 * each step bit for bit where the every-pair reference scan puts it. */
static void test_step_matches_reference(void)
{
    static char doors[16 * 400], installed[16 * 400];
    static fd_panel before[FD_MAX_ACTIVE_PANELS];
    static fd_obstacle obs[160];
    static fd_panel_observation po[FD_MAX_ACTIVE_PANELS];
    fd_runtime *rt = &rt_storage;
    uint64_t s = 0x13198a2e03707344u;
    size_t dn = 0, in = 0, i, k;
    int differ = 0, moved = 0, blocked_hits = 0, matter = 0, unreached = 0;
    uint64_t t;
    dn += (size_t)sprintf(doors + dn, "forge-doors 1\n");
    in += (size_t)sprintf(installed + in, "forge-installed 1\n");
    for (i = 0; i < 16; i++) {
        dn += (size_t)sprintf(doors + dn,
                              "mjolnir\\forge\\diff-pack\\door_%02u\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g"
                              "\t%.17g\t%.17g\t%.17g\n",
                              (unsigned)i, 0.5 + 15.5 * fd_test_unit(&s), 0.5 + 7.5 * fd_test_unit(&s),
                              0.2 + 12 * fd_test_unit(&s), 0.2 + 12 * fd_test_unit(&s),
                              0.2 + 8 * fd_test_unit(&s), 0.5 * fd_test_unit(&s),
                              0.01 + 8 * fd_test_unit(&s), 0.01 + 2 * fd_test_unit(&s),
                              0.5 + 6 * fd_test_unit(&s));
        in += (size_t)sprintf(installed + in,
                              "mjolnir\\forge\\diff-pack\\door_%02u\tdiff-pack\t1.0.0\tdoor_%02u\tpanel\t"
                              "/Game/MJOLNIR/Forge/diff-pack/P/BP_D.BP_D_C\n",
                              (unsigned)i, (unsigned)i);
    }
    fd_runtime_init(rt);
    fd_runtime_report_build(rt, "CU4");
    fd_runtime_report_forge(rt, 1, FD_FORGE_NATIVE_API_MIN);
    CHECK_STATUS(fd_runtime_load_inventory(rt, doors, dn, installed, in), FD_OK);
    CHECK(rt->inv.bound_count == 16);
    fd_runtime_begin_world(rt, 1, FD_ROLE_HOST);
    for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++) {
        static char tags[FD_MAX_ACTIVE_PANELS][48];
        double off = i % 4 == 3 ? 1e9 : 0.0, e = 1e-5;
        double yaw = 6.3 * fd_test_unit(&s), pitch = i % 2 ? 0.0 : 3 * fd_test_unit(&s) - 1.5,
               roll = i % 3 ? 0.0 : 3 * fd_test_unit(&s) - 1.5;
        fd_pose pose;
        if (i % 8 == 0) /* axis-aligned: the world box is as tight as it gets */
            yaw = pitch = roll = 0.0;
        pose = rotated(v3(off + 60 * fd_test_unit(&s), -off + 60 * fd_test_unit(&s),
                          10 * fd_test_unit(&s)),
                       yaw, pitch, roll);
        if (i % 8 == 0) {
            /* axes as far off unit length as fd_pose_valid lets them be */
            pose.axis_x.x *= fd_test_xorshift(&s) & 1 ? 1 + 9e-5 : 1 - 9e-5;
            pose.axis_y.y *= fd_test_xorshift(&s) & 1 ? 1 + 9e-5 : 1 - 9e-5;
            pose.axis_z.z *= fd_test_xorshift(&s) & 1 ? 1 + 9e-5 : 1 - 9e-5;
        }
        pose.axis_x.x += e * (fd_test_unit(&s) - 0.5);
        pose.axis_y.z += e * (fd_test_unit(&s) - 0.5);
        pose.axis_z.y += e * (fd_test_unit(&s) - 0.5);
        sprintf(tags[i], "mjolnir\\forge\\diff-pack\\door_%02u", (unsigned)(i % 16));
        po[i] = panel_obs(0x00010000u | (uint32_t)i, (uint32_t)i, tags[i], pose);
    }
    for (t = 1; t <= 300; t++) {
        size_t n = 64 + (size_t)(fd_test_xorshift(&s) % 97);
        fd_runtime_begin_scan(rt);
        for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++) {
            const fd_panel *p = fd_runtime_find_panel(rt, po[i].handle);
            if (p)
                po[i].pose = p->published;
            CHECK_STATUS(fd_runtime_observe_panel(rt, &po[i], NULL), FD_OK);
        }
        for (k = 0; k < n; k++) {
            fd_obstacle *o = &obs[k];
            uint64_t r = fd_test_xorshift(&s);
            memset(o, 0, sizeof *o);
            o->kind = (uint8_t)(r % 4);
            o->physics = (uint8_t)((r >> 2) % 3);
            o->parented = (uint8_t)((r >> 4) & 1);
            o->body = (uint8_t)((r >> 5) % 5);
            o->radius = (r >> 8) % 500 == 0 ? 1e200 : 0.05 + 3 * fd_test_unit(&s);
            if ((r >> 16) & 1) {
                /* on an edge of a random panel's reach, give or take an ulp */
                const fd_panel *p = &rt->panels[fd_test_xorshift(&s) % rt->panel_count];
                const fd_door_def *d = &rt->inv.defs[p->def];
                const double rr = o->radius, top = p->height + d->panel[2];
                const double xs[] = {d->trigger[0] * 0.5, d->panel[0] * 0.5 + rr, d->panel[0] * 0.5, 0};
                const double ys[] = {d->trigger[1] * 0.5, d->panel[1] * 0.5 + rr, d->panel[1] * 0.5, 0};
                const double zs[] = {-0.5, d->trigger[2], -rr, top, top + rr,
                                     d->travel + d->panel[2] + rr, top + 0.5 * rr, 0};
                const double nudge[] = {0, 1e-12, -1e-12, 1e-5, -1e-5, 0.3, -0.3};
                double lx = xs[fd_test_xorshift(&s) % 4], ly = ys[fd_test_xorshift(&s) % 4],
                       lz = zs[fd_test_xorshift(&s) % 8];
                if (fd_test_xorshift(&s) & 1)
                    lx = -lx;
                if (fd_test_xorshift(&s) & 1)
                    ly = -ly;
                lx += nudge[fd_test_xorshift(&s) % 7];
                ly += nudge[fd_test_xorshift(&s) % 7];
                lz += nudge[fd_test_xorshift(&s) % 7];
                o->centre = to_world(&p->closed, lx, ly, lz);
            } else {
                const double off = (r >> 24) % 4 == 3 ? 1e9 : 0.0;
                o->centre = v3(off - 5 + 70 * fd_test_unit(&s), -off - 5 + 70 * fd_test_unit(&s),
                               -2 + 25 * fd_test_unit(&s));
            }
        }
        /* every pair that can matter is in the panel's reach */
        for (i = 0; i < rt->panel_count; i++) {
            const fd_panel *p = &rt->panels[i];
            const fd_door_def *d = &rt->inv.defs[p->def];
            for (k = 0; k < n; k++) {
                fd_scan one;
                fd_reach b;
                one.occupied = 0;
                one.close_blocked = 0;
                one.open_limit = HUGE_VAL;
                ref_scan(d, p, &obs[k], 1, &one);
                if (!(one.occupied || one.close_blocked || one.open_limit < d->travel))
                    continue;
                matter++;
                b = fd_panel_reach(d, p, obs[k].radius);
                if (!fd_in_reach(&b, obs[k].centre.x, obs[k].centre.y, obs[k].centre.z) &&
                    unreached++ < 5)
                    printf("tick %u panel %u: obstacle %u (r %.17g) matters but is out of reach\n",
                           (unsigned)t, (unsigned)i, (unsigned)k, obs[k].radius);
            }
        }
        memcpy(before, rt->panels, sizeof before);
        for (i = 0; i < rt->panel_count; i++) {
            fd_panel *p = &before[i];
            if (fd_automated(rt, p)) {
                fd_scan sc;
                sc.occupied = 0;
                sc.close_blocked = 0;
                sc.open_limit = HUGE_VAL;
                ref_scan(&rt->inv.defs[p->def], p, obs, n, &sc);
                blocked_hits += sc.close_blocked;
                fd_panel_advance(p, &rt->inv.defs[p->def], DT, sc);
            }
        }
        CHECK_STATUS(fd_runtime_step(rt, t, DT, obs, n), FD_OK);
        for (i = 0; i < rt->panel_count; i++) {
            moved += rt->panels[i].height > 0.0;
            if (memcmp(&rt->panels[i], &before[i], sizeof before[i]) != 0 && differ++ < 5)
                printf("tick %u panel %u: height %.17g state %d; reference %.17g state %d\n",
                       (unsigned)t, (unsigned)i, rt->panels[i].height, rt->panels[i].state,
                       before[i].height, before[i].state);
        }
    }
    CHECK(unreached == 0);
    CHECK(matter > 1000);
    CHECK(differ == 0);
    CHECK(moved > 1000);       /* the doors did move */
    CHECK(blocked_hits > 100); /* and closing was blocked now and then */
}

static void test_other_panels_and_rotation(void)
{
    fd_runtime *rt = ready_runtime();
    /* vehicle gate yawed 90 degrees: opens along its own +Z (world up) */
    fd_panel_observation o = panel_obs(0x00020002u, 2, TAG_VEH,
                                       rotated(v3(30, 30, 2), 3.14159265358979323846 / 2, 0, 0));
    fd_obstacle b;
    uint64_t t = 1;
    int i;
    b = biped_at(to_world(&o.pose, 5.5, -9.5, 7.5)); /* trigger 12 x 20 x 8 */
    for (i = 0; i < 200; i++)
        tick(rt, &o, t++, &b, 1);
    CHECK(height_of(rt, o.handle) == 6);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.z, 8, 1e-12);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.x, 30, 1e-12);
    /* pitched panel: +Z tilts toward world +X */
    rt = ready_runtime();
    o = panel_obs(0x00010001u, 1, TAG_INF, rotated(v3(0, 0, 0), 0, 0.5, 0));
    b = biped_at(to_world(&o.pose, 0, -5, 2));
    for (i = 0; i < 100; i++)
        tick(rt, &o, t++, &b, 1);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.x, 4 * sin(0.5), 1e-12);
    CHECK_NEAR(fd_runtime_find_panel(rt, o.handle)->published.origin.z, 4 * cos(0.5), 1e-12);
}

/* ---- refusals and limits ------------------------------------------------------ */

static void test_refusals(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o;
    fd_observe_result res;
    o = panel_obs(0x00010001u, 1, "mjolnir\\forge\\lockout-gates\\nope", identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_UNMATCHED);
    o = panel_obs(0x00010001u, 1, TAG_UNBOUND, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_UNMATCHED);
    o = panel_obs(0x00010001u, 1, TAG_BLOCK, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_UNMATCHED);
    o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    o.live_salt = 2;
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_STALE_HANDLE);
    o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    o.parented = 1;
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_PARENTED);
    o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    o.pose.axis_x.x = 2;
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_INVALID_TRANSFORM);
    o.pose = identity_at(0, fd_test_nan(), 0);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_INVALID_TRANSFORM);
    CHECK(rt->panel_count == 0);
    o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_OK);
    CHECK(rt->panel_count == 1);
    CHECK_STATUS(fd_runtime_observe_panel(rt, NULL, &res), FD_ERR_ARGUMENT);
}

static void test_stale_and_replaced(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1));
    uint64_t t = 1;
    int i;
    for (i = 0; i < 20; i++)
        tick(rt, &o, t++, &inside, 1);
    CHECK(height_of(rt, o.handle) > 1);
    /* the object slot was reused: the adapter's handle is stale */
    fd_runtime_begin_scan(rt);
    o.live_salt = 2;
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_PANEL_STALE_HANDLE);
    fd_runtime_step(rt, t++, DT, &inside, 1);
    CHECK(fd_runtime_find_panel(rt, o.handle) == NULL); /* dropped with its baseline */
    /* same handle, different map-variant entry: a replaced object */
    o = panel_obs(0x00030003u, 1, TAG_INF, identity_at(0, 0, 0));
    for (i = 0; i < 20; i++)
        tick(rt, &o, t++, &inside, 1);
    o.entry = 9;
    o.pose = identity_at(5, 5, 0);
    fd_runtime_begin_scan(rt);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_OK);
    CHECK(fd_runtime_find_panel(rt, o.handle)->entry == 9);
    CHECK(fd_runtime_find_panel(rt, o.handle)->height == 0);
    CHECK(fd_runtime_find_panel(rt, o.handle)->closed.origin.x == 5);
    fd_runtime_step(rt, t++, DT, &inside, 1);
}

static void test_active_limit(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o;
    uint32_t i;
    int ok = 0;
    fd_runtime_begin_scan(rt);
    for (i = 0; i < FD_MAX_ACTIVE_PANELS + 1; i++) {
        o = panel_obs(0x00010000u | i, i, TAG_INF, identity_at(i * 20.0, 0, 0));
        if (fd_runtime_observe_panel(rt, &o, NULL) == FD_OK)
            ok++;
    }
    CHECK(ok == FD_MAX_ACTIVE_PANELS);
    o = panel_obs(0x00010000u | FD_MAX_ACTIVE_PANELS, 500, TAG_INF, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_PANEL_LIMIT);
    fd_runtime_step(rt, 1, DT, NULL, 0);
    /* next tick one panel is gone (deleted): the refused one fits */
    fd_runtime_begin_scan(rt);
    for (i = 1; i < FD_MAX_ACTIVE_PANELS; i++) {
        o = panel_obs(0x00010000u | i, i, TAG_INF, identity_at(i * 20.0, 0, 0));
        fd_runtime_observe_panel(rt, &o, NULL);
    }
    /* the deleted panel's slot is freed when the scan ends, at the step */
    o = panel_obs(0x00010000u | FD_MAX_ACTIVE_PANELS, 500, TAG_INF, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_PANEL_LIMIT);
    fd_runtime_step(rt, 2, DT, NULL, 0);
    CHECK(fd_runtime_find_panel(rt, 0x00010000u) == NULL);
    CHECK(rt->panel_count == FD_MAX_ACTIVE_PANELS - 1);
    /* so the refused panel fits from the next scan on */
    fd_runtime_begin_scan(rt);
    for (i = 1; i < FD_MAX_ACTIVE_PANELS; i++) {
        o = panel_obs(0x00010000u | i, i, TAG_INF, identity_at(i * 20.0, 0, 0));
        fd_runtime_observe_panel(rt, &o, NULL);
    }
    o = panel_obs(0x00010000u | FD_MAX_ACTIVE_PANELS, 500, TAG_INF, identity_at(0, 0, 0));
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_OK);
    fd_runtime_step(rt, 3, DT, NULL, 0);
    CHECK(rt->panel_count == FD_MAX_ACTIVE_PANELS);
}

/* ---- physics modes and seeding -------------------------------------------------- */

static void test_physics_modes(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1));
    fd_observe_result res;
    uint64_t t = 1;
    int i;
    o.physics = FD_PHYSICS_PHASED;
    for (i = 0; i < 10; i++)
        tick(rt, &o, t++, &inside, 1);
    CHECK_NEAR(height_of(rt, o.handle), 0.625, 1e-12); /* Phased animates */
    /* Normal: automation off; a raised panel gets its authored pose back */
    o.physics = FD_PHYSICS_NORMAL;
    o.pose = fd_runtime_find_panel(rt, o.handle)->published;
    fd_runtime_begin_scan(rt);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_NORMAL_PHYSICS);
    CHECK(res.write_pose && res.pose.origin.z == 0);
    CHECK(fd_runtime_find_panel(rt, o.handle) == NULL);
    fd_runtime_step(rt, t++, DT, &inside, 1);
    /* a Normal panel is never animated, whoever stands in front of it */
    o.pose = identity_at(0, 0, 0);
    for (i = 0; i < 10; i++) {
        fd_runtime_begin_scan(rt);
        CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_NORMAL_PHYSICS);
        CHECK(!res.write_pose);
        fd_runtime_step(rt, t++, DT, &inside, 1);
    }
    CHECK(rt->panel_count == 0);
    /* a raised panel whose definition disappears (pack disabled) also gets
     * its authored pose back */
    o.physics = FD_PHYSICS_FIXED;
    for (i = 0; i < 10; i++)
        tick(rt, &o, t++, &inside, 1);
    CHECK(height_of(rt, o.handle) > 0);
    fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, "forge-installed 1\n", 18);
    o.pose = fd_runtime_find_panel(rt, o.handle)->published;
    fd_runtime_begin_scan(rt);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, &res), FD_PANEL_UNMATCHED);
    CHECK(res.write_pose && res.pose.origin.z == 0);
    fd_runtime_step(rt, t++, DT, &inside, 1);
    CHECK(rt->panel_count == 0);
}

static void test_seed_physics(void)
{
    fd_runtime *rt = ready_runtime();
    const char *other = "mjolnir\\forge\\foundry-wide\\deck_2x2";
    CHECK(fd_runtime_seed_physics(rt, TAG_INF, strlen(TAG_INF), FD_PLACEMENT_SCENARIO,
                                  FD_PHYSICS_NORMAL) == FD_PHYSICS_FIXED);
    CHECK(fd_runtime_seed_physics(rt, TAG_VEH, strlen(TAG_VEH), FD_PLACEMENT_SCENARIO,
                                  FD_PHYSICS_PHASED) == FD_PHYSICS_FIXED);
    /* other pieces keep their physics */
    CHECK(fd_runtime_seed_physics(rt, other, strlen(other), FD_PLACEMENT_SCENARIO,
                                  FD_PHYSICS_NORMAL) == FD_PHYSICS_NORMAL);
    CHECK(fd_runtime_seed_physics(rt, TAG_UNBOUND, strlen(TAG_UNBOUND), FD_PLACEMENT_SCENARIO,
                                  FD_PHYSICS_NORMAL) == FD_PHYSICS_NORMAL);
    /* a saved layout's explicit choice, including Normal, wins */
    CHECK(fd_runtime_seed_physics(rt, TAG_INF, strlen(TAG_INF), FD_PLACEMENT_SAVED_LAYOUT,
                                  FD_PHYSICS_NORMAL) == FD_PHYSICS_NORMAL);
    CHECK(fd_runtime_seed_physics(rt, TAG_INF, strlen(TAG_INF), FD_PLACEMENT_SAVED_LAYOUT,
                                  FD_PHYSICS_PHASED) == FD_PHYSICS_PHASED);
}

/* ---- editing ---------------------------------------------------------------- */

static void test_edit_close(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation a = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_panel_observation b = panel_obs(0x00010002u, 2, TAG_INF, identity_at(40, 0, 0));
    fd_obstacle obs[3];
    fd_pose_update u;
    size_t it;
    uint64_t t = 1;
    int i;
    obs[0] = biped_at(v3(0, -6, 1));
    obs[1] = biped_at(v3(40, -6, 1));
    for (i = 0; i < 70; i++) {
        fd_runtime_begin_scan(rt);
        a.pose = fd_runtime_find_panel(rt, a.handle) ? fd_runtime_find_panel(rt, a.handle)->published : a.pose;
        b.pose = fd_runtime_find_panel(rt, b.handle) ? fd_runtime_find_panel(rt, b.handle)->published : b.pose;
        fd_runtime_observe_panel(rt, &a, NULL);
        fd_runtime_observe_panel(rt, &b, NULL);
        fd_runtime_step(rt, t++, DT, obs, 2);
    }
    it = 0;
    while (fd_runtime_next_update(rt, &it, &u)) {
    }
    CHECK(height_of(rt, a.handle) == 4 && height_of(rt, b.handle) == 4);
    /* a vehicle parks under panel b; the bipeds are now monitors */
    obs[0] = sphere_at(FD_OBSTACLE_VEHICLE, v3(40, 0, 1.5), 1.5);
    CHECK(fd_runtime_enter_monitor(rt, obs, 1) == 1);
    CHECK(height_of(rt, a.handle) == 0 && state_of(rt, a.handle) == FD_DOOR_CLOSED);
    CHECK(height_of(rt, b.handle) == 4);
    it = 0;
    CHECK(fd_runtime_next_update(rt, &it, &u) && u.handle == a.handle && u.pose.origin.z == 0);
    CHECK(!fd_runtime_next_update(rt, &it, &u));
    /* edits on the raised panel b are deferred with the doorway message */
    CHECK_STATUS(fd_runtime_request_edit(rt, b.handle, FD_EDIT_GRAB, obs, 1), FD_EDIT_DEFERRED);
    CHECK_STATUS(fd_runtime_request_edit(rt, b.handle, FD_EDIT_DUPLICATE, obs, 1), FD_EDIT_DEFERRED);
    CHECK_STATUS(fd_runtime_request_edit(rt, b.handle, FD_EDIT_ROTATE, obs, 1), FD_EDIT_DEFERRED);
    CHECK_STATUS(fd_runtime_request_edit(rt, b.handle, FD_EDIT_PHYSICS, obs, 1), FD_EDIT_DEFERRED);
    CHECK(strstr(fd_status_text(FD_EDIT_DEFERRED), "clear the doorway") != NULL);
    CHECK(height_of(rt, b.handle) == 4);
    /* unrelated objects and the closed panel stay editable */
    CHECK_STATUS(fd_runtime_request_edit(rt, 0x00450045u, FD_EDIT_GRAB, obs, 1), FD_OK);
    CHECK_STATUS(fd_runtime_request_edit(rt, a.handle, FD_EDIT_ROTATE, obs, 1), FD_OK);
    /* a held panel does not open while edited, even with a biped in front */
    obs[1] = biped_at(v3(0, -6, 1));
    for (i = 0; i < 10; i++) {
        fd_runtime_begin_scan(rt);
        a.pose = fd_runtime_find_panel(rt, a.handle)->published;
        fd_runtime_observe_panel(rt, &a, NULL);
        b.pose = fd_runtime_find_panel(rt, b.handle)->published;
        fd_runtime_observe_panel(rt, &b, NULL);
        fd_runtime_step(rt, t++, DT, obs, 2);
    }
    CHECK(height_of(rt, a.handle) == 0);
    CHECK(fd_runtime_find_panel(rt, a.handle)->closed.origin.z == 0);
    fd_runtime_finish_edit(rt, a.handle);
    fd_runtime_begin_scan(rt);
    fd_runtime_observe_panel(rt, &a, NULL);
    fd_runtime_observe_panel(rt, &b, NULL);
    fd_runtime_step(rt, t++, DT, obs, 2);
    CHECK(height_of(rt, a.handle) > 0);
    /* the vehicle leaves: the edit on b now closes it first */
    CHECK_STATUS(fd_runtime_request_edit(rt, b.handle, FD_EDIT_GRAB, obs + 1, 1), FD_OK);
    CHECK(height_of(rt, b.handle) == 0);
}

/* ---- baseline cache and saves ---------------------------------------------------- */

static void test_save_projection(void)
{
    fd_runtime *rt = ready_runtime();
    fd_pose closed = rotated(v3(3, 4, 5), 0.3, 0, 0);
    fd_panel_observation o = panel_obs(0x00010001u, 11, TAG_INF, closed);
    fd_obstacle inside = biped_at(to_world(&closed, 0, -5, 1));
    fd_pose copy, live;
    uint64_t t = 1;
    int i;
    for (i = 0; i < 30; i++)
        tick(rt, &o, t++, &inside, 1);
    live = fd_runtime_find_panel(rt, o.handle)->published;
    CHECK(live.origin.z > 6);
    /* F5: the serialization copy holds the animated pose; project it */
    CHECK_STATUS(fd_runtime_save_begin(rt), FD_OK);
    copy = live;
    CHECK_STATUS(fd_runtime_save_project(rt, o.handle, 11, &copy), FD_OK);
    CHECK(memcmp(&copy, &closed, sizeof copy) == 0);
    /* the live door is not moved, and the animation goes on */
    CHECK(memcmp(&fd_runtime_find_panel(rt, o.handle)->published, &live, sizeof live) == 0);
    tick(rt, &o, t++, &inside, 1);
    CHECK(fd_runtime_find_panel(rt, o.handle)->published.origin.z > live.origin.z);
    /* other objects are left alone */
    copy = identity_at(9, 9, 9);
    CHECK_STATUS(fd_runtime_save_project(rt, 0x00770077u, 3, &copy), FD_OK);
    CHECK(copy.origin.x == 9);
    CHECK_STATUS(fd_runtime_save_project(rt, o.handle, 12, &copy), FD_OK); /* other entry */
    CHECK(copy.origin.x == 9);

    /* an external authored change (a script or the editor) sets a new baseline */
    fd_runtime_begin_scan(rt);
    o.pose = identity_at(-10, 0, 0);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_OK);
    fd_runtime_step(rt, t++, DT, NULL, 0);
    CHECK(height_of(rt, o.handle) == 0);
    copy = live;
    fd_runtime_save_project(rt, o.handle, 11, &copy);
    CHECK(copy.origin.x == -10 && copy.origin.z == 0);
    /* a pose read back with float rounding is not an external change */
    for (i = 0; i < 5; i++)
        tick(rt, &o, t++, &inside, 0);
    fd_runtime_begin_scan(rt);
    o.pose = identity_at(-10 + 1e-5, 0, 1e-5);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_OK);
    CHECK(fd_runtime_find_panel(rt, o.handle)->closed.origin.x == -10);
    fd_runtime_step(rt, t++, DT, NULL, 0);

    /* deletion (not seen by the scan) drops the cache entry */
    fd_runtime_begin_scan(rt);
    fd_runtime_step(rt, t++, DT, NULL, 0);
    CHECK(fd_runtime_find_panel(rt, o.handle) == NULL);
    /* travel drops everything */
    tick(rt, &o, t++, NULL, 0);
    CHECK(fd_runtime_find_panel(rt, o.handle) != NULL);
    fd_runtime_begin_world(rt, 2, FD_ROLE_HOST);
    CHECK(fd_runtime_find_panel(rt, o.handle) == NULL);
}

static void test_client_and_migration(void)
{
    fd_runtime *rt = ready_runtime();
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 2.5));
    fd_panel_observation n = panel_obs(0x00010002u, 2, TAG_VEH, identity_at(50, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1));
    fd_pose copy;
    uint64_t t = 1;
    int i;
    fd_runtime_begin_world(rt, 5, FD_ROLE_CLIENT);
    /* a client joined while the host's door was open: pose replicated */
    fd_runtime_begin_scan(rt);
    CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_NO_BASELINE);
    CHECK_STATUS(fd_runtime_step(rt, t++, DT, &inside, 1), FD_STEP_NOT_HOST);
    CHECK_STATUS(fd_runtime_save_begin(rt), FD_SAVE_DEFERRED);
    copy = o.pose;
    CHECK_STATUS(fd_runtime_save_project(rt, o.handle, 1, &copy), FD_SAVE_DEFERRED);
    /* ordinary client layouts (no enabled door panels) save as before */
    {
        fd_runtime *c = ready_runtime();
        fd_panel_observation normal = o;
        fd_runtime_begin_world(c, 5, FD_ROLE_CLIENT);
        normal.physics = FD_PHYSICS_NORMAL;
        fd_runtime_begin_scan(c);
        fd_runtime_observe_panel(c, &normal, NULL);
        fd_runtime_step(c, 1, DT, NULL, 0);
        CHECK_STATUS(fd_runtime_save_begin(c), FD_OK);
        rt = c; /* same storage: continue with the client */
        fd_runtime_begin_world(rt, 5, FD_ROLE_CLIENT);
        fd_runtime_begin_scan(rt);
        fd_runtime_observe_panel(rt, &o, NULL);
        fd_runtime_step(rt, t++, DT, &inside, 1);
    }
    /* the host leaves; this client becomes host */
    fd_runtime_become_host(rt);
    for (i = 0; i < 50; i++) {
        fd_runtime_begin_scan(rt);
        CHECK_STATUS(fd_runtime_observe_panel(rt, &o, NULL), FD_NO_BASELINE);
        fd_runtime_observe_panel(rt, &n, NULL); /* created after migration */
        fd_runtime_step(rt, t++, DT, &inside, 1);
    }
    CHECK(height_of(rt, o.handle) == 0);               /* not animated */
    CHECK(fd_runtime_find_panel(rt, o.handle)->published.origin.z == 2.5);
    CHECK(fd_runtime_find_panel(rt, n.handle)->verified);
    CHECK_STATUS(fd_runtime_save_begin(rt), FD_SAVE_NEEDS_REHOST);
    CHECK(strstr(fd_status_text(FD_SAVE_NEEDS_REHOST), "rehosted") != NULL);
    /* rehosting starts a fresh world where this host owns every baseline */
    fd_runtime_begin_world(rt, 6, FD_ROLE_HOST);
    o.pose = identity_at(0, 0, 0);
    for (i = 0; i < 10; i++)
        tick(rt, &o, t++, &inside, 1);
    CHECK(height_of(rt, o.handle) > 0);
    CHECK_STATUS(fd_runtime_save_begin(rt), FD_OK);
}

static int classify_calls;

static fd_body_class classify(void *ctx, uint32_t salted_tag)
{
    (void)ctx;
    classify_calls++;
    return (salted_tag & 1) ? FD_BODY_FIXED_ONLY : FD_BODY_MIXED;
}

static void test_body_cache(void)
{
    fd_runtime *rt = ready_runtime();
    classify_calls = 0;
    CHECK(fd_runtime_classify_body(rt, 0x00110001u, classify, NULL) == FD_BODY_FIXED_ONLY);
    CHECK(fd_runtime_classify_body(rt, 0x00110001u, classify, NULL) == FD_BODY_FIXED_ONLY);
    CHECK(classify_calls == 1);
    /* another salt of the same tag index is another entry */
    CHECK(fd_runtime_classify_body(rt, 0x00120001u, classify, NULL) == FD_BODY_FIXED_ONLY);
    CHECK(classify_calls == 2);
    CHECK(fd_runtime_classify_body(rt, 0x00110002u, classify, NULL) == FD_BODY_MIXED);
    CHECK(classify_calls == 3);
    /* a new world classifies again */
    fd_runtime_begin_world(rt, 99, FD_ROLE_HOST);
    CHECK(fd_runtime_classify_body(rt, 0x00110001u, classify, NULL) == FD_BODY_FIXED_ONLY);
    CHECK(classify_calls == 4);
    CHECK(fd_runtime_classify_body(rt, 0x00990001u, NULL, NULL) == FD_BODY_UNKNOWN);
}

/* ---- gates ------------------------------------------------------------------------ */

static void test_gates(void)
{
    fd_runtime *rt = &rt_storage;
    fd_panel_observation o = panel_obs(0x00010001u, 1, TAG_INF, identity_at(0, 0, 0));
    fd_obstacle inside = biped_at(v3(0, -6, 1));
    uint64_t t = 1;
    fd_runtime_init(rt);
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_BUILD_UNKNOWN);
    fd_runtime_report_build(rt, "CU3");
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_BUILD_UNSUPPORTED);
    fd_runtime_report_build(rt, NULL);
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_BUILD_UNSUPPORTED);
    fd_runtime_report_build(rt, "CU4");
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_FORGE_WAITING);
    fd_runtime_report_forge(rt, 1, 0); /* an older Forge DLL: no marker */
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_FORGE_OLD);
    CHECK(strstr(fd_status_text(FD_GATE_FORGE_OLD), "serialize the animated position") != NULL);
    fd_runtime_report_forge(rt, 1, FD_FORGE_NATIVE_API_MIN + 1); /* newer is fine */
    CHECK_STATUS(fd_runtime_gate(rt), FD_GATE_INVENTORY_MISSING);
    CHECK_STATUS(fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, NULL, 0),
                 FD_GATE_INVENTORY_MISSING);
    CHECK_STATUS(fd_runtime_load_inventory(rt, "forge-doors 9\n", 14, INSTALLED,
                                           sizeof INSTALLED - 1),
                 FD_GATE_INVENTORY_INVALID);
    CHECK_STATUS(fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, "nope\n", 5),
                 FD_GATE_INVENTORY_INVALID);
    /* gated: panels are tracked but nothing moves */
    fd_runtime_begin_world(rt, 1, FD_ROLE_HOST);
    fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, INSTALLED, sizeof INSTALLED - 1);
    fd_runtime_report_forge(rt, 1, 0);
    CHECK_STATUS(tick(rt, &o, t++, &inside, 1), FD_GATE_FORGE_OLD);
    CHECK(height_of(rt, o.handle) == 0);
    fd_runtime_report_forge(rt, 1, FD_FORGE_NATIVE_API_MIN);
    CHECK_STATUS(fd_runtime_load_inventory(rt, DOORS, sizeof DOORS - 1, INSTALLED,
                                           sizeof INSTALLED - 1),
                 FD_OK);
    CHECK_STATUS(tick(rt, &o, t++, &inside, 1), FD_OK);
    CHECK(height_of(rt, o.handle) > 0);
    /* every status has words */
    {
        int s;
        for (s = 0; s < FD_STATUS_COUNT; s++)
            CHECK(strcmp(fd_status_text((fd_status)s), "unknown status") != 0);
    }
}

int main(void)
{
    test_decimal();
    test_decimal_17_digits();
    test_decimal_fast_exact();
    test_row_scanning();
    test_parse_companion();
    test_field_limits();
    test_rejected_row_isolation();
    test_crlf_and_header();
    test_definition_limit();
    test_installed_binding();
    test_trigger();
    test_sweep_clearance();
    test_pose_validity();
    test_open_hold_close();
    test_hold_renewed_while_occupied();
    test_reopen();
    test_kept_open_by_vehicle();
    test_opening_stopped_by_obstacle();
    test_time_steps();
    test_other_panels_and_rotation();
    test_step_matches_reference();
    test_refusals();
    test_stale_and_replaced();
    test_active_limit();
    test_physics_modes();
    test_seed_physics();
    test_edit_close();
    test_save_projection();
    test_client_and_migration();
    test_body_cache();
    test_gates();
    printf("forge_doors_test: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
