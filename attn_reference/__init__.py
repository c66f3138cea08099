"""attn_reference: the reference implementation every submission is graded against.

Pure, vectorised numpy; one concept per module. Shapes use one vocabulary:
``(..., L_q, d_k)`` means any number of leading batch dimensions. Masks are boolean
or 0/1 with True/1 meaning *this query may attend to this key*.
"""

from attn_reference.context import attention_context
from attn_reference.gradients import (
    gradient_norm_table,
    numerical_gradient,
    relative_error,
    scaled_dot_product_attention_backward,
    softmax_backward,
    softmax_gradient_norm,
    softmax_jacobian,
)
from attn_reference.heads import merge_heads, split_heads
from attn_reference.masks import causal_mask
from attn_reference.multi_head import multi_head_attention
from attn_reference.rnn_scores import additive_score, concat_score, dot_score, general_score
from attn_reference.scaled_attention import scaled_dot_product_attention
from attn_reference.softmax import softmax
from attn_reference.variance import dot_product_variance, variance_table

__all__ = [
    "additive_score",
    "attention_context",
    "causal_mask",
    "concat_score",
    "dot_product_variance",
    "dot_score",
    "general_score",
    "gradient_norm_table",
    "merge_heads",
    "multi_head_attention",
    "numerical_gradient",
    "relative_error",
    "scaled_dot_product_attention",
    "scaled_dot_product_attention_backward",
    "softmax",
    "softmax_backward",
    "softmax_gradient_norm",
    "softmax_jacobian",
    "split_heads",
    "variance_table",
]
