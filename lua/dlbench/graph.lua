-- dlbench.graph — compute graphs: build a model's forward graph from explicit tensors and
-- ops, then count what a training step costs (FLOPs, bytes, footprint) under bindings.
--   local g = dlb.graph("mlp")
--   local x = g:input("x", {"b", 784})
--   local w = g:weight("w1", {784, "h"})
--   g:loss(g:softmax_xent(g:relu(g:matmul(x, w)), g:label("y", {"b"}, "int32")))
--   local s = g:stats{b=32, h=1024, optimizer="adam"}
-- The engine is C (graphs/graph*.c, op_cost.c, train.c, footprint.c, analysis*.c). This file
-- builds graphs (tensors, ops, layers); what a step costs is lua/dlbench/graph_analysis.lua.
local core = require "dlbench.backend"
local memory = require "dlbench.memory"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local poly = require "dlbench.poly"

local setmetatable, getmetatable, type, error = setmetatable, getmetatable, type, error

-- The class tables, the C enums by name, op types and small helpers, shared with
-- graph_setups.lua and graph_analysis.lua (lua/dlbench/graph_base.lua).
local base = require "dlbench.graph_base"

local M = {}
local Graph, Tensor = base.Graph, base.Tensor
M.Graph, M.Tensor = Graph, Tensor

local ROLES, ROLENAMES = base.ROLES, base.ROLENAMES
local DTYPES, DTNAMES = base.DTYPES, base.DTNAMES
local PHASES = base.PHASES
M.PHASES = PHASES
local TYPE, keys = base.TYPE, base.keys

local function tensor(g, id)
  return setmetatable({ graph = g, id = id }, Tensor)
end

local errors_ = require "dlbench.errors"

-- The slow path of an op's argument check; a wrong self first (g.add(a, b) for g:add(a, b):
-- the builders in SELF_CHECKED below carry no wrapper, see errors.guard_methods).
local function checkt(g, t, what)
  if getmetatable(g) ~= Graph then errors_.wrong_self(what, g, 3) end
  if getmetatable(t) ~= Tensor then
    error(string.format("%s: a tensor expected, got %s", what, type(t) == "table" and "table" or type(t)), 3)
  end
  if t.graph ~= g then error(what .. ": tensor of another graph", 3) end
  return t.id
end

-- dims: a list of integers, strings ("4*h") or polys; returned as is when it holds no
-- polys (the backend converts numbers). what (and name) name the caller for messages.
local function dimlist(dims, what, name)
  if type(dims) ~= "table" or getmetatable(dims) ~= nil then
    error((name and (what .. " '" .. name .. "'") or what) .. ": dims must be a list like {\"b\", 784}", 3)
  end
  local r = dims
  for i = 1, #dims do
    local d = dims[i]
    local td = type(d)
    if td ~= "number" and td ~= "string" then
      if not poly.is(d) then
        error(string.format("%s: dim %d must be a number, a string or a poly, got %s",
          name and (what .. " '" .. name .. "'") or what, i, td), 3)
      end
      if r == dims then
        r = {}
        for k = 1, #dims do r[k] = dims[k] end
      end
      r[i] = tostring(d)
    end
  end
  return r
end

function M.new(name)
  if name ~= nil and type(name) ~= "string" then error("dlb.graph(name): name must be a string", 2) end
  memory.account()
  return setmetatable({ _h = core.graph_new(name or "graph"), name = name or "graph" }, Graph)
end
doc.doc(M.new, "dlb.graph(name) -> graph", "a new compute graph; add tensors and ops, then g:stats{...}")

-- -- tensors --

local graph_tensor = core.graph_tensor

local function source(g, role, name, dims, dtype, what)
  if type(name) ~= "string" then error(what .. ": name must be a string", 3) end
  -- C would stop at a NUL byte ("h\0x" read as h)
  if name:find("\0", 1, true) then error(what .. ": a NUL byte in the name '" .. name:gsub("%z", "\\0") .. "'", 3) end
  if type(dims) == "table" then
    for i = 1, #dims do
      local d = dims[i]
      if type(d) == "string" and d:find("\0", 1, true) then
        error(what .. " '" .. name .. "': a NUL byte in dim " .. i, 3)
      end
    end
  end
  local dt = DTYPES[dtype or "default"]
  if not dt then error(what .. " '" .. name .. "': unknown dtype '" .. tostring(dtype) .. "' (" .. keys(DTYPES) .. ")", 3) end
  -- fast path: the backend takes a plain list of strings and numbers (else returns nil)
  local id = graph_tensor(g._h, name, role, dt, dims)
  if id == nil then id = graph_tensor(g._h, name, role, dt, dimlist(dims, what, name)) end
  return setmetatable({ graph = g, id = id }, Tensor)
end

function Graph:input(name, dims, dtype) return source(self, 0, name, dims, dtype, "g:input") end
function Graph:label(name, dims, dtype) return source(self, 1, name, dims, dtype or "int32", "g:label") end
function Graph:weight(name, dims, dtype)
  if dtype == nil and type(name) == "string" then -- the common case, straight to the backend
    local id = graph_tensor(self._h, name, 2, 0, dims)
    if id ~= nil then return setmetatable({ graph = self, id = id }, Tensor) end
  end
  return source(self, 2, name, dims, dtype, "g:weight")
end
function Graph:tensor(name, dims, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("g:tensor: options must be a table {role=, dtype=}", 2) end
  options.check(opts, { role = true, dtype = true }, "g:tensor")
  local r = ROLES[opts.role or "input"]
  if not r then error("g:tensor: unknown role '" .. tostring(opts.role) .. "' (" .. keys(ROLES) .. ")", 2) end
  return source(self, r, name, dims, opts.dtype, "g:tensor")
end
doc.doc(Graph.input, "g:input(name, dims[, dtype]) -> tensor", "a data input, e.g. g:input(\"x\", {\"b\", 784})")
doc.doc(Graph.label, "g:label(name, dims[, dtype]) -> tensor", "labels (int32 by default); counted in s.io")
doc.doc(Graph.weight, "g:weight(name, dims[, dtype]) -> tensor", "a trainable weight (gets a gradient and an update)")
doc.doc(Graph.tensor, "g:tensor(name, dims, {role=, dtype=}) -> tensor", "a source tensor with any role")

function Tensor:info()
  local name, dims, dt, role, prod = core.graph_tensor_info(self.graph._h, self.id)
  return { name = name, dims = dims, dtype = DTNAMES[dt], role = ROLENAMES[role], producer = prod }
end
function Tensor:name() return (core.graph_tensor_info(self.graph._h, self.id)) end
function Tensor:dims()
  local _, dims = core.graph_tensor_info(self.graph._h, self.id)
  return dims
end
-- Dim i as a poly.
function Tensor:dim(i)
  local d = self:dims()[i < 0 and #self:dims() + 1 + i or i]
  if not d then error("tensor:dim(" .. tostring(i) .. "): no such dim", 2) end
  return poly.new(d)
end
function Tensor:shape() return "[" .. table.concat(self:dims(), ", ") .. "]" end
function Tensor.__tostring(t)
  return "tensor " .. t:name() .. " " .. t:shape()
end
doc.doc(Tensor.name, "t:name() -> string", "the tensor's name (outputs: \"<op>:<i>\")")
doc.doc(Tensor.shape, "t:shape() -> string", "the dims as text, e.g. \"[b, 784]\"")
doc.doc(Tensor.info, "t:info() -> {name=, dims=, dtype=, role=, producer=}", "facts about a tensor")
doc.doc(Tensor.dims, "t:dims() -> {strings}", "the dims as text")
doc.doc(Tensor.dim, "t:dim(i) -> poly", "dim i (negative counts from the end) as a poly")

-- -- ops --

-- opts: a table (with name= and op options) or a string (the name).
local function optname(opts)
  if type(opts) == "string" then return opts, {} end
  if opts == nil then return nil, {} end
  if type(opts) ~= "table" then error("options must be a table or a name", 3) end
  return opts.name, opts
end

-- An op's options: `name` plus its own. The loop is the hot path of graph building (no
-- table made); an unknown key is reported by the library's one checker (dlbench.options).
-- The loops are not nested (LuaJIT #827, docs/security.md): the first unknown key ends the
-- walk, and the checker names the bad key after it.
local function checkopts(opts, valid, what)
  local bad = false
  for k in pairs(opts) do
    if k ~= "name" and not valid[k] then bad = true; break end
  end
  if bad then
    local all = { name = true }
    for kk in pairs(valid) do all[kk] = true end
    options.check(opts, all, what, 3)
  end
end

-- An integer option (base.isint: an integer >= min and < 2^31); what names the op, opt
-- the option.
local isint, numtext = base.isint, base.numtext
local function intopt(v, min, what, level)
  if not isint(v, min) then
    error(string.format("%s must be an integer >= %d, got %s", what, min, numtext(v)), level)
  end
  return v
end
-- An axis: a nonzero integer (1-based; negative counts from the end).
local function axisopt(v, what)
  if v == nil then return 1 end
  if type(v) == "table" then
    error(string.format("%s: the axis is a positional argument (e.g. %s(x, ..., 2, {name=...})), got a table",
      what, what), 3)
  end
  if not isint(v, -2147483647) or v == 0 then
    error(string.format("%s: axis must be a nonzero integer (1-based, negative counts from the end), got %s",
      what, numtext(v)), 3)
  end
  return v
end

local graph_op1 = core.graph_op1

-- The hot path of op creation: no allocation besides the result tensor; tid an op type id.
local function op1id(g, tid, a, b, opts, x, y)
  local name = opts
  if opts ~= nil then
    if type(opts) == "table" then name = opts.name
    elseif type(opts) ~= "string" then error("options must be a table or a name", 3) end
  end
  return setmetatable({ graph = g, id = graph_op1(g._h, tid, name, a, b, x, y) }, Tensor)
end
local function op1(g, tname, a, b, opts, x, y)
  return op1id(g, TYPE[tname], a, b, opts, x, y)
end

-- Op arguments are checked as `type(x) == "table" and x.graph == g` on the hot paths (only
-- tensors carry their graph; cheaper than getmetatable), else checkt explains.
local function unary(tname)
  local what, tid = "g:" .. tname, TYPE[tname]
  return function(g, x, opts)
    if type(x) ~= "table" or x.graph ~= g then checkt(g, x, what) end
    if opts == nil then
      return setmetatable({ graph = g, id = graph_op1(g._h, tid, nil, x.id) }, Tensor)
    end
    if type(opts) == "table" then checkopts(opts, {}, what) end
    return op1id(g, tid, x.id, nil, opts)
  end
end
for _, n in ipairs { "relu", "sigmoid", "tanh", "gelu", "silu", "exp", "log", "sqrt", "neg",
                     "softmax", "log_softmax" } do
  Graph[n] = unary(n)
  doc.doc(Graph[n], "g:" .. n .. "(x[, name]) -> tensor", "elementwise " .. n .. " (FLOPs: docs/graph.md)")
end
doc.doc(Graph.softmax, "g:softmax(x[, name]) -> tensor", "softmax over the last axis (3 FLOPs/element)")
doc.doc(Graph.log_softmax, "g:log_softmax(x[, name]) -> tensor", "log-softmax over the last axis")

function Graph:dropout(x, opts)
  local _, o = optname(opts)
  checkopts(o, { p = true }, "g:dropout")
  if o.p ~= nil and not (type(o.p) == "number" and o.p >= 0 and o.p < 1) then
    error("g:dropout: p must be a number in [0, 1), got " .. tostring(o.p), 2)
  end
  return op1(self, "dropout", checkt(self, x, "g:dropout"), nil, o.name)
end
doc.doc(Graph.dropout, "g:dropout(x[, {p=, name=}]) -> tensor", "dropout (1 FLOP/element; p does not change costs)")

function Graph:scale(x, opts)
  local name, o = optname(opts)
  checkopts(o, {}, "g:scale")
  return op1(self, "scale", checkt(self, x, "g:scale"), nil, name)
end
doc.doc(Graph.scale, "g:scale(x[, name]) -> tensor", "multiply by a constant (1 FLOP/element)")

function Graph:cast(x, dtype, opts)
  local dt = DTYPES[dtype]
  if not dt then error("g:cast: unknown dtype '" .. tostring(dtype) .. "' (" .. keys(DTYPES) .. ")", 2) end
  local name, o = optname(opts)
  checkopts(o, {}, "g:cast")
  return op1(self, "cast", checkt(self, x, "g:cast"), nil, name, dt)
end
doc.doc(Graph.cast, "g:cast(x, dtype[, name]) -> tensor", "convert the element type (0 FLOPs)")

local function binary(tname)
  local what, tid = "g:" .. tname, TYPE[tname]
  return function(g, a, b, opts)
    if type(a) ~= "table" or a.graph ~= g then checkt(g, a, what) end
    if type(b) ~= "table" or b.graph ~= g then checkt(g, b, what) end
    if opts == nil then
      return setmetatable({ graph = g, id = graph_op1(g._h, tid, nil, a.id, b.id) }, Tensor)
    end
    if type(opts) == "table" then checkopts(opts, {}, what) end
    return op1id(g, tid, a.id, b.id, opts)
  end
end
for _, n in ipairs { "add", "sub", "mul", "div" } do
  Graph[n] = binary(n)
  doc.doc(Graph[n], "g:" .. n .. "(a, b[, name]) -> tensor", "elementwise " .. n .. " with broadcasting (1 FLOP/element)")
end
Tensor.__add = function(a, b) return a.graph:add(a, b) end
Tensor.__sub = function(a, b) return a.graph:sub(a, b) end
Tensor.__mul = function(a, b) return a.graph:mul(a, b) end
Tensor.__div = function(a, b) return a.graph:div(a, b) end

local MATMUL_OPTS = { transpose_a = true, transpose_b = true }
local MATMUL = TYPE.matmul
function Graph:matmul(a, b, opts)
  if type(a) ~= "table" or a.graph ~= self then checkt(self, a, "g:matmul") end
  if type(b) ~= "table" or b.graph ~= self then checkt(self, b, "g:matmul") end
  if opts == nil then
    return setmetatable({ graph = self, id = graph_op1(self._h, MATMUL, nil, a.id, b.id) }, Tensor)
  end
  if type(opts) == "table" then
    checkopts(opts, MATMUL_OPTS, "g:matmul")
    -- switches: transpose_a = 0 transposed (Lua's truth), silently
    options.switches(opts, { "transpose_a", "transpose_b" }, "g:matmul", 2)
    return op1id(self, MATMUL, a.id, b.id, opts, opts.transpose_a and 1 or 0, opts.transpose_b and 1 or 0)
  end
  return op1id(self, MATMUL, a.id, b.id, opts)
end
Graph.bmm = Graph.matmul
doc.doc(Graph.matmul, "g:matmul(a, b[, {transpose_a=, transpose_b=, name=}]) -> tensor",
  "a [..., M, K] x b [K, N] (or batched b [..., K, N]) -> [..., M, N]; 2*M*N*K FLOPs per batch")

function Graph:linear(x, w, bias, opts)
  local y = self:matmul(x, w, opts)
  if bias then y = self:add(y, bias) end
  return y
end
doc.doc(Graph.linear, "g:linear(x, w[, bias[, opts]]) -> tensor", "matmul plus a broadcast bias add")

local function pair(v, default, what, min)
  if v == nil then return default, default end
  if type(v) == "number" then
    if what then intopt(v, min, what, 5) end
    return v, v
  end
  if type(v) == "table" and type(v[1]) == "number" then
    if what then intopt(v[1], min, what, 5); intopt(v[2] or v[1], min, what, 5) end
    return v[1], v[2] or v[1]
  end
  error(what .. " must be an integer or {h, w}", 4)
end

local function convop(g, x, w, opts, what)
  local name, o = optname(opts)
  checkopts(o, { stride = true, padding = true, dilation = true, groups = true, workspace = true }, what)
  local sh, sw = pair(o.stride, 1, what .. " stride", 1)
  local ph, pw = pair(o.padding, 0, what .. " padding", 0)
  local dh, dw = pair(o.dilation, 1, what .. " dilation", 1)
  if o.groups ~= nil then intopt(o.groups, 1, what .. " groups", 4) end
  local ws = o.workspace
  if ws == nil or ws == "none" then ws = 0
  elseif ws == "im2col" then ws = 1
  else error(what .. ": workspace must be \"none\" or \"im2col\", got " .. tostring(ws), 3) end
  local out = core.graph_op(g._h, TYPE.conv2d, name, { checkt(g, x, what), checkt(g, w, what) },
    { sh, sw, ph, pw, dh, dw, o.groups or 1, ws })
  return tensor(g, out[1])
end
-- For nn.lua's one-call conv layer: the 8 conv attributes convop would pass for the
-- options o (stride, padding, dilation, workspace) and groups, or nil when an option is
-- not valid (the caller then takes convop's path, which explains).
local function pairok(v, min)
  return v == nil or isint(v, min) or (type(v) == "table" and isint(v[1], min)
    and (v[2] == nil or isint(v[2], min)))
end
function M._convattrs(o, groups)
  if not (pairok(o.stride, 1) and pairok(o.padding, 0) and pairok(o.dilation, 1)
          and (groups == nil or isint(groups, 1))) then return nil end
  local ws = o.workspace
  if ws == nil or ws == "none" then ws = 0
  elseif ws == "im2col" then ws = 1
  else return nil end
  local sh, sw = pair(o.stride, 1)
  local ph, pw = pair(o.padding, 0)
  local dh, dw = pair(o.dilation, 1)
  return { sh, sw, ph, pw, dh, dw, groups or 1, ws }
end
doc.doc(M._convattrs, "graph._convattrs(opts, groups) -> {8 ints} or nil",
  "internal (nn.lua): the conv attributes g:conv2d would pass, nil for invalid options")
function Graph:conv2d(x, w, opts) return convop(self, x, w, opts, "g:conv2d") end
function Graph:conv1d(x, w, opts) return convop(self, x, w, opts, "g:conv1d") end
doc.doc(Graph.conv2d, "g:conv2d(x, w[, {stride=, padding=, dilation=, groups=, workspace=, name=}]) -> tensor",
  "x [N, C, H, W], w [Cout, C/groups, KH, KW]; 2*N*Cout*Ho*Wo*(C/groups)*KH*KW FLOPs; "
  .. "workspace=\"im2col\" adds the N*Ho*Wo x C*KH*KW column buffer to the footprint while the conv "
  .. "and its gradients run (default \"none\")")
doc.doc(Graph.conv1d, "g:conv1d(x, w[, opts]) -> tensor", "x [N, C, L], w [Cout, C/groups, K]")

local function poolop(tname)
  return function(g, x, opts)
    local name, o = optname(opts)
    checkopts(o, { kernel = true, stride = true, padding = true }, "g:" .. tname)
    local kh, kw = pair(o.kernel, 2, "g:" .. tname .. " kernel", 1)
    local sh, sw = pair(o.stride, nil, "g:" .. tname .. " stride", 1)
    local ph, pw = pair(o.padding, 0, "g:" .. tname .. " padding", 0)
    local out = core.graph_op(g._h, TYPE[tname], name, { checkt(g, x, "g:" .. tname) },
      { kh, kw, sh or kh, sw or kw, ph, pw })
    return tensor(g, out[1])
  end
end
Graph.maxpool, Graph.avgpool = poolop("maxpool"), poolop("avgpool")
Graph.global_avgpool, Graph.global_maxpool = unary("global_avgpool"), unary("global_maxpool")
doc.doc(Graph.maxpool, "g:maxpool(x[, {kernel=2, stride=kernel, padding=0, name=}]) -> tensor", "max pooling (1 FLOP per window element)")
doc.doc(Graph.avgpool, "g:avgpool(x[, {kernel=, stride=, padding=, name=}]) -> tensor", "average pooling")
doc.doc(Graph.global_avgpool, "g:global_avgpool(x[, name]) -> tensor", "[N, C, H, W] -> [N, C]")
doc.doc(Graph.global_maxpool, "g:global_maxpool(x[, name]) -> tensor", "[N, C, H, W] -> [N, C]")

local function reduceop(tname)
  return function(g, x, opts)
    local name, o = optname(opts)
    checkopts(o, { axes = true, keepdims = true }, "g:" .. tname)
    options.switches(o, { "keepdims" }, "g:" .. tname, 2)
    local mask = 0
    local axes = o.axes
    if type(axes) == "number" then axes = { axes } end
    local rank = #x:dims()
    if axes ~= nil and type(axes) ~= "table" then
      error("g:" .. tname .. ": axes must be an axis or a list of axes, got " .. type(axes), 2)
    end
    for _, a in ipairs(axes or {}) do
      axisopt(a, "g:" .. tname)
      if a < 0 then a = rank + 1 + a end
      if a < 1 or a > rank then error("g:" .. tname .. ": axis " .. a .. " outside 1.." .. rank, 2) end
      mask = mask + 2 ^ (a - 1)
    end
    local out = core.graph_op(g._h, TYPE[tname], name, { checkt(g, x, "g:" .. tname) },
      { mask, o.keepdims and 1 or 0 })
    return tensor(g, out[1])
  end
end
Graph.sum, Graph.mean, Graph.max = reduceop("sum"), reduceop("mean"), reduceop("max")
for _, n in ipairs { "sum", "mean", "max" } do
  doc.doc(Graph[n], "g:" .. n .. "(x[, {axes=, keepdims=, name=}]) -> tensor", "reduce (all axes by default; 1 FLOP per input element)")
end

local function normop(tname, nparams)
  return function(g, x, gamma, beta, opts)
    local ins = { checkt(g, x, "g:" .. tname), checkt(g, gamma, "g:" .. tname) }
    if nparams == 3 then
      if getmetatable(beta) == Tensor then ins[3] = checkt(g, beta, "g:" .. tname)
      else opts = beta end
    else
      opts = beta
    end
    local name, o = optname(opts)
    checkopts(o, {}, "g:" .. tname)
    return tensor(g, core.graph_op(g._h, TYPE[tname], name, ins)[1])
  end
end
Graph.layernorm, Graph.batchnorm, Graph.rmsnorm = normop("layernorm", 3), normop("batchnorm", 3), normop("rmsnorm", 2)
doc.doc(Graph.layernorm, "g:layernorm(x, gamma[, beta][, name]) -> tensor", "layer norm over the last axis (6N + 3R FLOPs)")
doc.doc(Graph.batchnorm, "g:batchnorm(x, gamma, beta[, name]) -> tensor", "batch norm over channels (axis 2; 6N + 3C FLOPs)")
doc.doc(Graph.rmsnorm, "g:rmsnorm(x, gamma[, name]) -> tensor", "RMS norm over the last axis (4N + 3R FLOPs)")

function Graph:embedding(ids, tbl, opts)
  return op1(self, "embedding", checkt(self, ids, "g:embedding"), checkt(self, tbl, "g:embedding"), opts)
end
doc.doc(Graph.embedding, "g:embedding(ids, table[, name]) -> tensor",
  "gather rows of table [V, H] for ids [...] -> [..., H]; 0 FLOPs, bytes of the gathered rows")

local CONCAT, SPLIT = TYPE.concat, TYPE.split
function Graph:concat(xs, axis, opts)
  if type(xs) ~= "table" then error("g:concat: a non-empty list of tensors expected", 2) end
  axis = axisopt(axis, "g:concat")
  if type(opts) == "table" then checkopts(opts, {}, "g:concat") end
  local n = #xs
  if n == 2 then -- the common case without building argument tables
    local a, b = xs[1], xs[2]
    if getmetatable(a) == Tensor and a.graph == self and getmetatable(b) == Tensor
       and b.graph == self then
      return op1id(self, CONCAT, a.id, b.id, opts, axis or 1)
    end
  end
  if n == 0 then error("g:concat: a non-empty list of tensors expected", 2) end
  if n > 1024 then error("g:concat: at most 1024 tensors, got " .. n, 2) end
  local ins = {}
  for i, t in ipairs(xs) do ins[i] = checkt(self, t, "g:concat") end
  local name = optname(opts)
  return tensor(self, core.graph_op(self._h, TYPE.concat, name, ins, { axis or 1 })[1])
end
doc.doc(Graph.concat, "g:concat({tensors}, axis[, name]) -> tensor", "join along axis (1-based; 0 FLOPs)")

-- A kernel with given costs (graphs/ir/graph_ops.c kernel()): a step described kernel by
-- kernel by a model of its own, e.g. dlb.serve.graphs. Forward only (training refuses it).
local KERNEL = { name = true, flops = true, bytes = true, gemm = true, attention = true, dtype = true }
local function dimtext(v, what, fn)
  if type(v) == "number" then
    if v ~= v or v == math.huge or v == -math.huge then error(fn .. ": " .. what .. " must be finite, got " .. tostring(v), 4) end
    return string.format("%.17g", v)
  end
  if type(v) ~= "string" then error(fn .. ": " .. what .. " must be a number or a dim, got " .. type(v), 4) end
  return v
end
function Graph:kernel(inputs, dims, opts)
  local fn = "g:kernel"
  if type(inputs) ~= "table" or #inputs == 0 then error(fn .. ": a non-empty list of input tensors expected", 2) end
  if #inputs > 1024 then error(fn .. ": at most 1024 inputs, got " .. #inputs, 2) end
  if type(dims) ~= "table" or #dims == 0 then error(fn .. ": the output's dims expected, e.g. {\"b\", 64}", 2) end
  opts = options.check(opts, KERNEL, fn)
  options.switches(opts, { "attention" }, fn, 2)
  if opts.flops == nil or opts.bytes == nil then error(fn .. ": flops= and bytes= are required", 2) end
  local ins = {}
  for i, t in ipairs(inputs) do ins[i] = checkt(self, t, fn) end
  local dt = DTYPES[opts.dtype or "default"]
  if not dt then error(fn .. ": unknown dtype '" .. tostring(opts.dtype) .. "' (" .. keys(DTYPES) .. ")", 2) end
  local d = { dimtext(opts.flops, "flops", fn), dimtext(opts.bytes, "bytes", fn) }
  local gm = opts.gemm
  if gm ~= nil then
    if type(gm) ~= "table" or #gm ~= 4 then error(fn .. ": gemm must be {m, n, k, batch}", 2) end
    for i = 1, 4 do d[#d + 1] = dimtext(gm[i], "gemm[" .. i .. "]", fn) end
  end
  for i = 1, #dims do d[#d + 1] = dimtext(dims[i], "dim " .. i, fn) end
  local attrs = { opts.attention and 1 or 0, gm and 1 or 0, #dims, dt }
  return tensor(self, core.graph_op(self._h, TYPE.kernel, opts.name, ins, attrs, d)[1])
end
doc.doc(Graph.kernel, "g:kernel({inputs}, out_dims, {flops=, bytes=[, gemm={m, n, k, batch}, attention=, dtype=, name=]}) -> tensor",
  "a kernel with given FLOPs and bytes (forward only; its GEMM shape and a fused-attention mark for the per-op rule)")

function Graph:split(x, parts, axis, opts)
  local np = type(parts) == "table" and #parts or parts
  if not isint(np, 1) or np > 1024 then
    error("g:split: parts must be an integer 1..1024 or a list of at most 1024 sizes", 2)
  end
  axis = axisopt(axis, "g:split")
  if type(opts) == "table" then checkopts(opts, {}, "g:split") end
  if type(parts) == "number" and getmetatable(x) == Tensor and x.graph == self then
    -- equal parts: the outputs of one op are consecutive tensor ids
    local name = opts
    if type(opts) == "table" then name = opts.name
    elseif opts ~= nil and type(opts) ~= "string" then error("options must be a table or a name", 2) end
    local first = graph_op1(self._h, SPLIT, name, x.id, nil, axis or 1, parts)
    local r = { setmetatable({ graph = self, id = first }, Tensor) }
    for i = 2, parts do r[i] = setmetatable({ graph = self, id = first + i - 1 }, Tensor) end
    return r
  end
  local name = optname(opts)
  local dims, n = nil, parts
  if type(parts) == "table" then dims = dimlist(parts, "g:split"); n = 0 end
  local outs = core.graph_op(self._h, TYPE.split, name, { checkt(self, x, "g:split") }, { axis or 1, n }, dims)
  local r = {}
  for i, id in ipairs(outs) do r[i] = tensor(self, id) end
  return r
end
doc.doc(Graph.split, "g:split(x, parts|{sizes}, axis[, name]) -> {tensors}", "split along axis into equal parts or sizes")

-- reshape, transpose and slice go through core.graph_opx: no argument or result tables.
local graph_opx = core.graph_opx
local RESHAPE, TRANSPOSE, SLICE = TYPE.reshape, TYPE.transpose, TYPE.slice

function Graph:slice(x, axis, start, len, opts)
  local name, o = optname(opts)
  checkopts(o, {}, "g:slice")
  axis = axisopt(axis, "g:slice")
  if not isint(start, 0) then
    error("g:slice: start must be an integer >= 0 (0-based), got " .. tostring(start), 2)
  end
  if type(x) ~= "table" or x.graph ~= self then checkt(self, x, "g:slice") end
  return setmetatable({ graph = self, id = graph_opx(self._h, SLICE, name, x.id, nil, { axis, start },
    dimlist({ len }, "g:slice")) }, Tensor)
end
doc.doc(Graph.slice, "g:slice(x, axis, start, length[, name]) -> tensor", "a contiguous slice (start 0-based)")

function Graph:reshape(x, dims, opts)
  local name = opts -- optname(opts) without a call on the hot path (no options, or a name)
  if opts ~= nil and type(opts) ~= "string" then name = optname(opts) end
  if type(x) ~= "table" or x.graph ~= self then checkt(self, x, "g:reshape") end
  local d = dimlist(dims, "g:reshape")
  if #d > 8 then -- the engine explains the rank
    return tensor(self, core.graph_op(self._h, RESHAPE, name, { x.id }, nil, d)[1])
  end
  return setmetatable({ graph = self, id = graph_opx(self._h, RESHAPE, name, x.id, nil, nil, d) }, Tensor)
end
doc.doc(Graph.reshape, "g:reshape(x, dims[, name]) -> tensor", "same elements, new dims (moves nothing)")

function Graph:transpose(x, perm, opts)
  if type(perm) ~= "table" then opts, perm = perm, nil end
  local name, o = optname(opts)
  checkopts(o, {}, "g:transpose")
  for i = 1, perm and #perm or 0 do
    if not isint(perm[i], 1) then
      error(string.format("g:transpose: perm[%d] must be an axis (an integer >= 1), got %s", i,
        numtext(perm[i])), 2)
    end
  end
  if type(x) ~= "table" or x.graph ~= self then checkt(self, x, "g:transpose") end
  return setmetatable({ graph = self, id = graph_opx(self._h, TRANSPOSE, name, x.id, nil, perm) }, Tensor)
end
doc.doc(Graph.transpose, "g:transpose(x[, perm][, name]) -> tensor", "permute axes (1-based; default swaps the last two)")

local SOFTMAX_XENT = TYPE.softmax_xent
function Graph:softmax_xent(logits, labels, opts) -- a hot path (a loss per time step)
  if type(logits) ~= "table" or logits.graph ~= self then checkt(self, logits, "g:softmax_xent") end
  if type(labels) ~= "table" or labels.graph ~= self then checkt(self, labels, "g:softmax_xent") end
  local y = op1id(self, SOFTMAX_XENT, logits.id, labels.id, opts)
  -- the logits, for a profile's loss memory (dlbench.framework_memory: an unfused loss)
  local xs = rawget(self, "_xent")
  if not xs then xs = {}; rawset(self, "_xent", xs) end
  xs[#xs + 1] = logits
  return y
end
doc.doc(Graph.softmax_xent, "g:softmax_xent(logits, labels[, name]) -> scalar tensor",
  "softmax cross-entropy; labels are class ids (logits' dims without the last) or probabilities")
function Graph:mse(pred, target, opts)
  return op1(self, "mse", checkt(self, pred, "g:mse"), checkt(self, target, "g:mse"), opts)
end
doc.doc(Graph.mse, "g:mse(pred, target[, name]) -> scalar tensor", "mean squared error (3 FLOPs/element)")
function Graph:ctc(logits, labels, opts)
  return op1(self, "ctc", checkt(self, logits, "g:ctc"), checkt(self, labels, "g:ctc"), opts)
end
doc.doc(Graph.ctc, "g:ctc(logits [T, B, V], labels [B, S][, name]) -> scalar tensor",
  "CTC loss (an approximation: softmax plus an alpha/beta lattice of B*T*(2S+1) cells)")

function Graph:loss(t)
  core.graph_set_loss(self._h, checkt(self, t, "g:loss"))
  self._loss = t
  return t
end
doc.doc(Graph.loss, "g:loss(t) -> t", "mark the loss: g:stats then analyses a training step")

function Graph:layer(name)
  if name ~= nil and type(name) ~= "string" then error("g:layer(name): name must be a string or nil", 2) end
  core.graph_layer(self._h, name)
  if name ~= nil then -- the names in order of first use, as the engine numbers them
    local seen = self._layerset
    if not seen then seen = {}; self._layerset, self._layers = seen, {} end
    if not seen[name] then seen[name] = true; self._layers[#self._layers + 1] = name end
  end
end
doc.doc(Graph.layer, "g:layer(name|nil)", "ops created afterwards belong to this layer (nil ends it)")

-- optimizers, g:freeze, g:lora, offload (lua/dlbench/graph_setups.lua)
do
  local setups = require "dlbench.graph_setups"
  M.optimizers, M.optimizer_state_bytes = setups.optimizers, setups.optimizer_state_bytes
  M.default_optimizer = setups.default_optimizer
  M.lora_target = setups.lora_target
  for k, f in pairs(setups.methods) do Graph[k] = f end
end

function Graph:checkpoint(t)
  core.graph_checkpoint(self._h, checkt(self, t, "g:checkpoint"))
  return t
end
doc.doc(Graph.checkpoint, "g:checkpoint(t) -> t", "keep t for the backward pass under recompute=\"marked\"")

function Graph:nops() local _, n = core.graph_counts(self._h); return n end
function Graph:ntensors() local n = core.graph_counts(self._h); return n end
-- the symbolic dims: the names a binding (g:stats{b = 8}, bind = {...}) may give a value;
-- binding any other name is an error (graphs/step/analysis.c dlb_check_bindings)
function Graph:dims() return core.graph_vars(self._h) end
-- nil when the graph has the dim `name`, else the message "the graph has no dim 'name' (its
-- dims: ...)" for a caller that binds a dim of its own choosing (a batch dim, a size dim)
function Graph:missing_dim(name)
  local dims = self:dims()
  for _, d in ipairs(dims) do if d == name then return nil end end
  return string.format("the graph has no dim '%s' (its dims: %s)", tostring(name),
    #dims > 0 and table.concat(dims, ", ") or "none, every size is a number")
end
-- the C graph's generation (dlb_graph_generation): every change an analysis would see bumps
-- it (tensors, ops, layers, loss, freeze, lora, quantize, checkpoint, repeat), so a cache
-- keyed on the graph object and its generation is never stale. g:lora's freezes wait for the
-- next analysis (graph_setups apply_lora): they are made first, as an analysis would.
function Graph:generation()
  require("dlbench.graph_setups").apply_lora(self)
  return core.graph_generation(self._h)
end
doc.doc(Graph.generation, "g:generation() -> integer",
  "a counter every change an analysis would see bumps (the key of a cache of the graph's costs)")
doc.doc(Graph.nops, "g:nops() -> integer", "ops in the forward graph")
doc.doc(Graph.ntensors, "g:ntensors() -> integer", "tensors in the forward graph")
doc.doc(Graph.missing_dim, "g:missing_dim(name) -> nil | message", "nil when the graph has the dim name, else \"the graph has no dim 'name' (its dims: ...)\"")
doc.doc(Graph.dims, "g:dims() -> {names}", "the graph's symbolic dims, in first-use order: the names g:stats{name = n} and bind= may bind (any other name is an error naming these)")

-- what a training step costs: g:stats, g:train, g:ops, g:layers, g:summary... (lua/dlbench/graph_analysis.lua)
do
  local analysis = require "dlbench.graph_analysis"
  M.FUSE, M.si = analysis.FUSE, analysis.si
  for k, f in pairs(analysis.methods) do Graph[k] = f end
end

function Graph.__tostring(g)
  local nt, no = core.graph_counts(g._h)
  return string.format("graph '%s' (%d tensors, %d ops)", g.name, nt, no)
end

M.convention = core.graph_convention
doc.doc(M.convention, "dlb.graph.convention() -> string", "the FLOP convention printed with every summary")
doc.doc(M, "dlb.graph", "compute graphs: dlb.graph(name), tensors, ops, g:stats{...}, g:summary{...}")
-- g.stats{} or x.dims() (a dot for a colon) names the mistake instead of failing inside
-- the op builders that check their tensor arguments first (checkt names a wrong self)
local SELF_CHECKED = { add = true, sub = true, mul = true, div = true, matmul = true,
  bmm = true, reshape = true, transpose = true }
for _, n in ipairs { "relu", "sigmoid", "tanh", "gelu", "silu", "exp", "log", "sqrt", "neg",
                     "softmax", "log_softmax" } do SELF_CHECKED[n] = true end
errors_.guard_methods(Graph, "g:", Graph, SELF_CHECKED)
errors_.guard_methods(Tensor, "x:", Tensor)
setmetatable(M, { __call = function(_, name) return M.new(name) end })
doc.methods(M, Graph, "g")
doc.methods(M, Tensor, "x")
return M
