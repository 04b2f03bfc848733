set(STACK_SOURCES generic.c)
set(STACK_TESTS tests/test_generic.c)
