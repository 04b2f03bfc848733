set(STACK_SOURCES params.c library.c packets.c checksum.c queue.c device.c routing.c mapping.c place.c smpo.c)
set(STACK_TESTS tests/test_smpo.c tests/test_smpo_e2e.c)
