set(STACK_SOURCES params.c controller.c control_level.c mx.c)
set(STACK_TESTS tests/test_rapidio.c)
