/*
** dlbench.h — the public C interface of libdlbench.
**
** One header for C users, for the Lua 5.4 binding (host/) and for LuaJIT's FFI
** (lua/dlbench/ffi.lua). The FFI declarations are generated at build time from the
** regions between the DLB_FFI_BEGIN and DLB_FFI_END marker comments, in this file and
** in the area headers it includes (in include order). Inside a region: opaque handles,
** plain functions, `enum { ... }` constants and plain structs of numbers only -- no
** #define, macros, inline functions, float constants or bit-fields.
**
** Error model: a function that can fail returns a status (DLB_OK = 0, negative on error)
** and leaves a message for dlb_last_error(); constructors return NULL on failure. The
** library never prints, exits or aborts on bad input. Whoever calls *_new calls *_free;
** every *_free(NULL) is a no-op.
*/
#ifndef DLBENCH_H
#define DLBENCH_H

#include <stddef.h>

#include "dlb_base.h"

/* The areas of the library, each with its own FFI region, from the base runtime up; the
** figures last. Only this umbrella header includes plots/dlbplot.h (tests/sh/test_layers.sh). */
#include "dlb_poly.h"
#include "dlb_graph.h"
#include "dlb_onnx.h"
#include "dlb_json.h"
#include "dlb_hw.h"
#include "dlb_roofline.h"
#include "dlb_sweep.h"
#include "dlb_stats.h"
#include "dlb_scaling.h"
#include "dlb_parallel.h"
#include "dlb_sys.h"
#include "dlb_energy.h"
#include "dlb_measure.h"
#include "dlb_trace.h"
#include "dlb_minimize.h"
#include "dlb_file.h"
#include "dlbplot.h"

#endif
