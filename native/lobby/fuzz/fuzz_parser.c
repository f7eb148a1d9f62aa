/*
 * libFuzzer harness for the companion parsers of forge_doors_runtime.h.
 *
 * Input: doors.txt bytes, optionally followed by a NUL byte and
 * installed.txt bytes. Both parsers run on their part; when there is no NUL
 * the whole input is also parsed as installed.txt. Every accepted row is
 * checked against the limits it must satisfy, the sorted tag index is
 * checked, and the decimal parser is compared with strtod (C locale) on
 * every field it accepts. A bound inventory is then driven through a few
 * runtime ticks. Any violated invariant aborts, which libFuzzer reports as
 * a crash.
 *
 * Build and run: native/lobby/fuzz.sh
 */
#define FORGE_DOORS_IMPLEMENTATION
#include "../forge_doors_runtime.h"

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "invariant failed: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                             \
        }                                                                        \
    } while (0)

static void check_row(void *ctx, const fd_installed_row *r)
{
    size_t *n = (size_t *)ctx;
    CHECK(r->tag.len > 0 && r->pack.len >= 3 && r->kind.len == 5);
    (*n)++;
}

/* check_decimals compares fd_parse_decimal with strtod on each
 * tab-separated token of the input that fd_parse_decimal accepts. */
static void check_decimals(const uint8_t *data, size_t size)
{
    size_t start = 0, i;
    for (i = 0; i <= size; i++) {
        if (i == size || data[i] == '\t' || data[i] == '\n') {
            size_t n = i - start;
            double v;
            if (n > 0 && fd_parse_decimal((const char *)data + start, n, &v)) {
                char buf[FD_MAX_NUMBER + 1];
                double want;
                memcpy(buf, data + start, n);
                buf[n] = '\0';
                want = strtod(buf, NULL);
                if (want == 0.0)
                    want = 0.0; /* "-0" reads as 0 */
                if (v != want) {
                    fprintf(stderr, "fd_parse_decimal(%s) = %.17g; strtod = %.17g\n", buf, v, want);
                    abort();
                }
            }
            start = i + 1;
        }
    }
}

static void check_inventory(const fd_inventory *inv)
{
    size_t i;
    CHECK(inv->def_count <= FD_MAX_DEFINITIONS);
    for (i = 0; i < inv->def_count; i++) {
        const fd_door_def *d = &inv->defs[i];
        CHECK(d->tag_len > 0 && d->tag_len <= FD_MAX_TAG && d->tag[d->tag_len] == '\0');
        CHECK(d->travel > 0 && d->travel <= 16);
        CHECK(d->speed > 0 && d->speed <= 8);
        CHECK(d->hold >= 0 && d->hold <= 10);
        CHECK(d->trigger[0] > 0 && d->trigger[1] <= 32 && d->panel[2] <= 64 && d->panel[0] >= 0.01);
        CHECK(fd_inventory_find(inv, d->tag, d->tag_len) == d);
        if (i > 0) {
            const fd_door_def *a = &inv->defs[inv->by_tag[i - 1]], *b = &inv->defs[inv->by_tag[i]];
            size_t m = a->tag_len < b->tag_len ? a->tag_len : b->tag_len;
            int c = memcmp(a->tag, b->tag, m);
            CHECK(c < 0 || (c == 0 && a->tag_len < b->tag_len));
        }
    }
}

static fd_runtime rt; /* the harness's own storage; the runtime has none */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = (const char *)memchr(data, 0, size);
    size_t doors_len = nul ? (size_t)(nul - text) : size;
    const char *inst = nul ? nul + 1 : text;
    size_t inst_len = nul ? size - doors_len - 1 : size;
    size_t rows = 0, i;
    uint64_t t;

    check_decimals(data, size);
    fd_runtime_init(&rt);
    fd_runtime_report_build(&rt, "CU4");
    fd_runtime_report_forge(&rt, 1, FD_FORGE_NATIVE_API_MIN);
    fd_inventory_parse_doors(&rt.inv, text, doors_len);
    check_inventory(&rt.inv);
    fd_inventory_bind_installed(&rt.inv, inst, inst_len, check_row, &rows);
    CHECK(rows == rt.inv.installed_rows);
    check_inventory(&rt.inv);
    rt.inventory_loaded = 1;

    /* Drive every bound definition through a few ticks with a biped in
     * its trigger and an obstacle overhead. */
    fd_runtime_begin_world(&rt, 7, FD_ROLE_HOST);
    for (t = 1; t <= 4; t++) {
        fd_obstacle obs[2];
        memset(obs, 0, sizeof obs);
        obs[0].kind = FD_OBSTACLE_BIPED;
        obs[0].radius = 0.4;
        obs[0].centre.z = 1.0;
        obs[1].kind = FD_OBSTACLE_VEHICLE;
        obs[1].radius = 1.5;
        obs[1].centre.z = 9.0;
        fd_runtime_begin_scan(&rt);
        for (i = 0; i < rt.inv.def_count && i < FD_MAX_ACTIVE_PANELS; i++) {
            fd_panel_observation o;
            memset(&o, 0, sizeof o);
            o.handle = (uint32_t)(i + 1);
            o.entry = (uint32_t)i;
            o.tag = rt.inv.defs[i].tag;
            o.tag_len = rt.inv.defs[i].tag_len;
            o.physics = FD_PHYSICS_FIXED;
            o.pose.origin.x = (double)i * 100.0;
            o.pose.axis_x.x = 1;
            o.pose.axis_y.y = 1;
            o.pose.axis_z.z = 1;
            if (t > 1) {
                const fd_panel *p = fd_runtime_find_panel(&rt, o.handle);
                if (p)
                    o.pose = p->published;
            }
            obs[0].centre.x = o.pose.origin.x;
            (void)fd_runtime_observe_panel(&rt, &o, NULL);
        }
        (void)fd_runtime_step(&rt, t, 1.0 / 60.0, obs, 2);
        for (i = 0; i < rt.panel_count; i++) {
            const fd_panel *p = &rt.panels[i];
            CHECK(p->height >= 0 && p->height <= rt.inv.defs[p->def].travel);
        }
    }
    return 0;
}
