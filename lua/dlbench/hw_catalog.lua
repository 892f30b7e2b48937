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
-- (NVLink/ICI ~1 µs, PCIe ~2 µs, InfiniBand/Ethernet RDMA ~5 µs) and say "assumed".
local G, T, M = 1e9, 1e12, 1e6

local lat_nvlink = "assumed: typical device-to-device small-message latency over NVLink/ICI, 1 µs"
local lat_pcie = "assumed: typical small-message latency over PCIe, 2 µs"
local lat_ib = "assumed: typical small-message latency over InfiniBand/RoCE RDMA, 5 µs"

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
      host = { bw = 15.75 * G, latency = 2e-6 },
    },
    source = {
      peak = "seed 004 Table 3 and 3: 125T mixed precision (fp16 tensor cores); fp64 7.8 and "
        .. "fp32 15.7 TFLOP/s datasheet (V100 SXM2)",
      mem = "seed 004 Table 3: 16 GB", mem_bw = "seed 004 Table 3: 900 GB/s",
      cache = "datasheet: 6 MB L2", power = "datasheet: 300 W (SXM2)",
      links = "seed 004 3: 300 GB/s NVLink 2.0 (bidirectional) = 150e9 each way; inter: "
        .. "datasheet DGX-1, 100 Gb/s EDR InfiniBand = 12.5e9; latency " .. lat_nvlink
        .. ", " .. lat_ib
        .. "; host: PCIe Gen3 x16 to the DGX-1 host, 15.75e9 each way (derived, PCI-SIG)",
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
      host = { bw = 31.5 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet (dense): fp64 tensor core 19.5, fp32 19.5, tf32 156, fp16/bf16 312 "
        .. "TFLOP/s, int8 624 TOPS",
      mem = "datasheet: 40 GB HBM2", mem_bw = "datasheet: 1555 GB/s", cache = "datasheet: 40 MB L2",
      power = "datasheet: 400 W",
      links = "datasheet: NVLink 600 GB/s bidirectional = 300e9 each way; DGX A100: one "
        .. "200 Gb/s HDR InfiniBand port per GPU = 25e9; latency " .. lat_nvlink .. ", " .. lat_ib
        .. "; host: PCIe Gen4 x16 to the host (DGX A100), 31.5e9 each way (derived, PCI-SIG)",
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
      host = { bw = 31.5 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet (dense): fp64 tensor core 19.5, fp32 19.5, tf32 156, fp16/bf16 312 "
        .. "TFLOP/s, int8 624 TOPS",
      mem = "datasheet: 80 GB HBM2e", mem_bw = "datasheet: 2039 GB/s", cache = "datasheet: 40 MB L2",
      power = "datasheet: 400 W",
      links = "datasheet: NVLink 600 GB/s bidirectional = 300e9 each way; DGX A100: one "
        .. "200 Gb/s HDR InfiniBand port per GPU = 25e9; latency " .. lat_nvlink .. ", " .. lat_ib
        .. "; host: PCIe Gen4 x16 to the host (DGX A100), 31.5e9 each way (derived, PCI-SIG)",
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
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet: fp64 tensor core 67, fp32 67 TFLOP/s; tf32 989, fp16/bf16 1979, fp8 and "
        .. "int8 3958 are quoted with sparsity, halved here to dense",
      mem = "datasheet: 80 GB HBM3", mem_bw = "datasheet: 3.35 TB/s", cache = "datasheet: 50 MB L2",
      power = "datasheet: up to 700 W",
      links = "datasheet: NVLink 900 GB/s bidirectional = 450e9 each way; DGX H100: one "
        .. "400 Gb/s NDR port per GPU = 50e9; latency " .. lat_nvlink .. ", " .. lat_ib
        .. "; host: datasheet PCIe Gen5 128 GB/s bidirectional: x16 at 32 GT/s, 63e9 each way (derived, PCI-SIG)",
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
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet: same compute as H100 SXM (sparsity figures halved to dense)",
      mem = "datasheet: 141 GB HBM3e", mem_bw = "datasheet: 4.8 TB/s",
      cache = "datasheet: 50 MB L2 (the H100 die)", power = "datasheet: up to 700 W",
      links = "datasheet: NVLink 900 GB/s bidirectional = 450e9 each way; 400 Gb/s NDR per GPU "
        .. "= 50e9; latency " .. lat_nvlink .. ", " .. lat_ib
        .. "; host: datasheet PCIe Gen5 128 GB/s bidirectional: x16 at 32 GT/s, 63e9 each way (derived, PCI-SIG)",
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
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet (HGX B200, 8 GPUs): fp64 296 TFLOP/s; fp16/bf16 36, fp8 and "
        .. "int8 72 PFLOP/s with sparsity; divided by 8 GPUs and halved to dense; tf32 from "
        .. "the per-GPU column of the GB200 NVL72 / HGX B200 specification table, 2.2 PFLOP/s "
        .. "with sparsity, halved: 1.1 (the HGX total's 18 / 8 / 2 would give 1.125: NVIDIA "
        .. "rounds the total); fp32 (CUDA cores, no sparsity) 75 TFLOP/s per GPU from the "
        .. "same table (600 TFLOP/s per HGX B200 / 8)",
      mem = "datasheet: DGX B200 1440 GB / 8 GPUs", mem_bw = "datasheet: DGX B200 64 TB/s / 8",
      power = "datasheet: HGX B200 up to 1000 W per GPU",
      links = "datasheet: NVLink 5 1.8 TB/s bidirectional = 900e9 each way; 400 Gb/s per GPU "
        .. "= 50e9; latency " .. lat_nvlink .. ", " .. lat_ib
        .. "; host: PCIe Gen5 x16 to the host CPU (HGX B200), 63e9 each way (derived, PCI-SIG)",
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
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet (dense, matrix cores): fp64 163.4, fp32 163.4, tf32 653.7, fp16/bf16 "
        .. "1307.4, fp8 2614.9 TFLOP/s, int8 2614.9 TOPS",
      mem = "datasheet: 192 GB HBM3", mem_bw = "datasheet: 5.3 TB/s",
      cache = "datasheet: 256 MB AMD Infinity Cache (last level)", power = "datasheet: 750 W",
      links = "datasheet: Infinity Fabric 896 GB/s aggregate bidirectional = 448e9 each way; "
        .. "inter assumed: one 400 Gb/s NIC per GPU = 50e9; latency " .. lat_nvlink .. ", "
        .. lat_ib
        .. "; host: datasheet PCIe Gen5 x16 128 GB/s bidirectional = 63e9 each way (derived, PCI-SIG)",
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
  -- == more devices people train on (issue [14]) ====================================
  -- Datasheets (titles; URLs as published by the vendor when these entries were written):
  --  [V100]   "NVIDIA Tesla V100 GPU Accelerator" datasheet,
  --           https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf
  --           and "NVIDIA Tesla V100 GPU Architecture" whitepaper (80 SMs, 6 MB L2)
  --  [T4]     "NVIDIA T4 Tensor Core GPU" datasheet,
  --           https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf
  --           and "NVIDIA Turing GPU Architecture" whitepaper (40 SMs, 4 MB L2)
  --  [L4]     "NVIDIA L4 Tensor Core GPU" datasheet,
  --           https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet
  --  [ADA]    "NVIDIA Ada GPU Architecture" whitepaper v2.1, appendix tables (RTX 4090, L4,
  --           L40S: SMs, L2, dense and sparse tensor rates),
  --           https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf
  --  [A10]    "NVIDIA A10 Tensor Core GPU" datasheet,
  --           https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf
  --  [G5]     "Amazon EC2 G5 instances" product page, https://aws.amazon.com/ec2/instance-types/g5/
  --  [L40S]   "NVIDIA L40S GPU" datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413
  --  [A100]   "NVIDIA A100 Tensor Core GPU" datasheet,
  --           https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
  --  [H100]   "NVIDIA H100 Tensor Core GPU" datasheet (SXM, PCIe and NVL columns),
  --           https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet
  --           and "NVIDIA H100 Tensor Core GPU Architecture" whitepaper (SM counts, 50 MB L2)
  --  [GH200]  "NVIDIA GH200 Grace Hopper Superchip" datasheet,
  --           https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip
  --  [GRACE]  "NVIDIA Grace CPU Superchip" datasheet,
  --           https://resources.nvidia.com/en-us-grace-cpu/data-center-datasheet
  --  [V5P]    Google Cloud "TPU v5p" documentation page, https://cloud.google.com/tpu/docs/v5p
  --  [MI250X] "AMD Instinct MI250X Accelerator" datasheet,
  --           https://www.amd.com/system/files/documents/amd-instinct-mi200-datasheet.pdf
  --  [GAUDI2] "Intel Gaudi 2 AI Accelerator" white paper / product brief,
  --           https://habana.ai/products/gaudi2/
  --  [GAUDI3] "Intel Gaudi 3 AI Accelerator" white paper (2024),
  --           https://www.intel.com/content/www/us/en/content-details/817486/intel-gaudi-3-ai-accelerator-white-paper.html
  -- PCIe host links: Gen3 x16 = 8 GT/s x 16 x 128/130 = 15.75 GB/s each way ("32 GB/s"
  -- bidirectional on NVIDIA datasheets), Gen4 x16 = 31.5 GB/s, Gen5 x16 = 63 GB/s (PCI-SIG).
  {
    name = "V100-SXM2-32GB", kind = "gpu", year = 2018,
    note = "V100 SXM2 with 32 GB (DGX-1/DGX-2)",
    peak = { fp64 = 7.8 * T, fp32 = 15.7 * T, fp16 = 125 * T },
    mem = 32 * G, mem_bw = 900 * G, cache = 6 * M, power = 300, sm_count = 80,
    links = {
      intra = { bw = 150 * G, latency = 1e-6 },
      inter = { bw = 12.5 * G, latency = 5e-6 },
      host = { bw = 15.75 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [V100], V100 SXM2: fp64 7.8, fp32 15.7, tensor (fp16) 125 TFLOP/s",
      mem = "datasheet [V100] 32 GB HBM2", mem_bw = "datasheet [V100] 900 GB/s", power = "datasheet [V100] 300 W",
      cache = "datasheet [V100] whitepaper: 6 MB L2", sm_count = "datasheet [V100] whitepaper: 80 SMs",
      links = "datasheet [V100] NVLink 300 GB/s bidirectional = 150e9 each way; inter as V100-SXM2-16GB "
        .. "(DGX-1 EDR InfiniBand 12.5e9); host: PCIe Gen3 x16 15.75e9 (derived, PCI-SIG); "
        .. "latency " .. lat_nvlink .. ", " .. lat_ib .. ", " .. lat_pcie,
    },
  },
  {
    name = "V100-PCIe", kind = "gpu", year = 2017,
    note = "V100 PCIe, 16 GB (a 32 GB board exists: hw:with{mem = 32e9})",
    peak = { fp64 = 7 * T, fp32 = 14 * T, fp16 = 112 * T },
    mem = 16 * G, mem_bw = 900 * G, cache = 6 * M, power = 250, sm_count = 80,
    links = {
      intra = { bw = 15.75 * G, latency = 2e-6 },
      host = { bw = 15.75 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [V100], V100 PCIe: fp64 7, fp32 14, tensor (fp16) 112 TFLOP/s",
      mem = "datasheet [V100] 16 GB HBM2 (32 GB option)", mem_bw = "datasheet [V100] 900 GB/s", power = "datasheet [V100] 250 W",
      cache = "datasheet [V100] whitepaper: 6 MB L2", sm_count = "datasheet [V100] whitepaper: 80 SMs",
      links = "datasheet [V100] interconnect PCIe Gen3 32 GB/s bidirectional = 15.75e9 each way (x16, "
        .. "derived); GPUs talk over PCIe; latency " .. lat_pcie,
    },
  },
  {
    name = "T4", kind = "gpu", year = 2018,
    peak = { fp32 = 8.1 * T, fp16 = 65 * T, int8 = 130 * T },
    mem = 16 * G, mem_bw = 320 * G, cache = 4 * M, power = 70, sm_count = 40,
    links = { intra = { bw = 15.75 * G, latency = 2e-6 }, host = { bw = 15.75 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet [T4]: single precision 8.1, mixed precision (fp16/fp32) 65 TFLOP/s, int8 "
        .. "130 TOPS (no sparsity on Turing)",
      mem = "datasheet [T4] 16 GB GDDR6", mem_bw = "datasheet [T4] 320+ GB/s (320 used)", power = "datasheet [T4] 70 W",
      cache = "datasheet [T4] Turing whitepaper: 4 MB L2 (TU104)", sm_count = "datasheet [T4] Turing whitepaper: 40 SMs",
      links = "datasheet [T4] PCIe Gen3 x16 32 GB/s bidirectional = 15.75e9 each way; latency " .. lat_pcie,
    },
  },
  {
    name = "L4", kind = "gpu", year = 2023,
    peak = { fp32 = 30.3 * T, tf32 = 60 * T, fp16 = 121 * T, bf16 = 121 * T, fp8 = 242.5 * T,
             int8 = 242.5 * T },
    mem = 24 * G, mem_bw = 300 * G, cache = 48 * M, power = 72, sm_count = 58,
    links = { intra = { bw = 31.5 * G, latency = 2e-6 }, host = { bw = 31.5 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet [L4]: fp32 30.3; tf32 120, fp16/bf16 242, fp8 and int8 485 with "
        .. "sparsity, halved here to dense",
      mem = "datasheet [L4] 24 GB GDDR6", mem_bw = "datasheet [L4] 300 GB/s", power = "datasheet [L4] 72 W",
      cache = "datasheet [ADA] appendix: 48 MB L2 (AD104 in L4)", sm_count = "datasheet [ADA] appendix: 58 SMs",
      links = "datasheet [L4] PCIe Gen4 x16 64 GB/s bidirectional = 31.5e9 each way; latency " .. lat_pcie,
    },
  },
  {
    name = "A10G", kind = "gpu", year = 2021,
    note = "AWS's A10 variant (EC2 G5). NVIDIA publishes no A10G datasheet: the peaks are the "
      .. "A10's (an approximation; override with hw:with{peak = ...} from your own measurements)",
    peak = { fp32 = 31.2 * T, tf32 = 62.5 * T, fp16 = 125 * T, bf16 = 125 * T, int8 = 250 * T },
    mem = 24 * G, mem_bw = 600 * G,
    links = { intra = { bw = 31.5 * G, latency = 2e-6 }, host = { bw = 31.5 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet [A10] (the A10, not the A10G): fp32 31.2, tf32 62.5, bf16/fp16 125 "
        .. "TFLOP/s, int8 250 TOPS dense (the sparse figures are twice these)",
      mem = "datasheet [G5] 24 GB per A10G", mem_bw = "datasheet [A10] 600 GB/s GDDR6 (the A10's; assumed the same)",
      links = "datasheet [A10] PCIe Gen4 64 GB/s bidirectional = 31.5e9 each way; latency " .. lat_pcie,
    },
  },
  {
    name = "L40S", kind = "gpu", year = 2023,
    peak = { fp32 = 91.6 * T, tf32 = 183 * T, fp16 = 362 * T, bf16 = 362 * T, fp8 = 733 * T,
             int8 = 733 * T },
    mem = 48 * G, mem_bw = 864 * G, cache = 96 * M, power = 350, sm_count = 142,
    links = { intra = { bw = 31.5 * G, latency = 2e-6 }, host = { bw = 31.5 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet [L40S]: fp32 91.6; tf32 366, bf16/fp16 733, fp8 1466, int8 1466 with "
        .. "sparsity, halved here to dense (tf32 183, fp16/bf16 362 rounded, fp8/int8 733)",
      mem = "datasheet [L40S] 48 GB GDDR6 with ECC", mem_bw = "datasheet [L40S] 864 GB/s", power = "datasheet [L40S] 350 W",
      cache = "datasheet [ADA] appendix: 96 MB L2 (AD102)", sm_count = "datasheet [ADA] appendix: 142 SMs",
      links = "datasheet [L40S] PCIe Gen4 x16 64 GB/s bidirectional = 31.5e9 each way; latency " .. lat_pcie,
    },
  },
  {
    name = "RTX-4090", kind = "gpu", year = 2022,
    note = "GeForce RTX 4090; tensor rates with fp32 accumulation (what training uses; "
      .. "GeForce runs fp16 accumulation twice as fast)",
    peak = { fp32 = 82.6 * T, tf32 = 82.6 * T, fp16 = 165.2 * T, bf16 = 165.2 * T, fp8 = 330.3 * T,
             int8 = 660.6 * T },
    mem = 24 * G, mem_bw = 1008 * G, cache = 72 * M, power = 450, sm_count = 128,
    links = { intra = { bw = 31.5 * G, latency = 2e-6 }, host = { bw = 31.5 * G, latency = 2e-6 } },
    source = {
      peak = "datasheet [ADA] appendix, GeForce RTX 4090: fp32 82.6, tf32 82.6, fp16/bf16 (fp32 "
        .. "accumulate) 165.2, fp8 (fp32 accumulate) 330.3 TFLOP/s, int8 660.6 TOPS (dense)",
      mem = "datasheet [ADA] 24 GB GDDR6X", mem_bw = "datasheet [ADA] 1008 GB/s", power = "datasheet [ADA] 450 W",
      cache = "datasheet [ADA] 72 MB L2", sm_count = "datasheet [ADA] 128 SMs",
      links = "datasheet [ADA] PCIe Gen4 x16 = 31.5e9 each way (no NVLink; GPUs talk over PCIe); "
        .. "latency " .. lat_pcie,
    },
  },
  {
    name = "A100-PCIe", kind = "gpu", year = 2021,
    note = "A100 80GB PCIe (a 40 GB board: hw:with{mem = 40e9, mem_bw = 1555e9})",
    peak = { fp64 = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T, fp16 = 312 * T, bf16 = 312 * T,
             int8 = 624 * T },
    mem = 80 * G, mem_bw = 1935 * G, cache = 40 * M, power = 300, sm_count = 108,
    links = {
      intra = { bw = 300 * G, latency = 1e-6 },
      host = { bw = 31.5 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [A100] (dense): fp64 tensor core 19.5, fp32 19.5, tf32 156, bf16/fp16 "
        .. "312 TFLOP/s, int8 624 TOPS",
      mem = "datasheet [A100] 80 GB HBM2e", mem_bw = "datasheet [A100] 1935 GB/s (80GB PCIe)", power = "datasheet [A100] 300 W",
      cache = "datasheet [A100] 40 MB L2", sm_count = "datasheet [A100] whitepaper: 108 SMs",
      links = "datasheet [A100] NVLink bridge for 2 GPUs 600 GB/s bidirectional = 300e9 each way; PCIe "
        .. "Gen4 64 GB/s bidirectional = 31.5e9 host link; latency " .. lat_nvlink .. ", " .. lat_pcie,
    },
  },
  {
    name = "H100-PCIe", kind = "gpu", year = 2022,
    peak = { fp64 = 51 * T, fp32 = 51 * T, tf32 = 378 * T, fp16 = 756.5 * T, bf16 = 756.5 * T,
             fp8 = 1513 * T, int8 = 1513 * T },
    mem = 80 * G, mem_bw = 2000 * G, cache = 50 * M, power = 350, sm_count = 114,
    links = {
      intra = { bw = 300 * G, latency = 1e-6 },
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [H100], H100 PCIe: fp64 tensor core 51, fp32 51 TFLOP/s; tf32 756, "
        .. "bf16/fp16 1513, fp8 and int8 3026 with sparsity, halved here to dense",
      mem = "datasheet [H100] 80 GB HBM2e", mem_bw = "datasheet [H100] 2 TB/s", power = "datasheet [H100] 300-350 W (350 used)",
      cache = "datasheet [H100] whitepaper: 50 MB L2", sm_count = "datasheet [H100] whitepaper: 114 SMs (PCIe)",
      links = "datasheet [H100] NVLink bridge 600 GB/s bidirectional = 300e9 each way; PCIe Gen5 128 GB/s "
        .. "bidirectional = 63e9 host link; latency " .. lat_nvlink .. ", " .. lat_pcie,
    },
  },
  {
    name = "H100-NVL", kind = "gpu", year = 2023,
    note = "one GPU of an H100 NVL pair",
    peak = { fp64 = 60 * T, fp32 = 60 * T, tf32 = 417.5 * T, fp16 = 835.5 * T, bf16 = 835.5 * T,
             fp8 = 1670.5 * T, int8 = 1670.5 * T },
    mem = 94 * G, mem_bw = 3900 * G, cache = 50 * M, power = 400, sm_count = 132,
    links = {
      intra = { bw = 300 * G, latency = 1e-6 },
      host = { bw = 63 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [H100], H100 NVL: fp64 tensor core 60, fp32 60 TFLOP/s; tf32 835, "
        .. "bf16/fp16 1671, fp8 and int8 3341 with sparsity, halved here to dense",
      mem = "datasheet [H100] 94 GB HBM3", mem_bw = "datasheet [H100] 3.9 TB/s", power = "datasheet [H100] 350-400 W (400 used)",
      cache = "datasheet [H100] whitepaper: 50 MB L2", sm_count = "datasheet [H100] whitepaper: 132 SMs (full GH100 "
        .. "configuration of the SXM5/NVL boards)",
      links = "datasheet [H100] NVLink 600 GB/s bidirectional = 300e9 each way; PCIe Gen5 128 GB/s "
        .. "bidirectional = 63e9 host link; latency " .. lat_nvlink .. ", " .. lat_pcie,
    },
  },
  {
    name = "GH200", kind = "gpu", year = 2023,
    note = "the Hopper GPU of a GH200 Grace Hopper Superchip (96 GB HBM3 version); its Grace "
      .. "CPU's LPDDR5X is the host memory ZeRO-Offload uses, over NVLink-C2C",
    peak = { fp64 = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T, fp16 = 989.5 * T, bf16 = 989.5 * T,
             fp8 = 1979 * T, int8 = 1979 * T },
    mem = 96 * G, mem_bw = 4000 * G, cache = 50 * M, power = 1000, sm_count = 132,
    links = {
      intra = { bw = 450 * G, latency = 1e-6 },
      inter = { bw = 50 * G, latency = 5e-6 },
      host = { bw = 450 * G, latency = 1e-6 },
    },
    source = {
      peak = "datasheet [GH200]: fp64 tensor core 67, fp32 67 TFLOP/s; tf32 989, bf16/fp16 "
        .. "1979, fp8 and int8 3958 with sparsity, halved here to dense",
      mem = "datasheet [GH200] 96 GB HBM3 (a 144 GB HBM3e version exists)", mem_bw = "datasheet [GH200] 4 TB/s",
      power = "datasheet [GH200] 450-1000 W configurable for the whole superchip (1000 used)",
      cache = "datasheet [H100] whitepaper: 50 MB L2", sm_count = "datasheet [H100] whitepaper: 132 SMs",
      links = "datasheet [GH200] NVLink-C2C 900 GB/s bidirectional = 450e9 each way to the Grace CPU "
        .. "(host); NVLink 900 GB/s = 450e9 GPU to GPU; inter assumed one 400 Gb/s NIC = 50e9; "
        .. "latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "TPUv5p", kind = "tpu", year = 2023,
    note = "one TPU v5p chip",
    peak = { bf16 = 459 * T, int8 = 918 * T },
    mem = 95 * G, mem_bw = 2765 * G,
    links = { intra = { bw = 4800e9 / 8 / 2, latency = 1e-6 } },
    source = {
      peak = "datasheet [V5P] 459 TFLOP/s bf16, 918 TOPS int8 per chip",
      mem = "datasheet [V5P] 95 GB HBM2e", mem_bw = "datasheet [V5P] 2765 GB/s",
      links = "datasheet [V5P] interchip interconnect 4800 Gbps per chip = 600 GB/s, read as "
        .. "bidirectional (as the v5e entry) = 300e9 each way; latency " .. lat_nvlink
        .. "; no inter-node tier (a pod is one ICI torus)",
    },
  },
  {
    name = "MI250X", kind = "gpu", year = 2021,
    note = "one MI250X package (two GCDs, seen as two devices by software); sm_count = compute units",
    peak = { fp64 = 95.7 * T, fp32 = 95.7 * T, fp16 = 383 * T, bf16 = 383 * T, int8 = 383 * T },
    mem = 128 * G, mem_bw = 3276.8 * G, cache = 16 * M, power = 560, sm_count = 220,
    links = {
      intra = { bw = 400 * G, latency = 1e-6 },
      inter = { bw = 25 * G, latency = 5e-6 },
      host = { bw = 31.5 * G, latency = 2e-6 },
    },
    source = {
      peak = "datasheet [MI250X]: fp64 and fp32 matrix (and packed fp32) 95.7, fp16/bf16 383 "
        .. "TFLOP/s, int8 383 TOPS",
      mem = "datasheet [MI250X] 128 GB HBM2e", mem_bw = "datasheet [MI250X] 3.2768 TB/s", power = "datasheet [MI250X] 500 W "
        .. "(560 W peak, used)", cache = "datasheet [MI250X] 8 MB L2 per GCD x 2 = 16 MB",
      sm_count = "datasheet [MI250X] 220 compute units",
      links = "datasheet [MI250X] up to 8 Infinity Fabric links, 800 GB/s peak aggregate = 400e9 each "
        .. "way; host: PCIe Gen4 x16 = 31.5e9 each way (derived, PCI-SIG); inter assumed one "
        .. "200 Gb/s NIC per package = 25e9; latency " .. lat_nvlink .. ", " .. lat_ib .. ", " .. lat_pcie,
    },
  },
  {
    name = "Gaudi2", kind = "accelerator", year = 2022,
    peak = { bf16 = 432 * T, fp8 = 865 * T },
    mem = 96 * G, mem_bw = 2460 * G, cache = 48 * M, power = 600,
    links = {
      intra = { bw = 21 * 100e9 / 8, latency = 1e-6 },
      inter = { bw = 3 * 100e9 / 8, latency = 5e-6 },
    },
    source = {
      peak = "datasheet [GAUDI2] matrix engines: bf16 432, fp8 865 TFLOP/s (dense)",
      mem = "datasheet [GAUDI2] 96 GB HBM2E", mem_bw = "datasheet [GAUDI2] 2.46 TB/s", cache = "datasheet [GAUDI2] 48 MB SRAM",
      power = "datasheet [GAUDI2] 600 W (OAM)",
      links = "datasheet [GAUDI2] 24 x 100 GbE RoCE ports on chip (100 Gb/s each way each): 21 for "
        .. "all-to-all within the server = 2.1 Tb/s = 262.5e9 each way, 3 for scale-out = "
        .. "37.5e9 each way (derived); latency " .. lat_nvlink .. ", " .. lat_ib,
    },
  },
  {
    name = "Gaudi3", kind = "accelerator", year = 2024,
    peak = { bf16 = 1835 * T, fp8 = 1835 * T },
    mem = 128 * G, mem_bw = 3700 * G, cache = 96 * M, power = 900,
    links = {
      intra = { bw = 21 * 200e9 / 8, latency = 1e-6 },
      inter = { bw = 3 * 200e9 / 8, latency = 5e-6 },
    },
    source = {
      peak = "datasheet [GAUDI3] matrix engines: bf16 and fp8 1835 TFLOP/s (dense)",
      mem = "datasheet [GAUDI3] 128 GB HBM2e", mem_bw = "datasheet [GAUDI3] 3.7 TB/s", cache = "datasheet [GAUDI3] 96 MB SRAM",
      power = "datasheet [GAUDI3] 900 W (OAM HL-325L)",
      links = "datasheet [GAUDI3] 24 x 200 GbE RoCE ports: 21 within the server = 4.2 Tb/s, 3 for "
        .. "scale-out = 0.6 Tb/s, each way: 525e9 and 75e9 (derived); latency " .. lat_nvlink
        .. ", " .. lat_ib,
    },
  },
  {
    name = "Grace-72", kind = "cpu", year = 2023,
    note = "a current Arm server CPU: one NVIDIA Grace (72 Neoverse V2 cores) of a Grace CPU "
      .. "Superchip",
    peak = { fp64 = 7.1 * T / 2, fp32 = 7.1 * T },
    mem = 480 * G, mem_bw = 500 * G, cache = 117 * M, power = 250,
    links = { inter = { bw = 50 * G, latency = 5e-6 } },
    source = {
      peak = "datasheet [GRACE] Superchip fp64 peak 7.1 TFLOP/s / 2 chips = 3.55; fp32 twice (SVE2 lanes)",
      mem = "datasheet [GRACE] up to 960 GB LPDDR5X per Superchip / 2", mem_bw = "datasheet [GRACE] up to 1 TB/s per "
        .. "Superchip / 2", cache = "datasheet [GRACE] 234 MB L3 per Superchip / 2 (117 MB)",
      power = "datasheet [GRACE] 500 W per Superchip including memory / 2",
      links = "assumed: one 400 Gb/s NIC = 50e9; latency " .. lat_ib,
    },
  },
}

-- == the kernel model's fields (graphs/hw/dlb_roofline.h dlb_op_time; docs/hw.md) =========
-- Per-class defaults, then per-device values. Every device but the seeds' own model device
-- (Hestness-T4, whose paper model is the pure roofline) gets them, each with its source.
--   kernel_overhead  GPU 5 us: a CUDA kernel launch is 3-5 us on the host and a few us
--                    of GPU front-end time; eager frameworks add their per-op dispatch
--                    (assumed: typical, not measured; calibrate with dlb.hw.calibrate).
--                    TPU 1 us per XLA op (assumed: compiled, no per-op host launch).
--                    CPU 10 us per framework op dispatch (assumed). Other accelerators
--                    (Gaudi) 5 us, as a GPU (assumed).
--   step_overhead    1 ms per training step: optimizer launch, data loader hand-off,
--                    Python step loop (assumed).
--   half_bw_bytes    derived: Little's law, the bytes that must be in flight to sustain the
--                    bandwidth: mem_bw x 500 ns of DRAM/HBM latency (GPU, TPU), x 100 ns (CPU).
local CLASS = {
  gpu = { kernel_overhead = 5e-6, step_overhead = 1e-3, latency = 500e-9,
    gemm_tile = { 128, 128 } },
  tpu = { kernel_overhead = 1e-6, step_overhead = 1e-3, latency = 500e-9, systolic = 128 },
  cpu = { kernel_overhead = 10e-6, step_overhead = 1e-3, latency = 100e-9 },
  -- other accelerators (Gaudi's graph-compiled matrix and vector engines): a GPU's launch
  -- and step costs, no tile or systolic padding model (assumed)
  accelerator = { kernel_overhead = 5e-6, step_overhead = 1e-3, latency = 500e-9 },
}
local CLASS_SOURCE = {
  kernel_overhead = "assumed per-class default (docs/hw.md, Kernel efficiency): GPU 5 us "
    .. "(CUDA launch + framework dispatch), TPU 1 us (compiled XLA op), CPU 10 us (framework "
    .. "dispatch), other accelerators 5 us (as a GPU)",
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
  -- B200: NVIDIA's B200 datasheets and the Blackwell whitepaper give no SM count; two dies
  -- of 80 SMs with 74 enabled each (Chips and Cheese, "Nvidia's B200: Keeping the CUDA
  -- Juggernaut Rolling", 2025), the count the device reports in NVIDIA's own benchmark
  -- configurations (NVIDIA/cudnn-frontend pull request 817: "NVIDIA B200, SM100 (10, 0),
  -- 148 SMs")
  ["B200"] = { sm_count = 148, src = "published, not on NVIDIA's datasheets: 2 dies x 74 "
    .. "enabled SMs = 148 (Chips and Cheese 2025, 'Nvidia's B200: Keeping the CUDA Juggernaut "
    .. "Rolling'); NVIDIA/cudnn-frontend PR 817's benchmark configuration: 'NVIDIA B200, SM100 "
    .. "(10, 0), 148 SMs'" },
  ["Skylake-n1-32"] = { vector_width = 16, src = "seed 004 Table 3: AVX-512, 16 fp32 lanes" },
  ["KNL-7250"] = { vector_width = 16, src = "datasheet: AVX-512, 16 fp32 lanes" },
  ["Xeon-E5-2680"] = { vector_width = 8, src = "datasheet: AVX2, 8 fp32 lanes" },
  ["EPYC-9654"] = { vector_width = 16, src = "datasheet: AVX-512 (Zen 4), 16 fp32 lanes" },
}
-- The fused attention kernels' fraction of the 16-bit tensor-core peak (attn_eff; the
-- `attention` fusion pass's kernels, graphs/hw/roofline.c dlb_op_time_raw), from
-- FlashAttention-2's published forward + backward throughput (Dao 2023, "FlashAttention-2:
-- Faster Attention with Better Parallelism and Work Partitioning", sec. 4.1):
--   A100 (80 GB SXM4, the paper's part): up to 73% of peak forward and 63% backward; the
--     backward does 2.5x the forward's FLOPs (ibid., sec. 4.1), so forward + backward
--     runs at 3.5 / (1 / 0.73 + 2.5 / 0.63) = 0.656 of peak -> 0.66;
--   H100 SXM5: the same kernels reach up to 335 TFLOP/s forward + backward (ibid., Fig. 7;
--     no TMA / wgmma, which FlashAttention-3 adds: Shah et al. 2024), 335 / 989.5 = 0.339
--     -> 0.34 of the dense 16-bit peak.
--   B200 (issue [21], added after seeing every B200 validation row predicted too fast):
--     FlashAttention-2 (flash-attn 2.x, no tcgen05 / TMEM: it runs its sm80 mma.sync code)
--     in NVIDIA's own B200 SDPA training benchmark (NVIDIA/cudnn-frontend,
--     benchmark/sdpa_benchmark_training/artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv,
--     commit bb37575d): BF16, head dim 128, 128 query / 8 KV heads, sequence 16k, causal
--     (FLOPs counted half): 425.1 TFLOP/s forward, 336.6 backward; 3.5 / (2250/425.1 +
--     2.5 x 2250/336.6) = 0.159 -> 0.16 of the dense 2250. Its causal rate stands for the
--     non-causal one (no non-causal FA2 hdim-128 forward + backward figure on B200 was
--     found); the one non-causal figure (flash-attention issue 1589, flash_attn 2.7.4 on
--     B200, head dim 64, 16k: 345.8 TFLOP/s forward + backward = 0.154) agrees within 4%.
-- The 40 GB A100 is the same GA100 die at the same clocks (the kernel is compute-bound;
-- only HBM differs); the H200 is the H100 die. Other devices: no published number, none.
local ATTN = {
  ["A100-SXM4-80GB"] = { 0.66, "Dao 2023 (FlashAttention-2) sec. 4.1: up to 73% of peak "
    .. "forward, 63% backward (2.5x the forward FLOPs): 3.5 / (1/0.73 + 2.5/0.63) = 0.66" },
  ["A100-SXM4-40GB"] = { 0.66, "as A100-SXM4-80GB (same GA100 die and clocks): Dao 2023 "
    .. "sec. 4.1, forward + backward 0.66 of peak" },
  ["H100-SXM"] = { 0.34, "Dao 2023 (FlashAttention-2) Fig. 7: up to 335 TFLOP/s forward + "
    .. "backward on H100 SXM5 = 0.34 of 989.5" },
  ["H200-SXM"] = { 0.34, "as H100-SXM (the same die): Dao 2023 Fig. 7, 335 / 989.5" },
  ["B200"] = { 0.16, "NVIDIA/cudnn-frontend B200 SDPA benchmark (sdpa_bf16_benchmark_results_"
    .. "NVIDIA_B200.csv), flash-attn FlashAttention-2, BF16, hdim 128, 16k, causal (FLOPs "
    .. "counted half): 425.1 forward, 336.6 backward TFLOP/s: 3.5 / (2250/425.1 + 2.5 x "
    .. "2250/336.6) = 0.16 (flash-attention issue 1589, non-causal hdim 64: 345.8 / 2250 = 0.15)" },
}
-- The fixed cost per GEMM output tile (gemm_tile_overhead, seconds; graphs/hw/roofline.c
-- dlb_gemm_efficiency; docs/hw.md "GEMM efficiency: a fixed cost per tile"): the pipeline
-- prologue and epilogue a tile pays whatever its reduction depth, q *= t_main / (t_main + t0).
-- A CALIBRATION (branch gemm-k, adopted by branch gemm-adopt), fitted
-- (tests/bench/gemm_short_k_fit.lua) on the published GEMM tables of
-- notebooks/data/gemm_short_k.lua only, never on validation rows: 58 rows that vary K at
-- fixed large M, N (OpenXLA's sm_90 bf16 matmul table, 45 rows; TileLang's H800 fp16
-- M = N = 8192, 7; DeepGEMM's H800 FP8 M = 4096, 6), each source's level (flops_eff) fitted
-- beside it: the per-op rule's RMS log error 0.120 without the term, 0.058 with t0 = 0.94 us
-- (median |error| 6.6% -> 2.7%). Fitted alone the sources want 0.75 (XLA), 1.24 (TileLang),
-- 2.14 us (DeepGEMM, whose FP8 promotion costs per K and whose N varies with K). The H800 is
-- the H100 SXM's compute die (132 SMs, same clocks and tensor peaks); the H200 is the same
-- die. B200: OpenXLA's sm_100 table (B200 or GB200, one Blackwell SM design), bf16 and fp8,
-- 90 rows: RMS log error 0.121 -> 0.064 with t0 = 0.65 us; fitted alone, bf16 and fp8 each
-- want 0.65 us (a cost in seconds, not in elements of K). Other devices: no published K
-- sweep found (the A100 among them): none, so their numbers are exactly the rule without
-- the term. Checked on data neither fit saw: llm-foundry's 8-GPU H100 rows outside the
-- validation table (tests/bench/foundry_rows_tile.lua; docs/validation.md).
local GEMM_TILE = {
  ["H100-SXM"] = { 0.94e-6, "CALIBRATION: fitted on published GEMM tables that vary K "
    .. "(notebooks/data/gemm_short_k.lua: OpenXLA matmul_interpolator_data.h sm_90 bf16, "
    .. "TileLang H800 fp16 8192^2, DeepGEMM H800 FP8; tests/bench/gemm_short_k_fit.lua): RMS "
    .. "log error 0.120 -> 0.058 over 58 rows; per source 0.75 / 1.24 / 2.14 us" },
  ["H200-SXM"] = { 0.94e-6, "as H100-SXM (the same GH100 die, 132 SMs, same clocks): the "
    .. "H100's fit on published GEMM tables (notebooks/data/gemm_short_k.lua)" },
  ["B200"] = { 0.65e-6, "CALIBRATION: fitted on OpenXLA's published sm_100 matmul table "
    .. "(matmul_interpolator_data.h, bf16 and fp8; notebooks/data/gemm_short_k.lua; "
    .. "tests/bench/gemm_short_k_fit.lua): RMS log error 0.121 -> 0.064 over 90 rows; bf16 "
    .. "and fp8 alone each 0.65 us" },
}
-- The fabric as NCCL sees it (issue [19]; dlb.parallel.cluster's nics, nvlink, nvls, read by
-- dlb_par_nccl_topo): the NVLink generation inside a node (NCCL's compute-capability rows and
-- LL128), NVLink SHARP (NVLS) in the node's switches, and the compute NICs per node of the
-- reference system whose network the device's links.inter describes (one NIC's bandwidth).
-- Systems with another network state nics= on their cluster.
local FABRIC = {
  ["V100-SXM2-16GB"] = { nvlink = 2, nics = 4, src = "NVLink 2.0 (Tesla V100 datasheet); "
    .. "DGX-1V: 4 x 100 Gb/s EDR InfiniBand per 8 GPUs (NVIDIA DGX-1 datasheet)" },
  ["V100-SXM2-32GB"] = { nvlink = 2, nics = 4, src = "as V100-SXM2-16GB (DGX-1V)" },
  ["A100-SXM4-40GB"] = { nvlink = 3, nics = 8, src = "NVLink 3.0 (A100 datasheet: 600 GB/s); "
    .. "DGX A100: 8 single-port ConnectX-6 200 Gb/s HDR InfiniBand for compute (NVIDIA DGX "
    .. "A100 User Guide, network ports)" },
  ["A100-SXM4-80GB"] = { nvlink = 3, nics = 8, src = "as A100-SXM4-40GB (DGX A100)" },
  ["H100-SXM"] = { nvlink = 4, nvls = 1, nics = 8, src = "NVLink 4.0 (H100 datasheet: 900 "
    .. "GB/s), third-generation NVSwitch with NVLink SHARP (Hopper whitepaper); DGX H100: 8 "
    .. "ConnectX-7 400 Gb/s NDR (NVIDIA DGX H100 User Guide)" },
  ["H200-SXM"] = { nvlink = 4, nvls = 1, nics = 8, src = "as H100-SXM (HGX H200: the same "
    .. "NVSwitch and ConnectX-7 fabric)" },
  ["B200"] = { nvlink = 5, nvls = 1, nics = 8, src = "NVLink 5.0 (B200 datasheet: 1.8 TB/s), "
    .. "NVLink switch with SHARP; DGX B200: 8 ConnectX-7 400 Gb/s (NVIDIA DGX B200 datasheet)" },
  ["GH200"] = { nvlink = 4, nvls = 1, nics = 1, src = "NVLink 4.0 (GH200 datasheet); one "
    .. "400 Gb/s NIC per superchip node (assumed)" },
  ["P100-SXM2"] = { nvlink = 1, src = "NVLink 1.0 (Tesla P100 datasheet)" },
}

for _, d in ipairs(catalogue) do
  local fb = FABRIC[d.name]
  if fb then
    d.nvlink, d.nvls, d.nics = fb.nvlink, fb.nvls, fb.nics
    d.source = d.source or {}
    d.source.fabric = fb.src
  end
  -- a per-device field from a {value, source} table
  local function sourced(field, entry)
    if entry then
      d[field] = entry[1]
      d.source = d.source or {}
      d.source[field] = entry[2]
    end
    return entry
  end
  sourced("gemm_tile_overhead", GEMM_TILE[d.name])
  sourced("nccl_ctas", require("dlbench.contention").CTAS[d.name])   -- NCCL's CTAs, sourced
  local a = sourced("attn_eff", ATTN[d.name])
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
  -- What a training device's predictions lack against the A100's (issue [21]): a published
  -- fused-attention efficiency (FlashAttention-2's, above) and a tile model (a GPU's SM
  -- count, a TPU's systolic array). Where no published figure exists the source says so
  -- and every plan/evaluate row on the device is marked less certain (r.less_certain).
  local lacks = {}
  if c and d.kind ~= "cpu" and d.name ~= "Hestness-T4" and (d.peak.bf16 or d.peak.fp16) then
    if not a then
      lacks[#lacks + 1] = "attn_eff"
      d.source.attn_eff = "no published fused-attention (FlashAttention) forward + backward "
        .. "efficiency for " .. d.name .. ": none; attention is timed at the GEMM efficiency, "
        .. "and predictions are marked less certain"
    end
    if not d.sm_count and not d.systolic then
      lacks[#lacks + 1] = "tile model"
      d.source[d.kind == "gpu" and "sm_count" or "gemm_tile"] = "no published compute-unit tile model for " .. d.name .. " in the "
        .. "catalogue (neither an SM count nor a systolic array size): no tile quantisation; "
        .. "predictions are marked less certain"
    end
  end
  if #lacks > 0 then
    d.less_certain = table.concat(lacks, ", ") .. " not published for " .. d.name
      .. " (class defaults; see its source)"
  end
end
return catalogue
