"""Build examples/predict.ipynb: run each cell's code here and store its printed text and figures as outputs."""
import base64, io, json, contextlib, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt

cells_src = [
"""import theorykit as tk
from theorykit.analysis.predict import predict_reln
from theorykit.analysis.predict_validate import validate_prediction

training = tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
pred = predict_reln(tk.xor_margin(0.5), 128, training)   # from the data alone: no training
print(pred.text())
pred.figure()""",
"""val = validate_prediction(pred, seeds=8)                  # now train 8 ReLU networks and compare
print(val.text())
fig_loss, fig_gates = val.figures(pred)""",
"""pred_hi = predict_reln(tk.xor_margin(1.2), 128, training)  # above Delta* = sqrt(2/3): the linear ReLN
print(pred_hi.text())
pred_hi.figure()""",
]
ns = {}
cells = [{"cell_type": "markdown", "metadata": {}, "source": [
    "# Predicting the ReLN from data\n",
    "`predict_reln` reads (X, Y), the width and the training settings and predicts the gating a bias-free ReLU network "
    "learns (see `docs/predict.md`). `validate_prediction` trains the ReLU networks and compares: the predicted loss, "
    "the ReLU units' patterns and Algorithm 1's found gates side by side.\n"]}]
for n, src in enumerate(cells_src, 1):
    buf = io.StringIO()
    before = set(plt.get_fignums())
    with contextlib.redirect_stdout(buf):
        exec(compile(src, f"cell{n}", "exec"), ns)
    outs = []
    if buf.getvalue():
        outs.append({"name": "stdout", "output_type": "stream", "text": buf.getvalue().splitlines(True)})
    for num in plt.get_fignums():
        if num in before:
            continue
        b = io.BytesIO()
        plt.figure(num).savefig(b, format="png", dpi=80)
        outs.append({"data": {"image/png": base64.b64encode(b.getvalue()).decode(), "text/plain": ["<Figure>"]},
                     "metadata": {}, "output_type": "display_data"})
        plt.close(num)
    cells.append({"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": outs,
                  "source": src.splitlines(True)})
nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
      "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
for i, c in enumerate(nb["cells"]):
    c["id"] = f"cell-{i}"
open(sys.argv[1], "w").write(json.dumps(nb, indent=1) + "\n")
