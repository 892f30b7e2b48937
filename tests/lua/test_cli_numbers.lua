-- test_cli_numbers.lua — `dlbench plan`'s number options (lua/dlbench/cli_plan.lua) read
-- decimal text only, by the one rule of every dlbench number text (table_io.csvnumber, as
-- dlb.read_csv and the hw CSV): before, tonumber took hexadecimal, which Lua 5.4 wraps to
-- 64-bit integers (--gpus 0x10000000000000008 was 8 GPUs there, 1.8e19 under LuaJIT) and
-- binary under LuaJIT only ("0b101" was 5 GPUs there, refused under Lua 5.4). Calls the CLI's
-- own code with os.exit and io.stderr replaced; the same results under both backends.
local T = require("harness")
local cli = require("dlbench.cli_plan")

-- Runs cli.plan(args); returns the exit status (nil when it returned) and the stderr text.
local function run(args)
  local err = {}
  local fake = { write = function(self, ...) for _, s in ipairs({ ... }) do err[#err + 1] = s end return self end,
    flush = function() end }
  local real_exit, real_err = os.exit, io.stderr
  os.exit = function(st) error({ exit = st }, 0) end
  io.stderr = fake
  local out = { write = function(self) return self end, flush = function() end }
  local ok, e = pcall(cli.plan, args, out)
  os.exit, io.stderr = real_exit, real_err
  if ok then return nil, table.concat(err) end
  if type(e) ~= "table" then error(e, 0) end
  return e.exit, table.concat(err)
end

T.test("--gpus: hexadecimal and binary text are refused, one message on both backends", function()
  for _, s in ipairs({ "0x10", "0x10000000000000008", "0b101", "0X8", "1_000", "8 GPUs", "" }) do
    local st, msg = run({ "gpt", "--hw", "H100", "--gpus", s })
    T.eq(st, 2, s)
    T.eq(msg, "dlbench plan: --gpus must be a whole number >= 1, got '" .. s .. "'\n", s)
  end
end)

T.test("--tokens, --price, --seq, --batch: the same rule", function()
  for _, c in ipairs({ { "--tokens", "0x1p40", "number > 0" }, { "--price", "0b10", "number > 0" },
      { "--seq", "0x800", "whole number >= 1" }, { "--batch", "0x40", "whole number >= 1" } }) do
    local st, msg = run({ "gpt", "--hw", "H100", "--gpus", "8", c[1], c[2] })
    T.eq(st, 2, c[1])
    T.eq(msg, "dlbench plan: " .. c[1] .. " must be a " .. c[3] .. ", got '" .. c[2] .. "'\n", c[1])
  end
end)

T.test("decimal text is read: 8, 8.0, 8e0, 15e12, .5", function()
  for _, s in ipairs({ "8", "8.0", "8e0", " 8" }) do
    local st, msg = run({ "gpt", "--hw", "H100", "--gpus", s, "--tokens", "15e12", "--price", ".5" })
    T.eq(st, nil, s .. ": " .. msg)
  end
  local st, msg = run({ "gpt", "--hw", "H100", "--gpus", "8.5" })
  T.eq(st, 2); T.eq(msg, "dlbench plan: --gpus must be a whole number >= 1, got '8.5'\n")
end)

T.done()
