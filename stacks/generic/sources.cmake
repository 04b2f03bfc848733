set(STACK_SOURCES generic.c)
