-- dlbench.hw_catalog — the built-in hardware catalogue (data only; see docs/hw.md).
-- Units: peak in FLOP/s (dense rates, never sparsity figures), mem and cache in bytes,
-- mem_bw in bytes/s, link bw in bytes/s PER DIRECTION (vendors quote NVLink/ICI/Infinity
-- Fabric totals bidirectionally: 900 GB/s NVLink = 450e9 here), latency in seconds,
-- power in watts. Memory capacities follow one convention (docs/hw.md "Memory units"): the
-- number the datasheet prints, in decimal GB (x 1e9), even where the part is binary (HBM
-- and GDDR capacities are GiB: 16 GB = 17.18e9 bytes physically, before driver reserves).
-- Every number has a `source` entry naming where it comes from:
--   "datasheet"  the vendor's published specification sheet or product page
--   "seed ..."   a table or sentence of one of the seeds (seeds/000_... etc.)
--   "derived"    computed from other published numbers (the formula is given)
--   "assumed"    not published; a typical value, stated so it can be overridden
-- Link latencies are never datasheet numbers: they are typical small-message latencies
-- (NVLink/ICI ~1 us, PCIe ~2 us, InfiniBand/Ethernet RDMA ~5 us) and say "assumed".
local G, T, M = 1e9, 1e12, 1e6

local lat_nvlink = "assumed: typical device-to-device small-message latency over NVLink/ICI, 1 us"
local lat_pcie = "assumed: typical small-message latency over PCIe, 2 us"
local lat_ib = "assumed: typical small-message latency over InfiniBand/RoCE RDMA, 5 us"

local catalogue = {
  -- == the seeds ==================================================================
  {
    name = "Hestness-T4", kind = "accelerator", year = 2019,
    note = "Hestness et al.'s target accelerator (Table 4, 'similar to NVIDIA's V100 version 2')",
    peak = { fp32 = 15.67 * T },
    mem = 32 * G, mem_bw = 898 * G, cache = 6 * M,
    links = {
      intra = { bw = 56 * G, latency = 1e-6 },
      inter = { bw = 56 * G, latency = 5e-6 },
    },
    flops_eff = 0.8, bw_eff = 0.7,
    source = {
      peak = "seed 000 Table 4: compute throughput 32-bit 15.67 TFLOP/s",
      mem = "seed 000 Table 4: memory capacity (off-chip) 32 GB",
      mem_bw = "seed 000 Table 4: memory bandwidth 898 GB/s",
      cache = "seed 000 Table 4: on-chip cache 6 MB",
      links = "seed 000 Table 4 and 6.2.1: inter-device bandwidth 56 GB/s, 'consistent with "
        .. "future intra-node and Infiniband 400Gb inter-node interconnects'; latency "
        .. lat_nvlink .. " (intra), " .. lat_ib .. " (inter)",
      flops_eff = "seed 000 5.2: 80% of peak FLOPs achievable",
      bw_eff = "seed 000 5.2: 70% of peak memory bandwidth achievable",
    },
  },
  {
    name = "Skylake-n1-32", kind = "cpu", year = 2018,
    note = "ParaDnn's CPU: Google Cloud n1-standard-32 VM, Skylake, 16 cores / 32 threads",
    peak = { fp32 = 2 * T, fp64 = 1 * T },
    mem = 120 * G, mem_bw = 16.6 * G,
    source = {
      peak = "seed 004 Table 3: 2 SP TFLOPS = 2 FMA x 32 SP x 16 cores x 2 GHz; fp64 derived: "
        .. "half the SP lanes, 2 FMA x 16 DP x 16 cores x 2 GHz = 1 TFLOP/s",
      mem = "seed 004 Table 3: 120 GB",
      mem_bw = "seed 004 Table 3: 16.6 GB/s (GeekBench 4 measurement)",
    },
  },
  {
    name = "V100-SXM2-16GB", kind = "gpu", year = 2017,
    note = "ParaDnn's GPU: one V100 SXM2 of a DGX-1",
    peak = { fp64 = 7.8 * T, fp32 = 15.7 * T, fp16 = 125 * T },
    mem = 16 * G, mem_bw = 900 * G, cache = 6 * M, power = 300,
    links = {
      intra = { bw = 150 * G, latency = 1e-6 },
      inter = { bw = 12.5 * G, latency = 5e-6 },
    },
    source = {
      peak = "seed 004 Table 3 and 3: 125T mixed precision (fp16 tensor cores); fp64 7.8 and "
        .. "fp32 15.7 TFLOP/s datasheet (V100 SXM2)",
      mem = "seed 004 Table 3: 16 GB", mem_bw = "seed 004 Table 3: 900 GB/s",
      cache = "datasheet: 6 MB L2", power = "datasheet: 300 W (SXM2)",
      links = "seed 004 3: 300 GB/s NVLink 2.0 (bidirectional) = 150e9 each way; inter: "
        .. "datasheet DGX-1, 100 Gb/s EDR InfiniBand = 12.5e9; latency " .. lat_nvlink
        .. ", " .. lat_ib,
    },
  },
  {
    name = "TPUv2-board", kind = "tpu", year = 2017,
    note = "ParaDnn's Cloud TPU v2: one board of 4 packages, 8 cores; every core keeps a copy "
      .. "of the model, so mem_per_core bounds the model size",
    peak = { bf16 = 180 * T },
    mem = 64 * G, mem_per_core = 8 * G, cores = 8, mem_bw = 2400 * G,
    source = {
      peak = "seed 004 Table 3: 180 TFLOPS (bfloat16 MXUs, mixed precision)",
      mem = "seed 004 Table 3 and 3: 64 GB per board", mem_per_core = "seed 004 3: 8 GB per core",
      cores = "seed 004 3: 4 packages x 2 cores",
      mem_bw = "seed 004 Table 3: 2400 GB/s",
    },
  },
  {
    name = "TPUv3-board", kind = "tpu", year = 2018,
    note = "ParaDnn's Cloud TPU v3: one board, 8 cores; bandwidth estimated by the paper",
    peak = { bf16 = 420 * T },
    mem = 128 * G, mem_per_core = 16 * G, cores = 8, mem_bw = 3600 * G,
    links = { intra = { bw = 340e12 / 256, latency = 1e-6 } },
    source = {
      links = "derived: Cloud TPU v3 page, all-reduce bandwidth per Pod 340 TB/s over its 1024 "
        .. "chips = 256 boards: 1.33e12 per board (332e9 per chip), the per-chip share the v5e "
        .. "page's numbers confirm (51.2 TB/s / 256 chips = its 400 GB/s bidirectional ICI / 2); "
        .. "latency " .. lat_nvlink .. "; no inter-node tier (pods are one ICI torus)",
      peak = "seed 004 Table 3: 420 TFLOPS",
      mem = "seed 004 Table 3: 128 GB", mem_per_core = "seed 004 3: twice v2's 8 GB per core",
      cores = "seed 004 Table 3: 8 cores",
      mem_bw = "seed 004 Table 3: 3600 GB/s, estimated from empirical results (4.5: 1.5x v2)",
    },
  },
  {
    name = "TITAN-Xp", kind = "gpu", year = 2017,
    note = "TBD's second GPU (Table IV)",
    peak = { fp32 = 3840 * 2 * 1582e6 },
    mem = 12 * G, mem_bw = 547.6 * G, cache = 3 * M, power = 250,
    links = {
      intra = { bw = 16 * G, latency = 2e-6 },
      inter = { bw = 12.5 * G, latency = 5e-6 },
    },
    source = {
      peak = "derived from seed 001 Table IV: 3840 cores x 2 FLOP (FMA) x 1582 MHz = 12.15 TFLOP/s",
      mem = "seed 001 Table IV: 12 GB", mem_bw = "seed 001 Table IV: 547.6 GB/s",
      cache = "seed 001 Table IV: LLC 3 MB", power = "datasheet: 250 W",
      links = "seed 001 IV: PCIe 3.0 at 128 Gbps = 16e9, InfiniBand 100 Gbps = 12.5e9; latency "
        .. lat_pcie .. ", " .. lat_ib,
    },
  },
  {
    name = "Quadro-P4000", kind = "gpu", year = 2017,
    note = "TBD's main GPU (Table IV); one to four per machine",
    peak = { fp32 = 1792 * 2 * 1480e6 },
    mem = 8 * G, mem_bw = 243 * G, cache = 2 * M, power = 105,
    links = {
      intra = { bw = 16 * G, latency = 2e-6 },
      inter = { bw = 12.5 * G, latency = 5e-6 },
    },
    source = {
      peak = "derived from seed 001 Table IV: 1792 cores x 2 FLOP (FMA) x 1480 MHz = 5.30 TFLOP/s",
      mem = "seed 001 Table IV: 8 GB", mem_bw = "seed 001 Table IV: 243 GB/s",
      cache = "seed 001 Table IV: LLC 2 MB", power = "datasheet: 105 W",
      links = "seed 001 IV: PCIe 3.0 at 128 Gbps = 16e9, InfiniBand 100 Gbps = 12.5e9; latency "
        .. lat_pcie .. ", " .. lat_ib,
    },
  },
  {
    name = "Xeon-E5-2680", kind = "cpu", year = 2016,
    note = "TBD's host CPU (Table IV: 28 cores, 2900 MHz, i.e. two 14-core sockets at turbo)",
    peak = { fp32 = 28 * 2900e6 * 32, fp64 = 28 * 2900e6 * 16 },
    mem = 128 * G, mem_bw = 76.8 * G, cache = 35 * M,
    links = { inter = { bw = 12.5 * G, latency = 5e-6 } },
    source = {
      peak = "derived from seed 001 Table IV: 28 cores x 2900 MHz x 32 fp32 (16 fp64) FLOP/cycle "
        .. "(AVX2, two 8-wide FMA units) = 2.60 (1.30) TFLOP/s",
      mem = "seed 001 Table IV: 128 GB", mem_bw = "seed 001 Table IV: 76.8 GB/s (DDR4-2400)",
      cache = "seed 001 Table IV: LLC 35 MB",
      links = "seed 001 IV: InfiniBand 100 Gbps = 12.5e9; latency " .. lat_ib,
    },
  },
  {
    name = "K80", kind = "gpu", year = 2014,
    note = "the lecture's (seed 002) DAWNBench baseline GPU; one board = two GK210 GPUs",
    peak = { fp64 = 2.91 * T, fp32 = 8.73 * T },
    mem = 24 * G, mem_bw = 480 * G, cache = 3 * M, power = 300,
    links = { intra = { bw = 15.75 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet: 2.91 fp64 / 8.73 fp32 TFLOP/s with GPU Boost (board)",
      mem = "datasheet: 24 GB GDDR5 (board)", mem_bw = "datasheet: 480 GB/s (board)",
      cache = "datasheet: 1.5 MB L2 per GK210, two per board", power = "datasheet: 300 W",
      links = "datasheet: PCIe 3.0 x16 = 15.75e9 each way; latency " .. lat_pcie,
    },
  },
  {
    name = "P100-SXM2", kind = "gpu", year = 2016,
    note = "the lecture's (seed 002) CANDLE GPU, SXM2 (NVLink) version",
    peak = { fp64 = 5.3 * T, fp32 = 10.6 * T, fp16 = 21.2 * T },
    mem = 16 * G, mem_bw = 732 * G, cache = 4 * M, power = 300,
    links = { intra = { bw = 80 * G, latency = 1e-6 } },
    source = {
      peak = "datasheet: 5.3 fp64 / 10.6 fp32 / 21.2 fp16 TFLOP/s (SXM2)",
      mem = "datasheet: 16 GB HBM2", mem_bw = "datasheet: 732 GB/s", cache = "datasheet: 4 MB L2",
      power = "datasheet: 300 W",
      links = "datasheet: NVLink 160 GB/s bidirectional = 80e9 each way; latency " .. lat_nvlink,
    },
  },
  {
    name = "KNL-7250", kind = "cpu", year = 2016,
    note = "the lecture's (seed 002) KNL: Xeon Phi 7250, 68 cores at 1.4 GHz; mem is the 16 GB "
      .. "MCDRAM in flat mode (DDR4 adds up to 384 GB at 115.2 GB/s)",
    peak = { fp64 = 68 * 1.4e9 * 32, fp32 = 68 * 1.4e9 * 64 },
    mem = 16 * G, mem_bw = 400 * G, cache = 34 * M, power = 215,
    source = {
      peak = "derived from the datasheet: 68 cores x 1.4 GHz x 2 AVX-512 FMA units x 8 fp64 "
        .. "(16 fp32) lanes x 2 = 3.05 (6.09) TFLOP/s",
      mem = "datasheet: 16 GB MCDRAM", mem_bw = "datasheet: MCDRAM 'over 400 GB/s'",
      cache = "datasheet: 34 MB L2 (1 MB per 2-core tile)", power = "datasheet: TDP 215 W",
    },
  },
  -- == today's ===================================================================
  {
    name = "A100-SXM4-40GB", kind = "gpu", year = 2020,
    peak = { fp64 = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T, fp16 = 312 * T, bf16 = 312 * T,
             int8 = 624 * T },
    mem = 40 * G, mem_bw = 1555 * G, cache = 40 * M, power = 400,
    links = {
      intra = { bw = 300 * G, latency = 1e-6 },
      inter = { bw = 25 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet (dense): fp64 tensor core 19.5, fp32 19.5, tf32 156, fp16/bf16 312 "
        .. "TFLOP/s, int8 624 TOPS",
      mem = "datasheet: 40 GB HBM2", mem_bw = "datasheet: 1555 GB/s", cache = "datasheet: 40 MB L2",
      power = "datasheet: 400 W",
      links = "datasheet: NVLink 600 GB/s bidirectional = 300e9 each way; DGX A100: one "
        .. "200 Gb/s HDR InfiniBand port per GPU = 25e9; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "A100-SXM4-80GB", kind = "gpu", year = 2020,
    peak = { fp64 = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T, fp16 = 312 * T, bf16 = 312 * T,
             int8 = 624 * T },
    mem = 80 * G, mem_bw = 2039 * G, cache = 40 * M, power = 400,
    links = {
      intra = { bw = 300 * G, latency = 1e-6 },
      inter = { bw = 25 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet (dense): fp64 tensor core 19.5, fp32 19.5, tf32 156, fp16/bf16 312 "
        .. "TFLOP/s, int8 624 TOPS",
      mem = "datasheet: 80 GB HBM2e", mem_bw = "datasheet: 2039 GB/s", cache = "datasheet: 40 MB L2",
      power = "datasheet: 400 W",
      links = "datasheet: NVLink 600 GB/s bidirectional = 300e9 each way; DGX A100: one "
        .. "200 Gb/s HDR InfiniBand port per GPU = 25e9; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "H100-SXM", kind = "gpu", year = 2022,
    peak = { fp64 = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T, fp16 = 989.5 * T, bf16 = 989.5 * T,
             fp8 = 1979 * T, int8 = 1979 * T },
    mem = 80 * G, mem_bw = 3350 * G, cache = 50 * M, power = 700,
    links = {
      intra = { bw = 450 * G, latency = 1e-6 },
      inter = { bw = 50 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet: fp64 tensor core 67, fp32 67 TFLOP/s; tf32 989, fp16/bf16 1979, fp8 and "
        .. "int8 3958 are quoted with sparsity, halved here to dense",
      mem = "datasheet: 80 GB HBM3", mem_bw = "datasheet: 3.35 TB/s", cache = "datasheet: 50 MB L2",
      power = "datasheet: up to 700 W",
      links = "datasheet: NVLink 900 GB/s bidirectional = 450e9 each way; DGX H100: one "
        .. "400 Gb/s NDR port per GPU = 50e9; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "H200-SXM", kind = "gpu", year = 2024,
    peak = { fp64 = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T, fp16 = 989.5 * T, bf16 = 989.5 * T,
             fp8 = 1979 * T, int8 = 1979 * T },
    mem = 141 * G, mem_bw = 4800 * G, cache = 50 * M, power = 700,
    links = {
      intra = { bw = 450 * G, latency = 1e-6 },
      inter = { bw = 50 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet: same compute as H100 SXM (sparsity figures halved to dense)",
      mem = "datasheet: 141 GB HBM3e", mem_bw = "datasheet: 4.8 TB/s",
      cache = "datasheet: 50 MB L2 (the H100 die)", power = "datasheet: up to 700 W",
      links = "datasheet: NVLink 900 GB/s bidirectional = 450e9 each way; 400 Gb/s NDR per GPU "
        .. "= 50e9; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "B200", kind = "gpu", year = 2024,
    note = "HGX B200 per-GPU figures; the L2 size is left out: NVIDIA's datasheets do not "
      .. "give it",
    peak = { fp64 = 37 * T, fp32 = 75 * T, tf32 = 1100 * T, fp16 = 2250 * T, bf16 = 2250 * T,
             fp8 = 4500 * T, int8 = 4500 * T },
    mem = 180 * G, mem_bw = 8000 * G, power = 1000,
    links = {
      intra = { bw = 900 * G, latency = 1e-6 },
      inter = { bw = 50 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet (HGX B200, 8 GPUs): fp64 296 TFLOP/s; tf32 18, fp16/bf16 36, fp8 and "
        .. "int8 72 PFLOP/s with sparsity; divided by 8 GPUs and halved to dense; fp32 (CUDA "
        .. "cores, no sparsity) 75 TFLOP/s per GPU from the GB200 NVL72 / HGX B200 "
        .. "specification table (600 TFLOP/s per HGX B200 / 8)",
      mem = "datasheet: DGX B200 1440 GB / 8 GPUs", mem_bw = "datasheet: DGX B200 64 TB/s / 8",
      power = "datasheet: HGX B200 up to 1000 W per GPU",
      links = "datasheet: NVLink 5 1.8 TB/s bidirectional = 900e9 each way; 400 Gb/s per GPU "
        .. "= 50e9; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "MI300X", kind = "gpu", year = 2023,
    peak = { fp64 = 163.4 * T, fp32 = 163.4 * T, tf32 = 653.7 * T, fp16 = 1307.4 * T,
             bf16 = 1307.4 * T, fp8 = 2614.9 * T, int8 = 2614.9 * T },
    mem = 192 * G, mem_bw = 5300 * G, cache = 256 * M, power = 750,
    links = {
      intra = { bw = 448 * G, latency = 1e-6 },
      inter = { bw = 50 * G, latency = 5e-6 },
    },
    source = {
      peak = "datasheet (dense, matrix cores): fp64 163.4, fp32 163.4, tf32 653.7, fp16/bf16 "
        .. "1307.4, fp8 2614.9 TFLOP/s, int8 2614.9 TOPS",
      mem = "datasheet: 192 GB HBM3", mem_bw = "datasheet: 5.3 TB/s",
      cache = "datasheet: 256 MB AMD Infinity Cache (last level)", power = "datasheet: 750 W",
      links = "datasheet: Infinity Fabric 896 GB/s aggregate bidirectional = 448e9 each way; "
        .. "inter assumed: one 400 Gb/s NIC per GPU = 50e9; latency " .. lat_nvlink .. ", "
        .. lat_ib,
    },
  },
  {
    name = "TPUv4", kind = "tpu", year = 2021,
    note = "one TPU v4 chip (2 TensorCores); ICI per chip derived from the pod's all-reduce "
      .. "bandwidth",
    peak = { bf16 = 275 * T, int8 = 275 * T },
    mem = 32 * G, mem_bw = 1200 * G, power = 192,
    links = { intra = { bw = 1.1e15 / 4096, latency = 1e-6 } },
    source = {
      links = "derived: Cloud TPU v4 page, all-reduce bandwidth per Pod 1.1 PB/s / 4096 chips "
        .. "= 268.6e9 per chip (the v5e page's numbers give its 400 GB/s bidirectional ICI / 2 "
        .. "this way); latency " .. lat_nvlink .. "; no inter-node tier (pods are one ICI torus)",
      peak = "datasheet (Cloud TPU v4 page): 275 TFLOP/s per chip (bf16 or int8)",
      mem = "datasheet: 32 GiB HBM2, taken as 32e9 bytes (docs/hw.md: decimal GB throughout)",
      mem_bw = "datasheet: 1200 GB/s",
      power = "datasheet: measured min/mean/max 90/170/192 W; max used",
    },
  },
  {
    name = "TPUv5e", kind = "tpu", year = 2023,
    note = "one TPU v5e chip; 8 chips and 2 x 100 Gb/s NICs per host",
    peak = { bf16 = 197 * T, int8 = 393 * T },
    mem = 16 * G, mem_bw = 819 * G,
    links = {
      intra = { bw = 200 * G, latency = 1e-6 },
      inter = { bw = 25 * G / 8, latency = 5e-6 },
    },
    source = {
      peak = "datasheet (Cloud TPU v5e page): 197 TFLOP/s bf16, 393 TOPS int8 per chip",
      mem = "datasheet: 16 GB HBM2", mem_bw = "datasheet: 819 GB/s",
      links = "datasheet: ICI 400 GB/s bidirectional per chip = 200e9 each way; 2 x 100 Gb/s "
        .. "NIC per 8-chip host = 3.125e9 per chip; latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "EPYC-9654", kind = "cpu", year = 2022,
    note = "a current server CPU: AMD EPYC 9654 (Genoa), 96 cores, one socket; mem assumes "
      .. "12 x 64 GB DIMMs",
    peak = { fp64 = 96 * 2.4e9 * 16, fp32 = 96 * 2.4e9 * 32 },
    mem = 768 * G, mem_bw = 460.8 * G, cache = 384 * M, power = 360,
    links = { inter = { bw = 50 * G, latency = 5e-6 } },
    source = {
      peak = "derived from the datasheet: 96 cores x 2.4 GHz base x 16 fp64 (32 fp32) "
        .. "FLOP/cycle (two 256-bit FMA pipes) = 3.69 (7.37) TFLOP/s",
      mem = "assumed: 12 channels x 64 GB", mem_bw = "derived from the datasheet: 12 channels "
        .. "DDR5-4800 x 38.4 GB/s = 460.8 GB/s",
      cache = "datasheet: 384 MB L3", power = "datasheet: default TDP 360 W",
      links = "assumed: one 400 Gb/s NIC = 50e9; latency " .. lat_ib,
    },
  },
}

-- == the kernel model's fields (graphs/dlb_roofline.h dlb_op_time; docs/hw.md) =========
-- Per-class defaults, then per-device values. Every device but the seeds' own model device
-- (Hestness-T4, whose paper model is the pure roofline) gets them, each with its source.
--   kernel_overhead  GPU 5 us: a CUDA kernel launch is 3-5 us on the host and a few us
--                    of GPU front-end time; eager frameworks add their per-op dispatch
--                    (assumed: typical, not measured; calibrate with dlb.hw.calibrate).
--                    TPU 1 us per XLA op (assumed: compiled, no per-op host launch).
--                    CPU 10 us per framework op dispatch (assumed).
--   step_overhead    1 ms per training step: optimizer launch, data loader hand-off,
--                    Python step loop (assumed).
--   half_bw_bytes    derived: Little's law, the bytes that must be in flight to sustain the
--                    bandwidth: mem_bw x 500 ns of DRAM/HBM latency (GPU, TPU), x 100 ns (CPU).
local CLASS = {
  gpu = { kernel_overhead = 5e-6, step_overhead = 1e-3, latency = 500e-9,
    gemm_tile = { 128, 128 } },
  tpu = { kernel_overhead = 1e-6, step_overhead = 1e-3, latency = 500e-9, systolic = 128 },
  cpu = { kernel_overhead = 10e-6, step_overhead = 1e-3, latency = 100e-9 },
}
local CLASS_SOURCE = {
  kernel_overhead = "assumed per-class default (docs/hw.md, Kernel efficiency): GPU 5 us "
    .. "(CUDA launch + framework dispatch), TPU 1 us (compiled XLA op), CPU 10 us (framework "
    .. "dispatch)",
  step_overhead = "assumed per-class default: 1 ms per training step (optimizer launch, data "
    .. "loader, Python step loop)",
  half_bw_bytes = "derived: Little's law, mem_bw x DRAM latency (500 ns GPU/TPU, 100 ns CPU)",
  gemm_tile = "assumed: cuBLAS/CUTLASS 128 x 128 output tiles (NVIDIA, Matrix Multiplication "
    .. "Background User's Guide, tile quantization)",
  systolic = "seed 004 sec. 4 and Cloud TPU docs: 128 x 128 matrix units (MXU)",
}
-- Streaming multiprocessors (compute units) and CPU SIMD lanes, from the datasheets.
local DEVICE = {
  ["V100-SXM2-16GB"] = { sm_count = 80, src = "datasheet: 80 SMs (Tesla V100)" },
  ["TITAN-Xp"] = { sm_count = 30, src = "datasheet: 3840 CUDA cores / 128 = 30 SMs" },
  ["Quadro-P4000"] = { sm_count = 14, src = "datasheet: 1792 CUDA cores / 128 = 14 SMs" },
  ["P100-SXM2"] = { sm_count = 56, src = "datasheet: 56 SMs (Tesla P100 SXM2)" },
  ["A100-SXM4-40GB"] = { sm_count = 108, src = "datasheet: 108 SMs (A100 whitepaper)" },
  ["A100-SXM4-80GB"] = { sm_count = 108, src = "datasheet: 108 SMs (A100 whitepaper)" },
  ["H100-SXM"] = { sm_count = 132, src = "datasheet: 132 SMs (H100 SXM5, Hopper whitepaper)" },
  ["H200-SXM"] = { sm_count = 132, src = "datasheet: 132 SMs (the H100 SXM5 die)" },
  ["MI300X"] = { sm_count = 304, src = "datasheet: 304 compute units" },
  ["Skylake-n1-32"] = { vector_width = 16, src = "seed 004 Table 3: AVX-512, 16 fp32 lanes" },
  ["KNL-7250"] = { vector_width = 16, src = "datasheet: AVX-512, 16 fp32 lanes" },
  ["Xeon-E5-2680"] = { vector_width = 8, src = "datasheet: AVX2, 8 fp32 lanes" },
  ["EPYC-9654"] = { vector_width = 16, src = "datasheet: AVX-512 (Zen 4), 16 fp32 lanes" },
}
for _, d in ipairs(catalogue) do
  local c = CLASS[d.kind]
  if c and d.name ~= "Hestness-T4" then
    d.source = d.source or {}
    d.kernel_overhead, d.step_overhead = c.kernel_overhead, c.step_overhead
    d.half_bw_bytes = d.mem_bw * c.latency
    d.gemm_tile, d.systolic = c.gemm_tile and { c.gemm_tile[1], c.gemm_tile[2] }, c.systolic
    for _, k in ipairs { "kernel_overhead", "step_overhead", "half_bw_bytes", "gemm_tile",
                         "systolic" } do
      if d[k] ~= nil then d.source[k] = CLASS_SOURCE[k] end
    end
    local e = DEVICE[d.name]
    if e then
      d.sm_count, d.vector_width = e.sm_count, e.vector_width
      d.source[e.sm_count and "sm_count" or "vector_width"] = e.src
    end
    -- tile quantisation needs the SM count: a GPU without one keeps full tiles off
    if d.kind == "gpu" and not d.sm_count then d.gemm_tile = nil; d.source.gemm_tile = nil end
  end
end
return catalogue
