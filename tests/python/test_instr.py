"""ptxgen.instr: one instruction (a cp.async, or one of the sm_90 bulk-copy family) checked
against the PTX rules (docs/ptx-rules.md), as `ptxgen instr` prints it. Expected values come from
the PTX ISA (cp.async: PTX 7.0, sm_80; .cg copies 16 bytes; the bulk family: PTX 8.0, sm_90),
not from the module."""
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


# The sm_90 bulk-copy family, one case per form `ptxgen instr` offers: the opcode as a user
# may write it (qualifiers in any order, `.tile` left out), the options, the opcode as the
# PTX ISA manual orders its qualifiers, and the lowest .version the manual allows (8.0 for
# the family on sm_90; 8.6 for a `.shared::cta` load destination and `.relaxed` arrivals).
BULK_FORMS = [
    ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", dict(size=4096),
     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "8.0"),
    ("cp.async.bulk.global.shared::cluster.mbarrier::complete_tx::bytes.L2::cache_hint",
     dict(size="reg", cache_policy=True),
     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint", "8.0"),
    ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", dict(size=16),
     "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", "8.6"),
    ("cp.async.bulk.bulk_group.shared::cta.global", dict(size=256, pred=True),
     "cp.async.bulk.global.shared::cta.bulk_group", "8.0"),
    ("cp.async.bulk.commit_group", {}, "cp.async.bulk.commit_group", "8.0"),
    ("cp.async.bulk.wait_group", dict(groups=2), "cp.async.bulk.wait_group", "8.0"),
    ("cp.async.bulk.wait_group.read", {}, "cp.async.bulk.wait_group.read", "8.0"),
    ("cp.async.bulk.prefetch.L2.global.L2::cache_hint", dict(size=128, cache_policy=True),
     "cp.async.bulk.prefetch.L2.global.L2::cache_hint", "8.0"),
    ("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes", {},
     "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "8.0"),
    ("cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes",
     {},
     "cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes", "8.6"),
    ("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint",
     dict(cache_policy=True),
     "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint", "8.0"),
    ("cp.async.bulk.prefetch.tensor.3d.L2.global", {},
     "cp.async.bulk.prefetch.tensor.3d.L2.global.tile", "8.0"),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64", dict(tx_count=1024),
     "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", "8.0"),
    ("mbarrier.expect_tx.b64", dict(tx_count="reg"), "mbarrier.expect_tx.b64", "8.0"),
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", dict(tx_count=64, sink=True),
     "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", "8.0"),
    ("mbarrier.arrive.expect_tx.relaxed.cluster.shared.b64", dict(tx_count="reg"),
     "mbarrier.arrive.expect_tx.relaxed.cluster.shared.b64", "8.6"),
    ("fence.proxy.async", {}, "fence.proxy.async", "8.0"),
    ("fence.proxy.async.global", {}, "fence.proxy.async.global", "8.0"),
    ("fence.proxy.async.shared::cta", {}, "fence.proxy.async.shared::cta", "8.0"),
    ("fence.proxy.async.shared::cluster", {}, "fence.proxy.async.shared::cluster", "8.0"),
    ("fence.mbarrier_init.release.cluster", {}, "fence.mbarrier_init.release.cluster", "8.0"),
]


@pytest.mark.parametrize("opcode,options,canonical,version", BULK_FORMS,
                         ids=[f[2] for f in BULK_FORMS])
def test_each_bulk_form_is_printed_canonically_for_sm_90(opcode, options, canonical, version):
    lines = ptxgen.instr(opcode, **options).splitlines()
    assert lines[:2] == [".version " + version, ".target sm_90"]
    assert len(lines) == 3
    words = lines[2].split(" ")
    if options.get("pred"):
        assert words.pop(0).startswith("@%p")
    assert words[0].rstrip(";") == canonical


def test_bulk_operands_follow_the_options():
    text = ptxgen.instr("cp.async.bulk.global.shared::cta.bulk_group", size=4096)
    # [global], [shared], size: the manual's operand order for a shared-to-global copy.
    assert text.splitlines()[2] == \
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], 4096;"
    tensor = ptxgen.instr("cp.async.bulk.tensor.3d.shared::cluster.global.tile"
                          ".mbarrier::complete_tx::bytes").splitlines()[2]
    coords = tensor[tensor.index("{") + 1:tensor.index("}")].split(",")
    assert len(coords) == 3  # a 3-d tensor: three coordinates
    wait = ptxgen.instr("cp.async.bulk.wait_group.read", groups=5).splitlines()[2]
    assert wait == "cp.async.bulk.wait_group.read 5;"
    sink = ptxgen.instr("mbarrier.arrive.expect_tx.shared.b64", tx_count=32, sink=True)
    assert sink.splitlines()[2].split(" ", 1)[1] == "_, [mbar], 32;"
    state = ptxgen.instr("mbarrier.arrive.expect_tx.shared.b64", tx_count=32)
    assert state.splitlines()[2].split(" ", 1)[1].startswith("%rd")


def test_bulk_target_and_version_are_kept_when_given():
    text = ptxgen.instr("cp.async.bulk.commit_group", target="sm_90a", ptx_version="8.3")
    assert text.splitlines()[:2] == [".version 8.3", ".target sm_90a"]


def test_bulk_below_sm_90_raises_with_the_rule():
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr("cp.async.bulk.wait_group.read", groups=1, target="sm_89",
                     ptx_version="8.0")
    assert e.value.stage == "instr"
    assert [d.id for d in e.value.diagnostics if d.severity == "error"] == \
        ["ptx_feature_target"]


@pytest.mark.parametrize("opcode,options,diag_id", [
    # The manual: a bulk size is a multiple of 16.
    ("cp.async.bulk.global.shared::cta.bulk_group", dict(size=24), "ptx_bulk_size_multiple"),
    # `.shared::cta` as a load's destination came with PTX 8.6.
    ("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
     dict(size=16, ptx_version="8.5"), "ptx_feature_version"),
    # A 3-d tensor takes three coordinates.
    ("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group", dict(coords=2),
     "ptx_tensor_coordinate_count"),
    # The hint reads a policy operand.
    ("cp.async.bulk.prefetch.L2.global.L2::cache_hint", dict(size=16),
     "ptx_cache_hint_without_policy"),
])
def test_a_bulk_rule_broken_raises_with_its_diagnostic(opcode, options, diag_id):
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr(opcode, **options)
    assert e.value.stage == "instr"
    assert diag_id in [d.id for d in e.value.diagnostics if d.severity == "error"]


def test_a_bulk_qualifier_out_of_scope_raises_with_the_caret_under_it():
    opcode = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr(opcode, size=16)
    assert e.value.stage == "instr"
    (d,) = e.value.diagnostics
    assert d.id == "ptx_opcode_out_of_scope"
    assert d.file == "opcode"
    assert d.column == opcode.index(".multicast") + 1


def test_a_bulk_opcode_missing_its_direction_raises():
    # A global-to-shared copy completes on an mbarrier: without it the form is not PTX.
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr("cp.async.bulk.shared::cluster.global", size=16)
    assert e.value.stage == "instr"
    assert e.value.diagnostics and e.value.diagnostics[0].file == "opcode"


@pytest.mark.parametrize("opcode,options", [
    ("cp.async.bulk.prefetch.L2.global", {}),                        # size is never inferred
    ("mbarrier.expect_tx.b64", {}),                                  # nor the tx count
    ("cp.async.bulk.commit_group", dict(size=16)),                   # no size to give
    ("fence.proxy.async", dict(tx_count=16)),
    ("cp.async.bulk.commit_group", dict(groups=2)),                  # only wait_group's
    ("cp.async.bulk.global.shared::cta.bulk_group", dict(size=16, coords=1)),
    ("mbarrier.expect_tx.b64", dict(tx_count=16, sink=True)),        # expect_tx has no state
    ("cp.async.bulk.global.shared::cta.bulk_group", dict(size="16")),  # "reg" or a number
    ("cp.async.bulk.global.shared::cta.bulk_group", dict(chunk_bytes=16)),  # cp.async's
    ("cp.async.bulk.global.shared::cta.bulk_group", dict(size=16, ignore_src=True)),
    ("cp.async.ca.shared.global", dict(chunk_bytes=4, size=16)),     # the bulk family's
    ("cp.async.ca.shared.global", dict(chunk_bytes=4, sink=True)),
    ("cp.async.ca.shared.global", {}),                               # chunk_bytes required
])
def test_an_option_the_form_does_not_take_raises_a_value_error(opcode, options):
    with pytest.raises(ValueError):
        ptxgen.instr(opcode, **options)


def test_ptxas_accepts_every_bulk_form_as_printed(real_ptxas):
    """One kernel holding every form's printed line, its placeholder registers declared
    (the manual's operand classes: .b32 sizes and coordinates, .b64 addresses, states and
    policies), assembled by ptxas in one call."""
    texts = [ptxgen.instr(opcode, **options) for opcode, options, _, _ in BULK_FORMS]
    version = max((t.splitlines()[0].split()[1] for t in texts),
                  key=lambda v: tuple(int(x) for x in v.split(".")))
    body = "\n".join("  " + t.splitlines()[2] for t in texts)
    ptx = (f".version {version}\n.target sm_90\n.address_size 64\n"
           ".visible .entry bulk_forms()\n{\n"
           "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n"
           "  .shared .align 1024 .b8 smem[1024];\n  .shared .align 8 .b64 mbar;\n"
           f"{body}\n  ret;\n}}\n")
    assert ptxgen.assemble(ptx, target="sm_90", ptxas=real_ptxas)


def test_cp_async_group_instructions_take_no_copy_options():
    # cp.async.commit_group / wait_group / wait_all: PTX 7.0, sm_80, and no operand but N.
    assert ptxgen.instr("cp.async.commit_group") == (
        ".version 7.0\n.target sm_80\ncp.async.commit_group;\n")
    assert ptxgen.instr("cp.async.wait_group", groups=2).splitlines()[2] == (
        "cp.async.wait_group 2;")
    assert ptxgen.instr("cp.async.wait_all").splitlines()[2] == "cp.async.wait_all;"
    with pytest.raises(ptxgen.ArgumentError, match="takes N"):
        ptxgen.instr("cp.async.wait_group")
    with pytest.raises(ptxgen.ArgumentError, match="chunk_bytes is not for cp.async.commit_group"):
        ptxgen.instr("cp.async.commit_group", chunk_bytes=16)
    with pytest.raises(ptxgen.Error) as e:
        ptxgen.instr("cp.async.wait_all", target="sm_75")
    assert [d.id for d in e.value.diagnostics] == ["ptx_feature_target"]
