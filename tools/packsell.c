/* packsell.c -- the packsell command (placeholder until the CLI lands). */
#include "packsell.h"

#include <stdio.h>

int main(void)
{
    printf("packsell %s\n", psl_version());
    return 0;
}
