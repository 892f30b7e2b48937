/*
** test_energy.c — the energy tables of graphs/hw/energy.c against their sources (seed 002's EIE
** Table I = Horowitz ISSCC 2014; seed 003's Pedram et al. table) and the step energy split,
** recomputed by hand.
*/
#include <math.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

/* EIE Table I (45 nm): 32 bit float ADD 0.9, MULT 3.7, 32 KB SRAM 5, DRAM 640 pJ. */
static void table_45nm(void) {
  dlb_energy_cost c;
  CHECK(dlb_energy_cost_get("45nm", "fp32", &c) == DLB_OK);
  CHECK(c.add == 0.9 && c.mul == 3.7 && c.sram == 5 && c.dram == 640 && c.word_bytes == 4);
  CHECK(dlb_energy_cost_get("45nm", "int32", &c) == DLB_OK);
  CHECK(c.add == 0.1 && c.mul == 3.1);
  const char *s = dlb_energy_source("45nm", "fp32", "dram");
  CHECK(s && strstr(s, "640"));
  CHECK(dlb_energy_source("45nm", "fp32", "nope") == NULL);
  CHECK(dlb_energy_source("45nm", "fp8", "add") == NULL);
  CHECK(dlb_energy_table_count() == 2);
  CHECK(strcmp(dlb_energy_table_name(0), "45nm") == 0 && dlb_energy_table_name(2) == NULL);
  CHECK(dlb_energy_precision_count("45nm") == 5 && dlb_energy_precision_count("x") == -1);
  CHECK(strcmp(dlb_energy_precision_name("45nm-pedram", 1), "fp64") == 0);
  CHECK(dlb_energy_precision_name("45nm-pedram", 2) == NULL);
}

/* Seed 003: 16-bit DRAM 640 / ADD 0.18 = 3556x; 64-bit 2560 / 5 = 512x. */
static void table_pedram(void) {
  dlb_energy_cost c;
  CHECK(dlb_energy_cost_get("45nm-pedram", "int16", &c) == DLB_OK);
  CHECK_NEAR(c.dram / c.add, 3556, 1e-3);
  CHECK(dlb_energy_cost_get("45nm-pedram", "fp64", &c) == DLB_OK);
  CHECK_NEAR(c.dram / c.add, 512, 1e-12);
}

/* 2e12 FLOPs: 1e12 FMAs x 4.6 pJ = 4.6 J; 4e9 DRAM bytes = 1e9 words x 640 pJ = 0.64 J;
** 8e9 SRAM bytes = 2e9 words x 5 pJ = 0.01 J; 12e12 RF bytes = 3e12 words x 0.293 pJ =
** 0.879 J. */
static void step_split(void) {
  dlb_energy_cost c;
  dlb_energy_split s;
  CHECK(dlb_energy_cost_get("45nm", "fp32", &c) == DLB_OK);
  CHECK(dlb_energy_step(&c, 2e12, 12e12, 8e9, 4e9, &s) == DLB_OK);
  CHECK_NEAR(s.compute, 4.6, 1e-12);
  CHECK_NEAR(s.dram, 0.64, 1e-12);
  CHECK_NEAR(s.sram, 0.01, 1e-12);
  CHECK_NEAR(s.rf, 0.879, 1e-12);
  CHECK_NEAR(s.total, 4.6 + 0.64 + 0.01 + 0.879, 1e-12);
}

static void bad_input(void) {
  dlb_energy_cost c;
  dlb_energy_split s;
  CHECK(dlb_energy_cost_get("nope", "fp32", &c) == DLB_ENOTFOUND);
  CHECK(strstr(dlb_last_error(), "unknown table 'nope'"));
  CHECK(dlb_energy_cost_get("45nm", "fp8", &c) == DLB_ENOTFOUND);
  CHECK(strstr(dlb_last_error(), "it has: fp32, int32, fp16, bf16, int8"));
  CHECK(dlb_energy_cost_get(NULL, NULL, &c) == DLB_ENOTFOUND);
  CHECK(dlb_energy_cost_get("45nm", "fp32", NULL) == DLB_EINVAL);
  CHECK(dlb_energy_cost_get("45nm", "fp32", &c) == DLB_OK);
  CHECK(dlb_energy_step(&c, -1, 0, 0, 0, &s) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "flops"));
  CHECK(dlb_energy_step(&c, 1, 0, NAN, 0, &s) == DLB_EINVAL);
  CHECK(dlb_energy_step(&c, 1, 0, 0, INFINITY, &s) == DLB_EINVAL);
  c.word_bytes = 0;
  CHECK(dlb_energy_step(&c, 1, 0, 0, 0, &s) == DLB_EINVAL);
  c.word_bytes = 4; c.dram = -1;
  CHECK(dlb_energy_step(&c, 1, 0, 0, 0, &s) == DLB_EINVAL);
  CHECK(dlb_energy_step(NULL, 1, 0, 0, 0, &s) == DLB_EINVAL);
}

int main(void) {
  RUN(table_45nm);
  RUN(table_pedram);
  RUN(step_split);
  RUN(bad_input);
  return check_done();
}
