/*
** lscaling.c — Lua 5.4 binding of the scaling area of libdlbench (added to `dlbench.core`):
** learning-curve fits, evaluation, inversion, bootstrap, linear least squares, the Table 2
** cost fits and the joint loss law. lua/dlbench/ffi_scaling.lua mirrors it for LuaJIT; the
** user API is lua/dlbench/scaling.lua.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Read the array of numbers at argument i into a buffer owned by a userdata left on the
** stack (so it is collected even when an error is raised); *n receives its length. With
** optional set, a nil argument gives NULL. */
static double *checkarray(lua_State *L, int i, const char *what, int *n, int optional) {
  if (optional && lua_isnoneornil(L, i)) {
    *n = -1;
    return NULL;
  }
  size_t len;
  double *v = dlbL_checknumbers(L, i, &len, what);
  *n = (int)len;
  return v;
}

static void samelen(lua_State *L, const char *a, int na, const char *b, int nb) {
  if (nb >= 0 && na != nb) luaL_error(L, "%s has %d values but %s has %d", b, nb, a, na);
}


/* -- core.scaling_fit(form, xs, ys[, ws]) -> {params=, se=, np=, n=, rss=, r2=, iterations=} */
static int scaling_fit(lua_State *L) {
  int form = (int)luaL_checkinteger(L, 1), nx, ny, nw;
  double *x = checkarray(L, 2, "xs", &nx, 0);
  double *y = checkarray(L, 3, "ys", &ny, 0);
  double *w = checkarray(L, 4, "weights", &nw, 1);
  samelen(L, "xs", nx, "ys", ny);
  samelen(L, "xs", nx, "weights", nw);
  dlb_scaling_fit f;
  dlbL_check(L, dlb_scaling_fit_curve(form, nx, x, y, w, &f));
  lua_createtable(L, 0, 7);
  dlbL_pushnumbers(L, f.params, (size_t)(f.np));
  lua_setfield(L, -2, "params");
  dlbL_pushnumbers(L, f.se, (size_t)(f.np));
  lua_setfield(L, -2, "se");
  dlbL_setnumber(L, "np", f.np);
  dlbL_setnumber(L, "n", f.n);
  dlbL_setnumber(L, "rss", f.rss);
  dlbL_setnumber(L, "r2", f.r2);
  dlbL_setnumber(L, "iterations", f.iterations);
  return 1;
}

/* The parameter array at argument i, which must hold exactly what `form` takes. */
static double *checkformparams(lua_State *L, int form, int i) {
  int np;
  double *q = checkarray(L, i, "params", &np, 0);
  int need = dlb_scaling_form_params(form);
  if (need < 0) dlbL_error(L);
  if (np != need) luaL_error(L, "params has %d values, the form needs %d", np, need);
  return q;
}

/* -- core.scaling_eval(form, params, x) -> y */
static int scaling_eval(lua_State *L) {
  int form = (int)luaL_checkinteger(L, 1);
  double *q = checkformparams(L, form, 2);
  double x = luaL_checknumber(L, 3), y;
  dlbL_check(L, dlb_scaling_eval(form, q, x, &y));
  lua_pushnumber(L, y);
  return 1;
}

/* -- core.scaling_invert(form, params, y) -> x */
static int scaling_invert(lua_State *L) {
  int form = (int)luaL_checkinteger(L, 1);
  double *q = checkformparams(L, form, 2);
  double y = luaL_checknumber(L, 3), x;
  dlbL_check(L, dlb_scaling_invert(form, q, y, &x));
  lua_pushnumber(L, x);
  return 1;
}

/* -- core.scaling_bootstrap(form, xs, ys, ws|nil, reps, seed) -> {se=, lo=, hi=, used=,
**    samples=} (samples: used x np parameters, resample by resample) */
static int scaling_bootstrap(lua_State *L) {
  int form = (int)luaL_checkinteger(L, 1), nx, ny, nw;
  double *x = checkarray(L, 2, "xs", &nx, 0);
  double *y = checkarray(L, 3, "ys", &ny, 0);
  double *w = checkarray(L, 4, "weights", &nw, 1);
  int reps = (int)luaL_checkinteger(L, 5);
  double seed = luaL_optnumber(L, 6, 1);
  samelen(L, "xs", nx, "ys", ny);
  samelen(L, "xs", nx, "weights", nw);
  int np = dlb_scaling_form_params(form), used = 0;
  if (np < 0) return dlbL_error(L);
  double se[5], lo[5], hi[5];
  luaL_argcheck(L, reps >= 2 && reps <= 1000000, 5, "2 to 1000000 resamples");
  double *samples = lua_newuserdatauv(L, sizeof(double) * (size_t)reps * (size_t)np, 0);
  dlbL_check(L, dlb_scaling_bootstrap_samples(form, nx, x, y, w, reps, seed, samples, &used));
  dlbL_check(L, dlb_scaling_bootstrap_stats(np, used, samples, se, lo, hi));
  lua_createtable(L, 0, 5);
  dlbL_pushnumbers(L, samples, (size_t)used * (size_t)np);
  lua_setfield(L, -2, "samples");
  dlbL_pushnumbers(L, se, (size_t)(np));
  lua_setfield(L, -2, "se");
  dlbL_pushnumbers(L, lo, (size_t)(np));
  lua_setfield(L, -2, "lo");
  dlbL_pushnumbers(L, hi, (size_t)(np));
  lua_setfield(L, -2, "hi");
  dlbL_setnumber(L, "used", used);
  return 1;
}

/* -- core.scaling_linfit(X, k, y[, w]) -> {coef=, se=, r2=}; X row-major, #X = k * #y */
static int scaling_linfit(lua_State *L) {
  int nX, ny, nw;
  double *X = checkarray(L, 1, "X", &nX, 0);
  int k = (int)luaL_checkinteger(L, 2);
  double *y = checkarray(L, 3, "y", &ny, 0);
  double *w = checkarray(L, 4, "weights", &nw, 1);
  luaL_argcheck(L, k >= 1 && k <= 8, 2, "between 1 and 8 columns");
  if (nX != k * ny) return luaL_error(L, "X has %d values, expected %d columns x %d rows",
                                      nX, k, ny);
  samelen(L, "y", ny, "weights", nw);
  double c[8], se[8], r2;
  dlbL_check(L, dlb_scaling_linfit(ny, k, X, y, w, c, se, &r2));
  lua_createtable(L, 0, 3);
  dlbL_pushnumbers(L, c, (size_t)(k));
  lua_setfield(L, -2, "coef");
  dlbL_pushnumbers(L, se, (size_t)(k));
  lua_setfield(L, -2, "se");
  dlbL_setnumber(L, "r2", r2);
  return 1;
}

/* -- core.scaling_fit_costs(p, b, flops|nil, bytes|nil, footprint|nil) -> table of the
** dlb_cost_fit fields */
static int scaling_fit_costs(lua_State *L) {
  int np, nb, nf, nby, nfo;
  double *p = checkarray(L, 1, "params", &np, 0);
  double *b = checkarray(L, 2, "batch", &nb, 0);
  double *f = checkarray(L, 3, "flops", &nf, 1);
  double *by = checkarray(L, 4, "bytes", &nby, 1);
  double *fo = checkarray(L, 5, "footprint", &nfo, 1);
  samelen(L, "params", np, "batch", nb);
  samelen(L, "params", np, "flops", nf);
  samelen(L, "params", np, "bytes", nby);
  samelen(L, "params", np, "footprint", nfo);
  dlb_cost_fit c;
  dlbL_check(L, dlb_scaling_fit_costs(np, p, b, f, by, fo, &c));
  lua_createtable(L, 0, 11);
  dlbL_setnumber(L, "gamma", c.gamma_c);
  dlbL_setnumber(L, "gamma_se", c.gamma_se);
  dlbL_setnumber(L, "gamma_r2", c.gamma_r2);
  dlbL_setnumber(L, "lambda", c.lambda);
  dlbL_setnumber(L, "lambda_se", c.lambda_se);
  dlbL_setnumber(L, "mu", c.mu);
  dlbL_setnumber(L, "mu_se", c.mu_se);
  dlbL_setnumber(L, "bytes_r2", c.bytes_r2);
  dlbL_setnumber(L, "delta", c.delta);
  dlbL_setnumber(L, "delta_se", c.delta_se);
  dlbL_setnumber(L, "footprint_r2", c.footprint_r2);
  return 1;
}

/* -- core.scaling_fit_joint(N, D, L, huber_delta) -> {E=, A=, B=, alpha=, beta=, se=, ...} */
static int scaling_fit_joint(lua_State *L) {
  int nN, nD, nL;
  double *N = checkarray(L, 1, "N", &nN, 0);
  double *D = checkarray(L, 2, "D", &nD, 0);
  double *Lo = checkarray(L, 3, "L", &nL, 0);
  double huber = luaL_optnumber(L, 4, 0);
  samelen(L, "N", nN, "D", nD);
  samelen(L, "N", nN, "L", nL);
  dlb_joint_fit f;
  dlbL_check(L, dlb_scaling_fit_joint(nN, N, D, Lo, huber, &f));
  lua_createtable(L, 0, 10);
  dlbL_setnumber(L, "E", f.E);
  dlbL_setnumber(L, "A", f.A);
  dlbL_setnumber(L, "B", f.B);
  dlbL_setnumber(L, "alpha", f.alpha);
  dlbL_setnumber(L, "beta", f.beta);
  dlbL_pushnumbers(L, f.se, (size_t)(5));
  lua_setfield(L, -2, "se");
  dlbL_setnumber(L, "rss", f.rss);
  dlbL_setnumber(L, "r2", f.r2);
  dlbL_setnumber(L, "n", f.n);
  dlbL_setnumber(L, "iterations", f.iterations);
  return 1;
}

/* -- core.scaling_compute_optimal(E, A, B, alpha, beta, C, k) -> {N=, D=, loss=, a=, b=} */
static int scaling_compute_optimal(lua_State *L) {
  double v[7], N, D, loss, a, b;
  for (int i = 0; i < 7; i++) v[i] = luaL_checknumber(L, i + 1);
  dlbL_check(L, dlb_scaling_compute_optimal(v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                                            &N, &D, &loss, &a, &b));
  lua_createtable(L, 0, 5);
  dlbL_setnumber(L, "N", N);
  dlbL_setnumber(L, "D", D);
  dlbL_setnumber(L, "loss", loss);
  dlbL_setnumber(L, "a", a);
  dlbL_setnumber(L, "b", b);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"scaling_fit", scaling_fit},
  {"scaling_eval", scaling_eval},
  {"scaling_invert", scaling_invert},
  {"scaling_bootstrap", scaling_bootstrap},
  {"scaling_linfit", scaling_linfit},
  {"scaling_fit_costs", scaling_fit_costs},
  {"scaling_fit_joint", scaling_fit_joint},
  {"scaling_compute_optimal", scaling_compute_optimal},
  {NULL, NULL}
};

/* Add the scaling functions to the backend table on top of the stack. */
int dlbL_open_scaling(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
