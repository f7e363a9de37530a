"""ptxgen.instr: one cp.async instruction checked against the PTX rules (PTX_RULES.md), as
`ptxgen instr` prints it. Expected values come from the PTX ISA (cp.async: PTX 7.0, sm_80;
.cg copies 16 bytes), not from the module."""
import pytest

import ptxgen


def test_a_valid_instruction_is_printed_with_its_version_and_target():
    text = ptxgen.instr("cp.async.ca.shared.global", chunk_bytes=4, src_size=2, pred=True)
    lines = text.splitlines()
    # cp.async first appears in PTX ISA 7.0, for sm_80: the lowest version that allows it.
    assert lines[0] == ".version 7.0"
    assert lines[1] == ".target sm_80"
    assert lines[2].startswith("@%p")
    assert "cp.async.ca.shared.global" in lines[2]
    assert lines[2].rstrip(";").split(",")[-2:] == [" 4", " 2"]


def test_an_explicit_version_and_target_are_kept():
    text = ptxgen.instr("cp.async.cg.shared.global", chunk_bytes=16, src_size="reg",
                        target="sm_90", ptx_version="8.0")
    assert text.splitlines()[:2] == [".version 8.0", ".target sm_90"]


def test_a_rule_broken_raises_with_the_caret_under_the_qualifier():
    opcode = "cp.async.cg.shared.global"
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr(opcode, chunk_bytes=8)
    assert e.value.stage == "instr"
    (d,) = [d for d in e.value.diagnostics if d.severity == "error"]
    assert d.id == "ptx_cg_size"
    assert d.file == "opcode"
    assert d.column == opcode.index(".cg") + 1


def test_an_opcode_that_does_not_parse_raises():
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr("cp.async.xx.shared.global", chunk_bytes=4)
    assert e.value.stage == "instr"
    assert e.value.diagnostics and e.value.diagnostics[0].file == "opcode"


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError):
        ptxgen.instr("cp.async.ca.shared.global", chunk_bytes=4, src_size=2, ignore_src=True)
    with pytest.raises(ValueError):
        ptxgen.instr("cp.async.ca.shared.global", chunk_bytes=4, src_size="two")
    with pytest.raises(ValueError):
        ptxgen.instr("cp.async.ca.shared.global", chunk_bytes=4, ptx_version="seven")
