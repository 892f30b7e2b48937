-- test_harness.lua — harness.lua's tolerances themselves (a check that cannot fail is a
-- defect): T.near is relative with no floor at 1, T.near_abs absolute; NaN and unequal
-- infinities fail both. tests/test_core.c's test_check_near checks check.h's twins.
local T = require "harness"

T.test("T.near is relative below 1", function()
  -- a 5e-5 s time off by 1e-12 s is 2e-8 relative (the old floor at 1 passed it at 1e-9)
  T.checkerr("rel 1e-09", T.near, 5e-5, 5e-5 + 1e-12, 1e-9)
  T.near(5e-5, 5e-5 * (1 + 5e-10), 1e-9)
  T.checkerr("ms", T.near, 1e-3, 1.5e-3, 1e-3, "ms")   -- a millisecond time with rel 1e-3
  T.near(1e6, 1e6 + 0.5, 1e-6)                           -- and above 1, as before
  T.checkerr("near", T.near, 1e6, 1e6 + 2, 1e-6)
  T.checkerr("near", T.near, 1, 1 + 1e-11)               -- the default: 1e-12
end)

T.test("T.near: 0, NaN, infinities", function()
  T.near(0, 0, 0); T.near(-0.0, 0, 1e-12)                -- both 0: equal
  T.checkerr("near", T.near, 0, 1e-300, 1e-9)            -- relative to 0: exact
  T.checkerr("near", T.near, 0 / 0, 0 / 0, 1)
  T.checkerr("near", T.near, 1, 0 / 0, 1)
  T.near(math.huge, math.huge, 0)
  T.checkerr("near", T.near, math.huge, -math.huge, 1)
  T.checkerr("near", T.near, math.huge, 1e300, 0.5)
  T.checkerr("near", T.near, -1e308, 1e308, 2)           -- the difference overflows
end)

T.test("T.near_abs is absolute", function()
  T.near_abs(0, 1e-13, 1e-12)
  T.checkerr("abs 1e-12", T.near_abs, 0, 2e-12, 1e-12)
  T.near_abs(0.0049, 0.004874, 5e-5)
  T.checkerr("near_abs", T.near_abs, 0 / 0, 0, 1)
  T.near_abs(math.huge, math.huge, 0)
  T.checkerr("near_abs", T.near_abs, math.huge, 0, 1e300)
  T.checkerr("the absolute tolerance is required", T.near_abs, 1, 1)
end)

T.done()
