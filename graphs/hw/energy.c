/*
** energy.c — energy per operation tables (pJ) and the energy of a training step.
**
** Two tables, both for a 45 nm CMOS process, each entry with its source:
**   "45nm"        Horowitz, "Computing's energy problem (and what we can do about it)",
**                 ISSCC 2014 keynote, as reprinted in Han et al., EIE (ISCA 2016) Table I
**                 (seed 002): 32-bit int add 0.1, float add 0.9, int mult 3.1, float mult
**                 3.7, 32-bit read of a 32 KB SRAM 5, 32-bit DRAM read 640 pJ; the 16- and
**                 8-bit arithmetic rows of the same keynote; the register file from seed 003.
**   "45nm-pedram" seed 003's slide "Memory access is >500x arithmetic energy" (Pedram,
**                 Richardson, Galal, Kvatinsky, Horowitz, "Dark memory and accelerator-rich
**                 system optimization in the dark silicon era", IEEE D&T 2017): 16-bit
**                 integer and 64-bit DP-FP columns.
** Entries the sources do not print are derived (the formula is the source string).
*/
#include <math.h>
#include <string.h>

#include "dlb_energy.h"
#include "dlb_runtime.h"

typedef struct entry {
  const char *table, *precision;
  dlb_energy_cost c;
  const char *src[5]; /* add, mul, rf, sram, dram */
} entry;

#define HZ "Horowitz ISSCC 2014 keynote"
#define EIE "Horowitz ISSCC 2014 via seed 002 (EIE Table I, 45 nm)"
#define PED "seed 003 slide 'Memory access is >500x arithmetic energy' (Pedram et al. 2017)"
#define RF32 "derived: 64-word register file interpolated in word width between seed 003's " \
  "16-bit 0.23 pJ and 64-bit 0.42 pJ: 0.23 + 0.19 x 16/48 = 0.293"
#define RF16 "seed 003 slide: 64-word register file, 16-bit, 0.23 pJ"

static const entry entries[] = {
  { "45nm", "fp32", { 0.9, 3.7, 0.293, 5, 640, 4 },
    { EIE ": 32 bit float ADD 0.9 pJ", EIE ": 32 bit float MULT 3.7 pJ", RF32,
      EIE ": 32 bit 32KB SRAM 5 pJ", EIE ": 32 bit DRAM 640 pJ" } },
  { "45nm", "int32", { 0.1, 3.1, 0.293, 5, 640, 4 },
    { EIE ": 32 bit int ADD 0.1 pJ", EIE ": 32 bit int MULT 3.1 pJ", RF32,
      EIE ": 32 bit 32KB SRAM 5 pJ", EIE ": 32 bit DRAM 640 pJ" } },
  { "45nm", "fp16", { 0.4, 1.1, 0.23, 2.5, 320, 2 },
    { HZ ": 16 bit float add 0.4 pJ", HZ ": 16 bit float mult 1.1 pJ", RF16,
      "derived: half a 32-bit access of the 32 KB SRAM (5 pJ x 16/32)",
      "derived: half a 32-bit DRAM access (640 pJ x 16/32)" } },
  { "45nm", "bf16", { 0.4, 1.1, 0.23, 2.5, 320, 2 },
    { "assumed: as fp16 (Horowitz lists no bf16; its 8-bit mantissa multiplier is smaller)",
      "assumed: as fp16 (Horowitz lists no bf16; its 8-bit mantissa multiplier is smaller)",
      RF16, "derived: half a 32-bit access of the 32 KB SRAM (5 pJ x 16/32)",
      "derived: half a 32-bit DRAM access (640 pJ x 16/32)" } },
  { "45nm", "int8", { 0.03, 0.2, 0.115, 1.25, 160, 1 },
    { HZ ": 8 bit int add 0.03 pJ", HZ ": 8 bit int mult 0.2 pJ",
      "derived: half the 16-bit 64-word register file (0.23 pJ x 8/16)",
      "derived: a quarter of a 32-bit SRAM access (5 pJ x 8/32)",
      "derived: a quarter of a 32-bit DRAM access (640 pJ x 8/32)" } },
  { "45nm-pedram", "int16", { 0.18, 0.62, 0.23, 11, 640, 2 },
    { PED ": 16 bit ADD 0.18 pJ", PED ": 16 bit Multiply 0.62 pJ",
      PED ": 16 bit 64-word register file 0.23 pJ", PED ": 16 bit 32K-word SRAM 11 pJ",
      PED ": 16 bit DRAM 640 pJ" } },
  { "45nm-pedram", "fp64", { 5, 20, 0.42, 47, 2560, 8 },
    { PED ": 64 bit DP-FP ADD 5 pJ", PED ": 64 bit DP-FP Multiply 20 pJ",
      PED ": 64 bit 64-word register file 0.42 pJ", PED ": 64 bit 32K-word SRAM 47 pJ",
      PED ": 64 bit DRAM 2560 pJ" } },
};
#define NENTRY ((int)(sizeof entries / sizeof entries[0]))

static const struct { const char *name, *note; } tables[] = {
  { "45nm", "45 nm CMOS, 0.9 V: Horowitz ISSCC 2014 (seed 002, EIE Table I)" },
  { "45nm-pedram", "45 nm CMOS: seed 003's table from Pedram et al. 2017 (16-bit int, 64-bit DP-FP)" },
};
#define NTABLE ((int)(sizeof tables / sizeof tables[0]))

int dlb_energy_table_count(void) { return NTABLE; }

const char *dlb_energy_table_name(int i) { return i >= 0 && i < NTABLE ? tables[i].name : NULL; }

const char *dlb_energy_table_note(int i) { return i >= 0 && i < NTABLE ? tables[i].note : NULL; }

static int known_table(const char *table) {
  for (int i = 0; table && i < NTABLE; i++)
    if (strcmp(tables[i].name, table) == 0) return 1;
  return 0;
}

int dlb_energy_precision_count(const char *table) {
  if (!known_table(table)) return -1;
  int n = 0;
  for (int i = 0; i < NENTRY; i++)
    if (strcmp(entries[i].table, table) == 0) n++;
  return n;
}

const char *dlb_energy_precision_name(const char *table, int k) {
  if (!known_table(table) || k < 0) return NULL;
  for (int i = 0; i < NENTRY; i++)
    if (strcmp(entries[i].table, table) == 0 && k-- == 0) return entries[i].precision;
  return NULL;
}

static const entry *find(const char *table, const char *precision) {
  for (int i = 0; table && precision && i < NENTRY; i++)
    if (strcmp(entries[i].table, table) == 0 && strcmp(entries[i].precision, precision) == 0)
      return &entries[i];
  return NULL;
}

/* Copies the costs into *out; the message lists what exists. */
int dlb_energy_cost_get(const char *table, const char *precision, dlb_energy_cost *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "energy: no output");
  if (!known_table(table)) {
    char names[128] = ""; /* the known tables, from the list itself */
    for (int i = 0; i < NTABLE; i++) {
      if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
      strncat(names, tables[i].name, sizeof names - strlen(names) - 1);
    }
    return dlb_fail(DLB_ENOTFOUND, "energy: unknown table '%s' (known: %s)",
                    table ? table : "(null)", names);
  }
  const entry *e = find(table, precision);
  if (!e) {
    char list[128] = "";
    for (int i = 0; i < NENTRY; i++)
      if (strcmp(entries[i].table, table) == 0) {
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, entries[i].precision, sizeof list - strlen(list) - 1);
      }
    return dlb_fail(DLB_ENOTFOUND, "energy: table '%s' has no precision '%s' (it has: %s)",
                    table, precision ? precision : "(null)", list);
  }
  *out = e->c;
  return DLB_OK;
}

const char *dlb_energy_source(const char *table, const char *precision, const char *field) {
  static const char *fields[] = { "add", "mul", "rf", "sram", "dram" };
  const entry *e = find(table, precision);
  if (!e || !field) return NULL;
  for (int i = 0; i < 5; i++)
    if (strcmp(fields[i], field) == 0) return e->src[i];
  return NULL;
}

static int bad_count(double v) { return !isfinite(v) || v < 0; }

/* compute = flops/2 x (add + mul); each level = bytes / word_bytes x its access energy. */
int dlb_energy_step(const dlb_energy_cost *c, double flops, double rf_bytes,
                    double sram_bytes, double dram_bytes, dlb_energy_split *out) {
  if (!c || !out) return dlb_fail(DLB_EINVAL, "energy.step: missing costs or output");
  const double cs[5] = { c->add, c->mul, c->rf, c->sram, c->dram };
  static const char *cn[5] = { "add", "mul", "rf", "sram", "dram" };
  for (int i = 0; i < 5; i++)
    if (bad_count(cs[i]))
      return dlb_fail(DLB_EINVAL, "energy.step: cost %s = %g pJ (must be finite and >= 0)",
                      cn[i], cs[i]);
  if (!isfinite(c->word_bytes) || c->word_bytes <= 0)
    return dlb_fail(DLB_EINVAL, "energy.step: word_bytes = %g (must be > 0)", c->word_bytes);
  const double n[4] = { flops, rf_bytes, sram_bytes, dram_bytes };
  static const char *nn[4] = { "flops", "rf_bytes", "sram_bytes", "dram_bytes" };
  for (int i = 0; i < 4; i++)
    if (bad_count(n[i]))
      return dlb_fail(DLB_EINVAL, "energy.step: %s = %g (must be finite and >= 0)", nn[i], n[i]);
  const double pj = 1e-12, w = c->word_bytes;
  out->compute = flops / 2 * (c->add + c->mul) * pj;
  out->rf = rf_bytes / w * c->rf * pj;
  out->sram = sram_bytes / w * c->sram * pj;
  out->dram = dram_bytes / w * c->dram * pj;
  out->total = out->compute + out->rf + out->sram + out->dram;
  return DLB_OK;
}
