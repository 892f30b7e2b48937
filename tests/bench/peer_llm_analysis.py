#!/usr/bin/env python3
"""peer_llm_analysis.py - an analytical peer for dlbench's transformer path (issue [20] item 6).

llm-analysis (Cheng Li, Apache-2.0, https://github.com/cli99/llm-analysis) estimates a
training step of a decoder transformer from closed forms. It is a PyPI package and PyPI
cannot be reached from this machine, so its training path is transcribed here, function by
function, from llm_analysis/analysis.py (class LLMAnalysis; the version stored at commit
08d7f8f6958619070d6b0484730a0f0054f042ed), constants from llm_analysis/constant.py and the
derived model fields from llm_analysis/config.py (ModelConfig.__post_init__), the FLOP
check from llm_analysis/utils.py (within_range). Only the
single-GPU case is kept (tp = pp = dp = sp = ep = 1, one expert, no ZeRO, no activation
recompute, defaults of LLMAnalysis.training: flash_attn=True, softmax_dropout=False,
layernorm_dtype_bytes=4, master_weights_dtype_bytes=4, Adam's other_op_bytes=None), with
the tool's default dtype w16a16e16 and efficiencies 1 (FLOPS_EFFICIENCY,
HBM_MEMORY_EFFICIENCY in constant.py). Terms that are zero in that case are written as the
tool writes them, with the zero factor, so the transcription can be checked line by line.
The tool's logging (eager f-strings) is left out: the tool itself spends more per
configuration than this transcription does.

What is measured: configurations per second of the whole training() path (params, weight,
gradient, optimizer and activation memory, max batch, FLOPs, per-layer latencies, the step
latency) over the GPT layouts of tests/bench/bench_perconfig.lua's peer section, in a
plain Python loop (as the tool runs one configuration) and, where Debian's python3-numpy is
installed, vectorised over all layouts at once.

Run: /usr/bin/python3 tests/bench/peer_llm_analysis.py [PEAK_FLOPS BW_BYTES_PER_S MEM_BYTES]
(default: dlbench's H100-SXM catalogue entry at bf16: 989.5e12 FLOP/s, 3.35e12 B/s, 80e9 B;
llm-analysis's own H100 file differs; the same device numbers go to both tools here).
"""
import sys
import time

# llm_analysis/constant.py
BITS_PER_BYTE = 8
BYTES_FP32 = 32 // BITS_PER_BYTE
FLOPS_EFFICIENCY = 1
HBM_MEMORY_EFFICIENCY = 1


def layouts():
    """The GPT layouts (layers x hidden x seq x micro-batch, heads = hidden / 128, vocab
    50257), in the order bench_perconfig.lua's peer section sweeps them."""
    out = []
    for layers in (24, 32, 40):
        for hidden in (2048, 4096, 5120):
            for seq in (1024, 2048):
                for batch in (1, 2, 4, 8):
                    out.append((layers, hidden, hidden // 128, seq, batch))
    return out


def training(layers, hidden, n_head, seq_len, batch, peak_tflops, hbm_gbs, mem_gb,
             vocab=50257):
    """LLMAnalysis.training() for tp=pp=dp=sp=ep=1: a summary dict (latency_per_iter in s,
    memory in bytes, FLOPs)."""
    # ModelConfig.__post_init__ (config.py): ffn_embed_dim = 4 * hidden_dim, MHA
    ffn = 4 * hidden
    expansion_ratio = 4
    num_key_value_heads = n_head
    num_key_value_groups = n_head / num_key_value_heads
    moe_num_experts, moe_top_k = 1, 1
    tp = pp = dp = sp = ep = 1
    # DtypeConfig w16a16e16
    weight_bits = activation_bits = embedding_bits = 16
    layernorm_dtype_bytes = BYTES_FP32
    master_weights_dtype_bytes = BYTES_FP32
    flops_efficiency, hbm_memory_efficiency = FLOPS_EFFICIENCY, HBM_MEMORY_EFFICIENCY

    def tflops_per_gpu():  # get_TFLOPS_per_gpu: max(wbits, abits) == 16 -> peak_fp16_TFLOPS
        return peak_tflops * flops_efficiency

    def hbm_bw():  # get_gpu_hbm_bandwidth (GB/s)
        return hbm_gbs * hbm_memory_efficiency

    # parameters (get_num_params_*)
    def params_attn():
        heads_per_gpu = max(num_key_value_heads / tp, 1)
        kv_heads = heads_per_gpu * tp
        return 2 * hidden ** 2 + 2 * hidden * (hidden * kv_heads / n_head)

    def params_mlp():
        return 2 * hidden * ffn * moe_num_experts

    params_router = 0  # moe_num_experts == 1
    params_layernorm = 2 * hidden
    params_last_layernorm = hidden
    params_embedding = hidden * vocab  # shared_embedding=True: no output embedding
    params_layer = params_attn() + params_mlp() + params_router + params_layernorm
    total_params = layers * params_layer + params_embedding + params_last_layernorm

    # get_weight_memory_per_layer (ds_zero NONE: sharded_dp_size = 1)
    wbytes = weight_bits / BITS_PER_BYTE
    w_attn = params_attn() * wbytes / tp / 1
    w_mlp = (params_mlp() / ep + params_router) * wbytes / tp / 1
    w_ln = params_layernorm * wbytes / tp / 1
    weight_memory_per_layer = w_attn + w_mlp + w_ln
    num_layers_per_gpu = int(layers / pp)
    weight_memory_embedding = params_embedding / tp * (embedding_bits / BITS_PER_BYTE)
    weight_memory_last_layernorm = params_last_layernorm * wbytes / tp
    weight_memory_per_gpu = (weight_memory_embedding + weight_memory_per_layer * num_layers_per_gpu
                             + weight_memory_last_layernorm)

    # get_memory_optimizer_state_and_gradient_* (Adam: 4 + 2 * 4 bytes per parameter)
    op_bytes_per_params = BYTES_FP32 + 2 * BYTES_FP32
    opt_layer = (op_bytes_per_params * params_mlp() / ep / tp / 1
                 + op_bytes_per_params * (params_attn() + params_router + params_layernorm) / tp / 1)
    grad_layer = (params_mlp() * master_weights_dtype_bytes / ep / tp / 1
                  + (params_attn() + params_router + params_layernorm) * master_weights_dtype_bytes / tp / 1)
    opt_emb = op_bytes_per_params * params_embedding / tp
    grad_emb = master_weights_dtype_bytes * params_embedding / tp
    opt_ln = op_bytes_per_params * params_last_layernorm / tp
    grad_ln = master_weights_dtype_bytes * params_last_layernorm / tp
    optimizer_state_memory_per_gpu = opt_layer * num_layers_per_gpu + opt_emb + opt_ln
    gradient_memory_per_gpu = grad_layer * num_layers_per_gpu + grad_emb + grad_ln
    weight_grad_op_state_memory_per_gpu = (weight_memory_per_gpu + gradient_memory_per_gpu
                                           + optimizer_state_memory_per_gpu)
    memory_left = mem_gb * 1024 ** 3 - weight_grad_op_state_memory_per_gpu

    bpa = activation_bits / BITS_PER_BYTE

    def act_attn(b, flash_attn=True, attn_dropout=True):
        # get_activation_memory_per_layer_attn, training, recompute NONE
        if flash_attn:
            compute = (2 * seq_len * b * hidden + 4 * n_head * seq_len * b) * bpa / tp
        else:
            compute = 2 * n_head * seq_len ** 2 * b * bpa / tp
        m = (seq_len * b * hidden / sp + 4 * seq_len * b * hidden / tp) * bpa + compute
        if attn_dropout:
            m += seq_len * b * hidden / sp
        return m

    def act_mlp(b):
        # get_activation_memory_per_layer_mlp, training, no quantisation, no gelu recompute
        experts_per_gpu = moe_num_experts / ep
        m = bpa * seq_len * b * hidden * experts_per_gpu * moe_top_k / sp
        m += (bpa + bpa) * expansion_ratio * seq_len * b * hidden * experts_per_gpu * moe_top_k / tp
        return m

    def act_layernorm(b, dtype_bytes=layernorm_dtype_bytes):
        return (seq_len * b * hidden / sp) * dtype_bytes

    def act_layer(b):  # get_activation_memory_per_layer, training
        return act_attn(b) + act_mlp(b) + 2 * act_layernorm(b)

    def act_output_embedding(b):
        return vocab * b * seq_len * activation_bits / BITS_PER_BYTE / tp

    act_1 = act_layer(1) * layers + act_output_embedding(1) + act_layernorm(1)
    max_batch_size_per_gpu = int(memory_left // act_1)
    # config_batch_size_and_gradient_accumulation_steps: batch_size_per_gpu given
    gradient_accumulation_steps = 1
    activation_memory_per_gpu = act_layer(batch) * layers + act_output_embedding(batch) + act_layernorm(batch)

    # FLOPs (get_num_flops_*)
    def flops_attn(b):
        return (4 * b * seq_len * hidden ** 2 + 4 * b * seq_len * hidden ** 2 / num_key_value_groups
                + 4 * b * seq_len ** 2 * hidden)

    def flops_mlp(b):
        return 4 * b * seq_len * hidden ** 2 * expansion_ratio

    num_flops_fwd_total = (flops_attn(batch) + flops_mlp(batch)) * layers + 2 * batch * seq_len * hidden * vocab
    # the tool's own check in get_num_flops_fwd_total (MHA only): Narayanan et al. 2021's
    # 24*B*L*s*h^2*(1 + s/(6h) + V/(12*L*h)) within TOLERANCE (constant.py: 0.01); utils.py's
    # within_range(val, target, tolerance) is abs(val - target) / target < tolerance
    if num_key_value_groups == 1:
        closed = 24 * batch * layers * seq_len * hidden ** 2 * (
            1 + seq_len / (6 * hidden) + vocab / (12 * layers * hidden))
        assert abs(num_flops_fwd_total - closed) / closed < 0.01, (num_flops_fwd_total, closed)
    num_flops_bwd_total = 2 * num_flops_fwd_total
    num_flops_recompute = 0
    num_flops_total_per_micro_batch = num_flops_fwd_total + num_flops_bwd_total + num_flops_recompute

    # latencies (get_latency_fwd_*); the tool passes activation_recomputation in the
    # flash_attn slot of get_activation_memory_per_layer_attn (a truthy enum): flash path
    bw = hbm_bw() * 10 ** 9
    compute_attn = flops_attn(batch) / tp / (tflops_per_gpu() * 10 ** 12)
    memory_attn = params_attn() * wbytes / tp / bw + act_attn(batch) / bw
    latency_attn = max(compute_attn, memory_attn)
    compute_mlp = flops_mlp(batch) / tp / (tflops_per_gpu() * 10 ** 12)
    memory_mlp = params_mlp() / ep * wbytes / tp / bw + act_mlp(batch) / bw
    alltoall = 0  # moe_num_experts == 1
    latency_mlp = max(compute_mlp, memory_mlp) + alltoall
    latency_layernorm = act_layernorm(batch, BYTES_FP32) / bw  # the tool's default dtype_bytes
    latency_tp_comm = 0  # tp_size == 1
    latency_shared_dp_comm = 0  # time_allgather(S, n=1, B) = 0
    latency_per_layer = max(latency_attn + latency_mlp + 2 * latency_layernorm + 2 * latency_tp_comm,
                            latency_shared_dp_comm)
    latency_input_embedding = vocab * hidden * (embedding_bits / BITS_PER_BYTE) / bw + latency_tp_comm
    latency_output_embedding = (2 * seq_len * batch * vocab * hidden / tp / pp
                                / (tflops_per_gpu() * 10 ** 12))
    latency_fwd = latency_per_layer * num_layers_per_gpu + latency_input_embedding + latency_output_embedding
    latency_recompute = 0
    latency_per_micro_batch = latency_fwd * 3 + latency_recompute
    latency_weight_update = weight_grad_op_state_memory_per_gpu / bw
    latency_per_iter = latency_per_micro_batch * gradient_accumulation_steps + latency_weight_update
    return {
        "num_params_total": total_params,
        "weight_grad_op_state_memory_per_gpu": weight_grad_op_state_memory_per_gpu,
        "activation_memory_per_gpu": activation_memory_per_gpu,
        "max_batch_size_per_gpu": max_batch_size_per_gpu,
        "num_flops_total_per_micro_batch": num_flops_total_per_micro_batch,
        "latency_per_iter": latency_per_iter,
    }


def vectorised(L, peak_tflops, hbm_gbs, mem_gb):
    """The same formulas over numpy arrays of all layouts (latency and memory only)."""
    import numpy as np
    a = np.array(L, dtype=np.float64)
    layers, h, nh, s, b = a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4]
    V = 50257.0
    bw = hbm_gbs * 1e9
    fl = peak_tflops * 1e12
    p_attn = 2 * h ** 2 + 2 * h * (h * nh / nh)
    p_mlp = 2 * h * 4 * h
    p_ln = 2 * h
    w_layer = (p_attn + p_mlp + p_ln) * 2
    wgo = (V * h * 2 + w_layer * layers + h * 2) + 4 * ((p_attn + p_mlp + p_ln) * layers + V * h + h) \
        + 12 * ((p_attn + p_mlp + p_ln) * layers + V * h + h)
    act_attn = (s * b * h + 4 * s * b * h) * 2 + (2 * s * b * h + 4 * nh * s * b) * 2 + s * b * h
    act_mlp = 2 * s * b * h + (2 + 2) * 4 * s * b * h
    act_ln = s * b * h * 4
    f_attn = 4 * b * s * h ** 2 + 4 * b * s * h ** 2 + 4 * b * s ** 2 * h
    f_mlp = 4 * b * s * h ** 2 * 4
    lat_layer = (np.maximum(f_attn / fl, p_attn * 2 / bw + act_attn / bw)
                 + np.maximum(f_mlp / fl, p_mlp * 2 / bw + act_mlp / bw) + 2 * act_ln / bw)
    lat_fwd = lat_layer * layers + V * h * 2 / bw + 2 * s * b * V * h / fl
    act = (act_attn + act_mlp + 2 * act_ln) * layers + V * b * s * 2 + act_ln
    return lat_fwd * 3 + wgo / bw, act


def main():
    peak = float(sys.argv[1]) if len(sys.argv) > 1 else 989.5e12
    bw = float(sys.argv[2]) if len(sys.argv) > 2 else 3.35e12
    mem = float(sys.argv[3]) if len(sys.argv) > 3 else 80e9
    # the tool takes TFLOPS, GB/s and GB (GiB in memory_left: mem_per_GPU_in_GB * 1024**3)
    peak_tflops, hbm_gbs, mem_gb = peak / 1e12, bw / 1e9, mem / 1024 ** 3
    L = layouts()
    reps = 200
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(reps):
            for c in L:
                r = training(*c, peak_tflops, hbm_gbs, mem_gb)
        best = min(best, time.process_time() - t0)
    n = reps * len(L)
    print("peer llm-analysis (transcribed training path, tp=pp=dp=1), python %s: %d layouts" % (
        sys.version.split()[0], len(L)))
    print("  plain Python loop: %.2f us per configuration, %.0f configurations/s" % (
        best / n * 1e6, n / best))
    try:
        import numpy as np
        lat, _ = vectorised(L, peak_tflops, hbm_gbs, mem_gb)
        ref = np.array([training(*c, peak_tflops, hbm_gbs, mem_gb)["latency_per_iter"] for c in L])
        worst = float(np.max(np.abs(lat - ref) / ref))
        big = L * 1000
        t0 = time.process_time()
        vectorised(big, peak_tflops, hbm_gbs, mem_gb)
        el = time.process_time() - t0
        print("  numpy %s vectorised over %d configurations: %.3f s, %.0f configurations/s "
              "(equal to the loop within %.1e)" % (np.__version__, len(big), el, len(big) / el, worst))
    except ImportError:
        print("  numpy not installed (apt-get install python3-numpy): vectorised row skipped")
    for c in ((32, 4096, 32, 2048, 8), (24, 2048, 16, 1024, 1), (40, 5120, 40, 2048, 4)):
        r = training(*c, peak_tflops, hbm_gbs, mem_gb)
        print("  L=%d h=%d heads=%d seq=%d b=%d: step %.4g s, %.4g FLOP, weights+grads+optimizer %.4g B, "
              "activations %.4g B" % (c + (r["latency_per_iter"], r["num_flops_total_per_micro_batch"],
                                           r["weight_grad_op_state_memory_per_gpu"],
                                           r["activation_memory_per_gpu"])))


if __name__ == "__main__":
    main()
