#include "cli.h"
#include <stdio.h>
int cmd_validate(int argc, char **argv){(void)argc;(void)argv;fprintf(stderr,"todo\n");return 2;}
