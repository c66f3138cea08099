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
# # Assignment 1 · Scaled dot-product attention · 缩放点积注意力
#
# Attention lets a model decide, at every position, which other positions of the
# input matter for it right now, instead of squeezing the whole input into one
# fixed-size vector. It is the core operation of the Transformer.
#
# In this notebook you build it from four small pieces and then check, with an
# experiment, why the formula contains a $\sqrt{d_k}$:
#
# <!-- points table: generated from course.yml -->
#
# **How to work.** Each *graded* cell below holds one function to implement;
# it starts out raising `NotImplementedError`, and the cells that use it fail
# until you have implemented it — that is expected. The same functions are in
# `scaled_attention.py`: work in this notebook or in the module, and hand in the one you
# worked in (see the README). Keep every name and signature unchanged.
# Prerequisites: dot products, matrix products and numpy broadcasting.
#
# **Conventions.** Shapes are written `(..., L_q, d_k)`, where `...` is any number
# of leading batch dimensions. float32 inputs give float32 results. A mask is
# boolean or 0/1, and True/1 means *this query may attend to this key*.
#
# 本作业从搜索引擎类比出发，分四步实现缩放点积注意力，并用实验验证为什么要除以 $\sqrt{d_k}$。

# %% [markdown] lang="zh"
# # 作业 1 · 缩放点积注意力 · Scaled dot-product attention
#
# 注意力让模型在每个位置上自己决定：此刻输入中的哪些其他位置对它重要，而不必把整个输入压缩进一个固定大小的向量。它是 Transformer 的核心运算。
#
# 在这个 notebook 中，你将用四个小部件把它搭建起来，再通过实验验证公式里为什么有一个 $\sqrt{d_k}$：
#
# <!-- points table: generated from course.yml -->
#
# **如何作答。** 下面每个*评分*单元格（graded）里有一个待实现的函数；它一开始会抛出 `NotImplementedError`，用到它的单元格在你实现它之前都会报错——这是正常的。同样的函数也在 `scaled_attention.py` 中：你可以在这个 notebook 里做，也可以在模块里做，最后交上你实际修改的那一个（见 README）。所有名字和函数签名都保持不变。预备知识：点积、矩阵乘法和 numpy 广播。
#
# **约定。** 形状写作 `(..., L_q, d_k)`，其中 `...` 表示任意多个前导批量维度。float32 输入得到 float32 结果。掩码是布尔数组或 0/1 数组，True/1 表示*这个查询可以关注这个键*。
#
# 本作业从搜索引擎类比出发，分四步实现缩放点积注意力，并用实验验证为什么要除以 $\sqrt{d_k}$。

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

# %% [markdown]
# ## 1. The QKV intuition: a search engine · QKV 直觉：搜索引擎类比
#
# Think of what happens when you search the web. You type a request; every page
# carries a short description the engine matches against; and what you finally
# read is the page's content. Attention gives each position of a sequence the same
# three roles:
#
# | Role | Symbol | In the search analogy | The question it answers |
# | --- | --- | --- | --- |
# | Query · 查询 | $Q$ | the words you type into the search box | "What am I looking for?" |
# | Key · 键 | $K$ | the index entry describing each page | "What do I contain?" |
# | Value · 值 | $V$ | the body of the page | "What do I hand over if chosen?" |
#
# The procedure:
#
# 1. Compare the query with every key; a good match earns a high score.
# 2. Turn the scores into weights that are positive and sum to 1.
# 3. Return the weighted average of the values: pages whose keys matched well
#    contribute most.
#
# **Why keep keys and values apart?** The key is only used *to be found*; the
# value is what is *delivered*. Separating them lets a model learn "what makes
# this position relevant" independently of "what this position should contribute
# once it is relevant". Because every step is a smooth function, the whole search
# can be trained by gradient descent: attention is a *differentiable* lookup
# (可微分的检索).

# %% [markdown] lang="zh"
# ## 1. QKV 直觉：搜索引擎类比 · The QKV intuition: a search engine
#
# 想想你在网上搜索时发生了什么。你输入一个请求；每个网页都带有一段简短的描述，搜索引擎拿你的请求与之匹配；而你最终读到的是网页的正文。注意力给序列中的每个位置赋予同样的三个角色：
#
# | 角色 | 符号 | 在搜索类比中 | 它回答的问题 |
# | --- | --- | --- | --- |
# | 查询 · Query | $Q$ | 你在搜索框里输入的词 | “我在找什么？” |
# | 键 · Key | $K$ | 描述每个网页的索引条目 | “我包含什么？” |
# | 值 · Value | $V$ | 网页的正文 | “被选中时我交出什么？” |
#
# 步骤如下：
#
# 1. 把查询与每个键比较；匹配得好，分数就高。
# 2. 把分数变成权重：全部为正，且和为 1。
# 3. 返回值的加权平均：键匹配得好的网页贡献最大。
#
# **为什么要把键和值分开？** 键只用来*被找到*；值才是*被交付*的内容。把两者分开，模型就能分别学习“什么让这个位置变得相关”和“这个位置一旦相关应当贡献什么”。由于每一步都是光滑函数，整个检索过程都可以用梯度下降来训练：注意力是一种*可微分的*检索（differentiable lookup）。

# %% [markdown]
# ## 2. Four steps, and why each one is there · 四个步骤及其原因
#
# Take $n$ tokens. Learned linear projections turn their embeddings into queries,
# keys and values:
#
# $$Q \in \mathbb{R}^{n \times d_k}, \qquad K \in \mathbb{R}^{n \times d_k}, \qquad V \in \mathbb{R}^{n \times d_v}.$$
#
# Queries and keys must share a dimension $d_k$ because they are compared with a
# dot product; values can have any size $d_v$ (often $d_v = d_k$ in practice).
#
# **Step 1 — scores · 相似度.** $S = QK^\top \in \mathbb{R}^{n \times n}$, so
# $S_{ij} = q_i \cdot k_j = \sum_{l=1}^{d_k} q_{il} k_{jl}$. A dot product is large
# when two vectors point the same way: it is the matching score of query $i$
# against key $j$.
#
# **Step 2 — scaling · 缩放.** Divide by $\sqrt{d_k}$. A dot product is a sum of
# $d_k$ terms, so its typical size grows with $d_k$; large scores push softmax
# into a regime where one weight is almost 1, all others almost 0, and the
# gradients almost vanish. Dividing by $\sqrt{d_k}$ keeps the scores at a scale
# that does not depend on $d_k$ (Section 7 proves it and measures it).
#
# **Step 3 — softmax · 归一化.** Row by row (one row per query, over all keys):
#
# $$A_{ij} = \frac{\exp(S_{ij}/\sqrt{d_k})}{\sum_{l=1}^{n} \exp(S_{il}/\sqrt{d_k})}, \qquad \sum_{j} A_{ij} = 1.$$
#
# Each query now holds a probability distribution over the keys.
#
# **Step 4 — weighted sum · 加权求和.** $Z = AV \in \mathbb{R}^{n \times d_v}$, that
# is $z_i = \sum_j A_{ij} v_j$: the output for token $i$ is an average of all the
# values, weighted by how well token $i$'s query matched each key.
#
# All four steps together:
#
# $$\boxed{\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V}$$

# %% [markdown] lang="zh"
# ## 2. 四个步骤及其原因 · Four steps, and why each one is there
#
# 取 $n$ 个 token。学习得到的线性投影把它们的嵌入变成查询、键和值：
#
# $$Q \in \mathbb{R}^{n \times d_k}, \qquad K \in \mathbb{R}^{n \times d_k}, \qquad V \in \mathbb{R}^{n \times d_v}.$$
#
# 查询和键必须有相同的维度 $d_k$，因为它们要用点积来比较；值可以是任意大小 $d_v$（实践中常取 $d_v = d_k$）。
#
# **第 1 步——分数 · 相似度。** $S = QK^\top \in \mathbb{R}^{n \times n}$，即 $S_{ij} = q_i \cdot k_j = \sum_{l=1}^{d_k} q_{il} k_{jl}$。两个向量方向越一致，点积越大：它就是查询 $i$ 与键 $j$ 的匹配分数。
#
# **第 2 步——缩放。** 除以 $\sqrt{d_k}$。点积是 $d_k$ 项之和，它的典型大小随 $d_k$ 增长；过大的分数会把 softmax 推进这样一种状态：一个权重几乎为 1，其余几乎为 0，梯度几乎消失。除以 $\sqrt{d_k}$ 能让分数保持在一个与 $d_k$ 无关的尺度上（第 7 节给出证明，并实际测量）。
#
# **第 3 步——softmax · 归一化。** 逐行进行（每个查询一行，在所有键上）：
#
# $$A_{ij} = \frac{\exp(S_{ij}/\sqrt{d_k})}{\sum_{l=1}^{n} \exp(S_{il}/\sqrt{d_k})}, \qquad \sum_{j} A_{ij} = 1.$$
#
# 于是每个查询都得到一个在所有键上的概率分布。
#
# **第 4 步——加权求和。** $Z = AV \in \mathbb{R}^{n \times d_v}$，即 $z_i = \sum_j A_{ij} v_j$：token $i$ 的输出是所有值的平均，各个值的权重取决于 token $i$ 的查询与对应的键匹配得有多好。
#
# 四个步骤合在一起：
#
# $$\boxed{\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V}$$

# %% [markdown]
# ## 3. A numerically stable softmax · 数值稳定的 softmax
#
# Softmax is invariant to adding the same constant to every input, because the
# factor $e^{c}$ cancels between numerator and denominator. Choosing
# $c = -\max_k x_k$ makes every exponent $\le 0$, so nothing can overflow:
#
# $$\operatorname{softmax}(x)_i = \frac{\exp\left(x_i - \max_k x_k\right)}{\sum_j \exp\left(x_j - \max_k x_k\right)}$$
#
# Masked scores will arrive as $-\infty$: their weight must come out as exactly
# $0$ (since $e^{-\infty} = 0$), as long as the slice has at least one finite
# entry.
#
# **Shapes.** `x`: any shape with at least one dimension, e.g. `(..., L_q, L_k)`;
# normalise along `axis` (default `-1`). Returns the same shape, float32 for
# float32 input, float64 otherwise.

# %% [markdown] lang="zh"
# ## 3. 数值稳定的 softmax · A numerically stable softmax
#
# 给所有输入加上同一个常数，softmax 的结果不变，因为因子 $e^{c}$ 在分子和分母中互相抵消。取 $c = -\max_k x_k$ 会让每个指数都 $\le 0$，于是不会发生上溢：
#
# $$\operatorname{softmax}(x)_i = \frac{\exp\left(x_i - \max_k x_k\right)}{\sum_j \exp\left(x_j - \max_k x_k\right)}$$
#
# 被掩码的分数会以 $-\infty$ 的形式出现：只要同一个切片里至少有一个有限值，它们的权重就必须恰好是 $0$（因为 $e^{-\infty} = 0$）。
#
# **形状。** `x`：至少有一个维度的任意形状，例如 `(..., L_q, L_k)`；沿 `axis`（默认 `-1`）做归一化。返回同样的形状：float32 输入返回 float32，其他输入返回 float64。

# %% graded="softmax"
# (filled in from the module at build time)

# %% [markdown]
# A few checks. The first input is the three-token example of Section 6:
# $e^{0.5} \approx 1.6487$, so the weights are $1.6487 / 3.6487 \approx 0.4519$
# and $1 / 3.6487 \approx 0.2741$. The second input would overflow a naive
# `np.exp`; the third has a masked entry.

# %% [markdown] lang="zh"
# 几个检查。第一个输入是第 6 节中三个 token 的例子：$e^{0.5} \approx 1.6487$，所以权重是 $1.6487 / 3.6487 \approx 0.4519$ 和 $1 / 3.6487 \approx 0.2741$。第二个输入会让朴素的 `np.exp` 上溢；第三个输入里有一个被掩码的元素。

# %%
print(softmax(np.array([0.5, 0.0, 0.0])).round(4))
print(softmax(np.array([1000.0, 999.0])).round(4))
print(softmax(np.array([2.0, -np.inf, 1.0])).round(4))
print("rows sum to 1:", softmax(np.random.default_rng(0).normal(size=(2, 5))).sum(axis=-1))

# %% [markdown]
# ## 4. Masks: attending only where allowed · 掩码
#
# Sometimes a query must not see some keys: padding, or — in a decoder that
# generates text left to right — the future. A mask $M$ marks allowed pairs with
# True/1. Before the softmax, every forbidden score is replaced by $-\infty$:
#
# $$\tilde S_{ij} = \begin{cases} S_{ij} / \sqrt{d_k} & \text{if } M_{ij} \\ -\infty & \text{otherwise,} \end{cases} \qquad A = \operatorname{softmax}(\tilde S).$$
#
# The most common mask is the causal one: query $i$ may look at keys $j \le i$,
#
# $$M_{ij} = \big[\, j \le i \,\big],$$
#
# the lower triangle including the diagonal.
#
# **Shapes.** `n`: an `int` $\ge 1$. Returns a boolean array of shape `(n, n)`
# (row = query, column = key).

# %% [markdown] lang="zh"
# ## 4. 掩码：只在允许的位置上做注意力 · Masks: attending only where allowed
#
# 有时一个查询不能看到某些键：比如填充位置，又比如在从左到右生成文本的解码器里——未来的位置。掩码 $M$ 用 True/1 标出允许的（查询，键）对。在 softmax 之前，每个被禁止的分数都替换成 $-\infty$：
#
# $$\tilde S_{ij} = \begin{cases} S_{ij} / \sqrt{d_k} & \text{if } M_{ij} \\ -\infty & \text{otherwise,} \end{cases} \qquad A = \operatorname{softmax}(\tilde S).$$
#
# 最常见的掩码是因果掩码：查询 $i$ 只能看 $j \le i$ 的键，
#
# $$M_{ij} = \big[\, j \le i \,\big],$$
#
# 也就是包含对角线在内的下三角。
#
# **形状。** `n`：一个 $\ge 1$ 的 `int`。返回形状为 `(n, n)` 的布尔数组（行 = 查询，列 = 键）。

# %% graded="causal_mask"
# (filled in from the module at build time)

# %%
print(causal_mask(4).astype(int))

# %% [markdown]
# ## 5. Scaled dot-product attention · 缩放点积注意力
#
# Put the four steps and the mask together:
#
# $$A = \operatorname{softmax}\!\left(\operatorname{mask}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)\right), \qquad Z = AV.$$
#
# **Shapes.**
#
# | argument | shape |
# | --- | --- |
# | `Q` | `(..., L_q, d_k)` |
# | `K` | `(..., L_k, d_k)` |
# | `V` | `(..., L_k, d_v)` |
# | `mask` (optional) | bool or 0/1, broadcastable to `(..., L_q, L_k)` |
# | returns `Z` | `(..., L_q, d_v)` |
# | returns `A` | `(..., L_q, L_k)`, every row sums to 1 |
#
# The leading `...` may be empty or hold several batch dimensions; numpy's `@`
# already treats all but the last two axes as batch axes, and
# `np.swapaxes(K, -1, -2)` transposes only the last two.

# %% [markdown] lang="zh"
# ## 5. 缩放点积注意力 · Scaled dot-product attention
#
# 把四个步骤和掩码合在一起：
#
# $$A = \operatorname{softmax}\!\left(\operatorname{mask}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)\right), \qquad Z = AV.$$
#
# **形状。**
#
# | 参数 | 形状 |
# | --- | --- |
# | `Q` | `(..., L_q, d_k)` |
# | `K` | `(..., L_k, d_k)` |
# | `V` | `(..., L_k, d_v)` |
# | `mask`（可选） | 布尔或 0/1，可广播到 `(..., L_q, L_k)` |
# | 返回 `Z` | `(..., L_q, d_v)` |
# | 返回 `A` | `(..., L_q, L_k)`，每一行之和为 1 |
#
# 前导的 `...` 可以为空，也可以有多个批量维度；numpy 的 `@` 本来就把除最后两个轴以外的所有轴当作批量轴，而 `np.swapaxes(K, -1, -2)` 只转置最后两个轴。

# %% graded="scaled_dot_product_attention"
# (filled in from the module at build time)

# %% [markdown]
# A batched call (2 sentences × 3 heads, 5 queries, 7 keys); then the same queries
# against the first 5 keys only, under the causal mask; then float32 inputs:

# %% [markdown] lang="zh"
# 一次批量调用（2 个句子 × 3 个头，5 个查询，7 个键）；然后让同样的查询只对前 5 个键做因果掩码下的注意力；最后用 float32 输入：

# %%
rng = np.random.default_rng(0)
BATCH, HEADS, L_Q, L_K, D_K, D_V = 2, 3, 5, 7, 8, 4
Q = rng.normal(size=(BATCH, HEADS, L_Q, D_K))
K = rng.normal(size=(BATCH, HEADS, L_K, D_K))
V = rng.normal(size=(BATCH, HEADS, L_K, D_V))
Z, A = scaled_dot_product_attention(Q, K, V)
print("Z:", Z.shape, " A:", A.shape, " rows sum to 1:", np.allclose(A.sum(axis=-1), 1.0))

Z_causal, A_causal = scaled_dot_product_attention(Q[..., :L_Q, :], K[..., :L_Q, :], V[..., :L_Q, :], mask=causal_mask(L_Q))
print("causal weights of one head (future columns are exactly 0):")
print(A_causal[0, 0].round(3))
print("float32 in, float32 out:", scaled_dot_product_attention(Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32))[0].dtype)

# %% [markdown]
# ## 6. A worked example: three tokens · 小规模样例（3 个 token）
#
# The sentence "I love NN" has three tokens. Give them one-hot embeddings in
# $d_\text{model} = 4$ dimensions (the rows of `np.eye(3, 4)`) and, to keep the
# arithmetic visible, use identity projections $W_Q = W_K = W_V = I$, so that
# $Q = K = V = X$ and $d_k = 4$.
#
# * Raw scores $QK^\top = I_3$: each token matches itself (dot product 1) and no
#   other token (dot product 0).
# * Scaled scores: divide by $\sqrt{4} = 2$, giving $0.5$ on the diagonal and $0$
#   elsewhere.
# * Weights: each row is $\operatorname{softmax}([0.5, 0, 0])$ up to order,
#   $\approx [0.4519, 0.2741, 0.2741]$. Verify it by hand:
#   $e^{0.5}/(e^{0.5} + 2) = 1.6487/3.6487$.
# * Output: $Z = AV$. Since the values are one-hot, row $i$ of $Z$ simply lists
#   the weights of query $i$ (plus a 0 for the unused fourth feature).
#
# **Question · 思考题.** Some texts print the weights of this example as $0.39$
# and $0.30$. Which mistake gives exactly those numbers? Try it in the cell below
# before opening the answer.
#
# <details><summary>Answer · 答案</summary>
#
# Dividing the scores by $d_k = 4$ instead of $\sqrt{d_k} = 2$: the diagonal score
# becomes $0.25$, and $\operatorname{softmax}([0.25, 0, 0]) \approx [0.3910, 0.3045, 0.3045]$.
# Scaling by $d_k$ shrinks the scores too much, so the weights drift towards the
# uniform $1/3$. The right scale keeps the variance of the scores at 1 (Section 7).
#
# </details>

# %% [markdown] lang="zh"
# ## 6. 小规模样例（3 个 token） · A worked example: three tokens
#
# 句子 "I love NN" 有三个 token。给它们 $d_\text{model} = 4$ 个维度的 one-hot 嵌入（`np.eye(3, 4)` 的各行），并且为了让计算一目了然，使用恒等投影 $W_Q = W_K = W_V = I$，于是 $Q = K = V = X$，$d_k = 4$。
#
# * 原始分数 $QK^\top = I_3$：每个 token 与自身匹配（点积为 1），与其他 token 都不匹配（点积为 0）。
# * 缩放后的分数：除以 $\sqrt{4} = 2$，对角线上为 $0.5$，其余为 $0$。
# * 权重：每一行都是 $\operatorname{softmax}([0.5, 0, 0])$（顺序不同），$\approx [0.4519, 0.2741, 0.2741]$。请手算验证：$e^{0.5}/(e^{0.5} + 2) = 1.6487/3.6487$。
# * 输出：$Z = AV$。由于值是 one-hot 向量，$Z$ 的第 $i$ 行就是查询 $i$ 的各个权重（再加上未使用的第四个特征对应的一个 0）。
#
# **思考题 · Question.** 有些资料把这个例子的权重印成 $0.39$ 和 $0.30$。哪个错误恰好会得到这两个数？打开答案之前，先在下面的单元格里试一试。
#
# <details><summary>答案 · Answer</summary>
#
# 把分数除以了 $d_k = 4$，而不是 $\sqrt{d_k} = 2$：对角线上的分数变成 $0.25$，而 $\operatorname{softmax}([0.25, 0, 0]) \approx [0.3910, 0.3045, 0.3045]$。按 $d_k$ 缩放会把分数压得太小，权重于是向均匀的 $1/3$ 靠拢。正确的缩放让分数的方差保持为 1（第 7 节）。
#
# </details>

# %%
TOKENS = ["I", "love", "NN"]
D_MODEL = 4
X = np.eye(len(TOKENS), D_MODEL)  # (n, d_model): one-hot embeddings
W_identity = np.eye(D_MODEL)  # W_Q = W_K = W_V = I
Q_ex, K_ex, V_ex = X @ W_identity, X @ W_identity, X @ W_identity  # (n, d_k) each

raw_scores = np.matmul(Q_ex, K_ex.T)  # Q K^T: (n, d_k) @ (d_k, n) -> (n, n)
scaled_scores = raw_scores / math.sqrt(D_MODEL)  # (n, n)

np.set_printoptions(precision=4, suppress=True)
print("raw scores Q K^T:\n", raw_scores)
print("scaled scores / sqrt(d_k):\n", scaled_scores)

Z_ex, A_ex = scaled_dot_product_attention(Q_ex, K_ex, V_ex)
print("attention weights A:\n", A_ex)
print("row sums:", A_ex.sum(axis=-1))
print("outputs Z = A V:\n", Z_ex)

# %% [markdown]
# Following one query through the weighted sum shows where each output comes
# from: token 0 ("I") keeps about 45% of its own value and takes about 27% from
# each of the other two.

# %% [markdown] lang="zh"
# 沿着加权求和追踪一个查询，可以看出每个输出来自哪里：token 0（"I"）保留了自身的值的约 45%，并从另外两个 token 各取约 27%。

# %%
QUERY = 0
Z_ex, A_ex = scaled_dot_product_attention(Q_ex, K_ex, V_ex)
print(f"query {QUERY} ({TOKENS[QUERY]!r})")
for j, token in enumerate(TOKENS):
    print(f"  key {j} ({token!r}): weight {A_ex[QUERY, j]:.4f} ({100 * A_ex[QUERY, j]:.1f}%)  x  value {V_ex[j]}")
print(f"  z_{QUERY} = {Z_ex[QUERY]}")

# %% [markdown]
# ### Heatmaps · 注意力权重可视化
#
# Three panels: the raw scores, the scaled scores, and the weights. Rows are
# queries and columns keys.

# %% [markdown] lang="zh"
# ### 注意力权重可视化 · Heatmaps
#
# 三幅热力图：原始分数、缩放后的分数和权重。行是查询，列是键。

# %%
_, A_ex = scaled_dot_product_attention(Q_ex, K_ex, V_ex)
PANEL_TITLES = ["Raw scores  $QK^T$", "Scaled scores  $QK^T/\\sqrt{d_k}$", "Attention weights  softmax"]

fig, axes = plt.subplots(1, len(PANEL_TITLES), figsize=(13, 3.8))
for ax, title, values in zip(axes, PANEL_TITLES, (raw_scores, scaled_scores, A_ex)):
    image = ax.imshow(values, cmap="viridis")
    midpoint = (values.min() + values.max()) / 2  # dark text on bright cells
    ax.set_title(title)
    ax.set_xticks(range(len(TOKENS)), TOKENS)
    ax.set_yticks(range(len(TOKENS)), TOKENS)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    for (i, j), value in np.ndenumerate(values):
        ax.text(j, i, f"{value:.4f}", ha="center", va="center", color="black" if value > midpoint else "white")
    fig.colorbar(image, ax=ax, fraction=0.046)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Reading the heatmaps.** The diagonal is highest in every panel, yet the weights
# are far from one-hot: a score gap of only $0.5$ gives the token itself about 45%
# and still leaves about 27% for each of the others. Even three tokens with
# nothing in common exchange information — every position sees every other
# position. This "global view" is what sets attention apart from a recurrent
# network, which only sees the past through its hidden state.
#
# In trained Transformers the weights form recognisable patterns
# (注意力模式):
#
# | pattern | what it looks like | typical use |
# | --- | --- | --- |
# | diagonal · 对角线主导 | tokens attend mostly to themselves | shallow layers, encoding the token itself |
# | local · 局部关注 | a band around the diagonal | syntax between neighbours (adjective → noun) |
# | long-range · 长程依赖 | isolated strong entries far from the diagonal | coreference ("it" → the noun it stands for) |
# | division of labour · 多头分工 | different heads show different patterns | one head for syntax, another for meaning (Assignment 3) |
#
# With the causal mask of Section 4 the upper triangle becomes 0 and the first
# token can only attend to itself:

# %% [markdown] lang="zh"
# **解读热力图。** 每一幅图中对角线都最高，但权重远不是 one-hot：仅 $0.5$ 的分数差距，让 token 自身得到约 45%，另外两个 token 各自仍有约 27%。即使三个毫无共同点的 token 之间也会交换信息——每个位置都能看到所有其他位置。这种“全局视野”正是注意力区别于循环神经网络（RNN）之处：后者只能通过它的隐藏状态看到过去。
#
# 在训练好的 Transformer 中，注意力权重会形成可辨认的模式（注意力模式）：
#
# | 模式 | 看起来像什么 | 典型用途 |
# | --- | --- | --- |
# | 对角线主导 · diagonal | token 主要关注自身 | 浅层，编码 token 本身 |
# | 局部关注 · local | 对角线附近的一条带 | 相邻词之间的语法关系（形容词 → 名词） |
# | 长程依赖 · long-range | 远离对角线的孤立强权重 | 指代（"it" → 它所指的名词） |
# | 多头分工 · division of labour | 不同的头呈现不同的模式 | 一个头负责语法，另一个负责语义（作业 3） |
#
# 加上第 4 节的因果掩码后，上三角变为 0，第一个 token 只能关注它自己：

# %%
_, A_masked = scaled_dot_product_attention(Q_ex, K_ex, V_ex, mask=causal_mask(len(TOKENS)))
print(A_masked)

# %% [markdown]
# ## 7. Why divide by $\sqrt{d_k}$? · 为什么要除以 $\sqrt{d_k}$
#
# Model a query and a key as random vectors $q, k \in \mathbb{R}^{d_k}$ whose
# entries are independent with mean 0 and variance 1 (e.g. standard normal). Then
# $q \cdot k = \sum_{i=1}^{d_k} q_i k_i$ is a sum of $d_k$ independent terms.
#
# **Mean.** Independence gives $\mathbb{E}[q_i k_i] = \mathbb{E}[q_i]\,\mathbb{E}[k_i] = 0$, so
#
# $$\mathbb{E}[q \cdot k] = 0.$$
#
# **Variance of one term.** $\operatorname{Var}(q_i k_i) = \mathbb{E}[q_i^2 k_i^2] - \big(\mathbb{E}[q_i k_i]\big)^2 = \mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2] - 0 = 1 \cdot 1 = 1.$
#
# **Variance of the sum.** The terms are independent, so their variances add:
#
# $$\operatorname{Var}(q \cdot k) = \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k.$$
#
# The standard deviation grows like $\sqrt{d_k}$: with $d_k = 1024$ a typical score
# is around $\pm 32$, and $e^{32}$ dwarfs everything else in the softmax.
#
# **After scaling.** Since $\operatorname{Var}(cX) = c^2 \operatorname{Var}(X)$,
#
# $$\operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = \frac{d_k}{\left(\sqrt{d_k}\right)^2} = 1,$$
#
# whatever $d_k$ is. The scores stay in the range where softmax is smooth and its
# gradients are healthy.
#
# ### The experiment · 实验
#
# `dot_product_variance(d_k, n_samples, rng)` estimates both variances from
# `n_samples` random pairs:
#
# $$\widehat{\operatorname{Var}}_\text{raw} = \operatorname{var}\big(\{q^{(s)} \cdot k^{(s)}\}_{s=1}^{N}\big), \qquad \widehat{\operatorname{Var}}_\text{scaled} = \operatorname{var}\big(\{q^{(s)} \cdot k^{(s)} / \sqrt{d_k}\}_{s=1}^{N}\big).$$
#
# **Shapes and contract.** Draw `q = rng.standard_normal((n_samples, d_k))` first,
# then `k = rng.standard_normal((n_samples, d_k))` (the order matters: the grader
# replays the same seed). One dot product per row pair gives `(n_samples,)`. Use
# `np.var` with its default `ddof=0` and return the two variances as Python
# `float`s.

# %% [markdown] lang="zh"
# ## 7. 为什么要除以 $\sqrt{d_k}$ · Why divide by $\sqrt{d_k}$?
#
# 把查询和键看作随机向量 $q, k \in \mathbb{R}^{d_k}$，其各分量相互独立，均值为 0，方差为 1（例如标准正态分布）。那么 $q \cdot k = \sum_{i=1}^{d_k} q_i k_i$ 是 $d_k$ 个独立项之和。
#
# **均值。** 由独立性，$\mathbb{E}[q_i k_i] = \mathbb{E}[q_i]\,\mathbb{E}[k_i] = 0$，所以
#
# $$\mathbb{E}[q \cdot k] = 0.$$
#
# **单项的方差。** $\operatorname{Var}(q_i k_i) = \mathbb{E}[q_i^2 k_i^2] - \big(\mathbb{E}[q_i k_i]\big)^2 = \mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2] - 0 = 1 \cdot 1 = 1.$
#
# **和的方差。** 各项相互独立，所以方差相加：
#
# $$\operatorname{Var}(q \cdot k) = \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k.$$
#
# 标准差随 $\sqrt{d_k}$ 增长：当 $d_k = 1024$ 时，一个典型分数大约是 $\pm 32$，而 $e^{32}$ 在 softmax 中会压倒其他所有项。
#
# **缩放之后。** 由于 $\operatorname{Var}(cX) = c^2 \operatorname{Var}(X)$，
#
# $$\operatorname{Var}\!\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = \frac{d_k}{\left(\sqrt{d_k}\right)^2} = 1,$$
#
# 无论 $d_k$ 是多少。分数保持在 softmax 平滑、梯度健康的范围内。
#
# ### 实验 · The experiment
#
# `dot_product_variance(d_k, n_samples, rng)` 用 `n_samples` 对随机向量估计这两个方差：
#
# $$\widehat{\operatorname{Var}}_\text{raw} = \operatorname{var}\big(\{q^{(s)} \cdot k^{(s)}\}_{s=1}^{N}\big), \qquad \widehat{\operatorname{Var}}_\text{scaled} = \operatorname{var}\big(\{q^{(s)} \cdot k^{(s)} / \sqrt{d_k}\}_{s=1}^{N}\big).$$
#
# **形状与约定。** 先抽取 `q = rng.standard_normal((n_samples, d_k))`，再抽取 `k = rng.standard_normal((n_samples, d_k))`（顺序很重要：评分程序会用同一个种子重放）。每一对行做一次点积，得到 `(n_samples,)`。用 `np.var`，保持默认的 `ddof=0`，并把两个方差作为 Python `float` 返回。

# %% graded="dot_product_variance"
# (filled in from the module at build time)

# %% [markdown]
# One generator, seeded once, serves every row (the same table as
# `attn-course variance`):

# %% [markdown] lang="zh"
# 同一个生成器只设一次种子，供每一行使用（与 `attn-course variance` 打印的表相同）：

# %%
D_KS = [1, 4, 16, 64, 256, 1024]
N_SAMPLES = 10_000
SEED = 0

rng = np.random.default_rng(SEED)
variances = np.array([dot_product_variance(d_k, N_SAMPLES, rng) for d_k in D_KS])  # (len(D_KS), 2)

print(f"{'d_k':>6}  {'Var(q.k)':>10}  {'Var(q.k/sqrt(d_k))':>18}")
for d_k, (var_raw, var_scaled) in zip(D_KS, variances):
    print(f"{d_k:>6}  {var_raw:>10.3f}  {var_scaled:>18.3f}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(D_KS, variances[:, 0], "o-", label="raw  Var(q·k)")
ax.loglog(D_KS, variances[:, 1], "s-", label="scaled  Var(q·k / √d_k)")
ax.loglog(D_KS, D_KS, "k--", linewidth=1, label="theory: d_k")
ax.axhline(1.0, color="grey", linestyle=":", linewidth=1, label="theory: 1")
ax.set_xlabel("d_k")
ax.set_ylabel("variance")
ax.set_title("Dot-product variance grows like d_k; scaling fixes it")
ax.legend()
plt.show()

# %% [markdown]
# ### What large scores do to softmax · softmax 的饱和
#
# Now score one random query against `N_KEYS` random keys, many times over, and
# look at the largest weight of each softmax. Without scaling it climbs towards
# 1 as $d_k$ grows: the distribution collapses onto a single key. With scaling it
# stays put, whatever $d_k$.
#
# The last two columns measure how much gradient can flow back through the
# softmax: the trace of its Jacobian, $\sum_i p_i (1 - p_i)$. It shrinks towards 0
# when one weight takes everything.

# %% [markdown] lang="zh"
# ### 过大的分数对 softmax 做了什么 · softmax 的饱和
#
# 现在把一个随机查询与 `N_KEYS` 个随机键打分，重复多次，观察每次 softmax 中最大的权重。不缩放时，它随 $d_k$ 增大而趋向 1：分布塌缩到单个键上。缩放之后它保持不变，无论 $d_k$ 是多少。
#
# 最后两列衡量有多少梯度能反向流过 softmax：它的雅可比矩阵的迹 $\sum_i p_i (1 - p_i)$。当一个权重占据全部时，它缩小到接近 0。

# %%
N_KEYS = 8
N_TRIALS = 300

rng = np.random.default_rng(SEED)
largest_raw, largest_scaled, grad_raw, grad_scaled = [], [], [], []
for d_k in D_KS:
    q = rng.standard_normal((N_TRIALS, d_k))  # (trials, d_k)
    keys = rng.standard_normal((N_TRIALS, N_KEYS, d_k))  # (trials, n_keys, d_k)
    scores = (keys @ q[:, :, None])[:, :, 0]  # (trials, n_keys, d_k) @ (trials, d_k, 1) -> (trials, n_keys)
    p_raw = softmax(scores)  # (trials, n_keys)
    p_scaled = softmax(scores / math.sqrt(d_k))  # (trials, n_keys)
    largest_raw.append(p_raw.max(axis=-1).mean())
    largest_scaled.append(p_scaled.max(axis=-1).mean())
    grad_raw.append(np.sum(p_raw * (1 - p_raw), axis=-1).mean())
    grad_scaled.append(np.sum(p_scaled * (1 - p_scaled), axis=-1).mean())

print(f"{'d_k':>6}  {'max weight raw':>14}  {'max weight scaled':>17}  {'grad raw':>9}  {'grad scaled':>11}")
for row in zip(D_KS, largest_raw, largest_scaled, grad_raw, grad_scaled):
    print("{:>6}  {:>14.3f}  {:>17.3f}  {:>9.3f}  {:>11.3f}".format(*row))

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(D_KS, largest_raw, "o-", label="without scaling")
ax.semilogx(D_KS, largest_scaled, "s-", label="with 1/√d_k")
ax.axhline(1.0 / N_KEYS, color="grey", linestyle=":", label=f"uniform (1/{N_KEYS})")
ax.set_ylim(0, 1.05)
ax.set_xlabel("d_k")
ax.set_ylabel(f"mean largest weight over {N_KEYS} keys")
ax.set_title("Softmax saturates without scaling")
ax.legend()
plt.show()

# %% [markdown]
# ## 8. Summary · 小结
#
# 1. **QKV:** the query asks "what am I looking for?", the key answers "what do
#    I contain?", the value is "what I hand over". Attention is a differentiable
#    search that returns a weighted average of values.
# 2. **Four steps:** $QK^\top$ measures similarity; $/\sqrt{d_k}$ keeps the
#    scores' variance at 1 so softmax does not saturate; softmax turns each row
#    into weights summing to 1; $\times V$ averages the values.
# 3. **Stability and masks:** shift by the maximum before `exp`; forbidden
#    positions become $-\infty$ and get weight exactly 0.
# 4. **Check:** the rows of $A$ always sum to 1 — a quick test for any
#    implementation. In the three-token example each token keeps about 45% of its
#    own value and gives about 27% to each of the others.
#
# 要点：注意力权重每行之和为 1；缩放使点积方差保持为 1，避免 softmax 饱和。
#
# Next (Assignment 2): where attention came from — RNN encoder-decoders with
# Bahdanau's and Luong's scores.

# %% [markdown] lang="zh"
# ## 8. 小结 · Summary
#
# 1. **QKV：** 查询代表“我在找什么？”，键回答“我包含什么？”，值是“我交出的东西”。注意力是一种可微分的检索，返回值的加权平均。
# 2. **四个步骤：** $QK^\top$ 衡量相似度；$/\sqrt{d_k}$ 让分数的方差保持为 1，使 softmax 不会饱和；softmax 把每一行变成和为 1 的权重；$\times V$ 对值做平均。
# 3. **稳定性与掩码：** 在 `exp` 之前减去最大值；被禁止的位置变成 $-\infty$，权重恰好为 0。
# 4. **检查：** $A$ 的每一行之和总是 1——这是对任何实现都适用的快速检验。在三个 token 的例子中，每个 token 保留自身的值的约 45%，给另外两个 token 各约 27%。
#
# 要点：注意力权重每行之和为 1；缩放使点积方差保持为 1，避免 softmax 饱和。
#
# 下一个作业（作业 2）：注意力从哪里来——带有 Bahdanau 与 Luong 打分函数的 RNN 编码器-解码器。

# %% [markdown]
# ## Check your work · 检查你的作业
#
# From the assignment folder run
#
# ```bash
# attn-course check hw1_scaled_attention                         # your module scaled_attention.py
# attn-course check hw1_scaled_attention scaled_attention.ipynb  # or this notebook
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
# attn-course check hw1_scaled_attention                         # 你的模块 scaled_attention.py
# attn-course check hw1_scaled_attention scaled_attention.ipynb  # 或者这个 notebook
# ```
#
# 或者直接在该文件夹中运行 `pytest`。这些公开检查使用小规模的已知用例。评分还会使用其他形状、批量维度、float32 输入和掩码，所以请保持代码向量化、具有通用性。如果你提交的是 notebook，评分只取其中的 import、函数定义和简单常量——演示单元格不会运行。
