set(STACK_SOURCES generic.c incast.c pause.c registration.c)
set(STACK_TESTS tests/test_generic.c)
