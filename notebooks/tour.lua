-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/.
local dlb = require "dlbench"

print(string.format("dlbench %s on %s, backend %s", dlb.version(), _VERSION, dlb.backend))
print()

-- == section: graphs ==
-- == end: graphs ==

-- == section: models ==
-- == end: models ==

-- == section: hw ==
-- == end: hw ==

-- == section: plots ==
-- == end: plots ==

-- == section: sweeps ==
-- == end: sweeps ==

-- == section: scaling ==
do
  print("== scaling laws (Hestness et al. PPoPP'19; Hoffmann et al. 2022)")
  local S = dlb.scaling
  -- a learning curve from (training set size, error) measurements
  local sizes, errors = {}, {}
  for i = 1, 10 do
    sizes[i] = 1e5 * 2 ^ i
    errors[i] = 4 * sizes[i] ^ -0.3 + 0.02
  end
  local lc = S.fit(sizes, errors, { form = "power+const" })
  print(tostring(lc))
  print(string.format("data for 3%% error: %.3g samples", lc:data_for(0.03)))
  -- Table 1 of the paper: data and model scale to reach the desired word LM perplexity
  local w = S.project(S.domains.word_lm, { device = S.table4_device })
  print(string.format("word LM to %.2f nat/word: %.0fx data, %.1fx model (paper 100x, 23x), "
    .. "%.0f TFLOP/step, %.0f s/step on the Table 4 accelerator", w.target, w.data_scale,
    w.model_scale, w.flops / 1e12, w.step_time))
  local o = S.compute_optimal(S.chinchilla, 5.76e23)
  print(string.format("Chinchilla law at 5.76e23 FLOPs: N = %.3g params, D = %.3g tokens", o.N, o.D))
  print()
end
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
