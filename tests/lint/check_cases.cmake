# Run by tests/lint.cmake: -DPTXGEN=<ptxgen> -DROOT=<source dir> -DWORK=<scratch> -DCASE=<name>.
# `ptxgen lint` on the files of tests/lint/: what each case expects is worked out from the
# kernels' sources by hand (the comments say how), never from lint's output.
cmake_policy(VERSION 3.25) # the project's: a quoted CASE name is a string (CMP0054), IN_LIST
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(example "${ROOT}/tests/lint/pipelined_add.ptx")
set(fixed "${ROOT}/tests/lint/pipelined_add_fixed.ptx")
set(funcs "${ROOT}/tests/lint/funcs.ptx")
set(unsupported "${ROOT}/tests/lint/unsupported.ptx")
set(read_before_wait "${ROOT}/tests/lint/read_before_wait.ptx")
set(global_races "${ROOT}/tests/lint/global_races.ptx")
set(global_races_fixed "${ROOT}/tests/lint/global_races_fixed.ptx")
set(race_cap "${ROOT}/tests/lint/race_cap.ptx")

# lint(<out var> <rc var> <args>...): standard output and error together, and the status.
function(lint out_var rc_var)
  execute_process(COMMAND "${PTXGEN}" lint ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out TIMEOUT 60)
  message(STATUS "ptxgen lint ${ARGN}\n  -> ${rc}\n${out}")
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

function(expect_eq got want what)
  if(NOT "${got}" STREQUAL "${want}")
    message(FATAL_ERROR "${what}: got '${got}', want '${want}'")
  endif()
endfunction()

# json(<var> <json> <path>...): the value at the path (fails the test when it is missing).
function(json var text)
  string(JSON v ERROR_VARIABLE bad GET "${text}" ${ARGN})
  if(bad)
    message(FATAL_ERROR "JSON path ${ARGN}: ${bad}")
  endif()
  set(${var} "${v}" PARENT_SCOPE)
endfunction()

# first_line(<var> <file> <text>): the 1-based line of the first line holding <text> (counted
# on the whole text: file(STRINGS) would split PTX lines at their semicolons).
function(first_line var file text)
  file(READ "${file}" content)
  string(FIND "${content}" "${text}" at)
  if(at LESS 0)
    message(FATAL_ERROR "no line of ${file} holds '${text}'")
  endif()
  string(SUBSTRING "${content}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${var} ${n} PARENT_SCOPE)
endfunction()

# find_finding(<index var> <report> <kernel> <rule>): the first finding of that rule, or -1.
function(find_finding var report kernel rule)
  string(JSON n LENGTH "${report}" kernels ${kernel} findings)
  set(${var} -1 PARENT_SCOPE)
  if(n EQUAL 0)
    return()
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON r GET "${report}" kernels ${kernel} findings ${i} rule)
    if(r STREQUAL "${rule}")
      set(${var} ${i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# The worked example of docs/lint.md: the prologue commits tiles 0 and 1 as one group, so the
# loop's first `wait_group 1` leaves it in flight, and thread 0 reads its partner's (thread
# 1's) 16 bytes of tile 0 in `sa` (bytes 16..31) while thread 1's first cp.async (the
# file's first, the prologue's copy of A) still writes them: read in flight, at the loop's
# first ld.shared, in the first iteration of both.
if(CASE STREQUAL "example")
  lint(out rc "${example}" --arg 3=6 --json "${WORK}/report.json")
  expect_eq("${rc}" 1 "exit status of the example")
  file(READ "${WORK}/report.json" report)
  json(status "${report}" kernels 0 status)
  expect_eq("${status}" findings "status")
  find_finding(i "${report}" 0 race.read-in-flight)
  if(i LESS 0)
    message(FATAL_ERROR "no race.read-in-flight finding")
  endif()
  first_line(read_line "${example}" "ld.shared")
  first_line(copy_line "${example}" "cp.async.cg.shared.global")
  foreach(pair "line;${read_line}" "other_line;${copy_line}" "thread;0" "other_thread;1"
          "iteration;1" "other_iteration;1" "symbol;_ZZ13pipelined_addE2sa" "offset;16")
    list(GET pair 0 key)
    list(GET pair 1 want)
    json(got "${report}" kernels 0 findings ${i} ${key})
    expect_eq("${got}" "${want}" "read in flight: ${key}")
  endforeach()
  # Each hazard once: no two findings share rule and lines.
  string(JSON n LENGTH "${report}" kernels 0 findings)
  math(EXPR last "${n} - 1")
  set(seen "")
  foreach(k RANGE ${last})
    json(r "${report}" kernels 0 findings ${k} rule)
    json(a "${report}" kernels 0 findings ${k} line)
    json(b "${report}" kernels 0 findings ${k} other_line)
    if("${r}:${a}:${b}" IN_LIST seen)
      message(FATAL_ERROR "finding ${r} at lines ${a}/${b} reported twice")
    endif()
    list(APPEND seen "${r}:${a}:${b}")
  endforeach()
  # The fixed prologue lints clean; its coverage counted by hand: 2 CTAs of 128 threads, each
  # thread copies 16 bytes of A and of B per tile (2 x 6 copies), waits and passes a barrier
  # once per tile (6 each).
  lint(out rc "${fixed}" --arg 3=6 --json "${WORK}/fixed.json")
  expect_eq("${rc}" 0 "exit status of the fixed example")
  file(READ "${WORK}/fixed.json" report)
  json(n "${report}" kernels 0 findings)
  expect_eq("${n}" "[]" "findings of the fixed example")
  foreach(pair "threads;256" "async_copies;3072" "waits;1536" "barriers;1536" "runs;1")
    list(GET pair 0 key)
    list(GET pair 1 want)
    json(got "${report}" kernels 0 coverage ${key})
    expect_eq("${got}" "${want}" "coverage: ${key}")
  endforeach()
endif()

# SARIF 2.1.0: rules, and per result its rule, level, message, location and, for a race, the
# other line as a related location.
if(CASE STREQUAL "sarif")
  lint(out rc "${example}" --arg 3=6 --diagnostics-format sarif)
  expect_eq("${rc}" 1 "exit status")
  json(version "${out}" version)
  expect_eq("${version}" "2.1.0" "SARIF version")
  json(name "${out}" runs 0 tool driver name)
  expect_eq("${name}" "ptxgen lint" "tool name")
  string(JSON results LENGTH "${out}" runs 0 results)
  if(results EQUAL 0)
    message(FATAL_ERROR "no results")
  endif()
  first_line(read_line "${example}" "ld.shared")
  first_line(copy_line "${example}" "cp.async.cg.shared.global")
  set(found 0)
  math(EXPR last "${results} - 1")
  foreach(k RANGE ${last})
    json(rule "${out}" runs 0 results ${k} ruleId)
    json(index "${out}" runs 0 results ${k} ruleIndex)
    json(rule_at "${out}" runs 0 tool driver rules ${index} id)
    expect_eq("${rule_at}" "${rule}" "result ${k}'s ruleIndex")
    json(level "${out}" runs 0 results ${k} level)
    expect_eq("${level}" error "result ${k}'s level")
    json(text "${out}" runs 0 results ${k} message text)
    json(uri "${out}" runs 0 results ${k} locations 0 physicalLocation artifactLocation uri)
    expect_eq("${uri}" "${example}" "result ${k}'s uri")
    json(line "${out}" runs 0 results ${k} locations 0 physicalLocation region startLine)
    if(rule STREQUAL "race.read-in-flight" AND line EQUAL read_line)
      json(other "${out}" runs 0 results ${k} relatedLocations 0 physicalLocation region
           startLine)
      expect_eq("${other}" "${copy_line}" "the read in flight's related location")
      set(found 1)
    endif()
  endforeach()
  expect_eq("${found}" 1 "a race.read-in-flight result at the first ld.shared")
  lint(out rc "${fixed}" --arg 3=6 --diagnostics-format sarif)
  expect_eq("${rc}" 0 "exit status, fixed")
  string(JSON results LENGTH "${out}" runs 0 results)
  expect_eq("${results}" 0 "results of the fixed example")
endif()

# Exit statuses: 0 clean, 1 findings, 2 usage, 4 unsupported (and findings win over it).
if(CASE STREQUAL "exit_status")
  lint(out rc "${fixed}" --arg 3=6)
  expect_eq("${rc}" 0 "clean")
  lint(out rc "${example}" --arg 3=6)
  expect_eq("${rc}" 1 "findings")
  lint(out rc "${unsupported}")
  expect_eq("${rc}" 4 "unsupported")
  string(FIND "${out}" "mma.sync" at)
  if(at LESS 0)
    message(FATAL_ERROR "the unsupported line is not named")
  endif()
  lint(out rc "${unsupported}" "${funcs}" --block 64)
  expect_eq("${rc}" 1 "unsupported and findings")
  lint(out rc)
  expect_eq("${rc}" 2 "no file")
  lint(out rc "${fixed}" --arg 3=6 --grid 0)
  expect_eq("${rc}" 2 "--grid 0")
  lint(out rc "${fixed}" --arg 3=6 --entry nothing_here)
  expect_eq("${rc}" 2 "an unknown entry")
  lint(out rc "${fixed}" --arg k_tiles=6)
  expect_eq("${rc}" 2 "an --arg naming no parameter")
  lint(out rc "${fixed}" --arg 3=six)
  expect_eq("${rc}" 2 "an --arg that is no value")
  lint(out rc "${fixed}" --arg 3=6 --diagnostics-format yaml)
  expect_eq("${rc}" 2 "an unknown format")
endif()

# A scalar the entry loads with no --arg: refused, naming it (k_tiles, the 4th parameter,
# bounds the loop).
if(CASE STREQUAL "unset_scalar")
  lint(out rc "${fixed}")
  expect_eq("${rc}" 2 "exit status")
  string(FIND "${out}" "pipelined_add_param_3" at)
  if(at LESS 0)
    message(FATAL_ERROR "the unset parameter is not named")
  endif()
endif()

# --arg NAME=TYPE[...] gives a pointer exactly that memory: A as f32[16] (64 bytes) holds
# thread 0's first copy (bytes 0..15 of tile 0) but not its second, the prologue's tile 1 at
# byte 2048 (512 floats on); thread 0 runs first, so that is the access reported, against
# parameter 0.
if(CASE STREQUAL "sized_arg")
  lint(out rc "${fixed}" --arg 3=6 --arg 0=f32[16] --json "${WORK}/report.json")
  expect_eq("${rc}" 1 "exit status")
  file(READ "${WORK}/report.json" report)
  find_finding(i "${report}" 0 out-of-bounds)
  if(i LESS 0)
    message(FATAL_ERROR "no out-of-bounds finding")
  endif()
  json(symbol "${report}" kernels 0 findings ${i} symbol)
  expect_eq("${symbol}" pipelined_add_param_0 "the parameter blamed")
  json(offset "${report}" kernels 0 findings ${i} offset)
  expect_eq("${offset}" 2048 "the first access past the region")
  # The same kernel with A given its full 2 x 6 tiles of 512 floats lints clean.
  lint(out rc "${fixed}" --arg 3=6 --arg 0=f32[12,512])
  expect_eq("${rc}" 0 "exit status with enough memory")
  # Without --arg, 40 tiles per CTA: 2 CTAs x 40 x 2048 bytes = 160 KiB of A and of B, past
  # the first 64 KiB; each region grows to the next power of two that holds the access and is
  # at least four times its size (256 KiB, both ways) and it lints
  # clean. C (param 2) takes 2 x 128 x 16 bytes, within the first 64 KiB.
  lint(out rc "${fixed}" --arg 3=40 --json "${WORK}/grown.json")
  expect_eq("${rc}" 0 "exit status with grown regions")
  file(READ "${WORK}/grown.json" report)
  foreach(pair "0;262144" "1;262144" "2;65536")
    list(GET pair 0 k)
    list(GET pair 1 want)
    json(got "${report}" kernels 0 params ${k} bytes)
    expect_eq("${got}" "${want}" "parameter ${k}'s region")
  endforeach()
endif()

# A file of .funcs (no .entry): refused without a launch, with what to give; with --block
# each .func runs as an entry: copy_waited clean, copy_unwaited racing (its partner's bytes
# before any wait or barrier), returns_sum unsupported (a function result).
if(CASE STREQUAL "funcs")
  lint(out rc "${funcs}")
  expect_eq("${rc}" 2 "exit status without --block")
  string(FIND "${out}" "--block" at)
  if(at LESS 0)
    message(FATAL_ERROR "the error does not say to give --block")
  endif()
  lint(out rc "${funcs}" --block 64 --json "${WORK}/report.json")
  expect_eq("${rc}" 1 "exit status with --block")
  file(READ "${WORK}/report.json" report)
  foreach(pair "0;copy_waited;clean" "1;copy_unwaited;findings" "2;returns_sum;unsupported")
    list(GET pair 0 k)
    list(GET pair 1 name)
    list(GET pair 2 status)
    json(got "${report}" kernels ${k} entry)
    expect_eq("${got}" "${name}" "kernel ${k}")
    json(got "${report}" kernels ${k} status)
    expect_eq("${got}" "${status}" "${name}'s status")
  endforeach()
  json(is_func "${report}" kernels 1 is_func)
  expect_eq("${is_func}" ON "copy_unwaited is a .func")
  find_finding(i "${report}" 1 race.write-after-read)
  if(i LESS 0)
    message(FATAL_ERROR "copy_unwaited: no race.write-after-read")
  endif()
  lint(out rc "${funcs}" --block 64 --entry copy_waited)
  expect_eq("${rc}" 0 "exit status of copy_waited alone")
endif()

# --seeds N: N runs (the fixed example reads no unwritten byte, so no extra run).
if(CASE STREQUAL "seeds")
  lint(out rc "${fixed}" --arg 3=6 --seeds 3 --json "${WORK}/report.json")
  expect_eq("${rc}" 0 "exit status")
  file(READ "${WORK}/report.json" report)
  json(runs "${report}" kernels 0 coverage runs)
  expect_eq("${runs}" 3 "runs")
  json(copies "${report}" kernels 0 coverage async_copies)
  expect_eq("${copies}" 9216 "copies over the 3 runs")
endif()

# The kernel racecheck calls "invalid memcpy_async synchronization": each thread reads back its
# own 16 bytes (four volatile 4-byte loads) before the wait_group that covers its cp.async.
# Each load is its own hazard: read before wait against the one cp.async, same thread.
if(CASE STREQUAL "read_before_wait")
  lint(out rc "${read_before_wait}" --grid 1 --json "${WORK}/report.json")
  expect_eq("${rc}" 1 "exit status")
  file(READ "${WORK}/report.json" report)
  first_line(read_line "${read_before_wait}" "ld.volatile.shared")
  first_line(copy_line "${read_before_wait}" "cp.async.cg.shared.global")
  string(JSON n LENGTH "${report}" kernels 0 findings)
  expect_eq("${n}" 4 "findings (one per load)")
  foreach(k RANGE 3)
    math(EXPR line "${read_line} + ${k}")
    math(EXPR offset "${k} * 4")
    foreach(pair "rule;race.read-before-wait" "line;${line}" "other_line;${copy_line}"
            "thread;0" "other_thread;0" "offset;${offset}")
      list(GET pair 0 key)
      list(GET pair 1 want)
      json(got "${report}" kernels 0 findings ${k} ${key})
      expect_eq("${got}" "${want}" "finding ${k}: ${key}")
    endforeach()
  endforeach()
endif()

# The races on global memory (global_races.ptx, one per kernel where its comment says `racy`;
# global_races_fixed.ptx, the fixed twin, is clean). Expected from the kernels: thread 1 reads
# what thread 0's bulk store wrote with no barrier after thread 0's wait (bulk wait scope);
# thread 0 stores over its own pending bulk store (write before bulk write); thread 0's bulk
# load reads what thread 0 stored with no global proxy fence (missing global proxy fence); CTA
# 1's thread 0 stores over what CTA 0's thread 0 stored (cross CTA, lint's default grid of 2).
if(CASE STREQUAL "global_races")
  foreach(k "readback;race.bulk-wait-scope;// gread;// store;1;0;--grid;1"
            "overwrite;race.write-before-bulk-write;// gwrite;// ostore;0;0;--grid;1"
            "gproxy;race.missing-global-proxy-fence;// gload;// gst;0;0;--grid;1"
            "grid_store;race.cross-cta;// bid_store;// bid_store;0;0")
    list(GET k 0 entry)
    list(GET k 1 rule)
    list(GET k 2 at)
    list(GET k 3 other)
    list(GET k 4 thread)
    list(GET k 5 other_thread)
    set(extra "") # --grid 1, or nothing: lint's default grid
    list(LENGTH k n)
    if(n GREATER 6)
      list(SUBLIST k 6 2 extra)
    endif()
    first_line(line "${global_races}" "${at}")
    first_line(other_line "${global_races}" "${other}")
    lint(out rc "${global_races}" --entry ${entry} ${extra} --json "${WORK}/${entry}.json")
    expect_eq("${rc}" 1 "${entry}: exit status")
    file(READ "${WORK}/${entry}.json" report)
    foreach(pair "rule;${rule}" "line;${line}" "other_line;${other_line}" "thread;${thread}"
            "other_thread;${other_thread}" "iteration;1")
      list(GET pair 0 key)
      list(GET pair 1 want)
      json(got "${report}" kernels 0 findings 0 ${key})
      expect_eq("${got}" "${want}" "${entry}: ${key}")
    endforeach()
    if(entry STREQUAL "grid_store")
      json(got "${report}" kernels 0 findings 0 cta)
      expect_eq("${got}" 1 "grid_store: cta")
      json(got "${report}" kernels 0 findings 0 other_cta)
      expect_eq("${got}" 0 "grid_store: other_cta")
    endif()
    lint(out rc "${global_races_fixed}" --entry ${entry} ${extra})
    expect_eq("${rc}" 0 "${entry} fixed: exit status")
  endforeach()
endif()

# --ctas: grid_store's race is CTA 1's store against CTA 0's (above); with --ctas 1 of the same
# grid of 2 only CTA 0 runs, alone: clean, its coverage one CTA's 32 threads (.reqntid 32).
# --save-run records a launch for the GPU, which runs every CTA: refused with --ctas.
if(CASE STREQUAL "ctas")
  lint(out rc "${global_races}" --entry grid_store --grid 2 --ctas 1 --json "${WORK}/ctas.json")
  expect_eq("${rc}" 0 "grid_store --ctas 1: exit status")
  file(READ "${WORK}/ctas.json" report)
  json(got "${report}" kernels 0 coverage threads)
  expect_eq("${got}" 32 "grid_store --ctas 1: threads run")
  lint(out rc "${global_races}" --entry grid_store --grid 2 --ctas 2)
  expect_eq("${rc}" 1 "grid_store --ctas 2: exit status")
  lint(out rc "${global_races}" --entry grid_store --ctas 1 --save-run "${WORK}/run")
  expect_eq("${rc}" 2 "--ctas with --save-run: exit status")
endif()

# Clusters (tests/data/sim_cluster/cluster.ptx): remote_arrive signals its peer (rank ^ 1), so
# it needs clusters of 2: with `--cluster 2` it is clean; without, each CTA is a cluster of one
# and its mapa names a rank the cluster lacks (undefined behaviour); a cluster that does not
# divide the grid is a launch error; a `--cluster` that is not X[,Y[,Z]] is a usage error.
# dsmem_exchange declares `.reqnctapercluster 2, 1, 1`: with no option its one cluster is the
# grid, and it is clean.
if(CASE STREQUAL "clusters")
  set(cluster_ptx "${ROOT}/tests/data/sim_cluster/cluster.ptx")
  lint(out rc "${cluster_ptx}" --entry remote_arrive --block 32 --cluster 2
       --json "${WORK}/paired.json")
  expect_eq("${rc}" 0 "remote_arrive --cluster 2: exit status")
  file(READ "${WORK}/paired.json" report)
  json(status "${report}" kernels 0 status)
  expect_eq("${status}" "clean" "remote_arrive --cluster 2: status")
  lint(out rc "${cluster_ptx}" --entry remote_arrive --block 32 --json "${WORK}/alone.json")
  expect_eq("${rc}" 1 "remote_arrive alone: exit status")
  file(READ "${WORK}/alone.json" report)
  json(rule "${report}" kernels 0 findings 0 rule)
  expect_eq("${rule}" "fault.undefined-behavior" "remote_arrive alone: rule")
  first_line(mapa_line "${cluster_ptx}" "mapa.shared::cluster.u32 %r7")
  json(line "${report}" kernels 0 findings 0 line)
  expect_eq("${line}" "${mapa_line}" "remote_arrive alone: line")
  lint(out rc "${cluster_ptx}" --entry remote_arrive --block 32 --grid 3 --cluster 2)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a grid of 3 in clusters of 2 linted as clean")
  endif()
  lint(out rc "${cluster_ptx}" --entry remote_arrive --cluster 2x)
  expect_eq("${rc}" 2 "--cluster 2x: exit status")
  lint(out rc "${cluster_ptx}" --entry dsmem_exchange --block 32 --json "${WORK}/own.json")
  expect_eq("${rc}" 0 "dsmem_exchange: exit status")
endif()

# ptxgen's own DSMEM kernel (golden/cluster/dsmem_exchange_2.ptx: each CTA writes its S, passes
# the cluster barrier, reads S@(cluster_rank ^ 1), passes it again) lints clean in its
# clusters of 2 (.reqnctapercluster; grid 4 as the spec's). Without its first barrier the
# peer's read of S (ld.shared::cluster) races with the owner's write (st.shared), both on row
# tid of S; without its last one a CTA may exit while its peer still reads its S. These are
# the two rules the reference (check_cluster_shared_race) and the contract
# (contract_peer_exit) refuse on the spec; here the simulator finds them in the PTX alone.
if(CASE STREQUAL "dsmem_peer_views")
  set(golden "${ROOT}/golden/cluster/dsmem_exchange_2.ptx")
  lint(out rc "${golden}" --grid 4)
  expect_eq("${rc}" 0 "dsmem_exchange_2: exit status")
  file(READ "${golden}" text)
  set(barrier "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n")
  string(LENGTH "${barrier}" n)
  string(FIND "${text}" "${barrier}" first)
  string(FIND "${text}" "${barrier}" last REVERSE)
  if(first LESS 0 OR first EQUAL last)
    message(FATAL_ERROR "dsmem_exchange_2.ptx: expected two cluster barriers")
  endif()
  foreach(cut first last)
    string(SUBSTRING "${text}" 0 ${${cut}} before)
    math(EXPR after_at "${${cut}} + ${n}")
    string(SUBSTRING "${text}" ${after_at} -1 after)
    file(WRITE "${WORK}/no_${cut}.ptx" "${before}${after}")
    lint(out rc "${WORK}/no_${cut}.ptx" --grid 4 --json "${WORK}/no_${cut}.json")
    expect_eq("${rc}" 1 "dsmem_exchange_2 without its ${cut} barrier: exit status")
    file(READ "${WORK}/no_${cut}.json" report)
    json(rule "${report}" kernels 0 findings 0 rule)
    if(cut STREQUAL "first")
      expect_eq("${rule}" "race.cross-cta-shared" "without the first barrier: rule")
    else()
      expect_eq("${rule}" "race.cluster-peer-exit" "without the last barrier: rule")
    endif()
  endforeach()
endif()

# More races than a run keeps: race_cap.ptx has 300 store lines, each run by all 64 threads
# at the same 4 bytes, so each line is one distinct write-after-write race, met by threads
# 1..63 after thread 0 at each of the 4 bytes (a race is met per shared byte, per access, as
# a finding's `hits` counts it: 252 times). A run keeps the first 256 lines' races, in program
# order; the other 44 lines are met 44 x 252 = 11088 times, which lint must count and say, so
# that its list is not taken for every race. With one thread nothing races and nothing is
# unlisted.
if(CASE STREQUAL "race_cap")
  lint(out rc "${race_cap}" --grid 1 --block 64 --json "${WORK}/report.json")
  expect_eq("${rc}" 1 "exit status (findings)")
  file(READ "${WORK}/report.json" report)
  json(unlisted "${report}" kernels 0 coverage races_unlisted)
  expect_eq("${unlisted}" 11088 "race meetings past those listed")
  string(JSON listed LENGTH "${report}" kernels 0 findings)
  if(NOT listed LESS 300)
    message(FATAL_ERROR "${listed} findings: the run keeps fewer than the 300 races")
  endif()
  lint(out rc "${race_cap}" --grid 1 --block 64)
  if(NOT out MATCHES "not listed: the run met more distinct races than it keeps; races were met 11088 more times")
    message(FATAL_ERROR "the text report does not say that races were left out")
  endif()
  lint(out rc "${race_cap}" --grid 1 --block 1 --json "${WORK}/one.json")
  expect_eq("${rc}" 0 "exit status (one thread: clean)")
  file(READ "${WORK}/one.json" one)
  json(unlisted "${one}" kernels 0 coverage races_unlisted)
  expect_eq("${unlisted}" 0 "nothing unlisted")
  if(out MATCHES "not listed")
    message(FATAL_ERROR "a clean run says races were left out")
  endif()
endif()
