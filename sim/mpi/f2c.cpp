/* Dropping a Fortran handle from SMPI's handle table (see fortran.c for when).
 *
 * SMPI keeps one global table, id -> object, for every Fortran handle (requests, communicators,
 * types...). Nothing public removes an entry: MPI_Request_c2f adds one, and SMPI's own Fortran
 * bindings erase it with F2C::free_f, which is inline in a header that is not installed. Left in
 * place, an entry points at a request or communicator MPI has already deleted, and the table
 * grows by one entry per nonblocking call for the whole run.
 *
 * The table itself is the exported static member simgrid::smpi::F2C::f2c_lookup_ (symbol
 * _ZN7simgrid4smpi3F2C11f2c_lookup_E in libsimgrid 3.32, declared in src/smpi/include/smpi_f2c.hpp
 * as std::unique_ptr<std::unordered_map<unsigned int, F2C*>>). We declare just that member, with
 * that exact type, so the linker binds to SimGrid's object; the mangled name carries neither the
 * type nor the member's access, so the type must be kept identical by hand if SimGrid changes. */
#include <memory>
#include <unordered_map>

namespace simgrid::smpi {
class F2C {
public:
  static std::unique_ptr<std::unordered_map<unsigned int, F2C*>> f2c_lookup_;
};
} // namespace simgrid::smpi

extern "C" void icsim_f2c_free(int id)
{
  auto& table = simgrid::smpi::F2C::f2c_lookup_;
  if (id >= 0 && table) /* negative ids are the *_NULL handles and MPI_COMM_SELF: never in the table */
    table->erase(static_cast<unsigned int>(id));
}
