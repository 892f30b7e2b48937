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

M.doc(M.doc, "doc.doc(obj, signature, meaning) -> obj",
  "register help text for a function or module")
M.doc(M.get, "doc.get(obj) -> {signature=, meaning=} or nil", "the help text of obj")
return M
