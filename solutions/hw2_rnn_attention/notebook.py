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
# # Assignment 2 · Attention in RNN encoder-decoders: Bahdanau and Luong · RNN 编码器-解码器中的注意力
#
# Attention was not invented for the Transformer. It first appeared in 2014 as an
# add-on to recurrent encoder-decoders for machine translation, and the
# Transformer later kept the attention and dropped the recurrence. This notebook
# follows that history:
#
# | year | who | what |
# | --- | --- | --- |
# | 2014 | Bahdanau, Cho & Bengio | additive attention inside an RNN translator |
# | 2015 | Luong, Pham & Manning | simpler multiplicative scores; global vs. local attention |
# | 2017 | Vaswani et al. | "Attention Is All You Need": attention without any RNN |
#
# You implement:
#
# <!-- points table: generated from course.yml -->
#
# **How to work.** Each *graded* cell below holds one function to implement;
# it starts out raising `NotImplementedError`, and the cells that use it fail
# until you have implemented it — that is expected. The same functions are in
# `rnn_attention.py`: work in this notebook or in the module, and hand in the one you
# worked in (see the README). Keep every name and signature unchanged.
#
# **Conventions.** Shapes are written `(..., T, d_h)`, where `...` is any number of
# leading batch dimensions; the batch dimensions of the decoder state `s` and the
# encoder states `H` broadcast against each other. float32 inputs give float32
# results. A mask is boolean or 0/1, and True/1 means *this query may attend to
# this key* — here, the decoder may look at this source position.
#
# **Weights multiply column vectors.** As in the papers, $W_a s$ is the matrix
# $W_a \in \mathbb{R}^{d_a \times d_s}$ times the column vector $s$. The arrays
# store states as rows, shape `(..., d_s)`, so in numpy $W_a s$ is `s @ W_a.T`;
# `s @ W_a` is a different (wrong, or shape-mismatched) computation. Assignment 3
# switches to the Transformer's convention, `X @ W`, with weights on the right.
#
# 本作业沿着注意力机制的历史：先看 Seq2Seq 的信息瓶颈，再实现 Bahdanau 与 Luong 的打分函数和上下文向量，最后比较 RNN+注意力与纯注意力。

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

# %% [markdown]
# ## 1. The seq2seq bottleneck · Seq2Seq 的信息瓶颈
#
# The first neural translators (Cho et al. 2014; Sutskever et al. 2014) were
# *encoder-decoders*. An encoder RNN reads the source sentence one token at a
# time, updating a hidden state $h_t = f(h_{t-1}, x_t)$; its **last** state
# becomes a single context vector $c$; a decoder RNN generates the translation
# from $c$ alone.
#
# ```
#   "我 爱 北京"  ->  [encoder RNN]  ->  c (one fixed-size vector)  ->  [decoder RNN]  ->  "I love Beijing"
# ```
#
# Whether the source has 3 words or 60, everything must fit into the same $d_h$
# numbers. Long sentences lose information: this is the **bottleneck** (信息瓶颈).
#
# A human translator works differently: while writing each target word they look
# back at the part of the source that matters for it. Attention gives the decoder
# that ability — instead of one $c$, it builds a fresh context $c_t$ at every
# step from **all** the encoder states.
#
# The toy encoder below makes the point concrete: it produces one state per source
# token, but the classic decoder only ever sees the last row.

# %%
rng = np.random.default_rng(0)
SOURCE = ["我", "爱", "北京"]
D_EMBED, D_HIDDEN = 3, 4
RNN_WEIGHT_SCALE = 0.5  # small random weights keep tanh away from saturation
embeddings = rng.normal(size=(len(SOURCE), D_EMBED))  # (T_x, d_embed)
W_rec = rng.normal(scale=RNN_WEIGHT_SCALE, size=(D_HIDDEN, D_HIDDEN))  # recurrent weights
W_in = rng.normal(scale=RNN_WEIGHT_SCALE, size=(D_HIDDEN, D_EMBED))  # input weights

h = np.zeros(D_HIDDEN)
encoder_states = []
for x_t in embeddings:  # one step per token: the loop cannot be parallelised
    h = np.tanh(W_rec @ h + W_in @ x_t)
    encoder_states.append(h)
H_toy = np.stack(encoder_states)  # (T_x, d_h)

print("all encoder states H (one row per source token):\n", H_toy.round(3))
print("classic seq2seq context c = last state only:", H_toy[-1].round(3))

# %% [markdown]
# ## 2. Bahdanau attention (2014): additive scores · Bahdanau 加性注意力
#
# At decoder step $t$, Bahdanau et al. compare the previous decoder state
# $s_{t-1}$ with every encoder state $h_j$, normalise, and average:
#
# $$e_{tj} = v_a^\top \tanh\left(W_a s_{t-1} + U_a h_j\right), \qquad
# \alpha_{tj} = \frac{\exp(e_{tj})}{\sum_{k=1}^{T_x} \exp(e_{tk})}, \qquad
# c_t = \sum_{j=1}^{T_x} \alpha_{tj} h_j .$$
#
# The score is a small feed-forward network with one hidden layer of size $d_a$:
# both states are projected into the same space, added, squashed by $\tanh$, and
# read out by $v_a$. Because it is learned jointly with the translator, the model
# discovers by itself which source words align with which target words — hence
# the paper's title, *jointly learning to align and translate*.
#
# Notice that $W_a s_{t-1}$ does not depend on $j$: compute it once and add it to
# all the $U_a h_j$ by broadcasting.
#
# **Shapes.**
#
# | argument | shape |
# | --- | --- |
# | `s` (decoder state) | `(..., d_s)` |
# | `H` (encoder states, one row per source position) | `(..., T, d_h)` |
# | `W_a` | `(d_a, d_s)` |
# | `U_a` | `(d_a, d_h)` |
# | `v_a` | `(d_a,)` |
# | returns the scores $e$ | `(..., T)` |

# %% graded="additive_score"
# (filled in from the module at build time)

# %% [markdown]
# Random weights, one decoder state, then all three decoder states at once: a
# `(T_y, d_s)` array of states against `(T_x, d_h)` encoder states broadcasts to a
# `(T_y, T_x)` score table.

# %%
D_S, D_ATTN = 5, 3
T_Y = 3
W_a = rng.normal(size=(D_ATTN, D_S))
U_a = rng.normal(size=(D_ATTN, D_HIDDEN))
v_a = rng.normal(size=D_ATTN)
decoder_states = rng.normal(size=(T_Y, D_S))  # (T_y, d_s)

print("one step:", additive_score(decoder_states[0], H_toy, W_a, U_a, v_a).round(3))
print("all steps:", additive_score(decoder_states, H_toy, W_a, U_a, v_a).shape)

# %% [markdown]
# Its limitation: the encoder and decoder are still RNNs, so the states are
# produced one step after another and cannot be computed in parallel.
#
# ## 3. Luong attention (2015): three scores · Luong 注意力：三种打分函数
#
# Luong et al. simplified the scoring and compared several variants. They also
# score with the *current* decoder state $s_t$ rather than $s_{t-1}$:
#
# | variant | score $e_{tj}$ | notes |
# | --- | --- | --- |
# | dot | $s_t^\top h_j$ | no parameters; needs $d_s = d_h$ |
# | general | $s_t^\top W_a h_j$ | a learned matrix between the two states |
# | concat | $v_a^\top \tanh\left(W_a [s_t; h_j]\right)$ | Bahdanau's additive score, most expensive |
#
# Luong also distinguished *global* attention (over every source position, as
# here) from *local* attention (over a window around a predicted position), an
# early form of today's sliding-window attention.
#
# ### 3.1 Dot · 点积
#
# $$e_j = s^\top h_j = \sum_{l=1}^{d} s_l\, h_{jl}$$
#
# For all $j$ at once this is one matrix-vector product, $e = H s$.
#
# **Shapes.** `s`: `(..., d)`; `H`: `(..., T, d)`; returns `(..., T)`.

# %% graded="dot_score"
# (filled in from the module at build time)

# %% [markdown]
# ### 3.2 General · 双线性
#
# $$e_j = s^\top W_a h_j$$
#
# The row vector $s^\top W_a$ does not depend on $j$; compute it once, then dot it
# with every $h_j$. With $W_a = I$ the general score is the dot score.
#
# **Shapes.** `s`: `(..., d_s)`; `H`: `(..., T, d_h)`; `W_a`: `(d_s, d_h)`;
# returns `(..., T)`.

# %% graded="general_score"
# (filled in from the module at build time)

# %% [markdown]
# ### 3.3 Concat · 拼接
#
# $$e_j = v_a^\top \tanh\left(W_a \begin{bmatrix} s \\ h_j \end{bmatrix}\right)$$
#
# Write $W_a = [\,W^{(s)} \;\; W^{(h)}\,]$, its first $d_s$ and last $d_h$ columns.
# Then $W_a [s; h_j] = W^{(s)} s + W^{(h)} h_j$: the concat score is exactly the
# additive score with $W = W^{(s)}$ and $U = W^{(h)}$. You never need to build the
# concatenated vectors.
#
# **Shapes.** `s`: `(..., d_s)`; `H`: `(..., T, d_h)`; `W_a`: `(d_a, d_s + d_h)`;
# `v_a`: `(d_a,)`; returns `(..., T)`.

# %% graded="concat_score"
# (filled in from the module at build time)

# %% [markdown]
# Two identities from the table, checked numerically: general with $W_a = I$ is
# dot, and concat with $W_a = [\,W \;\; U\,]$ is additive.

# %%
s_demo = rng.normal(size=D_HIDDEN)  # a decoder state of the encoder's size, for the dot score
print("general(I) == dot:", np.allclose(general_score(s_demo, H_toy, np.eye(D_HIDDEN)), dot_score(s_demo, H_toy)))

W_concat = np.concatenate([W_a, U_a], axis=1)  # (d_a, d_s + d_h)
print(
    "concat([W, U]) == additive(W, U):",
    np.allclose(concat_score(decoder_states, H_toy, W_concat, v_a), additive_score(decoder_states, H_toy, W_a, U_a, v_a)),
)

# %% [markdown]
# ## 4. From scores to the context vector · 上下文向量
#
# Whichever score is used, the rest is the same: a softmax over the source
# positions gives the alignment weights, and the context vector is the weighted
# average of the encoder states,
#
# $$\alpha_j = \frac{\exp(e_j)}{\sum_{k=1}^{T} \exp(e_k)}, \qquad c = \sum_{j=1}^{T} \alpha_j h_j = \alpha^\top H .$$
#
# In a batch, shorter source sentences are padded; the mask marks real positions
# with True/1 and padding with False/0. A padded position gets score $-\infty$,
# hence weight exactly 0. Make the softmax stable by subtracting the largest
# score before exponentiating.
#
# **Shapes.**
#
# | argument | shape |
# | --- | --- |
# | `scores` | `(..., T)` |
# | `H` | `(..., T, d_h)` |
# | `mask` (optional) | bool or 0/1, broadcastable to `(..., T)` |
# | returns `c` | `(..., d_h)` |
# | returns `alpha` | `(..., T)`, summing to 1 |

# %% graded="attention_context"
# (filled in from the module at build time)

# %% [markdown]
# ### A toy alignment · 对齐示例
#
# Translating "我 爱 北京" into "I love Beijing", a well-trained model should look
# mostly at "我" while writing "I", at "爱" for "love", and at "北京" for
# "Beijing". We hand-make encoder and decoder states with that property (a real
# model would learn them) and score them with the dot score.

# %%
TARGET = ["I", "love", "Beijing"]
SOURCE_PINYIN = ["wǒ", "ài", "Běijīng"]  # 我, 爱, 北京: tick labels that any font can draw
SHARPNESS = 2.0  # larger -> more peaked alignments
NOISE = 0.1  # how far each decoder state is from its source word's state
H_align = SHARPNESS * np.array([
    [1.0, 0.1, 0.0, 0.2],
    [0.0, 1.0, 0.2, 0.0],
    [0.1, 0.0, 1.0, 0.3],
])  # (T_x, d_h): one state per source token
S_align = H_align + rng.normal(scale=NOISE, size=H_align.shape)  # (T_y, d_h): each target step "looks for" its source word

contexts, alignment = attention_context(dot_score(S_align, H_align), H_align)  # (T_y, d_h), (T_y, T_x)

fig, ax = plt.subplots(figsize=(4.5, 3.8))
image = ax.imshow(alignment, cmap="Greys", vmin=0, vmax=1)
ax.set_xticks(range(len(SOURCE_PINYIN)), SOURCE_PINYIN)
ax.set_yticks(range(len(TARGET)), TARGET)
ax.set_xlabel("source position j")
ax.set_ylabel("target step t")
ax.set_title("alignment weights α_tj")
for (t, j), weight in np.ndenumerate(alignment):
    ax.text(j, t, f"{weight:.2f}", ha="center", va="center", color="white" if weight > 0.5 else "black")
fig.colorbar(image, ax=ax, fraction=0.046)
plt.show()
print("rows sum to 1:", alignment.sum(axis=-1).round(6))

# %% [markdown]
# The source tick labels are in pinyin (wǒ = 我, ài = 爱, Běijīng = 北京) because
# the default plotting font has no Chinese characters.
#
# ### Padding · 填充掩码
#
# Two source sentences in one batch, of lengths 4 and 2, padded to $T = 4$. The
# padded positions of the second sentence must get weight 0.

# %%
BATCH, T_PADDED = 2, 4
lengths = np.array([4, 2])
H_batch = rng.normal(size=(BATCH, T_PADDED, D_HIDDEN))  # (batch, T, d_h)
s_batch = rng.normal(size=(BATCH, D_HIDDEN))  # (batch, d_h)
valid = np.arange(T_PADDED)[None, :] < lengths[:, None]  # (batch, T): True at real tokens

c_batch, alpha_batch = attention_context(dot_score(s_batch, H_batch), H_batch, mask=valid)
print("mask:\n", valid.astype(int))
print("weights:\n", alpha_batch.round(3))
print("context vectors:", c_batch.shape)

# %% [markdown]
# ## 5. From RNN + attention to pure attention · 从 RNN+注意力到纯注意力
#
# Look at what the decoder does with attention: at every step it takes a query
# (its state), compares it with keys (the encoder states), and averages values
# (the encoder states again). The RNN is only needed to *produce* the states, one
# step at a time. Vaswani et al. (2017) asked the obvious question: if attention
# already routes all the information, why keep the recurrence?
#
# The Transformer's contribution was not attention itself but the demonstration
# that attention alone — with no RNN at all — matches or beats the best recurrent
# models. Three ingredients made it work:
#
# 1. **Scaled dot-product attention** (Assignment 1): Luong's dot score divided
#    by $\sqrt{d_k}$. It is faster and lighter than the additive score because it
#    is one optimised matrix product.
# 2. **Multi-head attention** (Assignment 3): several attentions in parallel, each
#    free to learn a different relation.
# 3. **Self-attention**: $Q$, $K$ and $V$ all come from the same sequence, so every
#    position attends to every position of its own sentence, not only decoder to
#    encoder.
#
# | property | RNN + attention | pure attention (Transformer) |
# | --- | --- | --- |
# | processing · 序列处理 | sequential: $O(n)$ steps | parallel: $O(1)$ steps |
# | path length between two positions · 路径长度 | $O(n)$, through the chain of hidden states | $O(1)$, one direct attention link |
# | information bottleneck · 信息瓶颈 | yes: each state is a fixed-size summary of the past | no: every position sees every other directly |
# | gradient flow · 梯度传播 | hard: back-propagation through time multiplies many Jacobians | easy: one step from any position to any other |
#
# Once all decoder states are available at once, the context vectors of every
# step come out of a single call — the score table is $S H^\top$ and the contexts
# are $\alpha H$, the matrix form you met in Assignment 1 as
# $\operatorname{softmax}(QK^\top)V$ (there with the extra $1/\sqrt{d_k}$):

# %%
all_scores = dot_score(S_align, H_align)  # (T_y, T_x): the matrix S H^T
all_contexts, all_weights = attention_context(all_scores, H_align)  # (T_y, d_h), (T_y, T_x)
print("contexts of every step == alpha @ H:", np.allclose(all_contexts, all_weights @ H_align))
print("one query per row, one key per column:", all_weights.shape)

# %% [markdown]
# In an RNN decoder, $s_t$ itself depends on $s_{t-1}$, so those rows could only
# be produced one after another. Removing the recurrence is what lets the
# Transformer compute them all at once.
#
# ## 6. Summary · 小结
#
# 1. A fixed-size context vector is a bottleneck for long inputs; attention
#    replaces it with a fresh, weighted average $c_t = \sum_j \alpha_{tj} h_j$ at
#    every decoding step.
# 2. Bahdanau's additive score is a small learned network,
#    $v_a^\top \tanh(W_a s + U_a h_j)$; Luong's dot and general scores are
#    cheaper products, and his concat score is the additive score written with a
#    concatenation.
# 3. Scores become weights by a stable softmax; padding is masked with $-\infty$.
# 4. Bahdanau → Luong → Vaswani: each step relied less on the RNN, until the
#    Transformer removed it entirely.
#
# 要点：注意力把固定的上下文向量换成每一步动态计算的加权平均；Transformer 保留注意力、去掉了 RNN。
#
# References: Bahdanau, Cho & Bengio, *Neural Machine Translation by Jointly
# Learning to Align and Translate* (ICLR 2015, arXiv 2014); Luong, Pham & Manning,
# *Effective Approaches to Attention-based Neural Machine Translation* (EMNLP
# 2015); Vaswani et al., *Attention Is All You Need* (NeurIPS 2017).

# %% [markdown]
# ## Check your work · 检查你的作业
#
# From the assignment folder run
#
# ```bash
# attn-course check hw2_rnn_attention                      # your module rnn_attention.py
# attn-course check hw2_rnn_attention rnn_attention.ipynb  # or this notebook
# ```
#
# or simply `pytest` in that folder. These public checks use small known cases.
# Grading also uses other shapes, batch dimensions, float32 inputs and masks, so
# keep your code vectorised and general. If you hand in the notebook, only its
# imports, function definitions and simple constants are graded — demo cells are
# not run.
