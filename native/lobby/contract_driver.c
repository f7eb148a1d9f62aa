/*
 * contract_driver.c - prints what the C parser reads from a doors.txt and
 * an installed.txt, canonically, for the Go contract test.
 *
 * Usage: contract_driver DOORS.TXT INSTALLED.TXT
 *
 * Output, one tab-separated record per line:
 *   doors-status     STATUS
 *   def              LINE TAG TRAVEL SPEED TRIGGER_X TRIGGER_Y TRIGGER_Z HOLD WIDTH DEPTH HEIGHT BINDING
 *   doors-reject     LINE FIELD REASON TEXT
 *   installed-status STATUS
 *   row              LINE TAG PACK VERSION PIECE KIND CLASS
 *   installed-reject LINE FIELD REASON TEXT
 * Numbers are printed with %.17g, which reads back as the same double.
 * STATUS, REASON and BINDING are the numeric fd_status / fd_binding.
 */
#define FORGE_DOORS_IMPLEMENTATION
#include "forge_doors_runtime.h"

#include <stdio.h>
#include <stdlib.h>

static fd_inventory inv;
static char doors[1 << 20], installed[1 << 20];

static size_t slurp(const char *name, char *buf, size_t cap)
{
    FILE *f = fopen(name, "rb");
    size_t n;
    if (!f) {
        fprintf(stderr, "contract_driver: cannot open %s\n", name);
        exit(2);
    }
    n = fread(buf, 1, cap, f);
    if (n == cap || ferror(f)) {
        fprintf(stderr, "contract_driver: cannot read %s (or larger than %u bytes)\n", name,
                (unsigned)cap);
        exit(2);
    }
    fclose(f);
    return n;
}

static void print_span(fd_span s) { fwrite(s.ptr, 1, s.len, stdout); }

static void print_row(void *ctx, const fd_installed_row *r)
{
    (void)ctx;
    printf("row\t%u\t", (unsigned)r->line);
    print_span(r->tag);
    putchar('\t');
    print_span(r->pack);
    putchar('\t');
    print_span(r->version);
    putchar('\t');
    print_span(r->piece);
    putchar('\t');
    print_span(r->kind);
    putchar('\t');
    print_span(r->class_path);
    putchar('\n');
}

static void print_rejections(const char *what, const fd_rejection *list, size_t count)
{
    size_t i;
    for (i = 0; i < count && i < FD_MAX_REJECTIONS; i++)
        printf("%s-reject\t%u\t%u\t%u\t%s\n", what, (unsigned)list[i].line, (unsigned)list[i].field,
               (unsigned)list[i].reason, fd_status_text((fd_status)list[i].reason));
}

int main(int argc, char **argv)
{
    size_t dn, in, i;
    fd_status ds, is;
    if (argc != 3) {
        fprintf(stderr, "usage: contract_driver DOORS.TXT INSTALLED.TXT\n");
        return 2;
    }
    dn = slurp(argv[1], doors, sizeof doors);
    in = slurp(argv[2], installed, sizeof installed);
    fd_inventory_init(&inv);
    ds = fd_inventory_parse_doors(&inv, doors, dn);
    printf("doors-status\t%d\n", (int)ds);
    is = fd_inventory_bind_installed(&inv, installed, in, print_row, NULL);
    printf("installed-status\t%d\n", (int)is);
    for (i = 0; i < inv.def_count; i++) {
        const fd_door_def *d = &inv.defs[i];
        printf("def\t%u\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%u\n",
               (unsigned)d->line, d->tag, d->travel, d->speed, d->trigger[0], d->trigger[1],
               d->trigger[2], d->hold, d->panel[0], d->panel[1], d->panel[2], (unsigned)d->binding);
    }
    print_rejections("doors", inv.doors_rejections, inv.doors_rejected);
    print_rejections("installed", inv.installed_rejections, inv.installed_rejected);
    return 0;
}
