-- dlbench.scaling_domains — the per-domain constants of Hestness, Ardalani, Diamos, "Beyond
-- Human-Level Accuracy: Computational Challenges in Deep Learning" (PPoPP'19): Table 1
-- (learning curve and model size), Table 2 (asymptotic per-parameter costs) and, for
-- comparison only, Table 3 (the paper's projections). Exposed as dlb.scaling.domains.
--
-- Units. Errors are stored in the units the learning curve eps(m) = alpha*m^beta_g was
-- fitted in, which Table 1's own numbers pin down: alpha * m^beta_g at the current data size
-- gives the current SOTA (word LM 13.0 * 768e6^-0.066 = 3.369 nat/word vs 3.37; NMT
-- 3.06 * 130e6^-0.128 = 0.280 vs 28%; speech 0.094 vs 9.5%; image 0.194 vs 19.4%; char LM
-- 1.244 vs 1.30 bit/char). So percentages are fractions here, and "Top-1" for images is the
-- top-1 *error* (19.4% error = 80.6% accuracy). Every metric is an error: lower is better,
-- and the desired SOTA is the target error.
-- Data size m is counted in the domain's sample unit (words, characters, word pieces,
-- transcript characters, images); `data_gb` is Table 1's size on disk.
-- Model size p(m) = sigma * m^beta_p gives parameters in *millions* (`sigma_unit` = 1e6): the
-- word LM's 9.4e-4 * 768e6^0.68 = 1035, the "roughly 1B parameters" of §3.3; NMT 211 -> 18.99B
-- projected vs Table 3's 18.9B; image 61 (ResNet-152 has 60M) -> 742M vs 732M.
-- Table 2 costs per training step: FLOPs = flops_per_param * b * p, bytes = lambda * p +
-- mu * b * sqrt(p), minimal footprint = footprint_per_param * p (bytes); b the subbatch.
local SRC = "Hestness, Ardalani, Diamos, PPoPP'19"

local function domain(t)
  t.source = SRC .. ", Table 1 (learning curve, model size), Table 2 (costs); "
    .. "Table 3 under .paper.table3 is the paper's projection, for comparison"
  t.sigma_unit = 1e6
  return t
end

local D = {}

D.word_lm = domain {
  name = "Word LMs (LSTM)", key = "word_lm",
  metric = "nat/word (cross-entropy)",
  current = 3.37, desired = 2.48,
  desired_source = "[31] Shannon 1951, entropy of printed English",
  data_size = 768e6, data_unit = "words", data_gb = 3.9,
  alpha = 13.0, beta_g = -0.066, sigma = 9.4e-4, beta_p = 0.68,
  costs = { flops_per_param = 481, lambda = 1755, mu = 30784, footprint_per_param = 11.94,
            intensity = { 3.65, 64 } },
  -- Tokens per training sample, for epoch time (the paper does not state it): the word LM
  -- graph the paper profiled unrolls 80 steps (Catamount's word_lm_..._s80 checkpoint), which
  -- Table 2's 481 FLOPs/param ~ 6 x 80 also implies.
  tokens_per_sample = 80,
  tokens_source = "80-step unroll of the profiled word LM (481 FLOPs/param ~ 6 x 80)",
  paper = { data_scale = 100, model_scale = 23,
            table3 = { data = 77e9, params = 23.8e9, subbatch = 128, tflops = 1444, tb = 41.5,
                       footprint_gb = 272, step_s = 115, epoch_days = 31e3 } },
}

D.char_lm = domain {
  name = "Character LMs (RHN)", key = "char_lm",
  metric = "bit/char (cross-entropy)",
  current = 1.30, desired = 0.70,
  desired_source = "[31] Shannon 1951, entropy of printed English",
  data_size = 3.48e9, data_unit = "characters", data_gb = 3.9,
  alpha = 9.39, beta_g = -0.092, sigma = 1.2e-5, beta_p = 0.89,
  costs = { flops_per_param = 900, lambda = 3510, mu = 102980, footprint_per_param = 12.47,
            intensity = { 3.9, 114 } },
  tokens_per_sample = 150,
  tokens_source = "§4.2: character LMs unroll 150 time-steps",
  paper = { data_scale = 971, model_scale = 456,
            table3 = { data = 3.4e12, params = 146e9, subbatch = 96, tflops = 12618, tb = 488.1,
                       footprint_gb = 1703, step_s = 1007, epoch_days = 3.5e6 } },
}

D.nmt = domain {
  name = "NMT (enc/dec+attn)", key = "nmt",
  metric = "word-piece error rate (fraction)",
  current = 0.28, desired = 0.12,
  desired_source = "Table 1 (expert feedback, no reference given)",
  data_size = 130e6, data_unit = "word pieces", data_gb = 2.6,
  alpha = 3.06, beta_g = -0.128, sigma = 6.4e-4, beta_p = 0.68,
  costs = { flops_per_param = 149, lambda = 533, mu = 22653, footprint_per_param = 10.32,
            intensity = { 3.6, 151 } },
  tokens_per_sample = 26,
  tokens_source = "sequence length 26 bound in the paper's NMT graph analysis (Catamount)",
  paper = { data_scale = 750, model_scale = 90,
            table3 = { data = 97.4e9, params = 18.9e9, subbatch = 96, tflops = 499, tb = 18.4,
                       footprint_gb = 185, step_s = 39.8, epoch_days = 16e3 } },
}

D.speech = domain {
  name = "Speech Recogn. (enc/dec+attn)", key = "speech",
  metric = "character error rate (fraction)",
  current = 0.095, desired = 0.04,
  desired_source = "[39] Xiong et al. 2017, Microsoft conversational speech system",
  data_size = 425e6, data_unit = "characters (transcripts)", data_gb = 1674,
  alpha = 30.5, beta_g = -0.291, sigma = 2.4e-3, beta_p = 0.54,
  costs = { flops_per_param = 775, lambda = 3100, mu = 162750, footprint_per_param = 32.94,
            intensity = { 4.0, 210 } },
  -- characters per utterance are not given (the 300 unrolled steps are audio frames)
  tokens_per_sample = nil,
  tokens_source = "not given in the paper (its 300 time-steps are audio frames, not characters)",
  paper = { data_scale = 33, model_scale = 6.6,
            table3 = { data = 14e9, params = 727e6, subbatch = 128, tflops = 72, tb = 2.8,
                       footprint_gb = 30, step_s = 5.8, epoch_days = 93 } },
}

D.image = domain {
  name = "Image Classification (ResNet)", key = "image",
  metric = "top-1 error (fraction)",
  current = 0.194, desired = 0.05,
  desired_source = "[29] Russakovsky et al. 2015, ImageNet Large Scale Visual Recognition Challenge",
  data_size = 1.3e6, data_unit = "images", data_gb = 152,
  alpha = 15.0, beta_g = -0.309, sigma = 2.0e-2, beta_p = 0.57,
  costs = { flops_per_param = 1111, lambda = 66.7, mu = 268862, footprint_per_param = 42.57,
            intensity = { 0.06, 242 } },
  tokens_per_sample = 1,
  tokens_source = "one image per sample",
  paper = { data_scale = 81, model_scale = 12,
            table3 = { data = 103e6, params = 732e6, subbatch = 32, tflops = 28, tb = 0.4,
                       footprint_gb = 34, step_s = 2.3, epoch_days = 84 } },
}

return D
