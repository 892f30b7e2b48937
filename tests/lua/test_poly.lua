-- test_poly.lua — dlb.poly under both backends: parse, print, arithmetic, evaluation,
-- partial binding, errors.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.poly

T.test("print and parse", function()
  -- Hestness et al. (seeds/000 §4.2): LSTM LM forward FLOPs q(16h^2 l + 2hv)
  T.eq(tostring(P("q*(16*h^2*l + 2*h*v)")), "16*h^2*l*q + 2*h*q*v")
  T.eq(tostring(P(784)), "784")
  T.eq(tostring(P("4*h") * "b" + 3), "4*b*h + 3")
  T.eq(tostring(-P("a") + 2 * P("a")), "a")
  T.eq(tostring((P("b") + 1) ^ 2), "b^2 + 2*b + 1")
  T.eq(tostring(P("h") / 4), "0.25*h")
  T.eq(P("2*h") == P("h+h"), true)
  T.eq(P("2*h") == P("h"), false)
end)

T.test("evaluate", function()
  local p = P("16*h^2*l*q + 2*h*q*v")
  T.eq(p{h = 2048, l = 2, q = 80, v = 10000}, 80 * (16 * 2048 * 2048 * 2 + 2 * 2048 * 10000))
  local part = p{h = 2048, l = 2}
  T.eq(tostring(part), "4096*q*v + 134217728*q")
  T.eq(part{q = 1, v = 1}, 4096 + 134217728)
  T.eq(p:eval{h = 1, l = 1, q = 1, v = 1}, 18)
  T.checkerr("no value for q, v", function() return p:eval{h = 1, l = 1} end)
  T.checkerr("must be a number", function() return p{h = "x", l = 1, q = 1, v = 1} end)
  T.eq(P(7):number(), 7)
  T.eq(p:number(), nil)
  T.eq(table.concat(p:vars(), ","), "h,l,q,v")
  T.eq(p:degree(), 4)
  T.eq(#p:terms(), 2)
end)

T.test("errors", function()
  T.checkerr("at the end of \"4*h+\"", P, "4*h+")
  T.checkerr("division", P, "x/y")
  T.checkerr("division only by a nonzero number", function() return P("x") / P("y") end)
  T.checkerr("a number, a string or a poly expected", function() return P("x") + {} end)
end)

T.done()
