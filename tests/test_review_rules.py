"""Rules from the code review of the merges of 6276e7c..main (the reviewer task): each test failed
before its fix."""
import math

import numpy as np
import pytest

from theorykit.errors import SpecError
from theorykit.theory.trajectory import t_half


def test_t_half_takes_a_zero_d_array_as_one_number():
    # _scalar (errmsg merge) refused every np.ndarray, a 0-d one too, which sp.sympify had taken as
    # its number before. Hand derivation: t_half = τ/(2s) ln(s/(d a0) − 1); s=2, d=1, a0=0.5, τ=1
    # gives 1/4 · ln(3).
    got = t_half(np.array(2.0), np.array(1.0), np.array(0.5), np.array(1.0))
    assert math.isclose(float(got), math.log(3) / 4, rel_tol=1e-12)


def test_t_half_still_refuses_an_array_of_numbers():
    with pytest.raises(SpecError, match="s"):
        t_half(np.array([2.0, 3.0]), 1, 0.5, 1)
