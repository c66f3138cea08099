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

# %% [markdown] lang="zh"
# # 作业 3 · 多头注意力 · Multi-head attention
#
# 一个注意力为每个查询算出一组权重：只有一种“哪些位置重要”的看法。多头注意力让几个较小的注意力并排运行，每个只作用于特征的一段切片，这样不同的头可以同时追踪不同的关系。
#
# 你要实现：
#
# <!-- points table: generated from course.yml -->
#
# **如何作答。** 下面每个*评分*单元格（graded）里有一个待实现的函数；它一开始会抛出 `NotImplementedError`，用到它的单元格在你实现它之前都会报错——这是正常的。同样的函数也在 `multi_head.py` 中：你可以在这个 notebook 里做，也可以在模块里做，最后交上你实际修改的那一个（见 README）。所有名字和函数签名都保持不变。这里用不到作业 1 的函数，所以每个头的缩放点积注意力要在 `multi_head_attention` 里重新写一遍。
#
# **约定。** 形状写作 `(..., n, d_model)`，其中 `...` 表示任意多个前导批量维度；`h` 是头数，`d_head = d_model / h`。投影写作 `X @ W`，权重在右边：这与作业 2 不同，作业 2 对列向量写 $W_a s$（在 numpy 中是 `s @ W_a.T`）。`X @ W.T` 是 PyTorch 的 `nn.Linear` 的约定，在这里是另一个层。float32 输入得到 float32 结果。掩码是布尔数组或 0/1 数组，True/1 表示*这个查询可以关注这个键*。
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

# %% [markdown] lang="zh"
# ## 1. 为什么需要多个头 · Why several heads?
#
# 看这个句子 *"The cat sat on the mat because it was tired"*。其中同时存在好几种关系：
#
# * **语法**——"cat" 是 "sat" 的主语，"mat" 是 "on" 的宾语；
# * **指代**——"it" 指的是 "cat"；
# * **位置**——许多词主要依赖它们的相邻词；
# * **语义**——"tired" 描述的是猫，而不是垫子。
#
# 单个注意力只为每个查询给出一个在键上的概率分布，所以它必须把所有这些关系混合进同一组权重。有 $h$ 个头时，每个查询得到 $h$ 个分布，它们来自同一批 token 的 $h$ 种不同投影：一个头可以专门追踪语法，另一个头则去解析 "it" 指代什么。训练好的 Transformer 确实表现出这种分工（多头分工）。
#
# 代价并没有增加：我们不是运行一个宽度为 $d_\text{model}$ 的注意力，而是运行 $h$ 个宽度为 $d_\text{head} = d_\text{model}/h$ 的注意力。投影 $W_q, W_k, W_v, W_o$ 始终是 $d_\text{model} \times d_\text{model}$，与 $h$ 无关。
#
# 做法如下，后面几节会一步步搭建：
#
# 1. **投影**——$Q = X_q W_q$，$K = X_{kv} W_k$，$V = X_{kv} W_v$；
# 2. **拆分**——把它们各自的 $d_\text{model}$ 个特征切成 $h$ 块，每块 $d_\text{head}$ 个；
# 3. **每个头内做注意力**——在每个头里做缩放点积注意力，按 $\sqrt{d_\text{head}}$ 缩放；
# 4. **合并**——把各个头的输出重新并排拼起来；
# 5. **输出投影**——乘以 $W_o$，让各个头的结果相互混合。

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

# %% [markdown] lang="zh"
# ## 2. 拆分头 · Splitting into heads
#
# 第 $i$ 个头得到每个位置的第 $i$ 块连续的 $d_\text{head}$ 个特征：
#
# $$\operatorname{split}(X)[\dots, i, t, :] = X\big[\dots, t,\; i\,d_\text{head} : (i+1)\,d_\text{head}\big], \qquad d_\text{head} = \frac{d_\text{model}}{h}.$$
#
# 头轴放在位置轴*之前*，这样每个头看起来都是一个普通的序列，作业 1 的注意力可以把头轴当作又一个批量轴。
#
# **形状。** `X`：`(..., n, d_model)`；`num_heads` 必须整除 `d_model`；返回 `(..., num_heads, n, d_model // num_heads)`。提示：一次 reshape 可以把最后一个轴切成两个，然后用 `np.swapaxes` / `np.moveaxis` 重新排列各轴。

# %% graded="split_heads"
# (filled in from the module at build time)

# %% [markdown]
# Features numbered 0 to 7 for 3 positions, split into 2 heads: head 0 holds
# features 0–3, head 1 features 4–7, of every position.

# %% [markdown] lang="zh"
# 3 个位置，特征编号为 0 到 7，拆成 2 个头：头 0 持有每个位置的特征 0–3，头 1 持有特征 4–7。

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

# %% [markdown] lang="zh"
# ## 3. 合并头 · Merging heads
#
# 逆操作：对每个位置，按头的顺序把各个头的特征拼接起来，
#
# $$\operatorname{merge}(Z)[\dots, t, :] = \big[\, Z[\dots, 0, t, :] \;;\; Z[\dots, 1, t, :] \;;\; \dots \;;\; Z[\dots, h-1, t, :] \,\big],$$
#
# 于是 $\operatorname{merge}(\operatorname{split}(X)) = X$。
#
# **形状。** `X`：`(..., num_heads, n, d_head)`；返回 `(..., n, num_heads * d_head)`。

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

# %% [markdown] lang="zh"
# ## 4. 多头注意力 · Multi-head attention
#
# 设 $Q = X_q W_q$，$K = X_{kv} W_k$，$V = X_{kv} W_v$，并记 $Q_i, K_i, V_i$ 为它们拆分后的第 $i$ 个头：
#
# $$\text{head}_i = \operatorname{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_\text{head}}}\right) V_i, \qquad
# Y = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_o = \operatorname{merge}(\text{heads})\, W_o .$$
#
# 把 $X W_q$ 拆成块，等价于给第 $i$ 个头一个自己的投影 $W_q^{(i)}$，即 $W_q$ 的第 $i$ 块 $d_\text{head}$ 列：这正是 Transformer 论文中每个头各自的矩阵，只是并排存放在一起。
#
# * 每个头按 $\sqrt{d_\text{head}}$ 缩放——这是它实际比较的向量的宽度——而不是按 $\sqrt{d_\text{model}}$。
# * **掩码作用于每个头。** 掩码的形状是 `(..., n_q, n_kv)`；分数的形状是 `(..., h, n_q, n_kv)`。在掩码的最后两个轴前面插入一个长度为 1 的头轴，让它在各个头上广播。例如因果掩码必须对所有头同样地遮住未来。一维掩码 `(n_kv,)` 表示每个查询允许的键都相同。
# * 把头当作一个批量轴：不需要对头写 Python 循环。
#
# **形状。**
#
# | 参数 | 形状 |
# | --- | --- |
# | `X_q` | `(..., n_q, d_model)` |
# | `X_kv` | `(..., n_kv, d_model)`（自注意力时就是 `X_q` 本身） |
# | `W_q`, `W_k`, `W_v`, `W_o` | `(d_model, d_model)` |
# | `num_heads` | 整除 `d_model` 的 int |
# | `mask`（可选） | 布尔或 0/1，可广播到 `(..., n_q, n_kv)` |
# | 返回 `Y` | `(..., n_q, d_model)` |
# | 返回 `A` | `(..., num_heads, n_q, n_kv)`，每一行之和为 1 |

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

# %% [markdown] lang="zh"
# ## 5. 小演示 · A small demo
#
# ### 5.1 两个头，两种关系 · Two heads, two relations
#
# 四个 token "the cat a mat"，使用手工构造的特征和恒等投影（于是 $Q = K = V = X$）。特征 0–1 编码**词类**（限定词或名词）；特征 2–3 编码**短语**（"the cat" 或 "a mat"）。有两个头时，头 0 只看到词类，头 1 只看到短语。单个头则一次比较全部四个特征。

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

# %% [markdown] lang="zh"
# 对单个头来说，每个词在*两种*关系上都与自己匹配，分数因此翻倍；"the" 把约 98% 的权重留给自己，它的部分匹配 "cat"（同一短语）和 "a"（同一词类）几乎被忽略。有两个头时，两种关系被分开了：头 0 把 "the" 与 "a"、"cat" 与 "mat" 联系起来；头 1 把每个词与它所在短语中的另一个词联系起来。合并各个头并乘以 $W_o$，就把这两类信息都交给了下一层。
#
# ### 5.2 因果自注意力（批量） · Causal self-attention, batched
#
# 随机权重，一个由 2 个序列组成的批量，每个序列 6 个 token，$d_\text{model} = 8$，4 个头，外加因果掩码。每个头都必须给未来的位置权重 0。

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

# %% [markdown] lang="zh"
# 各个头共享同一个掩码，但模式不同：每个头对 token 的投影不同，因此在过去的位置上分配权重的方式也不同。
#
# ### 5.3 带填充的交叉注意力 · Cross-attention with padding
#
# 查询来自一个序列（3 个位置），键和值来自另一个序列（5 个位置）。第二个键序列只有 3 个真实 token；形状为 `(batch, 1, n_kv)` 的掩码让每个头的每个查询都看不到它的填充部分。

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

# %% [markdown] lang="zh"
# ## 6. 小结 · Summary
#
# 1. 一个注意力为每个查询给出一个在键上的分布；$h$ 个头给出 $h$ 个分布，来自 $h$ 种不同的投影，因此可以同时追踪不同的关系。
# 2. 拆分就是对特征轴做一次 reshape，再把头轴移到位置轴前面；合并是它的精确逆操作。
# 3. 每个头以 $\sqrt{d_\text{head}}$ 为缩放因子做缩放点积注意力；头轴只是又一个批量轴。
# 4. 掩码加上一个长度为 1 的头轴，从而作用于每个头；随后 $W_o$ 把拼接起来的各个头混合在一起。
#
# 要点：多头注意力 = 投影 → 拆分 → 每个头独立注意力 → 合并 → 输出投影；参数量与头数无关。
#
# 下一步：Transformer 块的其余部分——嵌入层、位置编码、前馈层、残差连接和层归一化。

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

# %% [markdown] lang="zh"
# ## 检查你的作业 · Check your work
#
# 在作业文件夹中运行
#
# ```bash
# attn-course check hw3_multi_head                   # 你的模块 multi_head.py
# attn-course check hw3_multi_head multi_head.ipynb  # 或者这个 notebook
# ```
#
# 或者直接在该文件夹中运行 `pytest`。这些公开检查使用小规模的已知用例。评分还会使用其他形状、批量维度、float32 输入和掩码，所以请保持代码向量化、具有通用性。如果你提交的是 notebook，评分只取其中的 import、函数定义和简单常量——演示单元格不会运行。
