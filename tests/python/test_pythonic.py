"""The module behaves as Python expects: expressions refuse truth values, keywords and help()
carry the declared names, errors are ptxgen.Error subclasses, and reprs are useful."""
import pytest

import ptxgen
from conftest import seed


def rows_kernel():
    k = ptxgen.Kernel("rows", grid=1, block=32)
    A = k.global_tensor("A", (32, 8), "uint32", init=ptxgen.arange_mod(97))
    return k, A


# ------------------------------------------------------------------ truth values

def test_an_expression_has_no_truth_value():
    t = ptxgen.tid
    with pytest.raises(TypeError, match="ptxgen.max"):
        bool(t < 8)
    with pytest.raises(TypeError, match="ptxgen.select"):
        if t:
            pass


def test_pythons_max_min_and_chained_comparisons_raise_instead_of_building_wrong_kernels():
    k, A = rows_kernel()
    with pytest.raises(TypeError):
        A[max(ptxgen.tid, 0), :]
    with pytest.raises(TypeError):
        A[min(ptxgen.tid, 31)]
    with pytest.raises(TypeError):
        ptxgen.select(0 < ptxgen.tid < 8, ptxgen.tid, 0)
    with pytest.raises(TypeError):
        ptxgen.tid < 8 and ptxgen.tid > 2
    # The module's own functions say the same thing, spelled as the spec spells it.
    assert str(ptxgen.max(ptxgen.tid, 0)) == "max(tid, 0)"
    assert A[ptxgen.min(ptxgen.tid, 31)].text == "A.sub[min(tid, 31)]"
