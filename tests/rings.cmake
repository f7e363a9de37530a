# The persistent bulk and TMA rings' SASS loop bodies (tools/bench/stream_copy_bulk.toml,
# stream_copy_tma.toml, as tests/data/rings/stream_ring_*.toml: the same rings over fewer
# tiles, cheap to emit) at most what the lowering reaches with ptxas 13.0 (36 and 47
# instructions), below the hand-written nvcc kernels of the same shape (41 and 53:
# tools/baseline/bulk_copy.cu, tma_copy.cu on the H200's cuobjdump, docs/benchmarks.md):
# emitted for sm_90, assembled by ptxas -O3, the loops counted from the cubin by
# tools/cubin_loops.py (no disassembler needed). Skipped (77) without ptxas or python3.
foreach(ring IN ITEMS "bulk;36" "tma;47")
  list(GET ring 0 name)
  list(GET ring 1 most)
  add_test(NAME ptxas.ring_sass_loop.${name}
           COMMAND bash -c [=[
command -v ptxas > /dev/null && command -v python3 > /dev/null || exit 77
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
"$0" emit --target sm_90 "$1/tests/data/rings/stream_ring_$2.toml" -o "$t/r.ptx" &&
  ptxas -arch=sm_90 -O3 "$t/r.ptx" -o "$t/r.cubin" &&
  python3 "$1/tools/cubin_loops.py" --longest-at-most "$3" "$t/r.cubin"]=]
                   $<TARGET_FILE:ptxgen> ${PROJECT_SOURCE_DIR} ${name} ${most})
  set_tests_properties(ptxas.ring_sass_loop.${name} PROPERTIES LABELS ptxas SKIP_RETURN_CODE 77)
endforeach()
