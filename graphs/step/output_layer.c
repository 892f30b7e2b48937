/*
** output_layer.c — which ops of a step are the output layer's GEMMs (DLB_KERNEL_HEAD,
** graphs/ir/dlb_graph.h): the forward matmul whose output is the loss's logits (the LM head,
** or a classifier's last linear layer), its recomputation and the backward matmuls derived
** from it (the input and weight gradients, graphs/step/train.c matmul_bwd). An fp8 recipe
** that leaves the output layer in 16-bit runs those GEMMs at the 16-bit peak (dlb_roof
** head_peak): Megatron-Core's output_layer is a plain tensor_parallel.ColumnParallelLinear,
** not a Transformer Engine module (megatron/core/models/gpt/gpt_model.py); torchtitan
** converts every nn.Linear but "output" to torchao's Float8Linear (torchtitan/float8.py,
** module_filter_fn=lambda mod, fqn: fqn != "output"); docs/frameworks.md "The output layer
** under fp8".
*/
#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

/* The forward matmul that makes tensor t through ops that pass their first input on
** (reshape, transpose, cast: logits.float()), or -1. */
static int logits_matmul(const dlb_graph *s, int t) {
  for (size_t hops = 0; t >= 0 && hops <= s->no; hops++) {
    int p = s->t[t].producer;
    if (p < 0) return -1;
    const op *q = &s->o[p];
    if (q->type == OP_MATMUL) return q->phase == DLB_PHASE_FWD ? p : -1;
    if ((q->type != OP_RESHAPE && q->type != OP_TRANSPOSE && q->type != OP_CAST) || q->nin < 1)
      return -1;
    t = op_in(s, q)[0];
  }
  return -1;
}

/* Mark the output layer's GEMMs of step s in kernel (one DLB_KERNEL_* per op, set by the
** fusion passes: an op already of another class keeps it). DLB_ENOMEM on failure. */
int dlb_mark_output_layer(const dlb_graph *s, int *kernel) {
  char *head = NULL;
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (p->type != OP_XENT || p->phase != DLB_PHASE_FWD || p->nin < 1) continue;
    int h = logits_matmul(s, op_in(s, p)[0]);
    if (h < 0) continue;
    if (head == NULL && (head = dlb_calloc(s->no + 1, 1)) == NULL)
      return dlb_fail(DLB_ENOMEM, "analysis: out of memory");
    head[h] = 1;
  }
  if (head == NULL) return DLB_OK;
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    int of = p->phase == DLB_PHASE_FWD ? (int)i : p->fwd;
    if (p->type == OP_MATMUL && of >= 0 && head[of] && kernel[i] == DLB_KERNEL_PLAIN)
      kernel[i] = DLB_KERNEL_HEAD;
  }
  dlb_free(head);
  return DLB_OK;
}
