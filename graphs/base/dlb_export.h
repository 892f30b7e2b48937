/*
** dlb_export.h — DLB_API, the marker of every public libdlbench function.
** The shared library is built with -fvisibility=hidden, so only functions declared with
** DLB_API (all of them named dlb_*) are exported. host/gen_cdef.lua strips the marker
** from the FFI declarations it generates.
*/
#ifndef DLB_EXPORT_H
#define DLB_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define DLB_API __attribute__((visibility("default")))
#else
#define DLB_API
#endif

#endif
