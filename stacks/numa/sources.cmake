set(STACK_SOURCES numa.c)
