"""One way to do each thing in the analysis layer (issue 26, cut 3): the context suite's singular values
are :func:`theorykit.theory.lemmas.singular_values`, not a second copy of numpy's SVD call."""
import numpy as np
import pytest

from theorykit.analysis import context_runs
from theorykit.analysis.context_runs import mean_svals, svals
from theorykit.errors import SpecError


def test_svals_of_a_hand_matrix_largest_first_and_cut_to_top():
    # [[3, 0], [4, 5]]: MᵀM = [[25, 20], [20, 25]] has eigenvalues 45 and 5, so σ = √45 = 3√5 and √5
    M = np.array([[3.0, 0.0], [4.0, 5.0]])
    np.testing.assert_allclose(svals(M), [3 * np.sqrt(5), np.sqrt(5)], rtol=1e-14)
    np.testing.assert_allclose(svals(M, 1), [3 * np.sqrt(5)], rtol=1e-14)
    assert svals(np.zeros((0, 3)), 8).shape == (0,)


def test_svals_of_a_vector_names_the_field_and_the_fix():
    # the one singular_values reads its input: a 1-d array is told apart with the field named and a fix,
    # where the copy let numpy's LinAlgError ("1-dimensional array given") through
    with pytest.raises(SpecError) as e:
        svals([1.0, 2.0])
    assert e.value.field == "A"
    assert "rows × columns" in str(e.value)


def test_svals_is_the_theory_layers_singular_values():
    assert context_runs.singular_values.__module__ == "theorykit.theory.lemmas"


def test_mean_svals_is_the_mean_over_seeds_of_each_seeds_svd():
    # second method: a plain loop over the seeds with numpy's SVD of each product, averaged
    rng = np.random.default_rng(3)
    W1, W2 = rng.normal(size=(5, 4, 6)), rng.normal(size=(5, 3, 4))
    ref = np.mean([np.linalg.svd(W2[s] @ W1[s], compute_uv=False)[:2] for s in range(5)], axis=0)
    np.testing.assert_allclose(mean_svals(W1, W2, 2), ref, rtol=1e-13)
    full = np.mean([np.linalg.svd(W2[s] @ W1[s], compute_uv=False) for s in range(5)], axis=0)
    np.testing.assert_allclose(mean_svals(W1, W2, 8), full, rtol=1e-13)
    # a hand case: seed 0 maps diag(2, 1), seed 1 maps diag(4, 3): means 3 and 2
    A = np.array([np.diag([2.0, 1.0]), np.diag([4.0, 3.0])])
    np.testing.assert_allclose(mean_svals(A, np.array([np.eye(2)] * 2), 2), [3.0, 2.0], rtol=1e-14)
