# abi: the MPI-Adaptor. The model (model.c, and the table of what each call converts) lives in the
# core like every stack; the adaptor itself is a set of libraries a program built against another
# MPI loads instead of that MPI, found through LD_LIBRARY_PATH set by `icsim run`:
#   lib/abi/mpich/libmpich.so.12   MPICH ABI (integer handles), C
#   lib/abi/ompi/libmpi.so.40      Open MPI ABI (pointer handles), C
#   lib/libicsim_abi_loader.so     preloaded into smpirun's process: loads an ordinary executable
# Their translation functions are generated from spec/ by gen_adaptor.py when CMake configures
# (and again whenever the spec or the generator changes).
set(abi_dir ${CMAKE_CURRENT_LIST_DIR})
set(abi_gen ${CMAKE_BINARY_DIR}/stacks/abi/gen)
file(MAKE_DIRECTORY ${abi_gen})
find_package(Python3 REQUIRED COMPONENTS Interpreter)
file(GLOB abi_spec_files ${abi_dir}/spec/*)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${abi_spec_files} ${abi_dir}/gen_adaptor.py)
execute_process(COMMAND ${Python3_EXECUTABLE} ${abi_dir}/gen_adaptor.py ${abi_dir}/spec ${SMPI_INCLUDE}/smpi/smpi.h
                        ${abi_gen}
                RESULT_VARIABLE abi_gen_rc)
if(NOT abi_gen_rc EQUAL 0)
  message(FATAL_ERROR "stacks/abi: generating the adaptor from stacks/abi/spec failed (see above)")
endif()

set(STACK_SOURCES model.c launch.c)
list(APPEND ICSIM_STACK_SOURCES ${abi_gen}/abi_calls.c)
set(STACK_TESTS tests/test_abi.c tests/test_abi_e2e.c tests/test_abi_scale.c tests/test_abi_libs.c)

set(abi_common ${abi_dir}/adaptor/bind.c ${abi_dir}/adaptor/handles.c ${abi_dir}/adaptor/values.c
               ${abi_gen}/target_tables.c)
function(abi_adaptor target abi libname soversion)
  add_library(${target} SHARED ${abi_gen}/wrappers_${abi}.c ${abi_dir}/adaptor/${abi}.c ${abi_dir}/adaptor/fint_${abi}.c
                               ${abi_dir}/adaptor/ops.c ${abi_dir}/adaptor/errhandlers.c ${abi_dir}/adaptor/attrs.c
                               ${abi_gen}/tables_${abi}.c
                               ${abi_common} ${ARGN})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${libname} SOVERSION ${soversion}
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/abi/${abi} C_VISIBILITY_PRESET default)
  target_include_directories(${target} PRIVATE ${abi_dir}/adaptor ${abi_gen})
  # the layer's MPI_ROOT (SMPI's is 0, a valid rank): the program's MPI_ROOT maps to it
  set_source_files_properties(${abi_gen}/target_tables.c PROPERTIES INCLUDE_DIRECTORIES ${SMPI_INCLUDE_DIR}
                              COMPILE_OPTIONS "-include;${CMAKE_SOURCE_DIR}/sim/mpi/mpi_root.h")
  target_compile_definitions(${target} PRIVATE ICSIM_LAYER_PATH="${CMAKE_BINARY_DIR}/lib/libicsim_mpi.so"
                                               ABI_HEADER="abi_${abi}.h")
  # -Bsymbolic: the adaptor's own calls stay inside it (it defines MPI_Send as the program sees it)
  target_link_options(${target} PRIVATE -Wl,-Bsymbolic)
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  target_compile_options(${target} PRIVATE -Wno-unused-parameter)
endfunction()
abi_adaptor(abi_mpich mpich mpich 12)
if(EXISTS ${abi_gen}/wrappers_ompi.c)
  abi_adaptor(abi_ompi ompi mpi 40)
endif()
# MPICH's Fortran entry points: call the C adaptor (libmpich.so.12, loaded first by the loader).
add_library(abi_mpichfort SHARED ${abi_gen}/fortran_mpich.c ${abi_dir}/adaptor/fortran.c)
set_target_properties(abi_mpichfort PROPERTIES OUTPUT_NAME mpichfort SOVERSION 12
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/abi/mpich)
target_include_directories(abi_mpichfort PRIVATE ${abi_dir}/adaptor ${abi_gen})
target_link_libraries(abi_mpichfort PRIVATE abi_mpich ${CMAKE_DL_LIBS})
target_compile_options(abi_mpichfort PRIVATE -Wno-unused-parameter)
add_library(icsim_abi_loader SHARED ${abi_dir}/adaptor/loader.c)
target_link_libraries(icsim_abi_loader PRIVATE ${CMAKE_DL_LIBS})

# No file of the adaptor in a call or include circle (adaptor.h gives the order): the objects of each
# library, libmpichfort's with libmpich's (it calls libmpich's entry points), through
# tests/call_circles.py; it lists every arrow of a circle. The loader is one file, a library of its
# own: its exit, dlopen and getpid interpose libc's, as bind.c's exit and getpid do, not each other.
set(abi_circles ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/call_circles.py)
add_test(NAME abi_call_circles_mpich COMMAND ${abi_circles} $<TARGET_OBJECTS:abi_mpich>)
add_test(NAME abi_call_circles_mpichfort COMMAND ${abi_circles} $<TARGET_OBJECTS:abi_mpichfort>
                                                 $<TARGET_OBJECTS:abi_mpich>)
if(TARGET abi_ompi)
  add_test(NAME abi_call_circles_ompi COMMAND ${abi_circles} $<TARGET_OBJECTS:abi_ompi>)
endif()
file(GLOB abi_sources ${abi_dir}/adaptor/*.[ch] ${abi_gen}/*.[ch])
add_test(NAME abi_include_circles COMMAND ${abi_circles} --includes -I ${abi_dir}/adaptor -I ${abi_gen}
                                          ${abi_sources})

# Our workloads built with the other MPIs' own compilers (Debian's mpicc.mpich, mpicc.openmpi,
# mpif90.mpich): unchanged binaries the adaptor's tests and the sumimoto-adaptor case run, in
# build/workloads/mpich/ and build/workloads/openmpi/. Skipped when that compiler is not installed.
find_program(ABI_MPICC_MPICH mpicc.mpich)
find_program(ABI_MPICC_OPENMPI mpicc.openmpi)
find_program(ABI_MPIF90_MPICH mpif90.mpich)
set(abi_wl ${CMAKE_SOURCE_DIR}/workloads)
function(abi_foreign_workload mpi cc name)
  set(out ${CMAKE_BINARY_DIR}/workloads/${mpi}/${name})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/workloads/${mpi}
    COMMAND ${cc} -O2 -Wno-stringop-overflow -I${abi_wl}/include -o ${out} ${ARGN} -lm
    DEPENDS ${ARGN} ${abi_wl}/include/icsim_phase.h ${abi_wl}/npb/npb.h
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    COMMENT "${mpi} build of ${name}")
  add_custom_target(abi_${mpi}_${name} ALL DEPENDS ${out})
endfunction()
# A program whose every MPI call is in two shared libraries of ours (tests/progs/libcalls): the
# program names no MPI, libicsimabi_outer.so needs libicsimabi_inner.so, both found through
# RUNPATH $ORIGIN, in build/workloads/NAME/libcalls/. CC_INNER builds the inner library, CC_OUTER
# the rest (two MPIs: a tree icsim run must refuse).
function(abi_libcalls name cc_inner cc_outer)
  set(d ${CMAKE_BINARY_DIR}/workloads/${name}/libcalls)
  set(src ${abi_dir}/tests/progs/libcalls)
  add_custom_command(OUTPUT ${d}/libcalls ${d}/libicsimabi_outer.so ${d}/libicsimabi_inner.so
    COMMAND ${CMAKE_COMMAND} -E make_directory ${d}
    COMMAND ${cc_inner} -O2 -fPIC -shared -o ${d}/libicsimabi_inner.so ${src}/inner.c
    COMMAND ${cc_outer} -O2 -fPIC -shared -o ${d}/libicsimabi_outer.so ${src}/outer.c -L${d} -licsimabi_inner
            -Wl,-rpath,$ORIGIN
    COMMAND ${cc_outer} -O2 -o ${d}/libcalls ${src}/main.c -L${d} -licsimabi_outer -licsimabi_inner -Wl,-rpath,$ORIGIN
    DEPENDS ${src}/inner.c ${src}/outer.c ${src}/main.c ${src}/libcalls.h
    COMMENT "${name} build of libcalls (MPI called from shared libraries)" VERBATIM)
  add_custom_target(abi_${name}_libcalls ALL DEPENDS ${d}/libcalls)
endfunction()
foreach(mpi mpich openmpi)
  string(TOUPPER ${mpi} MPI)
  if(ABI_MPICC_${MPI})
    foreach(t osu_latency osu_bw)
      abi_foreign_workload(${mpi} ${ABI_MPICC_${MPI}} ${t} ${abi_wl}/osu/${t}.c ${abi_wl}/osu/osu_util.c)
    endforeach()
    foreach(k is cg)
      abi_foreign_workload(${mpi} ${ABI_MPICC_${MPI}} ${k} ${abi_wl}/npb/${k}.c ${abi_wl}/npb/npb.c)
    endforeach()
    abi_foreign_workload(${mpi} ${ABI_MPICC_${MPI}} abi_checks ${abi_dir}/tests/progs/abi_checks.c)
    abi_foreign_workload(${mpi} ${ABI_MPICC_${MPI}} hello_allreduce ${abi_dir}/tests/progs/hello_allreduce.c)
    abi_libcalls(${mpi} ${ABI_MPICC_${MPI}} ${ABI_MPICC_${MPI}})
    # intercommunicator collectives: MPI_ROOT and MPI_PROC_NULL roots, remote-group-long arrays
    abi_foreign_workload(${mpi} ${ABI_MPICC_${MPI}} intercomm_coll ${CMAKE_SOURCE_DIR}/tests/mpi/intercomm_coll.c)
  endif()
endforeach()
if(ABI_MPICC_MPICH AND ABI_MPICC_OPENMPI)
  abi_libcalls(mixed ${ABI_MPICC_OPENMPI} ${ABI_MPICC_MPICH})
endif()
# gfortran writes no module here (the program uses mpif.h or MPICH's installed mpi module)
if(ABI_MPIF90_MPICH)
  set(out ${CMAKE_BINARY_DIR}/workloads/mpich/osu_latency_f)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/workloads/mpich
    COMMAND ${ABI_MPIF90_MPICH} -O2 -o ${out} ${abi_wl}/osu/osu_latency_f.f90
    DEPENDS ${abi_wl}/osu/osu_latency_f.f90
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/workloads/mpich
    COMMENT "mpich build of osu_latency_f")
  add_custom_target(abi_mpich_osu_latency_f ALL DEPENDS ${out})
endif()
