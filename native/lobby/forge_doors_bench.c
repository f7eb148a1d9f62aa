/*
 * forge_doors_bench.c - timing of the door runtime's hot paths (`make
 * bench-native`, built -O2).
 *
 *   step:  one fd_runtime_step of 128 automated panels and 64 obstacle
 *          spheres, all in one 48 x 24 m area; target < 20 us.
 *   scan+step: the same, plus begin_scan and 128 panel observations;
 *          target < 50 us (the step's old budget: the scan must not eat
 *          the step's gain).
 *   parse: fd_inventory_parse_doors of a 256-row doors.txt with authored
 *          values in shortest form, as the renderer writes them; target < 100 us.
 *   parse-17dig: the same with every number 17 significant digits (a
 *          pathological but valid file: the slow path of the decimal
 *          reader); target < 100 us, like any 256-row doors.txt.
 *   parse+bind: the shortest-form parse plus binding a 512-row
 *          installed.txt; target < 150 us.
 *
 * Prints the median and the best of many runs, in microseconds, and exits
 * 1 when a median misses its target. bench-ab.sh compares two versions of
 * the header in one run.
 *
 * `forge_doors_bench FIGURE N` (FIGURE one of parse, parse-17dig,
 * parse+bind, scan+step) times nothing: it builds the same inputs and runs
 * that figure's work N times, for an instruction count under valgrind
 * (callgrind-ab.sh), which a loaded machine does not disturb.
 */
#define FORGE_DOORS_IMPLEMENTATION
#include "forge_doors_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#define RUNS 2001

static fd_runtime rt;
static fd_obstacle obstacles[64];
static fd_panel_observation obs[FD_MAX_ACTIVE_PANELS];
static char doors[256 * 160];
static char worst[256 * 300];
static char installed[512 * 260];
static char tags[256][64];
static double samples[RUNS];

static double now_us(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* report prints one figure with its target and says whether the median
 * missed it. Every figure has a target. */
static int report(const char *name, double target)
{
    qsort(samples, RUNS, sizeof samples[0], cmp_double);
    printf("%-12s median %8.2f us   best %8.2f us   target < %.0f us%s\n", name, samples[RUNS / 2],
           samples[0], target, samples[RUNS / 2] >= target ? "   MISSED" : "");
    return samples[RUNS / 2] >= target;
}

int main(int argc, char **argv)
{
    size_t dn = 0, in = 0, wn = 0, i;
    int miss = 0, r;
    uint64_t tick = 1;

    dn += (size_t)sprintf(doors + dn, "forge-doors 1\n");
    wn += (size_t)sprintf(worst + wn, "forge-doors 1\n");
    in += (size_t)sprintf(installed + in, "forge-installed 1\n");
    for (i = 0; i < 256; i++) {
        sprintf(tags[i], "mjolnir\\forge\\bench-pack-%02u\\gate_%03u", (unsigned)(i / 16), (unsigned)i);
        /* authored values, as the renderer writes them (shortest form) */
        dn += (size_t)sprintf(doors + dn, "%s\t%g\t%g\t8\t16\t6\t%g\t%g\t0.5\t4.25\n", tags[i],
                              1.0 + (double)(i % 60) * 0.25, 0.5 + (double)(i % 15) * 0.5,
                              (double)(i % 11) * 0.5, 0.5 + (double)(i % 8) * 1.75);
        /* worst case: every number 17 significant digits */
        wn += (size_t)sprintf(worst + wn,
                              "%s\t%.17f\t%.17f\t%.17f\t%.17f\t%.17f\t%.17f\t%.17f\t%.17f\t%.17f\n",
                              tags[i], 1.0 / 3.0 + 1, 2.0 / 3.0, 1.0 / 7.0 + 7, 8.0 / 9.0 + 9, 0.1 + 0.2,
                              1.0 / 3.0, 1.0 / 6.0 + 3, 2.0 / 7.0, 1.0 / 9.0 + 2);
    }
    for (i = 0; i < 512; i++) {
        unsigned pack = (unsigned)((i % 256) / 16);
        if (i < 256)
            in += (size_t)sprintf(installed + in,
                                  "%s\tbench-pack-%02u\t1.2.3\tgate_%03u\tpanel\t"
                                  "/Game/MJOLNIR/Forge/bench-pack-%02u/Panels/BP_Gate.BP_Gate_C\n",
                                  tags[i], pack, (unsigned)i, pack);
        else
            in += (size_t)sprintf(installed + in,
                                  "mjolnir\\forge\\bench-pack-%02u\\zblock_%03u\tbench-pack-%02u\t1.2.3\t"
                                  "zblock_%03u\tblock\t/Game/MJOLNIR/Forge/bench-pack-%02u/B/BP_B.BP_B_C\n",
                                  pack, (unsigned)i, pack, (unsigned)i, pack);
    }

    fd_runtime_init(&rt);
    fd_runtime_report_build(&rt, "CU4");
    fd_runtime_report_forge(&rt, 1, FD_FORGE_NATIVE_API_MIN);
    if (fd_runtime_load_inventory(&rt, doors, dn, installed, in) != FD_OK || rt.inv.bound_count != 256) {
        fprintf(stderr, "bench: inventory did not load (%u bound)\n", (unsigned)rt.inv.bound_count);
        return 2;
    }
    fd_runtime_begin_world(&rt, 1, FD_ROLE_HOST);
    /* 128 panels on a 16 x 8 grid, 3 m apart, slightly yawed */
    for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++) {
        fd_panel_observation *o = &obs[i];
        double a = 0.05 * (double)(i % 7);
        memset(o, 0, sizeof *o);
        o->handle = 0x00010000u | (uint32_t)i;
        o->live_salt = 1;
        o->entry = (uint32_t)i;
        o->tag = tags[i];
        o->tag_len = strlen(tags[i]);
        o->physics = FD_PHYSICS_FIXED;
        o->pose.origin.x = (double)(i % 16) * 3.0;
        o->pose.origin.y = (double)(i / 16) * 3.0;
        o->pose.axis_x.x = cos(a);
        o->pose.axis_x.y = sin(a);
        o->pose.axis_y.x = -sin(a);
        o->pose.axis_y.y = cos(a);
        o->pose.axis_z.z = 1;
    }
    /* 64 obstacles spread over the same area: bipeds, vehicles, crates */
    for (i = 0; i < 64; i++) {
        fd_obstacle *o = &obstacles[i];
        memset(o, 0, sizeof *o);
        o->kind = (uint8_t)(i % 3 == 0 ? FD_OBSTACLE_BIPED : i % 3 == 1 ? FD_OBSTACLE_VEHICLE : FD_OBSTACLE_CRATE);
        o->physics = FD_PHYSICS_NORMAL;
        o->body = FD_BODY_MIXED;
        o->radius = o->kind == FD_OBSTACLE_VEHICLE ? 1.5 : 0.45;
        o->centre.x = (double)(i % 8) * 6.0 + 1.0;
        o->centre.y = (double)(i / 8) * 3.0 + 1.3;
        o->centre.z = (double)(i % 5) * 0.7 + 0.5;
    }

    if (argc == 3) {
        const char *what = argv[1];
        long n = atol(argv[2]);
        for (r = 0; r < n; r++) {
            if (!strcmp(what, "parse")) {
                fd_inventory_parse_doors(&rt.inv, doors, dn);
            } else if (!strcmp(what, "parse-17dig")) {
                fd_inventory_parse_doors(&rt.inv, worst, wn);
            } else if (!strcmp(what, "parse+bind")) {
                fd_inventory_parse_doors(&rt.inv, doors, dn);
                fd_inventory_bind_installed(&rt.inv, installed, in, NULL, NULL);
            } else if (!strcmp(what, "scan+step")) {
                fd_runtime_begin_scan(&rt);
                for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++)
                    fd_runtime_observe_panel(&rt, &obs[i], NULL);
                fd_runtime_step(&rt, tick++, 1.0 / 60.0, obstacles, 64);
            } else {
                fprintf(stderr, "bench: no figure %s (parse, parse-17dig, parse+bind, scan+step)\n", what);
                return 2;
            }
        }
        return 0;
    }
    for (r = 0; r < RUNS + 200; r++) {
        double t0, t1, t2;
        fd_runtime_begin_scan(&rt);
        for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++) {
            const fd_panel *p = fd_runtime_find_panel(&rt, obs[i].handle);
            if (p)
                obs[i].pose = p->published;
        }
        t0 = now_us();
        fd_runtime_begin_scan(&rt);
        for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++)
            fd_runtime_observe_panel(&rt, &obs[i], NULL);
        t1 = now_us();
        if (fd_runtime_step(&rt, tick++, 1.0 / 60.0, obstacles, 64) != FD_OK || rt.panel_count != 128) {
            fprintf(stderr, "bench: step failed\n");
            return 2;
        }
        t2 = now_us();
        {
            size_t it = 0;
            fd_pose_update u;
            while (fd_runtime_next_update(&rt, &it, &u)) {
            }
        }
        if (r >= 200)
            samples[r - 200] = t2 - t1;
        (void)t0;
    }
    miss |= report("step", 20);
    for (r = 0; r < RUNS; r++) {
        double t0, t2;
        for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++)
            obs[i].pose = fd_runtime_find_panel(&rt, obs[i].handle)->published;
        t0 = now_us();
        fd_runtime_begin_scan(&rt);
        for (i = 0; i < FD_MAX_ACTIVE_PANELS; i++)
            fd_runtime_observe_panel(&rt, &obs[i], NULL);
        fd_runtime_step(&rt, tick++, 1.0 / 60.0, obstacles, 64);
        t2 = now_us();
        samples[r] = t2 - t0;
    }
    miss |= report("scan+step", 50);

    for (r = 0; r < RUNS; r++) {
        double t0 = now_us();
        fd_inventory_parse_doors(&rt.inv, doors, dn);
        samples[r] = now_us() - t0;
        if (rt.inv.def_count != 256) {
            fprintf(stderr, "bench: parse found %u rows\n", (unsigned)rt.inv.def_count);
            return 2;
        }
    }
    miss |= report("parse", 100);
    for (r = 0; r < RUNS; r++) {
        double t0 = now_us();
        fd_inventory_parse_doors(&rt.inv, worst, wn);
        samples[r] = now_us() - t0;
        if (rt.inv.def_count != 256) {
            fprintf(stderr, "bench: worst-case parse found %u rows\n", (unsigned)rt.inv.def_count);
            return 2;
        }
    }
    miss |= report("parse-17dig", 100);
    for (r = 0; r < RUNS; r++) {
        double t0 = now_us();
        fd_inventory_parse_doors(&rt.inv, doors, dn);
        fd_inventory_bind_installed(&rt.inv, installed, in, NULL, NULL);
        samples[r] = now_us() - t0;
    }
    miss |= report("parse+bind", 150);
    return miss;
}
