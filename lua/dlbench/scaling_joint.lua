-- dlbench.scaling_joint — the joint loss law L(N, D) = E + A/N^alpha + B/D^beta of Hoffmann
-- et al. 2022 ("Chinchilla"): dlb.scaling.law, fit_joint, k_from_stats, compute_optimal and
-- the paper's eq. 10 fit (dlb.scaling.chinchilla). Installed into dlb.scaling by
-- lua/dlbench/scaling.lua, whose checks it shares (split from it in review 20, at 900
-- lines). docs/scaling.md, "The joint law".
local core = require "dlbench.backend"
local doc = require "dlbench.doc"

local J = {}

-- M: dlb.scaling; H: its checks {positive=, finite=, check_opts=, raise=, getrow=, nrows=}.
-- Returns the law's class table (for doc.methods).
function J.install(M, H)
  local positive, finite, check_opts, raise = H.positive, H.finite, H.check_opts, H.raise
  local getrow, nrows = H.getrow, H.nrows
  -- A joint loss law L(N, D) = E + A/N^alpha + B/D^beta.
  local Law = {}
  Law.__index = Law

  function Law:loss(N, D)
    -- N <= 0 or D <= 0 gave inf or NaN as a loss without a word
    positive(N, "N (parameters)", "law:loss")
    positive(D, "D (tokens)", "law:loss")
    return self.E + self.A / N ^ self.alpha + self.B / D ^ self.beta
  end
  doc.doc(Law.loss, "law:loss(N, D) -> L", "the joint law's loss at N parameters, D tokens")

  function Law:compute_optimal(C, opts)
    return M.compute_optimal(self, C, opts)
  end
  doc.doc(Law.compute_optimal, "law:compute_optimal(C[, {k=, stats=, tokens=}]) -> table",
    "see dlb.scaling.compute_optimal")

  -- dlb.scaling.law{E=, A=, B=, alpha=, beta=}
  function M.law(t)
    local fname = "dlb.scaling.law"
    if type(t) ~= "table" then error(fname .. ": expects {E=, A=, B=, alpha=, beta=}", 2) end
    for _, k in ipairs { "E", "A", "B", "alpha", "beta" } do
      if type(t[k]) ~= "number" then error(fname .. ": " .. k .. " must be a number", 2) end
    end
    local l = setmetatable({}, Law)
    for k, v in pairs(t) do l[k] = v end
    return l
  end
  doc.doc(M.law, "dlb.scaling.law{E=, A=, B=, alpha=, beta=} -> law",
    "a joint loss law L(N, D) = E + A/N^alpha + B/D^beta with :loss and :compute_optimal")

  -- Hoffmann et al. 2022 eq. 10, their fitted law.
  M.chinchilla = M.law { E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28,
    source = "Hoffmann et al. 2022, 'Training Compute-Optimal Large Language Models', eq. 10" }

  -- dlb.scaling.fit_joint(runs[, opts])
  function M.fit_joint(runs, opts)
    local fname = "dlb.scaling.fit_joint"
    opts = check_opts(opts, { huber = true }, fname)
    if type(runs) ~= "table" then error(fname .. ": runs must be a list of {N=, D=, L=}", 2) end
    local N, D, L = {}, {}, {}
    if type(runs.N) == "table" then
      N, D, L = runs.N, runs.D, runs.L
      if type(D) ~= "table" or type(L) ~= "table" then
        error(fname .. ": columns N=, D= and L= must all be lists", 2)
      end
    else
      for i = 1, nrows(runs) do
        local r = getrow(runs, i)
        if type(r) ~= "table" then error(fname .. ": run " .. i .. " is not a table", 2) end
        N[i] = r.N or r.params
        D[i] = r.D or r.tokens
        L[i] = r.L or r.loss
        if type(N[i]) ~= "number" or type(D[i]) ~= "number" or type(L[i]) ~= "number" then
          error(string.format("%s: run %d needs numbers N (params), D (tokens), L (loss)",
            fname, i), 2)
        end
      end
    end
    local huber = opts.huber
    if huber == nil then huber = 1e-3 end
    if huber == false then huber = 0 end
    if type(huber) ~= "number" or huber ~= huber or huber < 0 or huber == math.huge then
      raise(string.format("%s: huber must be false or a finite number >= 0 (0: least squares), "
        .. "got %s", fname, type(huber) == "number" and (huber ~= huber and "nan" or tostring(huber))
        or tostring(huber)))
    end
    local okf, r = pcall(core.scaling_fit_joint, N, D, L, huber)
    if not okf then raise(fname .. ": " .. require("dlbench.errors").strip(r)) end
    local law = M.law { E = r.E, A = r.A, B = r.B, alpha = r.alpha, beta = r.beta }
    law.se = { E = r.se[1], A = r.se[2], B = r.se[3], alpha = r.se[4], beta = r.se[5] }
    law.r2, law.rss, law.n, law.iterations = r.r2, r.rss, r.n, r.iterations
    law.huber = huber
    law.a = law.beta / (law.alpha + law.beta)
    law.b = law.alpha / (law.alpha + law.beta)
    return law
  end
  doc.doc(M.fit_joint, "dlb.scaling.fit_joint(runs[, {huber=1e-3}]) -> law",
    "fit L(N, D) = E + A/N^alpha + B/D^beta (Hoffmann et al. 2022) to runs {N=, D=, L=} (or "
    .. "params=, tokens=, loss=; or columns {N={}, D={}, L={}}), in log space like the paper: "
    .. "Huber loss with delta huber (false or 0: least squares), Levenberg-Marquardt from a "
    .. "grid of starts; law.E, .A, .B, .alpha, .beta, .se, .r2 (log L), .a, .b exponents")

  -- dlb.scaling.k_from_stats(stats, tokens)
  function M.k_from_stats(stats, tokens)
    local fname = "dlb.scaling.k_from_stats"
    if type(stats) ~= "table" then error(fname .. ": stats must be {flops=, params=}", 2) end
    local f, p = tonumber(stats.flops), tonumber(stats.params)
    if not f or not p then
      error(fname .. ": stats.flops and stats.params must be numbers (bind every dim)", 2)
    end
    positive(tokens, "tokens (per training step)", fname)
    positive(p, "stats.params", fname)
    return f / (p * tokens)
  end
  doc.doc(M.k_from_stats, "dlb.scaling.k_from_stats(stats, tokens) -> k",
    "training FLOPs per token per parameter of a step: stats.flops / (stats.params * tokens) "
    .. "(about 6 for a dense transformer), for compute_optimal's C = k*N*D")

  -- dlb.scaling.compute_optimal(law, C[, opts])
  function M.compute_optimal(law, C, opts)
    local fname = "dlb.scaling.compute_optimal"
    opts = check_opts(opts, { k = true, stats = true, tokens = true }, fname)
    if type(law) ~= "table" then error(fname .. ": law must be a dlb.scaling.law", 2) end
    -- a law made by hand, checked by name (review 20: {E=, A=} without B said "bad argument
    -- #3 to 'scaling_compute_optimal' (number expected, got nil)")
    for _, f in ipairs { "E", "A", "B", "alpha", "beta" } do finite(law[f], "law." .. f, fname) end
    local k = opts.k or 6
    if opts.stats then
      if opts.k then error(fname .. ": give k= or stats=, not both", 2) end
      k = M.k_from_stats(opts.stats, opts.tokens)
    end
    positive(C, "C (FLOPs)", fname)
    positive(k, "k (FLOPs per parameter per token)", fname)
    local okc, r = pcall(core.scaling_compute_optimal, law.E, law.A, law.B, law.alpha, law.beta, C, k)
    if not okc then raise(fname .. ": " .. require("dlbench.errors").strip(r)) end
    r.C, r.k = C, k
    return r
  end
  doc.doc(M.compute_optimal, "dlb.scaling.compute_optimal(law, C[, {k=6 | stats=, tokens=}]) "
    .. "-> {N=, D=, loss=, a=, b=, k=}",
    "compute-optimal parameters N and tokens D for a budget of C FLOPs with C = k*N*D "
    .. "(Hoffmann et al. 2022 eq. 4): N = G*(C/k)^a, D = (C/k)^b/G, a = beta/(alpha+beta), "
    .. "b = alpha/(alpha+beta); k from a graph's stats with stats= and tokens= per step")

  return Law
end

return J
