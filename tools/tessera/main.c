/* Placeholder entry point; replaced by the CLI. */
#include "tessera.h"
#include <stdio.h>
int main(void) { printf("tessera %d\n", ts_version()); return 0; }
