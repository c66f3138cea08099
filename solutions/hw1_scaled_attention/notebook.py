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

# %% graded="softmax"
# (filled in from the module at build time)

# %% [markdown]
# A few checks. The first input is the three-token example of Section 6:
# $e^{0.5} \approx 1.6487$, so the weights are $1.6487 / 3.6487 \approx 0.4519$
# and $1 / 3.6487 \approx 0.2741$. The second input would overflow a naive
# `np.exp`; the third has a masked entry.

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

# %% graded="scaled_dot_product_attention"
# (filled in from the module at build time)

# %% [markdown]
# A batched call (2 sentences × 3 heads, 5 queries, 7 keys); then the same queries
# against the first 5 keys only, under the causal mask; then float32 inputs:

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

# %% graded="dot_product_variance"
# (filled in from the module at build time)

# %% [markdown]
# One generator, seeded once, serves every row (the same table as
# `attn-course variance`):

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
