/*
** dlb_energy.h — energy per operation by process and precision (pJ per arithmetic op and
** per word access at each memory level), and the energy of a training step from its FLOPs
** and its traffic at each level. The tables live in graphs/hw/energy.c; every entry carries
** its source (a seed slide, Horowitz ISSCC 2014, or "derived: <formula>"). See
** docs/energy.md.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_ENERGY_H
#define DLB_ENERGY_H

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Energy of one operation at one precision, in picojoules: an add, a multiply, one word
** read or written at the register file, the on-chip SRAM and off-chip DRAM. word_bytes is
** the width of the word the access energies are quoted for. */
typedef struct dlb_energy_cost {
  double add;
  double mul;
  double rf;
  double sram;
  double dram;
  double word_bytes;
} dlb_energy_cost;

/* The energy of a training step split into compute and each level's data movement, in
** joules; total is their sum. */
typedef struct dlb_energy_split {
  double compute;
  double rf;
  double sram;
  double dram;
  double total;
} dlb_energy_split;

/* The number of energy tables (processes), and the name and note of table i (0-based);
** NULL when i is out of range. Static strings. */
DLB_API int dlb_energy_table_count(void);
DLB_API const char *dlb_energy_table_name(int i);
DLB_API const char *dlb_energy_table_note(int i);
/* The number of precisions table `table` lists, and the name of its i-th (0-based);
** -1 / NULL when the table or i is unknown. Static strings. */
DLB_API int dlb_energy_precision_count(const char *table);
DLB_API const char *dlb_energy_precision_name(const char *table, int i);
/* The costs of `precision` in `table`: DLB_OK, or DLB_ENOTFOUND naming the known tables or
** precisions. */
DLB_API int dlb_energy_cost_get(const char *table, const char *precision, dlb_energy_cost *out);
/* The source of one entry (field "add", "mul", "rf", "sram" or "dram"); NULL when unknown.
** Static string. */
DLB_API const char *dlb_energy_source(const char *table, const char *precision, const char *field);
/* Energy of a step doing `flops` FLOPs (a multiply-accumulate is 2 FLOPs: one multiply and
** one add) and moving rf_bytes, sram_bytes, dram_bytes at each level, with costs `c`.
** Every count must be finite and >= 0, every cost finite, >= 0 and word_bytes > 0;
** otherwise DLB_EINVAL naming the bad argument. */
DLB_API int dlb_energy_step(const dlb_energy_cost *c, double flops, double rf_bytes,
                            double sram_bytes, double dram_bytes, dlb_energy_split *out);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
