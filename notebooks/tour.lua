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
-- Hardware catalogue and roofline: a device's ridge point, a step's time on a few devices,
-- and Hestness et al.'s subbatch choice for their projected word LM (Table 2 costs).
do
  local t4 = dlb.hw.get("Hestness-T4")
  print(string.format("hw: %d devices in the catalogue (dlb.hw.list() prints them)", #dlb.hw.names()))
  print(string.format("Hestness Table 4 device: ridge %.1f FLOP/B at peak, %.1f at 80%%/70%%",
    t4:ridge("fp32"), t4:ridge("fp32", true)))
  local s = dlb.roofline.hestness("word_lm", 23.8e9, 128) -- Table 3's word LM step
  for _, name in ipairs { "Hestness-T4", "V100-SXM2-16GB", "A100-SXM4-80GB", "H100-SXM" } do
    local r = dlb.roofline.time(s, name)
    print(string.format("  word LM step (23.8B params, b=128, fp32) on %-15s %7.1f s  %s-bound, "
      .. "util %3.0f%%, footprint %s", name, r.time, r.bound, 100 * r.util,
      r.fits and "fits" or string.format("short by %.0f GB", r.shortfall / 1e9)))
  end
  local sb = dlb.roofline.subbatch(function(b) return dlb.roofline.hestness("word_lm", 23.8e9, b) end, t4)
  print(string.format("  subbatch points: intensity saturates at b=%d, reaches the ridge at b=%d, "
    .. "best time per sample from b=%d", sb.saturation, sb.ridge, sb.best))
  print()
end
-- == end: hw ==

-- == section: plots ==
-- == end: plots ==

-- == section: sweeps ==
-- == end: sweeps ==

-- == section: scaling ==
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
