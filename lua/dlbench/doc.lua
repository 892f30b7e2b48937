-- dlbench.doc — help text kept next to the code: each public function or module is
-- registered where it is defined, `doc(f, "signature", "meaning")`, and help(x) reads it.
local M = {}

local registry = setmetatable({}, { __mode = "k" })

-- Register the signature and one-line meaning of a function or module table; returns obj.
function M.doc(obj, signature, meaning)
  registry[obj] = { signature = signature, meaning = meaning }
  return obj
end

-- The {signature=, meaning=} registered for obj, or nil.
function M.get(obj)
  return registry[obj]
end

-- The object classes registered with M.methods: {name=, module=, methods=}.
local classes = {}

-- Make the methods of an object class reachable from its module for help: after
-- doc.methods(M, Table, "t"), dlb.table.pivot is Table.pivot (help(dlb.table.pivot) works,
-- help(dlb.table) lists it). The module's own fields win over a method of the same name;
-- the module's metatable gets (or extends) an __index table. Call it once the class's
-- methods are defined.
function M.methods(mod, methods, name)
  local mt = getmetatable(mod)
  if mt == nil then mt = {}; setmetatable(mod, mt) end
  local idx = rawget(mt, "__index")
  if idx == nil then idx = {}; mt.__index = idx end
  if type(idx) ~= "table" then error("doc.methods: the module's __index is not a table", 2) end
  for k, v in pairs(methods) do
    if type(k) == "string" and type(v) == "function" and k:sub(1, 2) ~= "__"
        and rawget(mod, k) == nil and rawget(idx, k) == nil then
      idx[k] = v
    end
  end
  classes[#classes + 1] = { name = name, module = mod, methods = methods }
  return mod
end

-- The classes registered so far (a copy).
function M.classes()
  local out = {}
  for i, c in ipairs(classes) do out[i] = c end
  return out
end

M.doc(M.doc, "doc.doc(obj, signature, meaning) -> obj",
  "register help text for a function or module")
M.doc(M.get, "doc.get(obj) -> {signature=, meaning=} or nil", "the help text of obj")
M.doc(M.methods, "doc.methods(module, methods, name) -> module",
  "make an object class's methods reachable from its module for help (dlb.table.pivot)")
M.doc(M.classes, "doc.classes() -> {{name=, module=, methods=}, ...}", "the object classes registered with doc.methods")
return M
