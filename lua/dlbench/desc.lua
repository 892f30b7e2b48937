-- dlbench.desc — the one description of the public headers, as the Lua library reads it:
-- the enums and struct fields that host/gen_bindings.lua exports from the headers' marked
-- regions into lua/dlbench/desc_gen.lua (generated at build time, never edited, never
-- committed). Lists that must equal a C enum or a C struct's fields are derived from here
-- (or from the C functions behind the backend), never written by hand. Loads under both
-- backends: it is data, and needs no library.
local G = require "dlbench.desc_gen"

local M = {}

-- members: {{suffix, value}, ...} -> the list by value, names in lower case (rename:
-- {SUFFIX = "name"}), and {name = value}; a count marker (DLB_X_COUNT, DLB_X_NKINDS: the
-- last, valued the count of the others) left out.
local function named(members, rename)
  table.sort(members, function(a, b) return a[2] < b[2] end)
  local last = members[#members]
  if last and (last[1] == "COUNT" or last[1]:match("^N%u+S$")) and last[2] == #members - 1 then
    members[#members] = nil
  end
  local list, byname = {}, {}
  for i, m in ipairs(members) do
    local name = rename and rename[m[1]] or m[1]:lower()
    list[i], byname[name] = name, m[2]
  end
  return list, byname
end

-- The members of the enum whose constants start with `prefix` ("DLB_OPT_"), by value:
-- their names in lower case (rename: {SUFFIX = "name"}), a count marker left out.
-- -> {"sgd", "momentum", ...}, {sgd = 0, ...}
function M.enum(prefix, rename)
  local members = {}
  for _, b in ipairs(G.enums) do
    for _, e in ipairs(b) do
      local suffix = e[1]:sub(1, #prefix) == prefix and e[1]:sub(#prefix + 1)
      if suffix then members[#members + 1] = { suffix, e[2] } end
    end
  end
  local list, byname = named(members, rename)
  if #list == 0 then error("dlbench.desc: no enum with prefix " .. tostring(prefix), 2) end
  return list, byname
end

-- The members of the enum { ... } block that holds constant `member`, by value: their
-- names without `prefix`, in lower case (rename as for M.enum), a count marker left out (for
-- blocks whose prefix others share: DLB_ONNX_OPSET's facts beside DLB_ONNX_LOSS_*).
function M.block(member, prefix, rename)
  for _, b in ipairs(G.enums) do
    for _, e in ipairs(b) do
      if e[1] == member then
        local members = {}
        for _, m in ipairs(b) do members[#members + 1] = { m[1]:sub(#prefix + 1), m[2] } end
        local list, byname = named(members, rename)
        return list, byname
      end
    end
  end
  error("dlbench.desc: no enum holds " .. tostring(member), 2)
end

-- The value of one constant (DLB_PREC_COUNT), or nil.
function M.const(name)
  for _, b in ipairs(G.enums) do
    for _, e in ipairs(b) do if e[1] == name then return e[2] end end
  end
end

-- The description of struct `name` ({fields = {{name, ctype[, count]}, ...}, init=, ...}).
function M.struct(name)
  local s = G.structs[name]
  if not s then error("dlbench.desc: no struct " .. tostring(name) .. " in the headers", 2) end
  return s
end

-- The field names of struct `name`, in order (an array field is one name).
function M.fields(name)
  local out = {}
  for i, f in ipairs(M.struct(name).fields) do out[i] = f[1] end
  return out
end

-- {a = true, ...} from a list.
function M.set(list)
  local s = {}
  for _, k in ipairs(list) do s[k] = true end
  return s
end

return M
