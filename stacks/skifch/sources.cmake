set(STACK_SOURCES params.c matching.c ring.c credit.c model.c)
set(STACK_TESTS tests/test_skifch.c tests/test_skifch_e2e.c)
# Programs include <skifch.h> and link the SkifCh library (icsimcc adds both).
set(STACK_PROGRAM_INCLUDE include)
set(STACK_PROGRAM_SOURCES program/channel.c)
