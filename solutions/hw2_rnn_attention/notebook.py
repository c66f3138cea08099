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

# %% [markdown] lang="zh"
# # 作业 2 · RNN 编码器-解码器中的注意力：Bahdanau 与 Luong · Attention in RNN encoder-decoders
#
# 注意力并不是为 Transformer 发明的。它在 2014 年首次出现，是给用于机器翻译的循环编码器-解码器加上的一个组件；后来 Transformer 保留了注意力，去掉了循环结构。这个 notebook 沿着这段历史展开：
#
# | 年份 | 作者 | 内容 |
# | --- | --- | --- |
# | 2014 | Bahdanau, Cho & Bengio | RNN 翻译模型中的加性注意力 |
# | 2015 | Luong, Pham & Manning | 更简单的乘性分数；全局注意力与局部注意力 |
# | 2017 | Vaswani et al. | "Attention Is All You Need"：完全不用 RNN 的注意力 |
#
# 你要实现：
#
# <!-- points table: generated from course.yml -->
#
# **如何作答。** 下面每个*评分*单元格（graded）里有一个待实现的函数；它一开始会抛出 `NotImplementedError`，用到它的单元格在你实现它之前都会报错——这是正常的。同样的函数也在 `rnn_attention.py` 中：你可以在这个 notebook 里做，也可以在模块里做，最后交上你实际修改的那一个（见 README）。所有名字和函数签名都保持不变。
#
# **约定。** 形状写作 `(..., T, d_h)`，其中 `...` 表示任意多个前导批量维度；解码器状态 `s` 与编码器状态 `H` 的批量维度相互广播。float32 输入得到 float32 结果。掩码是布尔数组或 0/1 数组，True/1 表示*这个查询可以关注这个键*——在这里就是：解码器可以看这个源位置。
#
# **权重矩阵乘列向量。** 与论文一致，$W_a s$ 表示矩阵 $W_a \in \mathbb{R}^{d_a \times d_s}$ 乘以列向量 $s$。数组把状态按行存放，形状为 `(..., d_s)`，所以在 numpy 中 $W_a s$ 写作 `s @ W_a.T`；`s @ W_a` 是另一种（错误的，或形状不匹配的）计算。作业 3 改用 Transformer 的约定 `X @ W`，权重在右边。
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

# %% [markdown] lang="zh"
# ## 1. Seq2Seq 的信息瓶颈 · The seq2seq bottleneck
#
# 最早的神经机器翻译模型（Cho et al. 2014；Sutskever et al. 2014）都是*编码器-解码器*。编码器 RNN 一次读入源句子的一个 token，更新隐藏状态 $h_t = f(h_{t-1}, x_t)$；它的**最后一个**状态成为唯一的上下文向量 $c$；解码器 RNN 仅凭 $c$ 生成译文。
#
# ```
#   "我 爱 北京"  ->  [encoder RNN]  ->  c (one fixed-size vector)  ->  [decoder RNN]  ->  "I love Beijing"
# ```
#
# 无论源句子有 3 个词还是 60 个词，所有信息都必须装进同样的 $d_h$ 个数里。长句子会丢失信息：这就是**瓶颈**（信息瓶颈）。
#
# 人类译者的做法不同：写下每个目标词时，他们会回头看源句子中与这个词相关的部分。注意力给了解码器这种能力——它不再只有一个 $c$，而是在每一步都用**所有**编码器状态重新构造一个上下文向量 $c_t$。
#
# 下面这个玩具编码器把这一点具体化：它为每个源 token 产生一个状态，而经典的解码器只能看到最后一行。

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

# %% [markdown] lang="zh"
# ## 2. Bahdanau 加性注意力（2014） · Bahdanau attention: additive scores
#
# 在解码的第 $t$ 步，Bahdanau 等人把解码器的上一个状态 $s_{t-1}$ 与每个编码器状态 $h_j$ 比较，归一化，再求平均：
#
# $$e_{tj} = v_a^\top \tanh\left(W_a s_{t-1} + U_a h_j\right), \qquad
# \alpha_{tj} = \frac{\exp(e_{tj})}{\sum_{k=1}^{T_x} \exp(e_{tk})}, \qquad
# c_t = \sum_{j=1}^{T_x} \alpha_{tj} h_j .$$
#
# 这个分数由一个小型前馈网络给出，它只有一个大小为 $d_a$ 的隐藏层：两个状态都投影到同一个空间，相加，经过 $\tanh$ 压缩，再由 $v_a$ 读出。由于它与翻译模型一起训练，模型会自己发现哪些源词与哪些目标词对齐——论文标题 *jointly learning to align and translate*（联合学习对齐与翻译）说的正是这一点。
#
# 注意 $W_a s_{t-1}$ 与 $j$ 无关：只计算一次，再通过广播加到所有的 $U_a h_j$ 上。
#
# **形状。**
#
# | 参数 | 形状 |
# | --- | --- |
# | `s`（解码器状态） | `(..., d_s)` |
# | `H`（编码器状态，每个源位置一行） | `(..., T, d_h)` |
# | `W_a` | `(d_a, d_s)` |
# | `U_a` | `(d_a, d_h)` |
# | `v_a` | `(d_a,)` |
# | 返回分数 $e$ | `(..., T)` |

# %% graded="additive_score"
# (filled in from the module at build time)

# %% [markdown]
# Random weights, one decoder state, then all three decoder states at once: a
# `(T_y, d_s)` array of states against `(T_x, d_h)` encoder states broadcasts to a
# `(T_y, T_x)` score table.

# %% [markdown] lang="zh"
# 随机权重，先用一个解码器状态，再一次性用全部三个解码器状态：形状为 `(T_y, d_s)` 的状态数组与 `(T_x, d_h)` 的编码器状态相互广播，得到 `(T_y, T_x)` 的分数表。

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

# %% [markdown] lang="zh"
# 它的局限：编码器和解码器仍然是 RNN，状态只能一步接一步地产生，无法并行计算。
#
# ## 3. Luong 注意力（2015）：三种打分函数 · Luong attention: three scores
#
# Luong 等人简化了打分方式，并比较了几种变体。他们还改用*当前*解码器状态 $s_t$ 而不是 $s_{t-1}$ 来打分：
#
# | 变体 | 分数 $e_{tj}$ | 说明 |
# | --- | --- | --- |
# | dot（点积） | $s_t^\top h_j$ | 没有参数；要求 $d_s = d_h$ |
# | general（双线性） | $s_t^\top W_a h_j$ | 两个状态之间有一个可学习的矩阵 |
# | concat（拼接） | $v_a^\top \tanh\left(W_a [s_t; h_j]\right)$ | 即 Bahdanau 的加性分数，计算量最大 |
#
# Luong 还区分了*全局*注意力（覆盖每个源位置，即这里的做法）和*局部*注意力（只覆盖预测位置附近的一个窗口）；后者是今天滑动窗口注意力的早期形式。
#
# ### 3.1 点积 · Dot
#
# $$e_j = s^\top h_j = \sum_{l=1}^{d} s_l\, h_{jl}$$
#
# 对所有 $j$ 一起计算，这就是一次矩阵-向量乘法，$e = H s$。
#
# **形状。** `s`：`(..., d)`；`H`：`(..., T, d)`；返回 `(..., T)`。

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

# %% [markdown] lang="zh"
# ### 3.2 双线性 · General
#
# $$e_j = s^\top W_a h_j$$
#
# 行向量 $s^\top W_a$ 与 $j$ 无关；先算一次，再与每个 $h_j$ 做点积。当 $W_a = I$ 时，general 分数就是 dot 分数。
#
# **形状。** `s`：`(..., d_s)`；`H`：`(..., T, d_h)`；`W_a`：`(d_s, d_h)`；返回 `(..., T)`。

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

# %% [markdown] lang="zh"
# ### 3.3 拼接 · Concat
#
# $$e_j = v_a^\top \tanh\left(W_a \begin{bmatrix} s \\ h_j \end{bmatrix}\right)$$
#
# 把 $W_a$ 写成 $W_a = [\,W^{(s)} \;\; W^{(h)}\,]$，即它的前 $d_s$ 列和后 $d_h$ 列。于是 $W_a [s; h_j] = W^{(s)} s + W^{(h)} h_j$：concat 分数恰好就是取 $W = W^{(s)}$、$U = W^{(h)}$ 的加性分数。你完全不需要真的构造拼接后的向量。
#
# **形状。** `s`：`(..., d_s)`；`H`：`(..., T, d_h)`；`W_a`：`(d_a, d_s + d_h)`；`v_a`：`(d_a,)`；返回 `(..., T)`。

# %% graded="concat_score"
# (filled in from the module at build time)

# %% [markdown]
# Two identities from the table, checked numerically: general with $W_a = I$ is
# dot, and concat with $W_a = [\,W \;\; U\,]$ is additive.

# %% [markdown] lang="zh"
# 用数值验证表中的两个恒等关系：$W_a = I$ 时 general 就是 dot；$W_a = [\,W \;\; U\,]$ 时 concat 就是加性分数（additive）。

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

# %% [markdown] lang="zh"
# ## 4. 从分数到上下文向量 · From scores to the context vector
#
# 无论用哪种分数，后面的步骤都一样：在源位置上做 softmax 得到对齐权重，上下文向量就是编码器状态的加权平均，
#
# $$\alpha_j = \frac{\exp(e_j)}{\sum_{k=1}^{T} \exp(e_k)}, \qquad c = \sum_{j=1}^{T} \alpha_j h_j = \alpha^\top H .$$
#
# 在一个批量中，较短的源句子会被填充；掩码用 True/1 标出真实位置，用 False/0 标出填充位置。被填充的位置得到分数 $-\infty$，因此权重恰好为 0。计算指数之前先减去最大的分数，让 softmax 数值稳定。
#
# **形状。**
#
# | 参数 | 形状 |
# | --- | --- |
# | `scores` | `(..., T)` |
# | `H` | `(..., T, d_h)` |
# | `mask`（可选） | 布尔或 0/1，可广播到 `(..., T)` |
# | 返回 `c` | `(..., d_h)` |
# | 返回 `alpha` | `(..., T)`，和为 1 |

# %% graded="attention_context"
# (filled in from the module at build time)

# %% [markdown]
# ### A toy alignment · 对齐示例
#
# Translating "我 爱 北京" into "I love Beijing", a well-trained model should look
# mostly at "我" while writing "I", at "爱" for "love", and at "北京" for
# "Beijing". We hand-make encoder and decoder states with that property (a real
# model would learn them) and score them with the dot score.

# %% [markdown] lang="zh"
# ### 对齐示例 · A toy alignment
#
# 把 "我 爱 北京" 译成 "I love Beijing" 时，一个训练良好的模型在写 "I" 时应主要看 "我"，写 "love" 时看 "爱"，写 "Beijing" 时看 "北京"。我们手工构造具有这种性质的编码器和解码器状态（真实模型会自己学到它们），并用 dot 分数为它们打分。

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

# %% [markdown] lang="zh"
# 源位置的刻度标签用的是拼音（wǒ = 我，ài = 爱，Běijīng = 北京），因为默认的绘图字体里没有汉字。
#
# ### 填充掩码 · Padding
#
# 一个批量中有两个源句子，长度分别为 4 和 2，都填充到 $T = 4$。第二个句子的填充位置必须得到权重 0。

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

# %% [markdown] lang="zh"
# ## 5. 从 RNN+注意力到纯注意力 · From RNN + attention to pure attention
#
# 看看解码器用注意力做了什么：每一步它拿出一个查询（它的状态），与各个键（编码器状态）比较，再对值（还是编码器状态）求平均。RNN 只是用来*产生*这些状态的，而且一次一步。Vaswani 等人（2017）提出了一个显而易见的问题：既然注意力已经承担了全部信息的路由，为什么还要保留循环结构？
#
# Transformer 的贡献不在于注意力本身，而在于证明了：只用注意力——完全不用 RNN——就能达到甚至超过最好的循环模型。三个要素让它成为可能：
#
# 1. **缩放点积注意力**（作业 1）：Luong 的 dot 分数再除以 $\sqrt{d_k}$。它比加性分数更快、更省资源，因为它就是一次经过优化的矩阵乘法。
# 2. **多头注意力**（作业 3）：几个注意力并行运行，每个头都可以自由地学习一种不同的关系。
# 3. **自注意力**：$Q$、$K$ 和 $V$ 都来自同一个序列，因此每个位置都关注它所在句子中的每个位置，而不只是从解码器关注编码器。
#
# | 特性 | RNN + 注意力 | 纯注意力（Transformer） |
# | --- | --- | --- |
# | 序列处理 · processing | 串行：$O(n)$ 步 | 并行：$O(1)$ 步 |
# | 任意两个位置之间的路径长度 · path length | $O(n)$，经过隐藏状态链 | $O(1)$，一条直接的注意力连接 |
# | 信息瓶颈 · bottleneck | 有：每个状态都是对过去的固定大小的概括 | 没有：每个位置都直接看到所有其他位置 |
# | 梯度传播 · gradient flow | 困难：随时间的反向传播要连乘许多雅可比矩阵 | 容易：任意位置到任意位置只需一步 |
#
# 一旦所有解码器状态都能同时得到，每一步的上下文向量只需一次调用就能算出——分数表是 $S H^\top$，上下文向量是 $\alpha H$，也就是你在作业 1 中见过的矩阵形式 $\operatorname{softmax}(QK^\top)V$（那里多了一个 $1/\sqrt{d_k}$）：

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

# %% [markdown] lang="zh"
# 在 RNN 解码器中，$s_t$ 本身依赖于 $s_{t-1}$，所以这些行只能一行接一行地产生。去掉循环结构，Transformer 才能一次把它们全部算出来。
#
# ## 6. 小结 · Summary
#
# 1. 对长输入来说，固定大小的上下文向量是一个瓶颈；注意力把它换成每个解码步都重新计算的加权平均 $c_t = \sum_j \alpha_{tj} h_j$。
# 2. Bahdanau 的加性分数是一个可学习的小网络 $v_a^\top \tanh(W_a s + U_a h_j)$；Luong 的 dot 与 general 分数是计算量更小的乘积，而他的 concat 分数就是用拼接写出来的加性分数。
# 3. 分数经过数值稳定的 softmax 变成权重；填充位置用 $-\infty$ 掩码。
# 4. Bahdanau → Luong → Vaswani：每一步都更少地依赖 RNN，直到 Transformer 把它彻底去掉。
#
# 要点：注意力把固定的上下文向量换成每一步动态计算的加权平均；Transformer 保留注意力、去掉了 RNN。
#
# 参考文献（论文标题保留原文）：Bahdanau, Cho & Bengio, *Neural Machine Translation by Jointly Learning to Align and Translate*（神经机器翻译中的联合对齐与翻译；ICLR 2015，arXiv 2014）；Luong, Pham & Manning, *Effective Approaches to Attention-based Neural Machine Translation*（基于注意力的神经机器翻译的有效方法；EMNLP 2015）；Vaswani et al., *Attention Is All You Need*（NeurIPS 2017）。

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

# %% [markdown] lang="zh"
# ## 检查你的作业 · Check your work
#
# 在作业文件夹中运行
#
# ```bash
# attn-course check hw2_rnn_attention                      # 你的模块 rnn_attention.py
# attn-course check hw2_rnn_attention rnn_attention.ipynb  # 或者这个 notebook
# ```
#
# 或者直接在该文件夹中运行 `pytest`。这些公开检查使用小规模的已知用例。评分还会使用其他形状、批量维度、float32 输入和掩码，所以请保持代码向量化、具有通用性。如果你提交的是 notebook，评分只取其中的 import、函数定义和简单常量——演示单元格不会运行。
