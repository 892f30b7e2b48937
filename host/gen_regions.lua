-- gen_regions.lua — the marked regions of the public headers, shared by the generators
-- (host/gen_cdef.lua: the FFI declarations; host/gen_bindings.lua: both backends' glue).
-- collect(top) returns the lines between DLB_FFI_BEGIN and DLB_FFI_END of the header and,
-- in include order, of every header it includes with quotes (looked up beside it, then in
-- the build's include folders: graphs/, each concept folder graphs/*/, plots/), without the DLB_API marker; each region starts with a
-- "/* file.h */" line. collect(top, base) leaves out the regions of base and of what it
-- includes (a library built on libdlbench: proc/dlb_proc.h over graphs/dlbench.h).
-- writefile(path, text) is the generators' one writer.
local M = {}

local function dirname(p) return p:match("^(.*)/[^/]*$") or "." end

-- a/b/../c -> a/c, ./a -> a: one spelling per file, so a header reached by two paths is
-- collected once
local function normalize(p)
  local out = {}
  for part in p:gmatch("[^/]+") do
    if part == ".." and #out > 0 and out[#out] ~= ".." then out[#out] = nil
    elseif part ~= "." then out[#out + 1] = part end
  end
  return (p:sub(1, 1) == "/" and "/" or "") .. table.concat(out, "/")
end

function M.readfile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end
local readfile = M.readfile

-- The include folders of the source tree that holds path (the nearest folder above it with
-- graphs/dlbench.h): graphs/, its concept folders and plots/, as premake5.lua lists them
-- for the compiler; the folders are read from the tree, so a new one needs no edit here.
local function include_dirs(path)
  local root = dirname(path)
  for _ = 1, 8 do
    if readfile(root .. "/graphs/dlbench.h") then break end
    root = root .. "/.."
  end
  local dirs = { root .. "/graphs" }
  local p = io.popen('find "' .. root .. '/graphs" -mindepth 1 -maxdepth 1 -type d | sort')
  for d in p:lines() do dirs[#dirs + 1] = d end
  p:close()
  dirs[#dirs + 1] = root .. "/plots"
  return dirs
end

function M.collect(top, base)
  local dirs
  local function locate(name, from)
    dirs = dirs or include_dirs(from)
    local searchdirs = { dirname(from) }
    for _, d in ipairs(dirs) do searchdirs[#searchdirs + 1] = d end
    for _, d in ipairs(searchdirs) do
      local p = d .. "/" .. name
      if readfile(p) then return normalize(p) end
    end
    return nil
  end
  local parts, seen = {}, {}
  local function collect(path)
    if seen[path] then return end
    seen[path] = true
    local text = assert(readfile(path), "gen_regions: cannot read " .. path)
    local inside, n = false, 0
    for line in (text .. "\n"):gmatch("(.-)\n") do
      n = n + 1
      if line:match("^%s*/%*%s*DLB_FFI_BEGIN%s*%*/%s*$") then
        if inside then error(path .. ":" .. n .. ": nested DLB_FFI_BEGIN") end
        inside = true
        parts[#parts + 1] = "/* " .. path:match("[^/]*$") .. " */"
      elseif line:match("^%s*/%*%s*DLB_FFI_END%s*%*/%s*$") then
        if not inside then error(path .. ":" .. n .. ": DLB_FFI_END without BEGIN") end
        inside = false
      elseif inside then
        if line:match("^%s*#") then
          error(path .. ":" .. n .. ": preprocessor line inside the FFI region: " .. line)
        end
        -- DLB_API (graphs/base/dlb_export.h) marks exported functions for the C compiler only.
        parts[#parts + 1] = (line:gsub("^DLB_API ", ""))
      else
        local inc = line:match('^%s*#%s*include%s+"([^"]+)"')
        if inc then
          local p = locate(inc, path)
          if not p then error(path .. ":" .. n .. ": cannot find included " .. inc) end
          collect(p)
        end
      end
    end
    if inside then error(path .. ": DLB_FFI_BEGIN without END") end
  end
  if base then
    collect(normalize(base))
    parts = {}
  end
  collect(normalize(top))
  return parts
end

-- A suffix no other process uses at the same time: the name of an os.tmpname() file (the
-- C library makes it with mkstemp where it can), held until released.
local function unique()
  local ok, name = pcall(os.tmpname)
  if ok and name then return name:match("([^/]*)$"), name end
  return (tostring(os.time()) .. tostring(os.clock()):gsub("%D", "")), nil
end

-- writefile(path, text): the generators' writer (they run before the library exists, so
-- not through dlb_file_write). An unchanged file is left alone (make sees no change);
-- else the text goes to a temporary file with a unique name beside path, renamed over it:
-- path is written whole or not at all, two builds at once never share a temporary file,
-- and no predictable name (path..".tmp") can be planted as a link. Returns true if written.
function M.writefile(path, text)
  if readfile(path) == text then return false end
  local dir = path:match("^(.*)/[^/]*$")
  if dir then os.execute("mkdir -p '" .. dir .. "'") end
  local suffix, held = unique()
  local tmp = path .. ".tmp." .. suffix
  local f, err = io.open(tmp, "wb")
  local ok = f and f:write(text) and f:close()
  if ok then ok, err = os.rename(tmp, path) end
  if not ok then os.remove(tmp) end
  if held then os.remove(held) end
  if not ok then error("cannot write " .. path .. ": " .. tostring(err), 0) end
  return true
end

return M
