set(STACK_SOURCES numa.c cache_lru.c)
set(STACK_TESTS tests/test_numa.c)
