/* The text tests/progs/fake_verdicts.c prints, and tests/test_gate.c expects back byte for byte:
 * lines in the form of icsim's, SimGrid's and smpirun's own messages, a NUL byte, and a last line
 * without its newline. */
static const char fake_verdicts_text[] =
    "icsim: the program deadlocked (simulated time 0.000000 s): no rank can progress. Blocked: none.\n"
    "[0.000000] ./src/kernel/EngineImpl.cpp:718: [ker_engine/CRITICAL] Oops! Deadlock detected, some activities "
    "are still around but will never complete.\n"
    "[0.000000] [ker_engine/INFO] Actor 1 (0@node0.s0) simcall actor::ActivityWaitanySimcall\n"
    "[icsim] rank 0: MPI_Send failed\n"
    "dlopen failed: libnothing.so: cannot open shared object file (errno: 2 -- x).\n"
    "Error: Did you compile the program with a SMPI-specific compiler (spmicc or friends)?\n"
    "Could not resolve entry point. Does your program contain a main() function?\n"
    "Backtrace (displayed in actor 0):\n"
    "  ->  0# nothing in particular\n"
    "\n"
    "Segmentation fault.\n"
    "Aborted (core dumped)\n"
    "[node0.s1:1:(2) 0.000000] smpi_global.cpp:645: [smpi_kernel/WARNING] SMPI process did not return 0. "
    "Return value : 9\n"
    "/x/prog --cfg=smpi/privatization:1 --cfg=surf/precision:1e-9\n"
    "Execution failed with code 139.\n"
    "icsim: rank 1 called MPI_Abort with error code 7\n"
    "a NUL byte: \0 and no newline at the end";
