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
# # Assignment 4 · Why we scale, measured in gradients · 为什么要缩放：用梯度来衡量
#
# Assignment 1 measured that the dot product of two random $d_k$-dimensional vectors
# has variance $d_k$, and gave the reason for dividing by $\sqrt{d_k}$: large scores
# *saturate* the softmax, and then its gradient vanishes. That is a claim about
# gradients, yet so far nothing in the course has computed one. Here you derive the
# backward passes of softmax and of scaled dot-product attention, check them against
# numerical derivatives the way CS231n does, and finally measure the gradient that
# flows back through the softmax, with and without the scale.
#
# <!-- points table: generated from course.yml -->
#
# **How to work.** Each *graded* cell below holds one function to implement;
# it starts out raising `NotImplementedError`, and the cells that use it fail
# until you have implemented it — that is expected. The same functions are in
# `gradients.py`: work in this notebook or in the module, and hand in the one you
# worked in (see the README). Keep every name and signature unchanged. Cells marked
# *given* hold helpers that are already implemented (the forward pass of
# Assignment 1 and the tools of the gradient check): read them, use them, do not
# change them. Prerequisites: Assignment 1, the chain rule, matrix products.
#
# **Conventions.** Shapes are written `(..., L_q, d_k)`, where `...` is any number
# of leading batch dimensions. float32 inputs give float32 results. A mask is
# boolean or 0/1, and True/1 means *this query may attend to this key*. For a scalar
# loss $L$ and any array $X$, `dX` is the gradient $\partial L / \partial X$: an array
# of the same shape as `X`.
#
# 本作业推导 softmax 与缩放点积注意力的反向传播，用数值梯度（中心差分）检验，并测量缩放与否时流过 softmax 的梯度大小。

# %% [markdown] lang="zh"
# # 作业 4 · 为什么要缩放：用梯度来衡量 · Why we scale, measured in gradients
#
# 作业 1 测出了两个随机的 $d_k$ 维向量的点积具有方差 $d_k$，并给出了除以 $\sqrt{d_k}$ 的理由：过大的分数会让 softmax *饱和*，于是它的梯度消失。这是一个关于梯度的论断，可是到目前为止，课程里还没有算过一个梯度。在这里，你将推导 softmax 和缩放点积注意力的反向传播，像 CS231n 那样用数值导数检验它们，最后测量在缩放与不缩放两种情况下，反向流过 softmax 的梯度有多大。
#
# <!-- points table: generated from course.yml -->
#
# **如何作答。** 下面每个*评分*单元格（graded）里有一个待实现的函数；它一开始会抛出 `NotImplementedError`，用到它的单元格在你实现它之前都会报错——这是正常的。同样的函数也在 `gradients.py` 中：你可以在这个 notebook 里做，也可以在模块里做，最后交上你实际修改的那一个（见 README）。所有名字和函数签名都保持不变。标记为*已给出*（given）的单元格里是已经实现好的辅助函数（作业 1 的前向传播，以及梯度检验的工具）：阅读它们、使用它们，但不要修改。预备知识：作业 1、链式法则、矩阵乘法。
#
# **约定。** 形状写作 `(..., L_q, d_k)`，其中 `...` 表示任意多个前导批量维度。float32 输入得到 float32 结果。掩码是布尔数组或 0/1 数组，True/1 表示*这个查询可以关注这个键*。对标量损失 $L$ 和任意数组 $X$，`dX` 表示梯度 $\partial L / \partial X$：一个与 `X` 形状相同的数组。
#
# 本作业推导 softmax 与缩放点积注意力的反向传播，用数值梯度（中心差分）检验，并测量缩放与否时流过 softmax 的梯度大小。

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

# %% [markdown]
# ## 1. The forward pass, given · 前向传播（已给出）
#
# A backward pass runs a forward pass in reverse, so here is the forward pass of
# Assignment 1 again, already implemented:
#
# $$S = \frac{QK^\top}{\sqrt{d_k}}, \qquad \tilde S_{ij} = \begin{cases} S_{ij} & \text{if } M_{ij} \\ -\infty & \text{otherwise} \end{cases}, \qquad A = \operatorname{softmax}(\tilde S), \qquad Z = AV.$$
#
# `scaled_dot_product_attention` returns both `Z` and the weights `A`: the backward
# pass needs `A`, and keeping it from the forward pass saves computing it again.

# %% [markdown] lang="zh"
# ## 1. 前向传播（已给出） · The forward pass, given
#
# 反向传播就是把前向传播倒过来走一遍，所以这里再次给出作业 1 的前向传播，已经实现好了：
#
# $$S = \frac{QK^\top}{\sqrt{d_k}}, \qquad \tilde S_{ij} = \begin{cases} S_{ij} & \text{if } M_{ij} \\ -\infty & \text{otherwise} \end{cases}, \qquad A = \operatorname{softmax}(\tilde S), \qquad Z = AV.$$
#
# `scaled_dot_product_attention` 同时返回 `Z` 和权重 `A`：反向传播需要 `A`，把它从前向传播中保留下来，就省得再算一遍。

# %% given="softmax"
# (filled in from the module at build time)

# %% given="scaled_dot_product_attention"
# (filled in from the module at build time)

# %% [markdown]
# ## 2. Checking a gradient numerically · 用数值梯度检验
#
# A derivative is a limit of difference quotients, so a gradient can be *estimated*
# without any calculus. For a scalar function $f$ of an array $x$, nudge one entry at
# a time, in both directions:
#
# $$\frac{\partial f}{\partial x_i} \approx \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2\varepsilon}.$$
#
# Taylor's formula shows why the two-sided (centred) quotient is worth its second
# evaluation: the terms in $\varepsilon^1$ cancel, so the error is of order
# $\varepsilon^2$, against $\varepsilon$ for the one-sided quotient
# $\big(f(x + \varepsilon e_i) - f(x)\big)/\varepsilon$. Rounding adds about
# $10^{-16}|f|/\varepsilon$, so $\varepsilon$ must not be too small either;
# $\varepsilon = 10^{-5}$ balances the two in float64. The cost is $2n$ evaluations of
# $f$ for $n$ entries: far too slow for training, perfect for testing.
#
# To compare an analytic gradient $a$ with a numerical one $b$, use the **relative
# error** (CS231n's definition), entry by entry, keeping the worst:
#
# $$\operatorname{rel}(a, b) = \max_i \frac{|a_i - b_i|}{\max\left(|a_i| + |b_i|,\ 10^{-8}\right)}.$$
#
# Relative, because a gradient entry of $10^{-3}$ off by $10^{-6}$ is as suspicious as
# one of $10^{3}$ off by $1$. In float64, below $10^{-7}$ means the two agree; around
# $10^{-4}$ something is wrong somewhere; above $10^{-2}$ the gradient is wrong. Both
# tools are given:

# %% [markdown] lang="zh"
# ## 2. 用数值梯度检验 · Checking a gradient numerically
#
# 导数是差商的极限，所以不用任何微积分也能*估计*一个梯度。对数组 $x$ 的标量函数 $f$，每次只把一个元素朝两个方向各推动一点：
#
# $$\frac{\partial f}{\partial x_i} \approx \frac{f(x + \varepsilon e_i) - f(x - \varepsilon e_i)}{2\varepsilon}.$$
#
# 泰勒公式说明了为什么双侧（中心差分）商值得多算一次：$\varepsilon^1$ 的项相互抵消，所以误差是 $\varepsilon^2$ 阶的，而单侧商 $\big(f(x + \varepsilon e_i) - f(x)\big)/\varepsilon$ 的误差是 $\varepsilon$ 阶的。舍入误差大约增加 $10^{-16}|f|/\varepsilon$，所以 $\varepsilon$ 也不能太小；在 float64 中，$\varepsilon = 10^{-5}$ 能让两者平衡。代价是：$n$ 个元素需要对 $f$ 求值 $2n$ 次——用于训练太慢，用于测试正好。
#
# 要比较解析梯度 $a$ 与数值梯度 $b$，就用**相对误差**（CS231n 的定义），逐元素计算，取最差的一个：
#
# $$\operatorname{rel}(a, b) = \max_i \frac{|a_i - b_i|}{\max\left(|a_i| + |b_i|,\ 10^{-8}\right)}.$$
#
# 之所以用相对误差，是因为一个大小为 $10^{-3}$、偏差 $10^{-6}$ 的梯度元素，与一个大小为 $10^{3}$、偏差 $1$ 的元素同样可疑。在 float64 中，低于 $10^{-7}$ 说明两者一致；在 $10^{-4}$ 左右说明某处有问题；高于 $10^{-2}$ 说明梯度是错的。两个工具都已给出：

# %% given="numerical_gradient"
# (filled in from the module at build time)

# %% given="relative_error"
# (filled in from the module at build time)

# %%
#: The bar for a float64 gradient check in this notebook.
CHECK_THRESHOLD = 1e-7


def check_gradient(name, analytic, numerical):
    """Print the relative error of an analytic gradient against a numerical one, with a verdict."""
    error = relative_error(analytic, numerical)
    verdict = "OK" if error < CHECK_THRESHOLD else "too large"
    print(f"{name:<28} relative error {error:.2e}  ({verdict}, threshold {CHECK_THRESHOLD:.0e})")


# f(x) = sum(x^3) has gradient 3 x^2: the centred quotient gets it to ~1e-10; the one-sided
# quotient, off by ~1e-5, fails the bar even though nothing is wrong but the method.
x_demo = np.array([0.5, -1.0, 2.0])
cube_sum = lambda y: np.sum(y**3)
check_gradient("centred differences", 3 * x_demo**2, numerical_gradient(cube_sum, x_demo))
one_sided = np.array([(cube_sum(x_demo + 1e-5 * e) - cube_sum(x_demo)) / 1e-5 for e in np.eye(3)])
check_gradient("one-sided differences", 3 * x_demo**2, one_sided)

# %% [markdown]
# ## 3. The softmax Jacobian · softmax 的雅可比矩阵
#
# Take one row: scores $s \in \mathbb{R}^n$ and weights
# $a_i = e^{s_i} / \sum_l e^{s_l}$. Write $\Sigma = \sum_l e^{s_l}$ and differentiate
# $a_i$ with respect to $s_j$ by the quotient rule. The numerator $e^{s_i}$ depends on
# $s_j$ only when $i = j$; the denominator always does, with
# $\partial \Sigma / \partial s_j = e^{s_j}$:
#
# $$\frac{\partial a_i}{\partial s_j} = \frac{\delta_{ij}\, e^{s_i}\, \Sigma - e^{s_i} e^{s_j}}{\Sigma^2} = \delta_{ij}\, a_i - a_i a_j = a_i\,(\delta_{ij} - a_j).$$
#
# As a matrix, with $J_{ij} = \partial a_i / \partial s_j$:
#
# $$\boxed{J = \operatorname{diag}(a) - a\, a^\top}$$
#
# Three properties to check on any implementation:
#
# * **symmetric** — $J_{ij} = J_{ji} = -a_i a_j$ off the diagonal;
# * **rows sum to 0** — $J\mathbf{1} = a - a\,(a^\top \mathbf{1}) = a - a = 0$: adding
#   the same constant to every score changes nothing, so the derivative in the
#   direction $(1, \dots, 1)$ is 0;
# * **it vanishes when softmax saturates** — if $a$ is one-hot, $a = e_m$, then
#   $J = \operatorname{diag}(e_m) - e_m e_m^\top = 0$. A nearly one-hot $a$ gives a
#   nearly zero $J$: small changes of the scores no longer move the weights. This is
#   the chapter's "gradient close to 0" in one line.
#
# The three-token example of Assignment 1 ($s = [0.5, 0, 0]$) and a saturated row,
# each checked against `numerical_gradient` (row $i$ of $J$ is the gradient of $a_i$):

# %% [markdown] lang="zh"
# ## 3. softmax 的雅可比矩阵 · The softmax Jacobian
#
# 取一行：分数 $s \in \mathbb{R}^n$，权重 $a_i = e^{s_i} / \sum_l e^{s_l}$。记 $\Sigma = \sum_l e^{s_l}$，用商的求导法则对 $a_i$ 关于 $s_j$ 求导。分子 $e^{s_i}$ 只有在 $i = j$ 时才依赖 $s_j$；分母则总是依赖，且 $\partial \Sigma / \partial s_j = e^{s_j}$：
#
# $$\frac{\partial a_i}{\partial s_j} = \frac{\delta_{ij}\, e^{s_i}\, \Sigma - e^{s_i} e^{s_j}}{\Sigma^2} = \delta_{ij}\, a_i - a_i a_j = a_i\,(\delta_{ij} - a_j).$$
#
# 写成矩阵，记 $J_{ij} = \partial a_i / \partial s_j$：
#
# $$\boxed{J = \operatorname{diag}(a) - a\, a^\top}$$
#
# 任何实现都可以检查的三个性质：
#
# * **对称**——对角线以外 $J_{ij} = J_{ji} = -a_i a_j$；
# * **每行之和为 0**——$J\mathbf{1} = a - a\,(a^\top \mathbf{1}) = a - a = 0$：给每个分数加上同一个常数不会改变任何东西，所以沿方向 $(1, \dots, 1)$ 的导数为 0；
# * **softmax 饱和时它趋于零**——如果 $a$ 是 one-hot，$a = e_m$，那么 $J = \operatorname{diag}(e_m) - e_m e_m^\top = 0$。几乎 one-hot 的 $a$ 给出几乎为零的 $J$：分数的微小变化再也推不动权重。这就是教材中“梯度趋近于 0”的一行证明。
#
# 作业 1 中三个 token 的例子（$s = [0.5, 0, 0]$）和一个已饱和的行，各自用 `numerical_gradient` 检验（$J$ 的第 $i$ 行是 $a_i$ 的梯度）：

# %%
np.set_printoptions(precision=5, suppress=True)
for scores_row in (np.array([0.5, 0.0, 0.0]), np.array([8.0, 0.0, 1.0])):
    weights_row = softmax(scores_row)
    jacobian = np.diag(weights_row) - np.outer(weights_row, weights_row)  # (n, n)
    rows = [numerical_gradient(lambda t, i=i: softmax(t)[i], scores_row) for i in range(len(scores_row))]
    print(f"s = {scores_row}, a = {weights_row.round(4)}")
    print(jacobian)
    print("  symmetric:", np.allclose(jacobian, jacobian.T), "| row sums:", jacobian.sum(axis=1).round(12))
    check_gradient("  J against centred diffs", jacobian, np.array(rows))

# %% [markdown]
# With $s = [0.5, 0, 0]$ the weights are far from one-hot and the entries of $J$ are
# of order 0.1–0.2; with a gap of 7 between the largest score and the rest, the first
# weight is 0.9988 and no entry of $J$ exceeds 0.0013, about two hundred times smaller.
#
# A caution about the check itself: the rounding error of a centred difference is
# about $10^{-16}|f|/\varepsilon$, so it grows *relative to the gradient* when the
# gradient is tiny next to the function. Push the gap to 12 and row 0 (where
# $f = a_0 \approx 1$ but its gradient is about $10^{-5}$) no longer passes the
# $10^{-7}$ bar, though nothing is wrong. Gradient checks belong on inputs where the
# gradients are not vanishingly small.
#
# ## 4. Backward through softmax, without the Jacobian · 不构造雅可比矩阵的 softmax 反向传播
#
# The backward pass receives $dA = \partial L / \partial a$ and must return
# $dS = \partial L / \partial s$. By the chain rule, since $L$ depends on $s$ only
# through $a$,
#
# $$dS_j = \sum_i \frac{\partial L}{\partial a_i}\frac{\partial a_i}{\partial s_j} = \sum_i dA_i\, a_i\,(\delta_{ij} - a_j) = a_j\, dA_j - a_j \sum_i dA_i\, a_i ,$$
#
# that is $dS = J^\top dA$, which simplifies to
#
# $$\boxed{dS = a \odot \big(dA - \langle dA, a\rangle\big)}, \qquad \langle dA, a \rangle = \sum_i dA_i\, a_i .$$
#
# Never build $J$ in a real backward pass. Attention weights of shape
# `(batch, heads, L, L)` have one softmax row per query; a Jacobian per row would hold
# `batch * heads * L**3` numbers — for $L = 2048$, 8.6 billion per head and sequence —
# where the formula above needs one product, one sum and one subtraction. It also
# keeps masked positions exact: a weight of exactly 0 gets a gradient of exactly 0.
#
# **Shapes.** `A`, `dA`: the same shape, e.g. `(..., L_q, L_k)`; `axis`: the axis the
# softmax normalised over (default `-1`). Returns `dS` of that shape. Keep the sum's
# axis with `keepdims=True` so that it broadcasts back against every entry of its
# slice.

# %% [markdown] lang="zh"
# 当 $s = [0.5, 0, 0]$ 时，权重远不是 one-hot，$J$ 的元素在 0.1–0.2 的量级；当最大分数比其余分数高出 7 时，第一个权重是 0.9988，$J$ 的元素没有一个超过 0.0013，大约小了两百倍。
#
# 关于检验本身的一个提醒：中心差分的舍入误差大约是 $10^{-16}|f|/\varepsilon$，所以当梯度相对于函数值非常小时，这个误差*相对于梯度*会变大。把差距加大到 12，第 0 行（这里 $f = a_0 \approx 1$，而它的梯度约为 $10^{-5}$）就不再能通过 $10^{-7}$ 的标准了，尽管什么都没有错。梯度检验应该用在梯度不至于小到消失的输入上。
#
# ## 4. 不构造雅可比矩阵的 softmax 反向传播 · Backward through softmax, without the Jacobian
#
# 反向传播接收 $dA = \partial L / \partial a$，必须返回 $dS = \partial L / \partial s$。由链式法则，因为 $L$ 只通过 $a$ 依赖 $s$，
#
# $$dS_j = \sum_i \frac{\partial L}{\partial a_i}\frac{\partial a_i}{\partial s_j} = \sum_i dA_i\, a_i\,(\delta_{ij} - a_j) = a_j\, dA_j - a_j \sum_i dA_i\, a_i ,$$
#
# 即 $dS = J^\top dA$，它化简为
#
# $$\boxed{dS = a \odot \big(dA - \langle dA, a\rangle\big)}, \qquad \langle dA, a \rangle = \sum_i dA_i\, a_i .$$
#
# 在真正的反向传播中永远不要构造 $J$。形状为 `(batch, heads, L, L)` 的注意力权重，每个查询有一行 softmax；若每一行都构造一个雅可比矩阵，就要存 `batch * heads * L**3` 个数——当 $L = 2048$ 时，每个头、每个序列就有约 86 亿（8.6 × 10⁹）个——而上面的公式只需要一次乘法、一次求和和一次减法。它还让被掩码的位置保持精确：恰好为 0 的权重得到恰好为 0 的梯度。
#
# **形状。** `A`、`dA`：形状相同，例如 `(..., L_q, L_k)`；`axis`：softmax 做归一化的那个轴（默认 `-1`）。返回同样形状的 `dS`。求和时用 `keepdims=True` 保留被求和的轴，这样结果才能与它所在切片的每个元素广播。

# %% graded="softmax_backward"
# (filled in from the module at build time)

# %% [markdown]
# Three checks: against $J^\top dA$ built from the Jacobian, against centred
# differences of the loss $L(S) = \sum_{ij} \operatorname{softmax}(S)_{ij} G_{ij}$ (whose
# $dA$ is $G$) on a batch, and on a row with masked ($-\infty$) scores:

# %% [markdown] lang="zh"
# 三个检验：与由雅可比矩阵构造的 $J^\top dA$ 比较；在一个批量上，与损失 $L(S) = \sum_{ij} \operatorname{softmax}(S)_{ij} G_{ij}$（它的 $dA$ 就是 $G$）的中心差分比较；以及在一个带有被掩码（$-\infty$）分数的行上检验：

# %%
rng = np.random.default_rng(0)
row_scores, row_upstream = rng.standard_normal(5), rng.standard_normal(5)
row_weights = softmax(row_scores)
row_jacobian = np.diag(row_weights) - np.outer(row_weights, row_weights)
check_gradient("softmax_backward vs J^T dA", softmax_backward(row_weights, row_upstream), row_jacobian.T @ row_upstream)

batch_scores = rng.standard_normal((2, 3, 5))  # (batch, L_q, L_k)
G = rng.standard_normal((2, 3, 5))  # dL/dA for the loss L = sum(A * G)
analytic = softmax_backward(softmax(batch_scores), G)
check_gradient("softmax_backward, batched", analytic, numerical_gradient(lambda t: np.sum(softmax(t) * G), batch_scores))

masked_scores = np.array([0.3, -np.inf, 1.2, -np.inf])
masked_dS = softmax_backward(softmax(masked_scores), 1.0 + np.arange(4))
print("dS of a row with masked entries:", masked_dS, "| exactly 0 where masked:", (masked_dS[[1, 3]] == 0).all())

# %% [markdown]
# ## 5. Backward through attention, step by step · 注意力的逐步反向传播
#
# Write the forward pass as a chain of small steps and walk it backwards, one step at
# a time, each step turning the gradient of its output into the gradients of its
# inputs. For one sequence (batch dimensions ride along), with $dZ$ given:
#
# | step | forward | backward |
# | --- | --- | --- |
# | 4 | $Z = AV$ | $dA = dZ\,V^\top$, $\quad dV = A^\top dZ$ |
# | 3 | $A = \operatorname{softmax}(\tilde S)$, row by row | $d\tilde S = $ `softmax_backward(A, dA)` |
# | 2 | $\tilde S = S$ where $M$, $-\infty$ elsewhere | $dS = d\tilde S$ where $M$, $0$ elsewhere |
# | 1 | $S = QK^\top / \sqrt{d_k}$ | $dQ = dS\,K / \sqrt{d_k}$, $\quad dK = dS^\top Q / \sqrt{d_k}$ |
#
# **Step 4.** $Z_{ic} = \sum_j A_{ij} V_{jc}$. The entry $V_{jc}$ appears in every
# output row $i$, multiplied by $A_{ij}$, so
# $\partial L / \partial V_{jc} = \sum_i A_{ij}\, dZ_{ic} = (A^\top dZ)_{jc}$: value row
# $j$ collects the output gradients of every query, weighted by how much each query
# used it. Likewise $\partial L / \partial A_{ij} = \sum_c dZ_{ic} V_{jc} = (dZ\,V^\top)_{ij}$.
#
# **Step 3.** Each query row is its own softmax: Section 4 row by row.
#
# **Step 2.** A masked score is the constant $-\infty$, not a function of $Q$ or $K$: no
# gradient flows through it. `softmax_backward` already gives 0 where $A$ is 0, but set
# $A$ to 0 wherever the mask is False yourself, before step 4: a query row with *no*
# allowed key has no defined weights (NaN in our forward pass; uniform weights in code
# that fills masked scores with $-10^9$, as many PyTorch implementations do), and its
# gradient must still be exactly 0.
#
# **Step 1.** $S_{ij} = \sum_c Q_{ic} K_{jc} / \sqrt{d_k}$, so
# $\partial L / \partial Q_{ic} = \sum_j dS_{ij} K_{jc} / \sqrt{d_k}$ and
# $\partial L / \partial K_{jc} = \sum_i dS_{ij} Q_{ic} / \sqrt{d_k}$. The scale of the
# forward pass is in both.
#
# **Let the shapes guide you.** Every gradient has the shape of its variable, and
# that nearly forces each formula. `dK` must be `(L_k, d_k)`; from `dS`, `(L_q, L_k)`,
# and `Q`, `(L_q, d_k)`, the only product of that shape is `dS.T @ Q` — `dS @ Q` does
# not even fit unless $L_q = L_k$, and then it silently gives the wrong answer.
# Likewise `dV` is `A.T @ dZ`, not `A @ dZ`. With batch dimensions, transpose with
# `np.swapaxes(x, -1, -2)`, never `x.T`.
#
# **Broadcasting.** If `Q` had no batch dimensions but `K` and `V` had two, the same
# `Q` served every batch element, and its gradient is the *sum* of the gradients of
# all those uses. The given `sum_to_shape` sums a gradient back to its input's shape.
#
# | argument | shape |
# | --- | --- |
# | `Q` | `(..., L_q, d_k)` |
# | `K` | `(..., L_k, d_k)` |
# | `V` | `(..., L_k, d_v)` |
# | `A` (the forward weights) | `(..., L_q, L_k)` |
# | `dZ` | `(..., L_q, d_v)` |
# | `mask` (optional) | bool or 0/1, broadcastable to `(..., L_q, L_k)` |
# | returns `dQ`, `dK`, `dV` | the shapes of `Q`, `K`, `V` |

# %% [markdown] lang="zh"
# ## 5. 注意力的逐步反向传播 · Backward through attention, step by step
#
# 把前向传播写成一串小步骤，再倒着走回来，一次一步，每一步把它输出的梯度变成它输入的梯度。对一个序列（批量维度随之一起处理），给定 $dZ$：
#
# | 步骤 | 前向传播 | 反向传播 |
# | --- | --- | --- |
# | 4 | $Z = AV$ | $dA = dZ\,V^\top$, $\quad dV = A^\top dZ$ |
# | 3 | $A = \operatorname{softmax}(\tilde S)$，逐行 | $d\tilde S = $ `softmax_backward(A, dA)` |
# | 2 | $M$ 为真处 $\tilde S = S$，其余为 $-\infty$ | $M$ 为真处 $dS = d\tilde S$，其余为 $0$ |
# | 1 | $S = QK^\top / \sqrt{d_k}$ | $dQ = dS\,K / \sqrt{d_k}$, $\quad dK = dS^\top Q / \sqrt{d_k}$ |
#
# **第 4 步。** $Z_{ic} = \sum_j A_{ij} V_{jc}$。元素 $V_{jc}$ 出现在每一个输出行 $i$ 中，乘以 $A_{ij}$，所以 $\partial L / \partial V_{jc} = \sum_i A_{ij}\, dZ_{ic} = (A^\top dZ)_{jc}$：第 $j$ 行的值收集所有查询的输出梯度，按每个查询使用它的程度加权。同理 $\partial L / \partial A_{ij} = \sum_c dZ_{ic} V_{jc} = (dZ\,V^\top)_{ij}$。
#
# **第 3 步。** 每个查询行都是一个独立的 softmax：逐行套用第 4 节的结果。
#
# **第 2 步。** 被掩码的分数是常数 $-\infty$，不是 $Q$ 或 $K$ 的函数：没有梯度流过它。`softmax_backward` 已经在 $A$ 为 0 的地方给出 0，但请在第 4 步之前自己把掩码为 False 的地方的 $A$ 置为 0：一个*没有*任何允许的键的查询行没有确定的权重（在我们的前向传播中是 NaN；在用 $-10^9$ 填充被掩码分数的代码中是均匀权重，许多 PyTorch 实现都这样做），而它的梯度仍然必须恰好为 0。
#
# **第 1 步。** $S_{ij} = \sum_c Q_{ic} K_{jc} / \sqrt{d_k}$，所以 $\partial L / \partial Q_{ic} = \sum_j dS_{ij} K_{jc} / \sqrt{d_k}$，$\partial L / \partial K_{jc} = \sum_i dS_{ij} Q_{ic} / \sqrt{d_k}$。前向传播中的缩放在两者中都出现。
#
# **让形状来引导你。** 每个梯度都与它的变量形状相同，这几乎决定了每个公式。`dK` 必须是 `(L_k, d_k)`；由 `dS`（`(L_q, L_k)`）和 `Q`（`(L_q, d_k)`）能得到这个形状的乘积只有 `dS.T @ Q`——`dS @ Q` 除非 $L_q = L_k$ 否则根本对不上，而对得上时又会悄无声息地给出错误答案。同理，`dV` 是 `A.T @ dZ`，不是 `A @ dZ`。有批量维度时，用 `np.swapaxes(x, -1, -2)` 转置，绝不要用 `x.T`。
#
# **广播。** 如果 `Q` 没有批量维度而 `K` 和 `V` 有两个，那么同一个 `Q` 为每个批量元素服务，它的梯度就是所有这些用处的梯度之*和*。已给出的 `sum_to_shape` 把梯度求和回它的输入的形状。
#
# | 参数 | 形状 |
# | --- | --- |
# | `Q` | `(..., L_q, d_k)` |
# | `K` | `(..., L_k, d_k)` |
# | `V` | `(..., L_k, d_v)` |
# | `A`（前向传播的权重） | `(..., L_q, L_k)` |
# | `dZ` | `(..., L_q, d_v)` |
# | `mask`（可选） | 布尔或 0/1，可广播到 `(..., L_q, L_k)` |
# | 返回 `dQ`, `dK`, `dV` | 分别与 `Q`、`K`、`V` 形状相同 |

# %% given="sum_to_shape"
# (filled in from the module at build time)

# %% graded="scaled_dot_product_attention_backward"
# (filled in from the module at build time)

# %% [markdown]
# The check: causal self-attention over four tokens, the loss
# $L = \sum_{ic} Z_{ic} G_{ic}$ (so that $dZ = G$), and centred differences for each of
# $Q$, $K$ and $V$. Every relative error should be far below $10^{-7}$.

# %% [markdown] lang="zh"
# 检验：在四个 token 上做因果自注意力，损失为 $L = \sum_{ic} Z_{ic} G_{ic}$（于是 $dZ = G$），对 $Q$、$K$ 和 $V$ 各自用中心差分检验。每个相对误差都应远低于 $10^{-7}$。

# %%
rng = np.random.default_rng(1)
N_TOKENS, D_K, D_V = 4, 3, 2
Q_check = rng.standard_normal((N_TOKENS, D_K))
K_check = rng.standard_normal((N_TOKENS, D_K))
V_check = rng.standard_normal((N_TOKENS, D_V))
G_check = rng.standard_normal((N_TOKENS, D_V))  # dZ for the loss L = sum(Z * G)
causal = np.tril(np.ones((N_TOKENS, N_TOKENS), dtype=bool))


def loss(Q, K, V):
    """L = sum(Z * G) for causal self-attention."""
    return np.sum(scaled_dot_product_attention(Q, K, V, causal)[0] * G_check)


_, A_check = scaled_dot_product_attention(Q_check, K_check, V_check, causal)
dQ, dK, dV = scaled_dot_product_attention_backward(Q_check, K_check, V_check, A_check, G_check, causal)
check_gradient("dQ", dQ, numerical_gradient(lambda q: loss(q, K_check, V_check), Q_check))
check_gradient("dK", dK, numerical_gradient(lambda k: loss(Q_check, k, V_check), K_check))
check_gradient("dV", dV, numerical_gradient(lambda v: loss(Q_check, K_check, v), V_check))
print("the last key is seen only by the last query; its value's gradient is G[-1] * A[-1, -1]:",
      np.allclose(dV[-1], G_check[-1] * A_check[-1, -1]))

# %% [markdown]
# Cross-attention with padding, batched: a batch of 2, 3 queries, 5 keys; the second
# sequence has only 3 real keys and 2 real queries. The padding must get exactly zero
# gradient, the real positions exactly the gradients of the unpadded problem. Then the
# same problem in float32, and a `Q` without batch dimensions shared by the batch.

# %% [markdown] lang="zh"
# 带填充的批量交叉注意力：批量大小为 2，3 个查询，5 个键；第二个序列只有 3 个真实的键和 2 个真实的查询。填充位置必须得到恰好为零的梯度，真实位置则必须得到与不填充时完全相同的梯度。然后用 float32 做同样的问题，再用一个没有批量维度、由整个批量共享的 `Q`。

# %%
rng = np.random.default_rng(2)
Q_pad, K_pad = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
V_pad, G_pad = rng.standard_normal((2, 5, 6)), rng.standard_normal((2, 3, 6))
padding = np.ones((2, 3, 5), dtype=bool)
padding[1, :, 3:] = False  # padding keys of sequence 1
padding[1, 2:, :] = False  # a padding query of sequence 1: no allowed key at all

_, A_pad = scaled_dot_product_attention(Q_pad, K_pad, V_pad, padding)  # row [1, 2] is NaN
dQ_pad, dK_pad, dV_pad = scaled_dot_product_attention_backward(Q_pad, K_pad, V_pad, A_pad, G_pad, padding)
print("padding gets exactly 0:", (dK_pad[1, 3:] == 0).all(), (dV_pad[1, 3:] == 0).all(), (dQ_pad[1, 2:] == 0).all())

_, A_real = scaled_dot_product_attention(Q_pad[1, :2], K_pad[1, :3], V_pad[1, :3])
real = scaled_dot_product_attention_backward(Q_pad[1, :2], K_pad[1, :3], V_pad[1, :3], A_real, G_pad[1, :2])
print("real positions as without padding:", all(np.allclose(full, part) for full, part in zip((dQ_pad[1, :2], dK_pad[1, :3], dV_pad[1, :3]), real)))

as_float32 = [x.astype(np.float32) for x in (Q_pad, K_pad, V_pad, A_pad, G_pad)]
print("float32 in, float32 out:", [g.dtype.name for g in scaled_dot_product_attention_backward(*as_float32, padding)])

Q_shared = Q_pad[0]  # (3, 4): one set of queries for both sequences
_, A_shared = scaled_dot_product_attention(Q_shared, K_pad, V_pad)
grads_shared = scaled_dot_product_attention_backward(Q_shared, K_pad, V_pad, A_shared, G_pad)
print("gradient shapes follow the inputs:", [g.shape for g in grads_shared])

# %% [markdown]
# ## 6. Why scale: the gradient through the softmax · 为什么要缩放：流过 softmax 的梯度
#
# Every gradient that reaches $Q$ and $K$ — and through them the projections $W_Q$ and
# $W_K$ — passes through step 3: per query row, $dS = J\, dA$ (with $J$ symmetric). If
# $J$ is close to 0, so are $dQ$ and $dK$, whatever the loss asks for: those weights
# stop learning. Section 3 showed when that happens: when a row of weights is nearly
# one-hot.
#
# Without the scale, the scores $q \cdot k_j$ of one query against its keys have
# standard deviation $\sqrt{d_k}$ (Assignment 1). The gaps between them grow like
# $\sqrt{d_k}$ too, the largest score wins by more and more, and the softmax row
# becomes one-hot: $J \to 0$. Dividing by $\sqrt{d_k}$ keeps the scores at standard
# deviation 1 whatever $d_k$ is, and with them the shape of the softmax and the size
# of $J$.
#
# **The measurement.** One query $q$ against `n_keys` keys, entries standard normal:
#
# $$t = \frac{Kq}{\sqrt{d_k}} \ \text{(scaled)} \quad\text{or}\quad t = Kq \ \text{(unscaled)}, \qquad a = \operatorname{softmax}(t), \qquad J = \operatorname{diag}(a) - a a^\top, \qquad \|J\|_F = \sqrt{\textstyle\sum_{ij} J_{ij}^2}.$$
#
# $\|J\|_F$ is 0 for a one-hot $a$, and $\sqrt{n-1}/n$ for uniform weights over $n$
# keys (0.331 for 8 keys); it is always below 1. `softmax_gradient_norm` returns its
# mean over `n_samples` queries.
#
# **Shapes and contract.** Draw `q = rng.standard_normal((n_samples, d_k))` first, then
# `K = rng.standard_normal((n_samples, n_keys, d_k))` (the order matters: the grader
# replays the same seed); sample `s` uses `q[s]` and `K[s]`. Scores `(n_samples,
# n_keys)`, Jacobians `(n_samples, n_keys, n_keys)`, norms `(n_samples,)`; return their
# mean as a Python `float`.

# %% [markdown] lang="zh"
# ## 6. 为什么要缩放：流过 softmax 的梯度 · Why scale: the gradient through the softmax
#
# 每一个到达 $Q$ 和 $K$ 的梯度——以及通过它们到达投影 $W_Q$ 和 $W_K$ 的梯度——都要经过第 3 步：对每个查询行，$dS = J\, dA$（$J$ 是对称的）。如果 $J$ 接近 0，$dQ$ 和 $dK$ 也就接近 0，无论损失要求什么：这些权重停止学习。第 3 节说明了这种情况何时发生：当一行权重几乎是 one-hot 的时候。
#
# 不缩放时，一个查询对它的各个键的分数 $q \cdot k_j$ 的标准差是 $\sqrt{d_k}$（作业 1）。分数之间的差距也随 $\sqrt{d_k}$ 增长，最大的分数赢得越来越多，softmax 的这一行变成 one-hot：$J \to 0$。除以 $\sqrt{d_k}$ 让分数的标准差无论 $d_k$ 多大都保持为 1，softmax 的形状和 $J$ 的大小也随之保持不变。
#
# **测量方法。** 一个查询 $q$ 对 `n_keys` 个键，各元素服从标准正态分布：
#
# $$t = \frac{Kq}{\sqrt{d_k}} \ \text{(scaled)} \quad\text{or}\quad t = Kq \ \text{(unscaled)}, \qquad a = \operatorname{softmax}(t), \qquad J = \operatorname{diag}(a) - a a^\top, \qquad \|J\|_F = \sqrt{\textstyle\sum_{ij} J_{ij}^2}.$$
#
# 对 one-hot 的 $a$，$\|J\|_F$ 为 0；对 $n$ 个键上的均匀权重，它是 $\sqrt{n-1}/n$（8 个键时为 0.331）；它总小于 1。`softmax_gradient_norm` 返回它在 `n_samples` 个查询上的平均值。
#
# **形状与约定。** 先抽取 `q = rng.standard_normal((n_samples, d_k))`，再抽取 `K = rng.standard_normal((n_samples, n_keys, d_k))`（顺序很重要：评分程序会用同一个种子重放）；第 `s` 个样本使用 `q[s]` 和 `K[s]`。分数的形状为 `(n_samples, n_keys)`，雅可比矩阵为 `(n_samples, n_keys, n_keys)`，范数为 `(n_samples,)`；返回它们的平均值，类型为 Python `float`。

# %% graded="softmax_gradient_norm"
# (filled in from the module at build time)

# %% [markdown]
# Each row below draws both columns from a fresh generator with the same seed, so
# the scaled and unscaled runs see exactly the same queries and keys and differ only by
# the scale:

# %% [markdown] lang="zh"
# 下面每一行的两列都从一个用相同种子新建的生成器中抽样，所以缩放与不缩放的两次运行看到的是完全相同的查询和键，区别只在于缩放：

# %%
D_KS = [1, 4, 16, 64, 256, 1024]
N_KEYS = 8
N_SAMPLES = 2_000
SEED = 0

norms = np.array([
    [softmax_gradient_norm(d_k, N_KEYS, N_SAMPLES, np.random.default_rng(SEED), scaled=flag) for flag in (False, True)]
    for d_k in D_KS
])  # (len(D_KS), 2): unscaled, scaled

print(f"{'d_k':>6}  {'mean ||J||_F unscaled':>22}  {'mean ||J||_F scaled':>20}")
for d_k, (unscaled_norm, scaled_norm) in zip(D_KS, norms):
    print(f"{d_k:>6}  {unscaled_norm:>22.4f}  {scaled_norm:>20.4f}")

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.loglog(D_KS, norms[:, 0], "o-", label="unscaled  softmax(K q)")
ax.loglog(D_KS, norms[:, 1], "s-", label="scaled  softmax(K q / √d_k)")
ax.axhline(math.sqrt(N_KEYS - 1) / N_KEYS, color="grey", linestyle=":", label=f"uniform weights over {N_KEYS} keys")
ax.loglog(D_KS[2:], norms[2, 0] * np.sqrt(D_KS[2] / np.array(D_KS[2:])), "k--", linewidth=1, label="slope −1/2")
ax.set_xlabel("d_k")
ax.set_ylabel("mean Frobenius norm of the softmax Jacobian")
ax.set_title("Without scaling, the gradient through softmax collapses")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Reading the table.** With the scale, the mean $\|J\|_F$ stays near 0.36 for every
# $d_k$: the softmax sees scores of the same spread whatever the dimension. Without
# it, the norm is the same at $d_k = 1$ (the scale is 1 there) and then falls roughly
# like $1/\sqrt{d_k}$ once the rows saturate — about four times smaller at
# $d_k = 64$ and nearly ten times smaller at $d_k = 1024$, a typical Transformer
# head size sitting between the two. The mean even flatters the unscaled case: it is
# carried by the few samples whose two best keys happen to score almost alike; in most
# samples $J$ is essentially 0. This is the chapter's argument, measured: dividing by
# $\sqrt{d_k}$ is what keeps the gradient flowing back to $Q$ and $K$.
#
# One more look at step 1: with the scale, $dQ = dS\,K/\sqrt{d_k}$ has the factor
# $1/\sqrt{d_k}$ in it, yet this does not shrink the gradient as $d_k$ grows, because
# a key of $d_k$ standard normal entries has length about $\sqrt{d_k}$ and the two
# cancel. Without the scale there is no such factor, but $J$ itself vanishes.
#
# ## 7. Summary · 小结
#
# 1. **Gradient checks:** centred differences $\big(f(x+\varepsilon e_i) - f(x-\varepsilon e_i)\big)/2\varepsilon$
#    have error $O(\varepsilon^2)$; compare with the relative error, and in float64
#    expect less than $10^{-7}$.
# 2. **Softmax:** $J = \operatorname{diag}(a) - aa^\top$, symmetric, rows summing to 0,
#    zero when $a$ is one-hot. Its backward pass never builds $J$:
#    $dS = a \odot (dA - \langle dA, a\rangle)$.
# 3. **Attention, backwards:** $dV = A^\top dZ$, $dA = dZ\,V^\top$, softmax backward row
#    by row, zero at masked positions, then $dQ = dS\,K/\sqrt{d_k}$ and
#    $dK = dS^\top Q/\sqrt{d_k}$; the shapes pick the transposes, and a broadcast input
#    sums its gradients.
# 4. **Why scale:** unscaled scores have spread $\sqrt{d_k}$, the softmax saturates and
#    its Jacobian — the gate every gradient to $Q$ and $K$ passes through — collapses
#    like $1/\sqrt{d_k}$; scaled, it stays the same for every $d_k$.
#
# 要点：softmax 的雅可比矩阵为 $\operatorname{diag}(a) - aa^\top$，反向传播只需 $a \odot (dA - \langle dA, a\rangle)$；不缩放时 softmax 饱和、雅可比矩阵随 $d_k$ 增大而趋于 0，缩放后保持稳定。
#
# Next: the rest of the Transformer block — residual connections and layer
# normalisation exist, in part, to keep gradients like these healthy through many
# layers.

# %% [markdown] lang="zh"
# **解读表格。** 有缩放时，平均的 $\|J\|_F$ 对每个 $d_k$ 都保持在 0.36 附近：无论维度多大，softmax 看到的分数分布宽度都相同。没有缩放时，范数在 $d_k = 1$ 处相同（那里的缩放因子就是 1），一旦各行饱和，它就大致按 $1/\sqrt{d_k}$ 下降——在 $d_k = 64$ 时约小了四倍，在 $d_k = 1024$ 时小了将近十倍，而典型的 Transformer 头的大小就在两者之间。平均值甚至美化了不缩放的情况：它主要由少数样本撑起来——在这些样本中，得分最高的两个键恰好分数几乎相同；在大多数样本中，$J$ 基本上就是 0。这正是教材的论证，只不过被测量了出来：除以 $\sqrt{d_k}$ 让梯度得以持续流回 $Q$ 和 $K$。
#
# 再看一眼第 1 步：有缩放时，$dQ = dS\,K/\sqrt{d_k}$ 中含有因子 $1/\sqrt{d_k}$，但这并不会让梯度随 $d_k$ 增大而缩小，因为一个由 $d_k$ 个标准正态分量组成的键，其长度大约是 $\sqrt{d_k}$，两者相互抵消。没有缩放时没有这个因子，但 $J$ 本身消失了。
#
# ## 7. 小结 · Summary
#
# 1. **梯度检验：** 中心差分 $\big(f(x+\varepsilon e_i) - f(x-\varepsilon e_i)\big)/2\varepsilon$ 的误差是 $O(\varepsilon^2)$；用相对误差比较，在 float64 中应低于 $10^{-7}$。
# 2. **softmax：** $J = \operatorname{diag}(a) - aa^\top$，对称，每行之和为 0，当 $a$ 是 one-hot 时为零。它的反向传播从不构造 $J$：$dS = a \odot (dA - \langle dA, a\rangle)$。
# 3. **注意力的反向传播：** $dV = A^\top dZ$，$dA = dZ\,V^\top$，逐行做 softmax 反向传播，在被掩码的位置为零，然后 $dQ = dS\,K/\sqrt{d_k}$，$dK = dS^\top Q/\sqrt{d_k}$；形状决定了转置放在哪里，被广播的输入要对它的梯度求和。
# 4. **为什么要缩放：** 不缩放的分数分布宽度为 $\sqrt{d_k}$，softmax 饱和，它的雅可比矩阵——通向 $Q$ 和 $K$ 的每个梯度都要经过的这道门——按 $1/\sqrt{d_k}$ 塌缩；缩放之后，它对每个 $d_k$ 都保持不变。
#
# 要点：softmax 的雅可比矩阵为 $\operatorname{diag}(a) - aa^\top$，反向传播只需 $a \odot (dA - \langle dA, a\rangle)$；不缩放时 softmax 饱和、雅可比矩阵随 $d_k$ 增大而趋于 0，缩放后保持稳定。
#
# 下一步：Transformer 块的其余部分——残差连接和层归一化之所以存在，部分原因就是为了让这样的梯度在许多层中保持健康。

# %% [markdown]
# ## Check your work · 检查你的作业
#
# From the assignment folder run
#
# ```bash
# attn-course check hw4_gradients                  # your module gradients.py
# attn-course check hw4_gradients gradients.ipynb  # or this notebook
# ```
#
# or simply `pytest` in that folder. These public checks use small known cases.
# Grading also uses other shapes, batch dimensions, float32 inputs, masks and
# centred differences, so keep your code vectorised and general. If you hand in the
# notebook, only its imports, function definitions and simple constants are graded —
# demo cells are not run.

# %% [markdown] lang="zh"
# ## 检查你的作业 · Check your work
#
# 在作业文件夹中运行
#
# ```bash
# attn-course check hw4_gradients                  # 你的模块 gradients.py
# attn-course check hw4_gradients gradients.ipynb  # 或者这个 notebook
# ```
#
# 或者直接在该文件夹中运行 `pytest`。这些公开检查使用小规模的已知用例。评分还会使用其他形状、批量维度、float32 输入、掩码和中心差分，所以请保持代码向量化、具有通用性。如果你提交的是 notebook，评分只取其中的 import、函数定义和简单常量——演示单元格不会运行。
