/* placeholder, replaced below */
#include <criterion/criterion.h>
Test(abi_e2e, placeholder) { cr_assert(1); }
