"""Independent references for the simulators' tests: full-batch gradient descent written out in
plain numpy (float64), with the gradients derived by hand. Nothing here imports theorykit.

Loss: ``"sum"``: L = ½ Σ‖y − ŷ‖²; ``"mean"``: that divided by the number of datapoints P.
With the error E = (ŷ − Y)·c (c = 1 or 1/P), a linear layer ŷ = W h has ∂L/∂W = E hᵀ and passes
Wᵀ E back to h; a ReLU passes it through where its pre-activation is positive.
"""
import numpy as np


def _scale(loss, P):
    return 1.0 if loss == "sum" else 1.0 / P


def loss_of(Yh, Y, loss):
    return 0.5 * np.sum((Y - Yh) ** 2) * _scale(loss, Y.shape[1])


def relu_gd(W1, W2, X, Y, lr, steps, loss="sum"):
    """One-hidden-layer bias-free ReLU network ŷ = W2 relu(W1 X). Returns (loss[steps+1], W1, W2)."""
    W1, W2 = np.array(W1, float), np.array(W2, float)
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    c = _scale(loss, X.shape[1])
    out = np.empty(steps + 1)
    for t in range(steps + 1):
        pre = W1 @ X
        h = np.maximum(pre, 0.0)
        Yh = W2 @ h
        out[t] = loss_of(Yh, Y, loss)
        if t == steps:
            break
        E = (Yh - Y) * c
        gW2 = E @ h.T
        gW1 = ((W2.T @ E) * (pre > 0)) @ X.T
        W1, W2 = W1 - lr * gW1, W2 - lr * gW2
    return out, W1, W2


def gdln_gd(pathways, params, X, Y, lr, steps, loss="mean", staged_first=None):
    """Pathway-form GDLN of any depth: ŷ = Σ_p g_p ⊙ (W_L,p ⋯ W_1,p X[inputs_p]) into the rows outputs_p
    (a linear chain gated by one gate per datapoint: gating the hidden layers is the same as gating
    the output).

    ``pathways``: (gate vector over datapoints, input rows, output rows) per pathway; ``params``:
    [W1_p, …, WL_p] per pathway. ``staged_first``: indices of pathways that fit Y while the others fit
    Y minus those pathways' (fixed) output; None: every pathway descends the total loss.
    Returns the total loss L(Y − ŷ) at every step (steps+1 values) and the final params.
    """
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    c = _scale(loss, X.shape[1])
    Ws = [[np.array(W, float) for W in pw] for pw in params]
    first = set(staged_first or ())

    def forward():
        return _forward(pathways, Ws, X, Y)

    L = np.empty(steps + 1)
    for t in range(steps + 1):
        acts, outs = forward()
        Yh = sum(outs)
        L[t] = loss_of(Yh, Y, loss)
        if t == steps:
            break
        E_all = (Yh - Y) * c
        if first:
            E_first = (sum(outs[i] for i in first) - Y) * c      # the first group's own objective
        new = []
        for i, ((g, ins, rows), pw, h) in enumerate(zip(pathways, Ws, acts)):
            E = E_first if i in first else E_all
            delta = E[list(rows)] * np.asarray(g, float)[None, :]
            grads = [None] * len(pw)
            for l in range(len(pw) - 1, -1, -1):
                grads[l] = delta @ h[l].T
                delta = pw[l].T @ delta
            new.append([W - lr * G for W, G in zip(pw, grads)])
        Ws = new
    return L, Ws


def gd_flow_gap(s, d, a0, tau):
    """First-order gap |L_GD − L_flow| (the largest over the run) of one balanced, aligned mode (mean or
    per-τ loss; multiply by P for a summed loss), worked out by hand.

    Gradient descent a ← a (1 + (s − d a)/τ)² agrees with the flow τ ȧ = f(a) = 2a(s − d a) up to its
    modified equation τ ȧ = f + h/τ, h = a (s − d a)(3 d a − s) (Taylor-expand both steps to 1/τ²).
    So GD reaches strength a later than the flow by
        ΔT(a) = −∫ h/f² da = ¼ ln(a/a0) + ½ ln((s − d a)/(s − d a0))   steps
    (partial fractions; independent of τ), and the losses differ by |dL/dt| ΔT = 2a(s − d a)²/τ · |ΔT(a)|.
    The neglected terms are O(s/τ) relative to this (checked against the recurrence: 0.05-1 %)."""
    a = np.linspace(a0, s / d, 400001)[1:-1]
    lag = 0.25 * np.log(a / a0) + 0.5 * np.log((s - d * a) / (s - d * a0))
    return float(np.max(np.abs(2 * a * (s - d * a) ** 2 / tau * lag)))


def aligned_start(spec, X, Y, a0):
    """Each pathway's (paths, start) for :func:`gdln_gd`, written here in numpy: the aligned, balanced
    start √a0·(V_rᵀ, U_r) of the pathway's own Σyx = Y_out diag(g) X_inᵀ / P (its nonzero modes)."""
    P = X.shape[1]
    paths = [(p.active, p.inputs, p.outputs) for p in spec.pathways]
    start = []
    for p in spec.pathways:
        S = Y[list(p.outputs)] @ np.diag(np.asarray(p.active, float)) @ X[list(p.inputs)].T / P
        U, s, Vt = np.linalg.svd(S)
        r = int(np.sum(s > 1e-12 * s[0]))
        start.append([np.sqrt(a0) * Vt[:r], np.sqrt(a0) * U[:, :r]])
    return paths, start


def _forward(pathways, Ws, X, Y):
    """Each pathway's layer activities (input first) and its gated output, embedded in Y's rows."""
    acts, outs = [], []
    for (g, ins, rows), pw in zip(pathways, Ws):
        h = [X[list(ins)]]
        for W in pw:
            h.append(W @ h[-1])
        o = np.zeros_like(Y)
        o[list(rows)] = h[-1] * np.asarray(g, float)[None, :]
        acts.append(h)
        outs.append(o)
    return acts, outs


def scheduled_gd(pathways, params, X, Y, lr, steps, groups, loss="mean"):
    """:func:`gdln_gd` under a schedule of groups of whole pathways: ``groups`` is a list of
    ``(pathway indices, start step, indices of the groups whose output it fits the residual of)``.
    From step ``start`` on, a group's pathways descend L(Y − Σ_{h in fit} ŷ_h − ŷ_g) (the other
    groups' outputs held fixed); before it, they do not move. Returns the total loss L(Y − ŷ) at
    every step (steps+1 values) and the final params."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    c = _scale(loss, X.shape[1])
    Ws = [[np.array(W, float) for W in pw] for pw in params]
    L = np.empty(steps + 1)
    for t in range(steps + 1):
        acts, outs = _forward(pathways, Ws, X, Y)
        L[t] = loss_of(sum(outs), Y, loss)
        if t == steps:
            break
        group_out = [sum(outs[i] for i in members) for members, _s, _f in groups]
        new = [list(pw) for pw in Ws]
        for members, start, fit in groups:
            if t < start:
                continue
            E = (sum(group_out[j] for j in fit) + sum(outs[i] for i in members) - Y) * c
            for i in members:
                g, ins, rows = pathways[i]
                delta = E[list(rows)] * np.asarray(g, float)[None, :]
                for l in range(len(Ws[i]) - 1, -1, -1):
                    new[i][l] = Ws[i][l] - lr * (delta @ acts[i][l].T)
                    delta = Ws[i][l].T @ delta
        Ws = new
    return L, Ws


def xor_reln_by_hand(delta, a0, lr, t):
    """The four-pathway XoR ReLN (xor_reln.toml), mean loss, from aligned weights, by hand:
    ``(gradient descent, gradient flow)`` losses at the steps ``t``.

    Pathway m is on for datapoint m only, x_m = (±1, ±1, ±Δ), y_m = ±1, P = 4: Σ^yx = y_m x_mᵀ/4 has the
    one singular value s = |x_m|/4 = √(2+Δ²)/4, and the input variance along x_m/|x_m| is
    d = |x_m|²/4 = (2+Δ²)/4. L = ½·Σ y²/P = ½ with no network; a mode of strength a lowers it by
    s·a − d·a²/2 (zero loss at a = s/d: 4 · s²/(2d) = 4 · 1/8 = ½). τ = 1/η (mean loss).
    Gradient descent on the balanced mode: a ← a (1 + (s − d a)/τ)²; gradient flow: the logistic
    a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2 s t/τ})."""
    s, d, tau = np.sqrt(2 + delta ** 2) / 4, (2 + delta ** 2) / 4, 1 / lr
    a, disc = a0, []
    for step in range(int(max(t)) + 1):
        if step in t:
            disc.append(0.5 - 4 * (s * a - d * a ** 2 / 2))
        a = a * (1 + (s - d * a) / tau) ** 2
    tt = np.asarray(t, float)
    af = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * tt / tau))
    return np.array(disc), 0.5 - 4 * (s * af - d * af ** 2 / 2)
