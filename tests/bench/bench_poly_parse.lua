-- bench_poly_parse.lua — parsing a big polynomial's text (issue 18 item 9): the sum of
-- (a+b+...+l)^6's 12,376 terms (C(17,6), the monomials of degree 6 in 12 variables, each
-- with its multinomial coefficient) printed and parsed back, and (a+...+p)^15 refused.
--   dlbench run tests/bench/bench_poly_parse.lua
local dlb = require "dlbench"
local now = require("dlbench.backend").sys_now
local p = dlb.poly("(a+b+c+d+e+f+g+h+i+j+k+l)^6")
local s = tostring(p)
local best = math.huge
for _ = 1, 5 do
  local t0 = now()
  local q = dlb.poly(s)
  local dt = now() - t0
  assert(q == p)
  if dt < best then best = dt end
end
print(string.format("reparse %d terms (%d bytes of text): %.1f ms (best of 5)", #p:terms(), #s, best * 1e3))
local t0 = now()
local ok, err = pcall(dlb.poly, "(a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p)^15")
print(string.format("(a+...+p)^15 refused in %.1f ms: %s", (now() - t0) * 1e3, tostring(err):sub(1, 60)))
