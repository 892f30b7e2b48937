-- dlbench.kernel — the Jupyter kernel's Lua side (`dlbench kernel FD`, host/kernel.c; the
-- Jupyter protocol is host/jupyter/dlbench_kernel.py's, an ipykernel wrapper kernel).
-- handle(op, payload) answers one request by sending JSON messages (kernel_send):
--   execute "<count>\n<code>"  {type="result"|"display", data={mime=text}, files={mime=path}}
--                              then {type="done"}; a cell's last line is its value when it
--                              is an expression (as IPython); a trailing ";" hides it;
--                              top-level `local a = ...` lines are session variables
--                              (the REPL's rule, errors.session_locals)
--   complete "<cursor>\n<code>" {type="complete", matches=, cursor_start=, cursor_end=}
--   inspect "<cursor>\n<code>"  {type="inspect", found=, data={["text/plain"]=help text}}
-- Errors (and Ctrl-C, which the wrapper forwards on a Jupyter interrupt) reach on_error
-- from the host, which sends {type="error", ename=, evalue=, traceback=} and "done".
-- Values shown: a figure as PNG (display.format = "svg" or display(f, "svg") for SVG), a
-- dlb.table as an HTML table, anything else as the REPL prints it. Globals added to the
-- cells' state: display(x[, "png"|"svg"|"html"|"text"]), cd(path).
local json = require "dlbench.json"

local M = {}

local send_raw = rawget(_G, "kernel_send")
local chdir = rawget(_G, "kernel_chdir")
rawset(_G, "kernel_send", nil)
rawset(_G, "kernel_chdir", nil)
local function send(t)
  io.stdout:flush()
  io.stderr:flush()
  if not send_raw then error("dlbench.kernel: not running under `dlbench kernel`", 0) end
  send_raw(json.encode(t))
end

-- ---------------------------------------------------------------- what a value shows as

local function is_figure(v)
  local pl = package.loaded["dlbench.plot"]
  if not pl or type(v) ~= "table" then return nil end
  if rawget(v, "_panels") ~= nil and v.save == pl.Figure.save then return v end
  local f = rawget(v, "_fig")    -- a panel of a figure: the figure
  if type(f) == "table" and rawget(f, "_panels") ~= nil and f.save == pl.Figure.save then return f end
  return nil
end

local function is_table(v)
  local t = package.loaded["dlbench.table"]
  return t and t.is_table(v)
end

local function esc(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

local function cell(v)
  if type(v) == "number" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%.0f", v) end
    return string.format("%.6g", v)
  end
  if v == nil then return "" end
  return esc(v)
end

-- A dlb.table as HTML: every row up to M.html_rows (60), else the first 40 and last 10.
M.html_rows = 60
local function html_table(t)
  local cols, n = t:columns(), t:count()
  local out = { '<table class="dlbench-table">', "<thead><tr><th></th>" }
  for _, c in ipairs(cols) do out[#out + 1] = "<th>" .. esc(c) .. "</th>" end
  out[#out + 1] = "</tr></thead><tbody>"
  local function row(i)
    local r = t:row(i)
    local s = { "<tr><th>" .. i .. "</th>" }
    for _, c in ipairs(cols) do s[#s + 1] = "<td>" .. cell(r[c]) .. "</td>" end
    s[#s + 1] = "</tr>"
    out[#out + 1] = table.concat(s)
  end
  if n <= M.html_rows then
    for i = 1, n do row(i) end
  else
    for i = 1, 40 do row(i) end
    out[#out + 1] = string.format('<tr><td colspan="%d">… %d rows …</td></tr>', #cols + 1, n - 50)
    for i = n - 9, n do row(i) end
  end
  out[#out + 1] = string.format("</tbody></table><p>%d rows × %d columns</p>", n, #cols)
  return table.concat(out, "\n")
end

local function plain(...)
  local n = select("#", ...)
  local ok, s = pcall(function(...) return require("dlbench.pretty").values(...) end, ...)
  if ok and type(s) == "string" then return s end
  if ok and s == nil then return nil end   -- already printed by the call (dlb.pretty.shown)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  return table.concat(parts, "\t")
end

-- A figure saved to a temporary file for the wrapper to read (and remove).
local function figure_file(f, fmt)
  local base = os.tmpname()
  os.remove(base)
  local path = base .. "." .. fmt
  local ok, err = f:save(path)
  if not ok then error("display: the figure could not be drawn: " .. tostring(err), 0) end
  return path
end

-- The mime bundle of a value: {data=, files=}. fmt: nil (the default for its kind),
-- "png", "svg", "html", "text".
local function bundle(fmt, ...)
  local v = (...)
  local f = is_figure(v)
  if f and fmt ~= "text" and fmt ~= "html" then
    fmt = fmt or M.figure_format()
    if fmt ~= "png" and fmt ~= "svg" then
      error("display: a figure shows as \"png\" or \"svg\", not " .. tostring(fmt), 0)
    end
    local mime = fmt == "svg" and "image/svg+xml" or "image/png"
    return { data = { ["text/plain"] = "<figure>" }, files = { [mime] = figure_file(f, fmt) } }
  end
  local text = plain(...)
  if text == nil then return nil end
  local data = { ["text/plain"] = text }
  if is_table(v) and fmt ~= "text" then data["text/html"] = html_table(v) end
  return { data = data }
end

-- display(x[, fmt]): show x now, below the cell's output so far. display.format = "svg"
-- makes figures SVG from then on ("png" by default).
local display = setmetatable({ format = "png" }, {
  __call = function(_, x, fmt)
    if fmt ~= nil and fmt ~= "png" and fmt ~= "svg" and fmt ~= "html" and fmt ~= "text" then
      error("display(x, fmt): fmt is \"png\", \"svg\", \"html\" or \"text\", got " .. tostring(fmt), 2)
    end
    local b = bundle(fmt, x) or { data = { ["text/plain"] = tostring(x) } }
    b.type = "display"
    send(b)
  end,
})
function M.figure_format()
  local f = display.format
  return (f == "svg") and "svg" or "png"
end
rawset(_G, "display", display)
require("dlbench.doc").doc(display, "display(x[, \"png\"|\"svg\"|\"html\"|\"text\"])",
  "in the Jupyter kernel: show x below the cell now (a figure as an image, a dlb.table as HTML); display.format = \"svg\" for SVG figures")

-- cd(path): change the working folder. Jupyter runs a notebook in its own folder; the seed
-- notebooks (notebooks/*.ipynb) start with cd("..") since their studies' paths are
-- relative to the repository's root, as `dlbench run notebooks/x.lua` runs them.
local function cd(path)
  if type(path) ~= "string" then error("cd(path): a folder name expected, got " .. type(path), 2) end
  local ok, err = chdir(path)
  if not ok then error(err, 2) end
end
rawset(_G, "cd", cd)
require("dlbench.doc").doc(cd, "cd(path)", "in the Jupyter kernel: change the working folder (relative paths of files read and written)")

-- ---------------------------------------------------------------- execute

-- Compile a cell: the whole cell as an expression, else its last line as the value (when
-- that line is an expression and the rest is statements), else the cell as statements.
-- Its top-level `local a = ...` lines declare session variables, by the REPL's rule
-- (errors.session_locals: a cell's locals would be gone in the next cell); a syntax error
-- names a line that is an expression alone (errors.bare_expression_in), as `dlbench run` does.
local function compile(code, name, quiet)
  local errs = require "dlbench.errors"
  if not quiet then
    local f = load("return " .. code, name, "t")
    if f then return f end
    -- only when the rest is whole statements and the last line a whole expression: else
    -- "...\nend" would become "...\nreturn end", a return inside the cell's last block
    local body, last = code:match("^(.*\n)([^\n]*%S[^\n]*)\n?%s*$")
    if body and not last:match("^%s*%-%-") and load("return " .. last, name, "t")
      and load(body, name, "t") then
      f = load(errs.session_locals(body) .. "return " .. last, name, "t")
      if f then return f end
    end
  end
  local f, err = load(errs.session_locals(code), name, "t")
  if not f then
    error(tostring(err) .. (errs.bare_expression_in(code, "a cell shows its last line's value; "
      .. "print(...) the others") or ""), 0)
  end
  return f
end

local function pack(...) return { n = select("#", ...), ... } end

function M.execute(payload)
  local count, code = payload:match("^(%d+)\n(.*)$")
  code = code or payload
  local name = "=In[" .. (count or "?") .. "]"
  local quiet = code:match(";%s*$") ~= nil
  local pretty = package.loaded["dlbench.pretty"]
  if pretty then pretty.forget() end
  local f = compile(code, name, quiet)
  local r = pack(f())
  if r.n > 0 then
    rawset(_G, "_", r[1])
    if not quiet and not (r.n == 1 and r[1] == nil) then
      -- nil: a value the call has already printed (g:summary{}) is not echoed again
      local b = bundle(nil, (table.unpack or unpack)(r, 1, r.n))
      if b then
        b.type = "result"
        send(b)
      end
    end
  end
  send({ type = "done", status = "ok" })
end

-- ---------------------------------------------------------------- complete, inspect

local keywords = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function",
  "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }

-- The value a dotted/colon path names in the globals (loading dlb's modules on the way,
-- as using them would), or nil.
local function resolve(path)
  local v = _G
  for part in path:gmatch("[^%.:]+") do
    if type(v) ~= "table" and type(v) ~= "string" then return nil end
    local ok, x = pcall(function() return v[part] end)
    if not ok then return nil end
    v = x
    if v == nil then return nil end
  end
  return v
end

-- String keys of v that are Lua names: its own, then its metatables' __index tables'.
local function names_of(v, only_functions)
  local out, seen = {}, {}
  local function add(k, x)
    if type(k) == "string" and k:match("^[%a_][%w_]*$") and not seen[k]
      and (not only_functions or type(x) == "function") then
      seen[k] = true
      out[#out + 1] = k
    end
  end
  local depth = 0
  local t = v
  while t ~= nil and depth < 8 do
    if type(t) == "table" then for k, x in pairs(t) do add(k, x) end end
    local mt = getmetatable(t)
    local idx = type(mt) == "table" and rawget(mt, "__index") or nil
    if type(idx) ~= "table" then break end
    t = idx
    depth = depth + 1
  end
  if v == package.loaded.dlbench or v == rawget(_G, "dlb") then
    for _, k in ipairs(v.lazy_names or {}) do add(k, true) end
  end
  table.sort(out)
  return out
end

local function split_request(payload)
  local cur, code = payload:match("^(%d+)\n(.*)$")
  return tonumber(cur) or #payload, code or ""
end

function M.complete(payload)
  local cursor, code = split_request(payload)
  local before = code:sub(1, cursor)
  local word = before:match("[%a_][%w_%.:]*$") or ""
  local base, sep, part = word:match("^(.*)([%.:])([%w_]*)$")
  local matches = {}
  if base then
    local v = resolve(base)
    if v ~= nil then
      if type(v) == "string" then v = string end
      for _, k in ipairs(names_of(v, sep == ":")) do
        if k:sub(1, #part) == part then matches[#matches + 1] = base .. sep .. k end
      end
    end
  else
    for _, k in ipairs(names_of(_G)) do
      if k:sub(1, #word) == word then matches[#matches + 1] = k end
    end
    for _, k in ipairs(keywords) do
      if k:sub(1, #word) == word then matches[#matches + 1] = k end
    end
  end
  send({ type = "complete", matches = json.array(matches), cursor_start = cursor - #word, cursor_end = cursor })
  send({ type = "done", status = "ok" })
end

function M.inspect(payload)
  local cursor, code = split_request(payload)
  local before = code:sub(1, cursor)
  local after = code:sub(cursor + 1)
  local word = (before:match("[%a_][%w_%.:]*$") or "") .. (after:match("^[%w_]*") or "")
  word = word:gsub("[%.:]$", "")
  local text
  if word ~= "" then
    local v = resolve(word)
    local ok, s = pcall(function() return require("dlbench.help").text(v ~= nil and v or word) end)
    if ok and type(s) == "string" then text = s end
  end
  send({ type = "inspect", found = text ~= nil, data = text and { ["text/plain"] = text } or {} })
  send({ type = "done", status = "ok" })
end

function M.handle(op, payload)
  if op == "execute" then return M.execute(payload) end
  if op == "complete" then return M.complete(payload) end
  if op == "inspect" then return M.inspect(payload) end
  error("dlbench kernel: unknown request '" .. tostring(op) .. "'", 0)
end

-- An error or an interrupt of the last request (called by host/kernel.c with the message
-- and its traceback): a Jupyter error whose value names the cell and line ("In[3]:2: ...").
function M.on_error(msg, interrupted)
  msg = type(msg) == "string" and msg or tostring(msg)
  local head, tb, note = msg:match("^(.-)\nstack traceback:\n(.-)\n(sweep: .*)$")
  if not head then head, tb = msg:match("^(.-)\nstack traceback:\n(.*)$") end
  head = head or msg
  local lines = { head }
  if tb then
    local kept, user = {}, false
    for l in (tb .. "\n"):gmatch("([^\n]*)\n") do
      -- the kernel's own frames and the C frames around them are not the user's
      if not l:find("dlbench/kernel.lua", 1, true) and not l:match("^%s*%[C%]: in %?$")
        and not l:find("in function <", 1, true) then
        kept[#kept + 1] = l
        if not l:match("^%s*%[C%]") and not l:match("^%s*%(%.%.%.tail calls%.%.%.%)") then user = true end
      end
    end
    -- a syntax error has no frame of the user's: its message alone
    if user then
      lines[#lines + 1] = "stack traceback:"
      for _, l in ipairs(kept) do lines[#lines + 1] = l end
    end
  end
  if note then lines[#lines + 1] = note end
  send({ type = "error", ename = interrupted and "KeyboardInterrupt" or "LuaError",
    evalue = head .. (note and ("\n" .. note) or ""), traceback = lines })
  send({ type = "done", status = "error" })
end

return M
