-- test_nested_pairs.lua — a static check: no `for ... in pairs(...)` / `next` loop runs
-- lexically inside the body of another `for ... in pairs(...)` loop in lua/dlbench,
-- notebooks/lib or tests/lua/harness.lua. The installed LuaJIT 2.1.0-beta3 can end the
-- OUTER loop early when a pairs loop runs inside it (LuaJIT issue #827; never with -joff;
-- docs/security.md "LuaJIT #827"), which let a bad value through a check under FFI. Nested
-- walks collect the keys first, sort them and iterate with ipairs. Only the lexical form
-- is checked (a pairs loop in a helper called from a pairs body is reviewed by hand).
-- Runs under both backends (plain io and string only).
local T = require("harness")

-- Justified exceptions: "path:line" of the INNER loop -> why. Keep empty when possible.
local ALLOW = {
}

-- Strip comments and string literals from Lua source, keeping line breaks so that line
-- numbers stay right. Handles --[[ ]], --[==[ ]==], "..", '..' with escapes and [[ ]].
local function strip(src)
  local out, i, n = {}, 1, #src
  local function keep_newlines(s) return (s:gsub("[^\n]", "")) end
  while i <= n do
    local c = src:sub(i, i)
    if src:sub(i, i + 1) == "--" then
      local eq = src:match("^%[(=*)%[", i + 2)
      if eq then
        local close = "]" .. eq .. "]"
        local j = src:find(close, i + 4 + #eq, true) or n
        out[#out + 1] = keep_newlines(src:sub(i, j + #close - 1))
        i = j + #close
      else
        local j = src:find("\n", i, true) or (n + 1)
        i = j
      end
    elseif c == '"' or c == "'" then
      local j = i + 1
      while j <= n do
        local d = src:sub(j, j)
        if d == "\\" then j = j + 2
        elseif d == c or d == "\n" then break
        else j = j + 1 end
      end
      out[#out + 1] = '""' .. keep_newlines(src:sub(i, j))
      i = j + 1
    elseif c == "[" and src:match("^%[=*%[", i) then
      local eq = src:match("^%[(=*)%[", i)
      local close = "]" .. eq .. "]"
      local j = src:find(close, i + 2 + #eq, true) or n
      out[#out + 1] = '""' .. keep_newlines(src:sub(i, j + #close - 1))
      i = j + #close
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return table.concat(out)
end

-- Returns a list of { line = inner, outer = outer line } for every pairs/next loop whose
-- header lies inside the body of an enclosing pairs/next loop.
local function scan(src)
  local code = strip(src)
  local found = {}
  local stack = {}          -- open blocks: { kind = "pairs"|"other"|"repeat", line = n }
  local pending_for = nil   -- a `for` header seen, waiting for its `do`
  local line = 1
  local pos, n = 1, #code
  local function pairs_open()
    for k = #stack, 1, -1 do
      if stack[k].kind == "pairs" then return stack[k] end
    end
  end
  while pos <= n do
    local c = code:sub(pos, pos)
    if c == "\n" then
      line = line + 1; pos = pos + 1
    elseif c:match("[%a_]") then
      local word = code:match("^[%w_]+", pos)
      local prev = pos > 1 and code:sub(pos - 1, pos - 1) or ""
      pos = pos + #word
      if prev == "." or prev == ":" then
        -- a field name (t.end, obj:do): not a keyword
      elseif word == "for" then
        pending_for = { line = line, pairs = false }
      elseif (word == "pairs" or word == "next") and pending_for then
        pending_for.pairs = true
      elseif word == "do" then
        if pending_for then
          local kind = pending_for.pairs and "pairs" or "other"
          if kind == "pairs" then
            local outer = pairs_open()
            if outer then found[#found + 1] = { line = pending_for.line, outer = outer.line } end
          end
          stack[#stack + 1] = { kind = kind, line = pending_for.line }
          pending_for = nil
        else
          stack[#stack + 1] = { kind = "other", line = line }  -- while ... do / do ... end
        end
      elseif word == "function" or word == "if" then
        stack[#stack + 1] = { kind = word == "function" and "function" or "other", line = line }
      elseif word == "repeat" then
        stack[#stack + 1] = { kind = "repeat", line = line }
      elseif word == "end" or word == "until" then
        stack[#stack] = nil
      end
    else
      pos = pos + 1
    end
  end
  return found, #stack
end

-- A function body inside a pairs loop is not run by that loop's body unless called there;
-- the check is lexical on purpose: a closure defined in a pairs body and called there is the
-- same hazard, and the cheap rule is "no pairs header inside a pairs body".

local function files()
  local list = {}
  local p = io.popen("ls lua/dlbench/*.lua lua/dlbench/*/*.lua notebooks/lib/*.lua "
    .. "tests/lua/harness.lua 2>/dev/null")
  for f in p:lines() do list[#list + 1] = f end
  p:close()
  return list
end

T.test("the scanner finds a nested pairs loop and ignores strings and comments", function()
  local src = "for k in pairs(a) do\n  -- for x in pairs(b) do end\n  local s = 'for y in pairs(c) do'\n"
    .. "  for j, v in next, b do end\nend\nfor k in pairs(a) do end\n"
  local found, open = scan(src)
  T.eq(#found, 1); T.eq(found[1].line, 4); T.eq(found[1].outer, 1); T.eq(open, 0)
  local flat = "for k in pairs(a) do x = 1 end\nfor _, k in ipairs(ks) do\n for j in pairs(b) do end\nend\n"
  T.eq(#scan(flat), 0)
end)

T.test("no pairs loop lexically inside another pairs loop's body", function()
  local list = files()
  assert(#list > 50, "found only " .. #list .. " Lua files: run from the source tree's root")
  local bad = {}
  for _, f in ipairs(list) do
    local h = assert(io.open(f, "rb")); local src = h:read("*a"); h:close()
    local found, open = scan(src)
    assert(open == 0, f .. ": the block scanner lost track (" .. open .. " blocks left open)")
    for _, hit in ipairs(found) do
      local key = f .. ":" .. hit.line
      if not ALLOW[key] then
        bad[#bad + 1] = key .. " (inside the pairs loop at line " .. hit.outer .. ")"
      end
    end
  end
  assert(#bad == 0, "nested pairs loops (LuaJIT #827; collect the keys, sort, ipairs):\n  "
    .. table.concat(bad, "\n  "))
end)

T.done()
