/*
** fusion_loss.c — the passes over a step's loss (graphs/step/fusion.c runs them after the
** others, dlb_fuse_step): a stack's eager ops around the graph's one loss op, counted on it:
** their bytes, and the further host ops and kernels they issue (dlb_analysis_op_more; the
** step model charges them, docs/hw.md "The host-side model").
** - the trainer's language-model train metrics (lm_metrics below): eager cross-entropy
**   passes over the logits that the trainer runs besides the loss.
** - the loss as Megatron-LM's vocab-parallel cross-entropy over fp32 logits (xent_fp32 below).
** Counting host ops: a Python-level op that launches a kernel is one host op (host_op); one
** that launches none (a view, a reshape, .contiguous() of a contiguous tensor) costs the host
** nothing, as a graph op that does no work; a kernel launched from C++ inside a host op
** beyond its first (the ops of a composite) costs the host a kernel launch (dlb_launch_host).
** The collectives of a tensor-parallel loss are not counted (the planner's business).
*/
#include "graph_impl.h"

double dlb_tensor_esize(const dlb_graph *s, int t, int precision); /* analysis.c */

/* The logits tensor op i reads when it is a forward loss (softmax cross-entropy), else -1: the
** op both loss passes below (lm_metrics, xent_fp32) add to. */
static int fwd_xent_logits(const dlb_graph *s, size_t i) {
  const op *p = &s->o[i];
  if (p->type != OP_XENT || p->phase != DLB_PHASE_FWD || p->nin < 1) return -1;
  return op_in(s, p)[0];
}

/* Give op i `ops` further host ops and `kernels` further kernels (more: 2 per op, or NULL). */
static void add_more(double *more, size_t i, double ops, double kernels) {
  if (more == NULL) return;
  more[2 * i] += ops;
  more[2 * i + 1] += kernels;
}

/* The trainer's language-model train metrics (DLB_FUSE_LM_METRICS). Composer's Trainer
** updates every train metric after each micro-batch's backward (composer/trainer/trainer.py
** _train_microbatch -> _eval_train_metrics, under torch.no_grad() and the autocast precision
** context); llm-foundry's ComposerMPTCausalLM (llmfoundry/models/mpt/modeling_mpt.py)
** declares train_metrics = [LanguageCrossEntropy(), LanguagePerplexity()] (use_train_metrics
** defaults to True), and each one's update (composer/metrics/nlp.py) runs
** torch.nn.CrossEntropyLoss(reduction='sum') over the whole logits tensor (LanguagePerplexity
** subclasses LanguageCrossEntropy and only changes compute()), apart from the model's fused
** loss (flash-attn's cross-entropy). Per metric and logit element of e bytes: the logits read
** (e), cross_entropy's autocast upcast to fp32 written and read (4 + 4; a 16- or 8-bit logit
** only: fp32 logits are used as they are), the fp32 log_softmax written (4), its row reads
** after the first from L2 (a row of 50,368 fp32 values is 197 KiB); nll_loss reads one
** element per row (not counted). Linear in the logits' size, as the compiled sweep needs.
** Host ops and kernels per metric (LanguageCrossEntropy.update, mosaicml/composer 00e349d
** composer/metrics/nlp.py): target.view(-1) and logits.view(n, -1) launch nothing;
** self.loss_fn(logits, target) is one host op (torch.nn.CrossEntropyLoss -> F.cross_entropy
** -> torch._C._nn.cross_entropy_loss) that launches from C++ the autocast cast (16- and 8-bit
** logits), log_softmax and nll_loss (one reduction kernel for reduction='sum':
** aten/src/ATen/native/cuda/Loss.cu nll_loss_forward_reduce_cuda_kernel_2d); the
** ignore-index count (target != ignore_index).sum() two host ops, two kernels; the two state
** additions self.total_items += and self.sum_loss += two host ops, two kernels: 5 host ops
** and 7 kernels (6 over fp32 logits). */
enum { LM_METRIC_PASSES = 2, LM_METRIC_OPS = 5, LM_METRIC_KERNELS = 6 /* + the cast */ };

void dlb_fuse_lm_metrics(const dlb_graph *s, int precision, double *bytes, const double *size0,
                         double *more) {
  for (size_t i = 0; i < s->no; i++) {
    int x = fwd_xent_logits(s, i);
    if (x < 0) continue;
    double e = dlb_tensor_esize(s, x, precision);
    double per = e < 4 ? 1 + 12 / e : 2; /* bytes per metric, in units of the logits' size */
    bytes[i] += LM_METRIC_PASSES * per * size0[x];
    add_more(more, i, LM_METRIC_PASSES * LM_METRIC_OPS,
             LM_METRIC_PASSES * (LM_METRIC_KERNELS + (e < 4 ? 1 : 0)));
  }
}

/* The loss as Megatron-LM's vocab-parallel cross-entropy (DLB_FUSE_XENT_FP32). With
** --fp16-lm-cross-entropy off (its default), megatron/model/gpt_model.py
** post_language_model_processing calls vocab_parallel_cross_entropy(output.float(), labels),
** and megatron/mpu/cross_entropy.py _VocabParallelCrossEntropy runs eager passes over the
** logits (NVIDIA/Megatron-LM 2021-22; vTrain's rows ran it, docs/validation.md "megatron
** audit"). Per logit, E = 4 (fp32), e the logits' own size: forward: .float() reads e, writes
** E; torch.max reads E; .sub_(max) reads and writes E; torch.exp(out=) reads and writes E;
** .sum reads E; .div_(sum) reads and writes E: e + 9 E. Backward: grad_input.mul_(grad_output)
** reads and writes E (the row's target entry -= 1 touches one element per row, not counted);
** the .float() cast's backward reads E, writes e: 3 E + e. fp32 logits skip both casts: 8 E
** and 2 E. The loss op's own count is 2 e each way (the logits read and the probabilities
** written; the probabilities read and the gradient written), so the pass adds the rest, in
** units of the logits' size (linear, as the compiled sweep needs). The all-reduces of the row
** maxima and sums (one value per token) are not counted.
** Host ops, each launching one kernel (megatron/mpu/cross_entropy.py, NVIDIA/Megatron-LM
** 34ed99d): forward .float(), torch.max, .sub_, target < start, target >= end, |, .clone(),
** - start, masked_target[target_mask] = 0 (masked_fill_), torch.arange, the gather
** logits_2d[arange_1d, masked_target_1d], .clone(), predicted_logits[target_mask] = 0.0,
** torch.exp(out=), .sum, torch.log, - predicted_logits, .div_: 18 (the unsqueezes, views,
** view_as and .contiguous() launch nothing); backward torch.arange, target_mask...float(),
** 1.0 - it, grad_2d[arange_1d, masked_target_1d] -= it (the gather, the in-place sub_ and the
** index_put_ back: three), grad_input.mul_, and the cast's backward (autograd's ToCopyBackward,
** one op of the engine as every backward op): 8. fp32 logits: 17 and 7 (no casts). The graph's
** loss op and its backward are one host op and one kernel each, so the pass adds the rest. */
enum { XENT_FP32_FWD_OPS = 17, XENT_FP32_BWD_OPS = 7 /* + the cast each way */ };

void dlb_fuse_xent_fp32(const dlb_graph *s, int precision, double *bytes, const double *size0,
                        double *more) {
  for (size_t i = 0; i < s->no; i++) {
    int x = fwd_xent_logits(s, i);
    if (x < 0) continue;
    double e = dlb_tensor_esize(s, x, precision), E = 4;
    int cast = e < E;
    double fwd = (cast ? e + 9 * E : 8 * E) - 2 * e, bwd = (cast ? 3 * E + e : 2 * E) - 2 * e;
    bytes[i] += fwd / e * size0[x];
    double nf = XENT_FP32_FWD_OPS + cast - 1, nb = XENT_FP32_BWD_OPS + cast - 1;
    add_more(more, i, nf, nf);
    for (size_t j = 0; j < s->no; j++)
      if (s->o[j].type == OP_XENT_BWD && s->o[j].fwd == (int)i) {
        bytes[j] += bwd / e * size0[x];
        add_more(more, j, nb, nb);
      }
  }
}
