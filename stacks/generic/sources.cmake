set(STACK_SOURCES generic.c registration.c)
set(STACK_TESTS tests/test_generic.c)
