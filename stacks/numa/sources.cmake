set(STACK_SOURCES numa.c)
set(STACK_TESTS tests/test_numa.c)
