-- dlbench.models.rnn — the recurrent models: Hestness et al.'s word LM, character LM (RHN),
-- NMT and speech encoder-decoders (seeds/000 §2, sizes from the graphs they profiled with
-- Catamount), TBD's Seq2Seq and Deep Speech 2 (seeds/001 Table II). Recurrent layers are
-- unrolled, so sequence lengths are numbers; hidden sizes, vocabularies and the batch may
-- be symbolic ("h", "v", "b").
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local poly = require "dlbench.poly"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

local function psum(a, b) return tostring(poly.new(C.d(a)) + poly.new(C.d(b))) end
local function dimadd(a, b)
  if type(a) == "number" and type(b) == "number" then return a + b end
  return psum(a, b)
end

local function reverse(t)
  local r = {}
  for i = 1, #t do r[i] = t[#t + 1 - i] end
  return r
end

-- A bidirectional LSTM layer over xs: per step concat(fw, bw) [b, 2h].
local function bilstm(g, xs, h, name)
  local fw = nn.lstm(g, xs, { hidden = h, name = name .. "/fw" })
  local bw = reverse(nn.lstm(g, reverse(xs), { hidden = h, name = name .. "/bw" }))
  local r = {}
  for t = 1, #xs do r[t] = g:concat({ fw[t], bw[t] }, 2) end
  return r
end

-- Stack a list of [b, h] steps into [b, q, h].
local function stack(g, xs, b, h)
  local q = #xs
  local parts = {}
  for t = 1, q do parts[t] = g:reshape(xs[t], { b, 1, h }) end
  return C.concat(g, parts, 2)
end

-- Output layer over all steps at once: [b*q, h] x [h, v] + softmax cross-entropy.
local function output_loss(g, outs, b, h, v, name)
  local q = #outs
  local all = C.concat(g, outs, 1)        -- [q*b, h]
  local logits = nn.linear(g, all, v, { name = name })
  return g:softmax_xent(logits, g:label("labels", { C.mul(q, b) }), name .. "/loss")
end

local WORD = {
  { "batch", "b", "dim", "sequences per step" },
  { "hidden", 2004, "dim", "LSTM units per layer (Catamount word_lm_n2004_l2_..._s80)" },
  { "layers", 2, "count", "LSTM layers" },
  { "vocab", 10004, "dim", "vocabulary (10k words + specials)" },
  { "steps", 80, "count", "unrolled sequence length (§4: 481 FLOPs/param ~ 6 x 80)", { "seq" } },
  { "embed", nil, "dim", "embedding size (default: hidden)" },
  { "proj", nil, "dim", "LSTM projection of the last layer (§6.1; Sak et al. 2014), e.g. 1024" },
  { "optimizer", "sgd", OPT, "default optimizer for g:stats (the profiled graph used SGD)" },
}

-- Word LM (Hestness §2, §4.2): embedding, `layers` LSTM layers, FC output and softmax over
-- the vocabulary at every step. p ~ 8h^2 l + 2hv, fwd FLOPs ~ q(16h^2 l + 2hv) per sample.
-- With proj=p the last layer is an LSTMP: its recurrence and the output layer read the
-- projected state r = h W_p [h -> p].
function M.word_lm(opts)
  local what = "dlb.models.word_lm"
  local o = C.options(opts, WORD, what)
  local b, h, v, q = o.batch, o.hidden, o.vocab, o.steps
  local e = o.embed or h
  local g = C.graph("word_lm", o, o.optimizer)
  g:layer("embedding")
  local ids = g:input("ids", { b, q }, "int32")
  local xs = C.unstack(g, nn.embedding(g, ids, v, e, { name = "embedding" }), "embedding")
  local ins = xs
  for l = 1, o.layers do
    local last = l == o.layers
    if last and o.proj then
      local name = "lstm/l" .. l
      g:layer(name)
      local p = o.proj
      -- an LSTMP's gate weights read [x, r]: rows nin + p
      local P = { w = g:weight(name .. "/w", { dimadd(ins[1]:dims()[2], p), C.mul(4, h) }),
                  b = g:weight(name .. "/b", { C.mul(4, h) }) }
      local wp = g:weight(name .. "/proj", { h, p })
      local r = g:tensor(name .. "/r0", { b, p }, { role = "activation" })
      local c = g:tensor(name .. "/c0", { b, h }, { role = "activation" })
      local outs = {}
      for t = 1, #ins do
        local hf
        hf, c = nn.lstm_cell(g, ins[t], r, c, P)
        r = g:matmul(hf, wp)
        outs[t] = r
      end
      ins = outs
    else
      ins = nn.lstm(g, ins, { hidden = h, name = "lstm/l" .. l })
    end
  end
  g:layer("output")
  g:loss(output_loss(g, ins, b, o.proj or h, v, "output"))
  g:layer(nil)
  return g
end
doc.doc(M.word_lm, "dlb.models.word_lm{batch=\"b\", hidden=2004, layers=2, vocab=10004, steps=80, embed=hidden, proj=nil, optimizer=\"sgd\"} -> graph",
  "Hestness et al.'s LSTM word LM; proj= adds the §6.1 LSTM projection to the last layer")

local CHAR = {
  { "batch", "b", "dim", "sequences per step" },
  { "hidden", 2004, "dim", "RHN units (Catamount char_lm_n2004_l10_..._rhn_s150)" },
  { "depth", 10, "count", "highway sublayers per step (recurrence depth)" },
  { "layers", 1, "count", "stacked RHN layers" },
  { "vocab", 98, "dim", "characters" },
  { "steps", 150, "count", "unrolled sequence length (§4.2: 150 time-steps)", { "seq" } },
  { "embed", nil, "dim", "embedding size (default: hidden)" },
  { "optimizer", "sgd", OPT, "default optimizer for g:stats" },
}

-- Character LM (Hestness §2; Zilly et al. 2017): embedding, a recurrent highway network of
-- `depth` sublayers per step (H and T transforms, coupled carry gate), FC output, softmax.
function M.char_lm(opts)
  local what = "dlb.models.char_lm"
  local o = C.options(opts, CHAR, what)
  local b, h, v, q = o.batch, o.hidden, o.vocab, o.steps
  local g = C.graph("char_lm", o, o.optimizer)
  g:layer("embedding")
  local ids = g:input("ids", { b, q }, "int32")
  local ins = C.unstack(g, nn.embedding(g, ids, v, o.embed or h, { name = "embedding" }), "embedding")
  for l = 1, o.layers do ins = nn.rhn(g, ins, { hidden = h, depth = o.depth, name = "rhn" .. l }) end
  g:layer("output")
  g:loss(output_loss(g, ins, b, h, v, "output"))
  g:layer(nil)
  return g
end
doc.doc(M.char_lm, "dlb.models.char_lm{batch=\"b\", hidden=2004, depth=10, layers=1, vocab=98, steps=150, embed=hidden} -> graph",
  "Hestness et al.'s recurrent-highway-network character LM")

-- Luong "general" attention after the decoder (no input feeding): scores D Wa H^T, softmax,
-- context alpha H, attentional state tanh([c; d] Wc). enc [b, S, he], dec [b, T, hd].
local function luong(g, enc, dec, he, hd, name)
  local wa = g:weight(name .. "/Wa", { hd, he })
  local scores = g:matmul(g:matmul(dec, wa), enc, { transpose_b = true, name = name .. "/scores" })
  local alpha = g:softmax(scores)
  local ctx = g:matmul(alpha, enc, { name = name .. "/context" })
  local wc = g:weight(name .. "/Wc", { dimadd(he, hd), hd })
  return g:tanh(g:matmul(g:concat({ ctx, dec }, 3), wc))
end

-- The attention encoder-decoder of nmt and seq2seq (Luong et al. 2015 as TF NMT builds it)
-- into g: source and target embeddings of width e (vocabularies vocab and tgt_vocab), a
-- bidirectional first encoder layer of h per direction then unidirectional ones
-- (o.encoder_layers), an LSTM decoder (o.decoder_layers), Luong attention over the encoder
-- states after the decoder (no input feeding), softmax over the target vocabulary.
-- S source and T target steps, b sequences.
local function encoder_decoder(g, o, b, h, e, S, T, vocab, tgt_vocab)
  g:layer("embedding")
  local src = C.unstack(g, nn.embedding(g, g:input("src", { b, S }, "int32"), vocab, e, { name = "src_embedding" }), "src")
  local tgt = C.unstack(g, nn.embedding(g, g:input("tgt", { b, T }, "int32"), tgt_vocab, e, { name = "tgt_embedding" }), "tgt")
  local ins = bilstm(g, src, h, "encoder/l1")
  for l = 2, o.encoder_layers do ins = nn.lstm(g, ins, { hidden = h, name = "encoder/l" .. l }) end
  local he = o.encoder_layers == 1 and C.mul(2, h) or h
  local dec = nn.lstm(g, tgt, { hidden = h, layers = o.decoder_layers, name = "decoder" })
  g:layer("attention")
  local att = luong(g, stack(g, ins, b, he), stack(g, dec, b, h), he, h, "attention")
  g:layer("output")
  local logits = nn.linear(g, g:reshape(att, { C.mul(T, b), h }), tgt_vocab, { name = "output" })
  g:loss(g:softmax_xent(logits, g:label("labels", { C.mul(T, b) }), "loss"))
  g:layer(nil)
  return g
end

local NMT = {
  { "batch", "b", "dim", "sentence pairs per step" },
  { "hidden", 1024, "dim", "LSTM units (Catamount nmt_el2_dl1_n1024)" },
  { "encoder_layers", 1, "count", "encoder layers; the first is bidirectional (h per direction). Catamount's graph (TF NMT num_encoder_layers=2 with a bi encoder) has one bidirectional layer" },
  { "decoder_layers", 1, "count", "decoder LSTM layers" },
  { "vocab", 36548, "dim", "source = target word-piece vocabulary" },
  { "steps", 26, "count", "source = target length (scaling_domains: 26; 149 FLOPs/param ~ 5.5 x 27)", { "seq" } },
  { "tgt_steps", nil, "count", "target length if different", { "tgt_seq" } },
  { "optimizer", "sgd", OPT, "default optimizer for g:stats" },
}

-- NMT (Hestness §2; Luong et al. 2015): source and target embeddings, a bidirectional first
-- encoder layer then unidirectional ones, an LSTM decoder, global attention, output softmax.
-- The default is the graph Catamount profiled (tests/full/tf_language_models.py: one
-- encoder/bidirectional_rnn with fw and bw cells of [2h, 4h], a [2h, h] attention memory
-- layer, a [3h, h] attention layer). Its decoder cell is [3h, 4h] (input feeding: the
-- previous attentional state joins the input); ours reads [2h, 4h] (attention after the
-- decoder), h x 4h fewer parameters.
function M.nmt(opts)
  local what = "dlb.models.nmt"
  local o = C.options(opts, NMT, what)
  local b, h, v, S = o.batch, o.hidden, o.vocab, o.steps
  local T = o.tgt_steps or S
  return encoder_decoder(C.graph("nmt", o, o.optimizer), o, b, h, h, S, T, v, v)
end
doc.doc(M.nmt, "dlb.models.nmt{batch=\"b\", hidden=1024, encoder_layers=1, decoder_layers=1, vocab=36548, steps=26, tgt_steps=steps} -> graph",
  "Hestness et al.'s NMT: bi-LSTM encoder, LSTM decoder, Luong attention")

local SPEECH = {
  { "batch", "b", "dim", "utterances per step" },
  { "hidden", 1051, "dim", "encoder LSTM units per direction (Catamount speech_attention)" },
  { "layers", 3, "count", "bidirectional encoder layers, a 2x time pooling between each" },
  { "features", 40, "int", "audio features per frame" },
  { "steps", 300, "count", "encoder (audio) time steps (§4.2: 300)", { "seq" } },
  { "out_steps", nil, "count", "decoder (character) steps (default: the encoder's output length, steps / 2^(layers-1) = 75 at 300 frames, as Catamount binds decoder_steps = encoder_steps // 2 // 2)", { "tgt_seq" } },
  { "vocab", 31, "dim", "output characters" },
  { "attn_hidden", 509, "dim", "attention LSTM cell units" },
  { "dec_hidden", 571, "dim", "decoder LSTM cell units" },
  { "attn_dim", 137, "dim", "attention energy dimension" },
  { "conv_width", 53, "int", "location-attention convolution width" },
  { "conv_filters", 4, "int", "location-attention filters" },
  { "optimizer", "sgd", OPT, "default optimizer for g:stats" },
}

-- Speech (Hestness §2; Chorowski et al. 2015 hybrid attention), the structure Catamount
-- read from the profiled graph: `layers` bi-LSTM encoder layers with average pooling of
-- adjacent frames between them; a decoder of two LSTM cells per step (attention cell on
-- [previous context, previous character one-hot], decoder cell on [attention state,
-- context]); hybrid (content + location) attention: the encoder states projected once, per
-- step a conv1d over the previous alignment, a 1x1 conv, tanh, a dot with w, softmax.
function M.speech(opts)
  local what = "dlb.models.speech"
  local o = C.options(opts, SPEECH, what)
  local b, h = o.batch, o.hidden
  if o.steps % (2 ^ (o.layers - 1)) ~= 0 then
    C.fail(what, SPEECH, "steps=" .. o.steps .. " must be divisible by 2^(layers-1) for the time pooling")
  end
  if o.conv_width % 2 == 0 then
    C.fail(what, SPEECH, "conv_width=" .. o.conv_width .. " must be odd (a centred location filter)")
  end
  local g = C.graph("speech", o, o.optimizer)
  g:layer("input")
  local xs = C.unstack(g, g:input("audio", { b, o.steps, o.features }), "audio")
  local h2 = C.mul(2, h)
  for l = 1, o.layers do
    if l > 1 then
      g:layer("encoder/pool" .. l - 1)
      local pooled = {}
      for t = 1, #xs / 2 do pooled[t] = g:scale(g:add(xs[2 * t - 1], xs[2 * t])) end
      xs = pooled
    end
    xs = bilstm(g, xs, h, "encoder/l" .. l)
  end
  local S = #xs
  local T = o.out_steps or S -- Catamount: decoder_steps = (encoder_steps // 2) // 2
  g:layer("attention/state")
  local H = stack(g, xs, b, h2)                                        -- [b, S, 2h]
  local VH = nn.linear(g, H, o.attn_dim, { name = "attention/state_proj" })   -- [b, S, A]
  g:layer("decoder")
  local ah, dh = o.attn_hidden, o.dec_hidden
  local Pa = nn.lstm_weights(g, "decoder/attention_cell", dimadd(h2, o.vocab), ah)
  local Pd = nn.lstm_weights(g, "decoder/decoder_cell", dimadd(ah, h2), dh)
  local W = g:weight("attention/W", { C.mul(2, ah), o.attn_dim })
  local ab = g:weight("attention/b", { o.attn_dim })
  local Q = g:weight("attention/Q", { o.conv_filters, 1, o.conv_width })
  local U = g:weight("attention/U", { o.attn_dim, o.conv_filters, 1 })
  local w = g:weight("attention/w", { o.attn_dim, 1 })
  local wo = g:weight("output/w", { dh, o.vocab })
  local bo = g:weight("output/b", { o.vocab })
  local prev = C.unstack(g, g:input("prev_chars", { b, T, o.vocab }), "prev_chars")
  local function zero(name, d) return g:tensor(name, { b, d }, { role = "activation" }) end
  local ha, ca, hd, cd = zero("decoder/ha0", ah), zero("decoder/ca0", ah), zero("decoder/hd0", dh), zero("decoder/cd0", dh)
  local ctx = zero("decoder/ctx0", h2)
  local alpha = g:tensor("decoder/alpha0", { b, 1, S }, { role = "activation" })
  local outs = {}
  for t = 1, T do
    ha, ca = nn.lstm_cell(g, g:concat({ ctx, prev[t] }, 2), ha, ca, Pa)
    -- energies e_j = w . tanh(W [ha; ca] + V h_j + U (Q * alpha_prev)_j + b)
    local ws = g:reshape(g:add(g:matmul(g:concat({ ha, ca }, 2), W), ab), { b, 1, o.attn_dim })
    local f = g:conv1d(alpha, Q, { padding = math.floor(o.conv_width / 2) })    -- [b, F, S]
    local uf = g:transpose(g:conv1d(f, U), { 1, 3, 2 })                          -- [b, S, A]
    local e = g:matmul(g:tanh(g:add(g:add(VH, ws), uf)), w)                      -- [b, S, 1]
    local a = g:softmax(g:reshape(e, { b, S }))
    alpha = g:reshape(a, { b, 1, S })
    ctx = g:reshape(g:matmul(alpha, H), { b, h2 })
    hd, cd = nn.lstm_cell(g, g:concat({ ha, ctx }, 2), hd, cd, Pd)
    outs[t] = hd
  end
  g:layer("output")
  local all = C.concat(g, outs, 1)
  local logits = g:add(g:matmul(all, wo), bo)
  g:loss(g:softmax_xent(logits, g:label("labels", { C.mul(T, b) }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.speech, "dlb.models.speech{batch=\"b\", hidden=1051, layers=3, features=40, steps=300, out_steps=steps/4, vocab=31, attn_hidden=509, dec_hidden=571, attn_dim=137} -> graph",
  "Hestness et al.'s attention speech model: pooled bi-LSTM encoder, hybrid attention decoder")

local S2S = {
  { "batch", "b", "dim", "sentence pairs per step" },
  { "hidden", 512, "dim", "LSTM units (TF NMT's IWSLT'15 En-Vi configuration, TBD's TensorFlow Seq2Seq)" },
  { "encoder_layers", 1, "count", "encoder layers; the first is bidirectional (TF NMT num_layers=2 with a bi encoder = 1 bi layer)" },
  { "decoder_layers", 2, "count", "decoder LSTM layers" },
  { "vocab", 17191, "dim", "source vocabulary (IWSLT'15 English)" },
  { "tgt_vocab", 7709, "dim", "target vocabulary (IWSLT'15 Vietnamese)" },
  { "embed", nil, "dim", "embedding size (default: hidden)" },
  { "steps", 50, "count", "source length (src_max_len 50)", { "seq" } },
  { "tgt_steps", nil, "count", "target length (default: steps)", { "tgt_seq" } },
  { "optimizer", "sgd", OPT, "default optimizer for g:stats (TF NMT IWSLT'15: SGD)" },
}

-- Seq2Seq (TBD Table II: TensorFlow NMT and Sockeye on IWSLT'15), with TF NMT's published
-- IWSLT'15 English-Vietnamese setup: embeddings, a bidirectional LSTM encoder layer (512
-- per direction), a 2-layer LSTM decoder, Luong attention over the 2h-wide encoder states
-- (no input feeding: attention after the decoder), output softmax over the target
-- vocabulary. TBD does not list its hyper-parameters; these are the options to change.
function M.seq2seq(opts)
  local what = "dlb.models.seq2seq"
  local o = C.options(opts, S2S, what)
  local b, h, S = o.batch, o.hidden, o.steps
  local T = o.tgt_steps or S
  local e = o.embed or h
  return encoder_decoder(C.graph("seq2seq", o, o.optimizer), o, b, h, e, S, T, o.vocab, o.tgt_vocab)
end
doc.doc(M.seq2seq, "dlb.models.seq2seq{batch=\"b\", hidden=512, encoder_layers=1, decoder_layers=2, vocab=17191, tgt_vocab=7709, embed=hidden, steps=50, tgt_steps=steps} -> graph",
  "TBD's Seq2Seq (TF NMT IWSLT'15: bi-LSTM encoder, 2-layer LSTM decoder, Luong attention)")

local DS2 = {
  { "batch", "b", "dim", "utterances per step" },
  { "hidden", 1760, "dim", "recurrent units per direction (MXNet example, DS2 paper: 1760)" },
  { "layers", 5, "count", "bidirectional recurrent layers (TBD: MXNet's default 5; the paper 7)" },
  { "cell", "gru", { "gru", "rnn", "lstm" }, "recurrent cell" },
  { "freq", 161, "int", "spectrogram frequency bins (20 ms window)" },
  { "steps", 300, "count", "input frames (3 s at 10 ms hops)", { "seq" } },
  { "vocab", 29, "dim", "output characters incl. blank" },
  { "label_len", 100, "int", "characters per transcript (CTC; at most the output frames, about steps/2)" },
  { "optimizer", "sgd", OPT, "default optimizer (DS2: SGD with Nesterov momentum)" },
}

-- Deep Speech 2 (Amodei et al. 2016; TBD Table II, the MXNet/PyTorch implementations): two
-- 2-D convolutions (32 filters 41x11 stride 2x2, 32 filters 21x11 stride 2x1) with batch
-- norm and ReLU (the paper's clipped ReLU costs the same), `layers` bidirectional GRU (or
-- RNN) layers whose directions are summed, a FC output and CTC loss.
function M.deepspeech2(opts)
  local what = "dlb.models.deepspeech2"
  local o = C.options(opts, DS2, what)
  local b, h = o.batch, o.hidden
  local R = require "dlbench.models.resnet"
  -- output frames: conv1 has time stride 2 (kernel 11, padding 5), conv2 time stride 1
  local frames = C.conv_out(o.steps, 11, 2, 5)
  if o.label_len > frames then
    C.fail(what, DS2, string.format("label_len=%d exceeds the %d output frames of steps=%d (halved by "
      .. "conv1's time stride): CTC needs a frame per character; give steps >= %d or a smaller label_len",
      o.label_len, frames, o.steps, 2 * o.label_len - 1))
  end
  local g = C.graph("deepspeech2", o, o.optimizer)
  g:layer("conv")
  local x = g:input("spectrogram", { b, 1, o.freq, o.steps })
  local y = R.conv_bn(g, x, 32, { 41, 11 }, { stride = { 2, 2 }, padding = { 20, 5 }, name = "conv1" })
  y = R.conv_bn(g, y, 32, { 21, 11 }, { stride = { 2, 1 }, padding = { 10, 5 }, name = "conv2" })
  local d = y:dims()
  local F, T = tonumber(d[3]), tonumber(d[4])
  if not F or not T then C.fail(what, DS2, "freq= and steps= must give numeric conv output sizes") end
  -- [b, 32, F, T] -> steps of [b, 32F]
  local seq = g:reshape(g:transpose(y, { 1, 4, 2, 3 }), { b, T, 32 * F })
  local xs = C.unstack(g, seq, "conv")
  for l = 1, o.layers do
    local name = "rnn" .. l
    local fw = nn.lstm(g, xs, { hidden = h, cell = o.cell, name = name .. "/fw" })
    local bw = reverse(nn.lstm(g, reverse(xs), { hidden = h, cell = o.cell, name = name .. "/bw" }))
    local r = {}
    for t = 1, T do r[t] = g:add(fw[t], bw[t]) end
    xs = r
  end
  g:layer("output")
  local all = C.concat(g, xs, 1)                                    -- [T*b, h], time-major
  local logits = g:reshape(nn.linear(g, all, o.vocab, { name = "fc" }), { T, b, o.vocab })
  g:loss(g:ctc(logits, g:label("transcripts", { b, o.label_len }), "ctc"))
  g:layer(nil)
  return g
end
doc.doc(M.deepspeech2, "dlb.models.deepspeech2{batch=\"b\", hidden=1760, layers=5, cell=\"gru\", freq=161, steps=300, vocab=29, label_len=100} -> graph",
  "Deep Speech 2: 2 conv layers, bidirectional GRU/RNN layers, CTC")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["word_lm"] = WORD, ["char_lm"] = CHAR, ["nmt"] = NMT, ["speech"] = SPEECH, ["seq2seq"] = S2S, ["deepspeech2"] = DS2 }

return M
