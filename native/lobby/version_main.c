/* version_main.c prints the module's version line, as forge_doors.version
 * holds it: "forge_doors <FD_MODULE_VERSION> api <FD_API_VERSION>". The
 * Makefile writes forge_doors.version with it; a Go test checks that the
 * Go constants agree. */
#include <stdio.h>

#include "forge_doors_runtime.h"

int main(void)
{
    printf("forge_doors %s api %d\n", FD_MODULE_VERSION, FD_API_VERSION);
    return 0;
}
