#!/usr/bin/env bash
# Fuzzes every reader: builds build-fuzz/ (test/fuzz/build.sh), makes each target's seed corpus
# (the examples, test/fuzz/seeds/, and ../shared/data's traces when present), then runs each
# target for SECONDS seconds (default 15). Prints per target the executions and the findings;
# exits 1 when any target found something (its inputs are kept in build-fuzz/findings/TARGET/:
# each becomes a regression test). CI runs it bounded; bench/fuzz.sh runs it for hours.
# ECHO_FUZZ_RUNS=N also stops each target after N executions.
#   test/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-15}
shift || true
test/fuzz/build.sh
b=${ECHO_FUZZ_BUILD:-build-fuzz}
seeds=test/fuzz/seeds
shared=../shared/data/traces
corpus() {  # corpus TARGET FILE...: copies the files that exist into the target's corpus
  local dir=$b/corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr '/' '_')"; done
  return 0
}
rm -rf $b/findings && mkdir -p $b/corpus $b/pb
corpus fuzz_job examples/*/job.yaml $seeds/job/*
corpus fuzz_platform_xml examples/platforms/*.xml $seeds/platform_xml/*
$b/echo-des platform generate --preset dgx-a100 --nodes 2 -o $b/corpus/fuzz_platform_xml/dgx-a100x2.xml
$b/echo-des platform generate --preset polaris --nodes 2 -o $b/corpus/fuzz_platform_xml/polarisx2.xml
corpus fuzz_import_trace_text examples/*/trace.pbtxt
for t in examples/*/trace.pbtxt; do
  name=$(basename "$(dirname "$t")")
  protoc --proto_path=proto --encode=echo.trace.Trace proto/trace.proto <"$t" >$b/pb/$name.pb
done
corpus fuzz_import_trace $b/pb/*.pb
corpus fuzz_import_tracer $b/pb/*.pb
corpus fuzz_import_kineto $seeds/kineto/* $(find $shared -name '*.json' -size -256k 2>/dev/null | sort | head -8)
corpus fuzz_import_chakra $(find $shared -name '*.0.et' -size -64k 2>/dev/null | sort | head -8)
corpus fuzz_import_echo_tracer $seeds/echo_tracer/*
corpus fuzz_kernel_table examples/overlap_slowdown/kernels.csv
corpus fuzz_slowdown_model examples/overlap_slowdown/model.json
corpus fuzz_ncu_csv $seeds/ncu_csv/*
corpus fuzz_execution_trace $seeds/execution_trace/* $(find $shared -name '*et*.json' -size -256k 2>/dev/null | sort | head -4)
corpus fuzz_nccl_tests_sizes $seeds/nccl_tests_sizes/*

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=($(cd $b/test/fuzz && ls fuzz_* | grep -v '\.' | sort))
found=0
printf '%-26s %12s %9s  %s\n' target executions findings "(${seconds} s each)"
for t in "${targets[@]}"; do
  mkdir -p $b/findings/$t $b/corpus/$t
  log=$b/findings/$t.log
  # A finding stops the target; its input lands in findings/TARGET/. Inputs up to 256 KiB, 20 s
  # and 2.5 GB each: past those limits counts as a hang or a leak of memory.
  ASAN_OPTIONS=detect_leaks=1 $b/test/fuzz/$t $b/corpus/$t -max_total_time="$seconds" ${ECHO_FUZZ_RUNS:+-runs=$ECHO_FUZZ_RUNS} -timeout=20 -rss_limit_mb=2560 \
    -max_len=262144 -artifact_prefix=$b/findings/$t/ -print_final_stats=1 >"$log" 2>&1 || true
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  n=$(find $b/findings/$t -type f | wc -l)
  printf '%-26s %12s %9s\n' "$t" "${runs:-0}" "$n"
  if [ "$n" -gt 0 ]; then
    found=1
    grep -m3 'finding:\|ERROR:\|SUMMARY:' "$log" | sed 's/^/    /' || true
  fi
done
exit $found
