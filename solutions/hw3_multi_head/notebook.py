# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Assignment 3 · Multi-head attention · 多头注意力
#
# One attention computes one set of weights per query: a single notion of "which
# positions matter". Multi-head attention runs several smaller attentions side by
# side, each on its own slice of the features, so that different heads can track
# different relations at the same time.
#
# You implement:
#
# <!-- points table: generated from course.yml -->
#
# **How to work.** Each *graded* cell below holds one function to implement;
# it starts out raising `NotImplementedError`, and the cells that use it fail
# until you have implemented it — that is expected. The same functions are in
# `multi_head.py`: work in this notebook or in the module, and hand in the one you
# worked in (see the README). Keep every name and signature unchanged.
# Assignment 1's functions are not available here, so the per-head scaled
# dot-product attention is written again inside `multi_head_attention`.
#
# **Conventions.** Shapes are written `(..., n, d_model)`, where `...` is any
# number of leading batch dimensions; `h` is the number of heads and
# `d_head = d_model / h`. Projections are applied as `X @ W`, weights on the
# right: a switch from Assignment 2, which wrote $W_a s$ for column vectors
# (`s @ W_a.T` in numpy). `X @ W.T`, PyTorch's `nn.Linear` convention, is a
# different layer here. float32 inputs give
# float32 results. A mask is boolean or 0/1, and True/1 means *this query may
# attend to this key*.
#
# 本作业实现多头注意力：拆分头、每个头独立做缩放点积注意力、合并头、输出投影；掩码对每个头都生效。

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

# %% [markdown]
# ## 1. Why several heads? · 为什么需要多个头
#
# Take the sentence *"The cat sat on the mat because it was tired"*. Several
# relations hold at once:
#
# * **syntax** — "cat" is the subject of "sat", "mat" the object of "on";
# * **coreference** — "it" stands for "cat";
# * **position** — many words mostly depend on their neighbours;
# * **meaning** — "tired" describes the cat, not the mat.
#
# A single attention gives each query one probability distribution over the keys,
# so it has to blend all these relations into one set of weights. With $h$ heads,
# each query gets $h$ distributions, computed from $h$ different projections of
# the same tokens: one head is free to follow syntax while another resolves "it".
# Trained Transformers do show this division of labour (多头分工).
#
# The cost does not grow: instead of one attention of width $d_\text{model}$ we
# run $h$ attentions of width $d_\text{head} = d_\text{model}/h$. The projections
# $W_q, W_k, W_v, W_o$ stay $d_\text{model} \times d_\text{model}$, whatever $h$ is.
#
# The recipe, which the next sections build step by step:
#
# 1. **project** — $Q = X_q W_q$, $K = X_{kv} W_k$, $V = X_{kv} W_v$;
# 2. **split** — cut the $d_\text{model}$ features of each into $h$ blocks of
#    $d_\text{head}$;
# 3. **attend per head** — scaled dot-product attention inside every head,
#    scaled by $\sqrt{d_\text{head}}$;
# 4. **merge** — put the heads' outputs side by side again;
# 5. **output projection** — multiply by $W_o$ so the heads' results mix.

# %% [markdown]
# ## 2. Splitting into heads · 拆分头
#
# Head $i$ gets the $i$-th block of $d_\text{head}$ consecutive features of every
# position:
#
# $$\operatorname{split}(X)[\dots, i, t, :] = X\big[\dots, t,\; i\,d_\text{head} : (i+1)\,d_\text{head}\big], \qquad d_\text{head} = \frac{d_\text{model}}{h}.$$
#
# The head axis goes *before* the position axis, so that each head looks like an
# ordinary sequence and the attention of Assignment 1 can treat the head axis as
# one more batch axis.
#
# **Shapes.** `X`: `(..., n, d_model)`; `num_heads` must divide `d_model`;
# returns `(..., num_heads, n, d_model // num_heads)`. Hint: a reshape can cut the
# last axis into two, and `np.swapaxes` / `np.moveaxis` can then reorder axes.

# %% graded="split_heads"
# (filled in from the module at build time)

# %% [markdown]
# Features numbered 0 to 7 for 3 positions, split into 2 heads: head 0 holds
# features 0–3, head 1 features 4–7, of every position.

# %%
N_TOKENS, D_MODEL_SMALL, HEADS_SMALL = 3, 8, 2
feature_ids = np.tile(np.arange(D_MODEL_SMALL), (N_TOKENS, 1)) + 100 * np.arange(N_TOKENS)[:, None]  # (n, d_model): 100 * position + feature
heads = split_heads(feature_ids, HEADS_SMALL)
print("input (row = position, value = 100 * position + feature):\n", feature_ids)
print("split:", heads.shape)
for i, head in enumerate(heads):
    print(f"head {i}:\n{head.astype(int)}")

# %% [markdown]
# ## 3. Merging heads · 合并头
#
# The inverse: for every position, concatenate the heads' features in head order,
#
# $$\operatorname{merge}(Z)[\dots, t, :] = \big[\, Z[\dots, 0, t, :] \;;\; Z[\dots, 1, t, :] \;;\; \dots \;;\; Z[\dots, h-1, t, :] \,\big],$$
#
# so that $\operatorname{merge}(\operatorname{split}(X)) = X$.
#
# **Shapes.** `X`: `(..., num_heads, n, d_head)`; returns
# `(..., n, num_heads * d_head)`.

# %% graded="merge_heads"
# (filled in from the module at build time)

# %%
rng = np.random.default_rng(0)
X_round = rng.normal(size=(2, 5, 12))  # (batch, n, d_model)
for num_heads in (1, 2, 3, 4, 6, 12):
    assert np.array_equal(merge_heads(split_heads(X_round, num_heads)), X_round)
print("merge(split(X)) == X for every head count that divides 12")

# %% [markdown]
# ## 4. Multi-head attention · 多头注意力
#
# With $Q = X_q W_q$, $K = X_{kv} W_k$, $V = X_{kv} W_v$ and
# $Q_i, K_i, V_i$ the $i$-th heads of their splits:
#
# $$\text{head}_i = \operatorname{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_\text{head}}}\right) V_i, \qquad
# Y = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_o = \operatorname{merge}(\text{heads})\, W_o .$$
#
# Splitting $X W_q$ into blocks is the same as giving head $i$ its own projection
# $W_q^{(i)}$, the $i$-th block of $d_\text{head}$ columns of $W_q$: the
# Transformer paper's per-head matrices, stored side by side.
#
# * Each head scales by $\sqrt{d_\text{head}}$ — the width of the vectors it
#   actually compares — not by $\sqrt{d_\text{model}}$.
# * **Masks apply to every head.** The mask has shape `(..., n_q, n_kv)`; the
#   scores have shape `(..., h, n_q, n_kv)`. Insert a head axis of length 1 in
#   front of the mask's last two axes so that it broadcasts over the heads. A
#   causal mask, for example, must hide the future from all heads alike. A 1-D
#   mask `(n_kv,)` means the same allowed keys for every query.
# * Keep the heads as a batch axis: no Python loop over heads is needed.
#
# **Shapes.**
#
# | argument | shape |
# | --- | --- |
# | `X_q` | `(..., n_q, d_model)` |
# | `X_kv` | `(..., n_kv, d_model)` (`X_q` itself for self-attention) |
# | `W_q`, `W_k`, `W_v`, `W_o` | `(d_model, d_model)` |
# | `num_heads` | int dividing `d_model` |
# | `mask` (optional) | bool or 0/1, broadcastable to `(..., n_q, n_kv)` |
# | returns `Y` | `(..., n_q, d_model)` |
# | returns `A` | `(..., num_heads, n_q, n_kv)`, every row sums to 1 |

# %% graded="multi_head_attention"
# (filled in from the module at build time)

# %% [markdown]
# ## 5. A small demo · 小演示
#
# ### 5.1 Two heads, two relations · 两个头，两种关系
#
# Four tokens, "the cat a mat", with hand-made features and identity projections
# (so that $Q = K = V = X$). Features 0–1 encode the **word class**
# (determiner or noun); features 2–3 encode the **phrase** ("the cat" or
# "a mat"). With two heads, head 0 sees only the word class and head 1 only the
# phrase. A single head compares all four features at once.

# %%
WORDS = ["the", "cat", "a", "mat"]
STRENGTH = 3.0  # feature size: larger -> sharper attention
DETERMINER, NOUN = [1.0, 0.0], [0.0, 1.0]
PHRASE_1, PHRASE_2 = [1.0, 0.0], [0.0, 1.0]
X_words = STRENGTH * np.array([
    DETERMINER + PHRASE_1,  # the
    NOUN + PHRASE_1,  # cat
    DETERMINER + PHRASE_2,  # a
    NOUN + PHRASE_2,  # mat
])  # (n, d_model) with d_model = 4
identity = np.eye(X_words.shape[-1])  # W_q = W_k = W_v = W_o = I

_, A_two_heads = multi_head_attention(X_words, X_words, identity, identity, identity, identity, num_heads=2)
_, A_one_head = multi_head_attention(X_words, X_words, identity, identity, identity, identity, num_heads=1)

PANEL_TITLES = ["1 head: both relations at once", "2 heads, head 0: word class", "2 heads, head 1: phrase"]
fig, axes = plt.subplots(1, len(PANEL_TITLES), figsize=(11, 3.4))
for ax, title, values in zip(axes, PANEL_TITLES, (A_one_head[0], A_two_heads[0], A_two_heads[1])):
    ax.imshow(values, cmap="Blues", vmin=0, vmax=1)
    ax.set_title(title)
    ax.set_xticks(range(len(WORDS)), WORDS)
    ax.set_yticks(range(len(WORDS)), WORDS)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    for (i, j), value in np.ndenumerate(values):
        ax.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value > 0.5 else "black")
fig.tight_layout()
plt.show()

# %% [markdown]
# For the single head, each word matches itself on *both* relations, which doubles
# its score; "the" keeps about 98% of the weight for itself, and its partial
# matches "cat" (same phrase) and "a" (same class) are all but ignored. With two
# heads the relations come apart: head 0 links "the" with "a" and "cat" with
# "mat"; head 1 links each word with the other word of its phrase. Merging the
# heads and applying $W_o$ hands both kinds of information to the next layer.
#
# ### 5.2 Causal self-attention, batched · 因果自注意力（批量）
#
# Random weights, a batch of 2 sequences of 6 tokens, $d_\text{model} = 8$,
# 4 heads and the causal mask. Every head must give weight 0 to the future.

# %%
BATCH, SEQ_LEN, D_MODEL, NUM_HEADS = 2, 6, 8, 4
WEIGHT_SCALE = 1 / math.sqrt(D_MODEL)  # keeps the projected features at about unit size
X = rng.normal(size=(BATCH, SEQ_LEN, D_MODEL))  # (batch, n, d_model)
W_q, W_k, W_v, W_o = (rng.normal(scale=WEIGHT_SCALE, size=(D_MODEL, D_MODEL)) for _ in range(4))
causal = np.tril(np.ones((SEQ_LEN, SEQ_LEN), dtype=bool))  # (n, n): True where key <= query

Y, A = multi_head_attention(X, X, W_q, W_k, W_v, W_o, NUM_HEADS, mask=causal)
future = np.logical_not(causal)  # (n, n): True above the diagonal
print("Y:", Y.shape, " A:", A.shape)
print("rows sum to 1:", np.allclose(A.sum(axis=-1), 1.0))
print("future weight in every head of every sequence is 0:", np.all(A[..., future] == 0))

fig, axes = plt.subplots(1, NUM_HEADS, figsize=(14, 3.4))
for head, ax in enumerate(axes):
    ax.imshow(A[0, head], cmap="Blues", vmin=0, vmax=1)
    ax.set_title(f"head {head} (sequence 0)")
    ax.set_xlabel("key position")
    ax.set_ylabel("query position")
    for (i, j), value in np.ndenumerate(A[0, head]):
        ax.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value > 0.5 else "black")
fig.tight_layout()
plt.show()

# %% [markdown]
# The heads share the mask but not the pattern: each projects the tokens
# differently and so distributes its weight differently over the past.
#
# ### 5.3 Cross-attention with padding · 带填充的交叉注意力
#
# Queries from one sequence (3 positions), keys and values from another
# (5 positions). The second key sequence has only 3 real tokens; a mask of shape
# `(batch, 1, n_kv)` hides its padding from every query of every head.

# %%
N_Q, N_KV = 3, 5
kv_lengths = np.array([5, 3])
X_dec = rng.normal(size=(BATCH, N_Q, D_MODEL))  # (batch, n_q, d_model)
X_enc = rng.normal(size=(BATCH, N_KV, D_MODEL))  # (batch, n_kv, d_model)
padding = (np.arange(N_KV)[None, :] < kv_lengths[:, None])[:, None, :]  # (batch, n_kv) -> (batch, 1, n_kv)

Y_cross, A_cross = multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, NUM_HEADS, mask=padding)
print("Y:", Y_cross.shape, " A:", A_cross.shape)
print("weights on padding (sequence 1, keys 3-4), all heads:", A_cross[1, ..., 3:].max())

X_32 = X.astype(np.float32)
W_32 = [W.astype(np.float32) for W in (W_q, W_k, W_v, W_o)]
print("float32 in, float32 out:", multi_head_attention(X_32, X_32, *W_32, NUM_HEADS)[0].dtype)

# %% [markdown]
# ## 6. Summary · 小结
#
# 1. One attention gives each query one distribution over the keys; $h$ heads give
#    $h$ distributions, from $h$ different projections, so different relations
#    can be tracked at once.
# 2. Splitting is a reshape of the feature axis plus moving the head axis in front
#    of the positions; merging is its exact inverse.
# 3. Each head runs scaled dot-product attention with scale
#    $\sqrt{d_\text{head}}$; the head axis is just another batch axis.
# 4. The mask gets a head axis of length 1, so it applies to every head; $W_o$
#    then mixes the concatenated heads.
#
# 要点：多头注意力 = 投影 → 拆分 → 每个头独立注意力 → 合并 → 输出投影；参数量与头数无关。
#
# Next: the rest of the Transformer block — embeddings, positional encoding,
# feed-forward layers, residual connections and layer normalisation.

# %% [markdown]
# ## Check your work · 检查你的作业
#
# From the assignment folder run
#
# ```bash
# attn-course check hw3_multi_head                   # your module multi_head.py
# attn-course check hw3_multi_head multi_head.ipynb  # or this notebook
# ```
#
# or simply `pytest` in that folder. These public checks use small known cases.
# Grading also uses other shapes, batch dimensions, float32 inputs and masks, so
# keep your code vectorised and general. If you hand in the notebook, only its
# imports, function definitions and simple constants are graded — demo cells are
# not run.
