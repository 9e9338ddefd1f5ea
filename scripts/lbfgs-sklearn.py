#!/usr/bin/python3
"""scikit-learn's side of scripts/lbfgs-vs-sklearn.

  lbfgs-sklearn.py dense OUT.svm         writes breast cancer, standardised, as LIBSVM
  lbfgs-sklearn.py fit DATA.svm FEATURES L2 [WEIGHTS [MAX_ITER]]
        fits LogisticRegression(solver="lbfgs", C=1/L2, no intercept, max_iter MAX_ITER,
        default 10000) and prints
        `sklearn objective X accuracy A iterations N seconds S`; with WEIGHTS (gridvec
        lbfgs --output) also `gridvec objective X accuracy A`, both objectives
        computed here, the same way: sum_i log(1 + exp(-y_i w.x_i)) + L2/2 |w|^2.
"""
import sys
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_svmlight_file
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler


def objective(X, y, w, l2):
    m = y * (X @ w)
    return float(np.logaddexp(0, -m).sum() + 0.5 * l2 * (w @ w)), float(np.mean(m > 0))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "dense":
        data = load_breast_cancer()
        X = StandardScaler().fit_transform(data.data)
        with open(sys.argv[2], "w") as out:
            for row, label in zip(X, data.target):
                out.write(("+1 " if label else "-1 ") + " ".join(f"{j}:{v:.17g}" for j, v in enumerate(row)) + "\n")
        return
    if len(sys.argv) not in (5, 6, 7) or sys.argv[1] != "fit":
        sys.exit(__doc__)
    features, l2 = int(sys.argv[3]), float(sys.argv[4])
    max_iter = int(sys.argv[6]) if len(sys.argv) == 7 else 10000
    X, y = load_svmlight_file(sys.argv[2], n_features=features, zero_based=True)
    y = np.where(y > 0, 1.0, -1.0)
    start = time.monotonic()
    model = LogisticRegression(solver="lbfgs", C=1.0 / l2, fit_intercept=False, tol=1e-10, max_iter=max_iter)
    model.fit(X, y)
    seconds = time.monotonic() - start
    f, acc = objective(X, y, model.coef_.ravel(), l2)
    print(f"sklearn objective {f:.10g} accuracy {acc:.6f} iterations {int(model.n_iter_[0])} seconds {seconds:.3f}")
    if len(sys.argv) >= 6:
        w = np.zeros(features)
        with open(sys.argv[5]) as weights:
            for line in weights:
                if line.startswith("#"):
                    continue
                col, value = line.split()
                w[int(col)] = float(value)
        f, acc = objective(X, y, w, l2)
        print(f"gridvec objective {f:.10g} accuracy {acc:.6f}")


if __name__ == "__main__":
    main()
