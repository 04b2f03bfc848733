/* The bracket around SMPI's own calls that send messages of their own (window synchronisation,
 * communicator creation and freeing, SMPI's collectives inside intercommunicator calls): inside
 * it, --stats counts those transfers as SMPI's, not as messages the layer missed. One helper for
 * every such call of the layer. */
#include "layer.h"

void icsim_smpi_enter(const char *call)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  if (call) { /* an entry point of the program's: its call CPU, and what has landed meanwhile */
    icsim_charge_call(call);
    icsim_engine_poll();
  }
  icsim_runtime_internal_enter(rt, icsim_my_rank());
}

int icsim_smpi_leave(int rc)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    icsim_runtime_internal_leave(rt, icsim_my_rank());
  return rc;
}
