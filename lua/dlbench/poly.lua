-- dlbench.poly — polynomials over named hyperparameters: symbolic dims and costs.
--   local p = dlb.poly("4*h") * "b" + 3     -- arithmetic with numbers, strings, polys
--   tostring(p)  --> "4*b*h + 3";  p{b=2, h=8} --> 67;  p{h=8} --> poly "32*b + 3"
-- The heavy lifting is in C (graphs/ir/poly.c); this wraps the backend handles.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"

local M = {}
local Poly = {}
Poly.__index = Poly
M.Poly = Poly

local function wrap(h) return setmetatable({ _h = h }, Poly) end
M.wrap = wrap
doc.doc(wrap, "dlb.poly.wrap(handle) -> poly", "a poly object around a backend poly handle")

local function is(x) return getmetatable(x) == Poly end
M.is = is
doc.doc(is, "dlb.poly.is(x) -> boolean", "whether x is a poly object")

-- A poly handle from a number, a string or a Poly.
local function handle(x, what)
  local t = type(x)
  if t == "number" then return core.poly_number(x) end
  if t == "string" then
    -- C would stop at a NUL byte: "h\0x" must not read as h
    if x:find("\0", 1, true) then error((what or "poly") .. ": a NUL byte in \"" .. x:gsub("%z", "\\0") .. "\"", 3) end
    return core.poly_parse(x)
  end
  if is(x) then return x._h end
  error((what or "poly") .. ": a number, a string or a poly expected, got " .. t, 3)
end

function M.new(x)
  if is(x) then return x end
  return wrap(handle(x, "dlb.poly"))
end
doc.doc(M.new, "dlb.poly(x) -> poly",
  "a polynomial from text (\"4*h\", \"2*(b+1)^2\", \"h/2\") or a number; arithmetic with + - * / ^")

-- The variable names, alphabetical (a shared table: do not modify).
function Poly:vars()
  local v = self._vars
  if not v then v = core.poly_vars(self._h); self._vars = v end
  return v
end

-- Substitute the values in b (a table name -> number); returns a poly.
function Poly:bind(b)
  local names, values = {}, {}
  for k, v in pairs(b) do
    if type(k) == "string" and type(v) == "number" then
      names[#names + 1] = k; values[#values + 1] = v
    end
  end
  return wrap(core.poly_bind(self._h, names, values))
end

-- Evaluate with every variable bound (an error names the unbound ones).
function Poly:eval(b)
  b = b or {}
  local vars = self:vars()
  local vals = self._vals
  if not vals then vals = {}; self._vals = vals end
  local missing
  for i = 1, #vars do
    local v = b[vars[i]]
    if type(v) ~= "number" then
      if v ~= nil then error("poly: value of " .. vars[i] .. " must be a number, got " .. type(v), 2) end
      missing = missing and (missing .. ", " .. vars[i]) or vars[i]
    end
    vals[i] = v
  end
  if missing then error("poly " .. tostring(self) .. ": no value for " .. missing, 2) end
  return core.poly_evalv(self._h, vals)
end

-- p{...}: a number when every variable is bound, else the partly bound poly.
local evalt = core.poly_evalt
function Poly.__call(self, b)
  b = b or {}
  if type(b) ~= "table" then
    error("poly " .. tostring(self) .. ": call it with a table of bindings, p{h = 5} (a number "
      .. "or the partly bound poly), or use p:eval{h = 5} (every variable bound); got p("
      .. type(b) .. ")", 2)
  end
  local v = evalt(self._h, b)
  if v == nil then return self:bind(b) end
  return v
end

-- The value when the poly has no variables, else nil.
function Poly:number() return core.poly_number_value(self._h) end
function Poly:degree() return core.poly_degree(self._h) end
-- {{coef, {exponent per var in :vars() order}}, ...}
function Poly:terms() return core.poly_terms(self._h) end

function Poly.__tostring(self) return core.poly_tostring(self._h) end
function Poly.__add(a, b) return wrap(core.poly_add(handle(a), handle(b))) end
function Poly.__sub(a, b) return wrap(core.poly_sub(handle(a), handle(b))) end
function Poly.__mul(a, b) return wrap(core.poly_mul(handle(a), handle(b))) end
function Poly.__unm(a) return wrap(core.poly_scale(a._h, -1)) end
function Poly.__div(a, b)
  if type(b) ~= "number" or b == 0 then
    if is(b) and b:number() and b:number() ~= 0 then b = b:number()
    else error("poly: division only by a nonzero number", 2) end
  end
  return wrap(core.poly_scale(handle(a), 1 / b))
end
function Poly.__pow(a, n)
  if type(n) ~= "number" or n ~= math.floor(n) or n < 0 then
    error("poly: power must be a non-negative integer", 2)
  end
  return wrap(core.poly_pow(handle(a), n))
end
function Poly.__eq(a, b)
  if not (is(a) and is(b)) then return false end
  return core.poly_equal(a._h, b._h)
end

doc.doc(Poly.eval, "p:eval{name=value, ...} -> number", "evaluate; errors name unbound variables")
doc.doc(Poly.bind, "p:bind{name=value, ...} -> poly", "substitute some variables")
doc.doc(Poly.vars, "p:vars() -> {names}", "the variables, alphabetical")
doc.doc(Poly.number, "p:number() -> number or nil", "the value of a constant polynomial")
doc.doc(Poly.terms, "p:terms() -> {{coef, {exps}}, ...}", "the terms (exponents in p:vars() order)")
doc.doc(Poly.degree, "p:degree() -> integer", "the total degree")

setmetatable(M, { __call = function(_, x) return M.new(x) end })
doc.doc(M, "dlb.poly", "polynomials over named hyperparameters: dlb.poly(\"4*h\"), p{h=2}, tostring(p)")
-- p.eval{} (a dot for a colon) names the mistake instead of failing inside
require("dlbench.errors").guard_methods(Poly, "p:", is)
doc.methods(M, Poly, "p")
return M
