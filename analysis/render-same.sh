#!/usr/bin/env bash
# Renders the committed fixtures' reports and the given run folders' headlines with two checkouts of the lab, from the same
# paths, and compares them byte for byte: a change to the analysis that should move no figure shows no difference here.
#
#   analysis/render-same.sh <checkout A> <checkout B> [results/<run> ...]
#
# Each checkout needs its analysis environment (setup/python.sh, run in it, installs it). The inputs are A's fixtures
# (analysis/tests/fixtures) and the run folders named, read by both sides. nbconvert's cell ids and pandas' table ids are
# drawn at random at each render; they are replaced with fixed ones before the comparison, and nothing else is. Exit 0 when
# every output is the same, 1 when one differs (their paths are printed), 2 on bad input.
set -uo pipefail

die() { echo "render-same.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "name two checkouts: analysis/render-same.sh <checkout A> <checkout B> [results/<run> ...]"
a="$(cd "$1" 2>/dev/null && pwd)" || die "$1 is not a folder"
b="$(cd "$2" 2>/dev/null && pwd)" || die "$2 is not a folder"
shift 2
runs=()
for run in "$@"; do
  [ -f "$run/manifest.json" ] || die "$run is not a run folder (no manifest.json)"
  runs+=("$(cd "$run" && pwd)")
done

work="$(mktemp -d)"
trap 'rm -rf "$work/inputs"' EXIT
# The fixtures under names their kind is read by, copied afresh for each side: a render writes into its folder.
inputs="$work/inputs"
fixtures="$a/analysis/tests/fixtures"
copy_inputs() {
  rm -rf "$inputs" && mkdir -p "$inputs"
  for name in curve-run repeats-run smoke-run; do cp -r "$fixtures/$name" "$inputs/20260101-000000-$name"; done
  for kind in sweep floor clients io; do cp -r "$fixtures/$kind" "$inputs/20260101-000000-$kind"; done
  cp -r "$fixtures"/autobahn/*-autobahn "$inputs/20260101-000000-autobahn"
}

for side in a b; do
  checkout="${!side}"
  python="$checkout/.tools/venv/bin/python"
  [ -x "$python" ] || die "$checkout has no analysis environment; run setup/python.sh in it"
  # The analysis's module paths, before and after it was put in layers.
  if [ -f "$checkout/analysis/labanalysis/report/render.py" ]; then prefix=labanalysis.report; else prefix=labanalysis; fi
  out="$work/$side" && mkdir -p "$out"
  copy_inputs
  echo "rendering with $checkout ($(git -C "$checkout" rev-parse --short HEAD))" >&2
  for folder in "$inputs"/*; do
    name="$(basename "$folder")"
    case "$name" in
      *-run) args=("$folder") ;;
      *) args=(--experiment "$folder") ;;
    esac
    (cd "$checkout/analysis" && "$python" -m "$prefix.render" "${args[@]}") >"$out/$name.out" 2>&1
    echo "exit $?" >>"$out/$name.out"
    [ -f "$folder/report.html" ] &&
      sed -E 's/cell-id=[0-9a-f-]+/cell-id=X/g; s/T_[0-9a-f]{5}/T_X/g' "$folder/report.html" >"$out/$name.html"
  done
  for run in "${runs[@]}"; do
    (cd "$checkout/analysis" && "$python" -m "$prefix.headline" "$run") >"$out/headline-$(basename "$run").md" 2>&1
  done
  if [ ${#runs[@]} -ge 2 ]; then
    (cd "$checkout/analysis" && "$python" -m "$prefix.headline" --compare "${runs[0]}" "${runs[1]}") >"$out/headline-compare.md" 2>&1
  fi
done

status=0
for file in "$work"/a/*; do
  name="$(basename "$file")"
  if cmp -s "$file" "$work/b/$name"; then
    echo "same     $name ($(wc -c <"$file") bytes, $(grep -o 'data:image/png;base64' "$file" | wc -l) plots)"
  else
    echo "differs  $name: diff $file $work/b/$name"
    status=1
  fi
done
exit $status
