-- test_onnx_transpose.lua — review 17 (b): the ONNX importer's rule for Transpose. A swap of
-- the last two axes whose every reader takes it as a MatMul / Gemm operand (and which is no
-- graph output) is the GEMM's transpose flag, not a copy: ONNX Runtime's
-- MatmulTransposeFusion (onnxruntime/core/optimizer/matmul_transpose_fusion.cc) folds it into
-- FusedMatMul's transA/transB; PyTorch's F.linear / x @ w.t() give cuBLAS the strided view
-- (docs/import.md). Each case is imported from protobuf bytes written here and compared with
-- the same product written without the Transpose (Gemm's own transB, or a plain MatMul): the
-- whole training step's FLOPs, bytes, parameters and footprint equal. A Transpose another op
-- also reads, or that is a graph output, stays a copy. Both backends.
local T = require "harness"
local H = require "hostile_files"
local dlb = require "dlbench"

local dir = T.tmpdir()
local n = 0
-- x [batch, K] (an input), weights as initializers, nodes; output y [batch, N]
local function import(nodes, inits, K, outs)
  local outputs = {}
  for _, o in ipairs(outs) do outputs[#outputs + 1] = H.value_info(o[1], H.tensor_type(1, o[2])) end
  local m = H.model(H.graph { nodes = nodes, inits = inits,
    inputs = { H.value_info("x", H.tensor_type(1, { "batch", K })) }, outputs = outputs }, 13)
  n = n + 1
  local p = dir .. "/t" .. n .. ".onnx"
  local f = assert(io.open(p, "wb")); f:write(m); f:close()
  return dlb.models.from_onnx(p, { quiet = true })
end
local function transposes(g)
  local c = 0
  for _, o in ipairs(g:ops { batch = 8 }) do if o.type == "transpose" then c = c + 1 end end
  return c
end
local function same(a, b, what)
  local sa, sb = a:stats { batch = 8 }, b:stats { batch = 8 }
  for _, k in ipairs { "flops", "bytes", "params", "footprint" } do
    T.eq(sa[k], sb[k], what .. " " .. k)
  end
end
local perm = H.attr_ints("perm", { 1, 0 })
local function attr_int(name, v) return H.bytes(1, name) .. H.int(20, 2) .. H.int(3, v) end

T.test("Transpose(W) -> MatMul = Gemm transB (a Linear as torch exports it)", function()
  local folded = import({ H.node("Transpose", { "w" }, { "wt" }, "t", { perm }),
    H.node("MatMul", { "x", "wt" }, { "y" }, "mm") }, { H.initializer("w", { 32, 16 }) }, 16, { { "y", { "batch", 32 } } })
  local gemm = import({ H.node("Gemm", { "x", "w" }, { "y" }, "mm", { attr_int("transB", 1) }) },
    { H.initializer("w", { 32, 16 }) }, 16, { { "y", { "batch", 32 } } })
  T.eq(transposes(folded), 0, "no transpose op")
  same(folded, gemm, "Transpose+MatMul vs Gemm transB")
end)

T.test("Transpose(W) -> Gemm transB = MatMul: the flags compose", function()
  local folded = import({ H.node("Transpose", { "w" }, { "wt" }, "t", { perm }),
    H.node("Gemm", { "x", "wt" }, { "y" }, "mm", { attr_int("transB", 1) }) },
    { H.initializer("w", { 16, 32 }) }, 16, { { "y", { "batch", 32 } } })
  local plain = import({ H.node("MatMul", { "x", "w" }, { "y" }, "mm") },
    { H.initializer("w", { 16, 32 }) }, 16, { { "y", { "batch", 32 } } })
  T.eq(transposes(folded), 0, "no transpose op")
  same(folded, plain, "Transpose+Gemm transB vs MatMul")
end)

T.test("Transpose(x) as operand A: the GEMM's transpose_a", function()
  -- y = x^T x' with x [batch, 16]: [16, batch] @ [batch, 16]; the same as Gemm transA
  local folded = import({ H.node("Transpose", { "x" }, { "xt" }, "t", { perm }),
    H.node("MatMul", { "xt", "x" }, { "y" }, "mm") }, {}, 16, { { "y", { 16, 16 } } })
  local gemm = import({ H.node("Gemm", { "x", "x" }, { "y" }, "mm", { attr_int("transA", 1) }) },
    {}, 16, { { "y", { 16, 16 } } })
  T.eq(transposes(folded), 0, "no transpose op")
  same(folded, gemm, "Transpose+MatMul vs Gemm transA")
end)

T.test("a Transpose another node reads, or a graph output, stays a copy", function()
  local w = { H.initializer("w", { 32, 16 }) }
  local both = import({ H.node("Transpose", { "w" }, { "wt" }, "t", { perm }),
    H.node("MatMul", { "x", "wt" }, { "y" }, "mm"), H.node("Relu", { "wt" }, { "r" }, "relu") }, w, 16,
    { { "y", { "batch", 32 } }, { "r", { 16, 32 } } })
  T.eq(transposes(both) > 0, true, "read by a Relu too: a transpose op")
  local out = import({ H.node("Transpose", { "w" }, { "wt" }, "t", { perm }),
    H.node("MatMul", { "x", "wt" }, { "y" }, "mm") }, w, 16,
    { { "y", { "batch", 32 } }, { "wt", { 16, 32 } } })
  T.eq(transposes(out) > 0, true, "a graph output: a transpose op")
  -- a permutation that is not a swap of the last two axes (rank 3, [1, 0, 2]) is a copy
  local w3 = { H.initializer("w3", { 2, 16, 32 }), H.initializer("m", { 32, 8 }), H.initializer("wx", { 16, 8 }) }
  local p3 = import({ H.node("Transpose", { "w3" }, { "wt" }, "t", { H.attr_ints("perm", { 1, 0, 2 }) }),
    H.node("MatMul", { "wt", "m" }, { "z" }, "mz"), H.node("MatMul", { "x", "wx" }, { "y" }, "mm") }, w3, 16,
    { { "y", { "batch", 8 } }, { "z", { 16, 2, 8 } } })
  T.eq(transposes(p3) > 0, true, "perm [1, 0, 2]: a transpose op")
end)

os.execute("rm -rf '" .. dir .. "'")
T.done()
