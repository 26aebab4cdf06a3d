#!/bin/bash
# test_jobs_malformed.sh REPO FIXTURES WORKDIR: jobs/analyze.py refuses unusable input with exit 2
# and one clear line naming the file: empty folder, broken JSON,
# a missing key, an unknown report version, a version-2 report without its topology, an unknown
# kind; and writes no figure then.
set -u
repo=$1 fixtures=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail=0
refuse() # refuse NAME DIR PATTERN...: exit 2, stderr matches every pattern, no PNG written
{
  local name=$1 dir=$2
  shift 2
  python3 "$repo/jobs/analyze.py" "$dir" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$? ok=1 p
  [[ $rc == 2 ]] || ok=0
  for p in "$@"; do grep -q -- "$p" "$work/$name.err" || ok=0; done
  compgen -G "$dir/*.png" >/dev/null && ok=0
  if ((ok)); then echo "ok   $name: $(cat "$work/$name.err")"
  else echo "FAIL $name: exit $rc, stderr: $(cat "$work/$name.err")"; fail=1; fi
}
one=$(ls "$fixtures"/run_2x1_off_rep1.json)

mkdir "$work/empty"
refuse empty "$work/empty" "no cubecg reports"
refuse nodir "$work/does-not-exist" "not a directory"

mkdir "$work/broken" && cp "$one" "$work/broken/" && printf '{"cubecg_report_version": 1, "kind": "run",' >"$work/broken/cut.json"
refuse broken-json "$work/broken" "cut.json" "malformed JSON"

# versions 1 and 2 are read (mixed too); an unknown version is refused
mkdir "$work/mixed" && cp "$one" "$work/mixed/"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cubecg_report_version"]=3; json.dump(d, open(sys.argv[2],"w"))' \
  "$one" "$work/mixed/v3.json"
refuse unknown-version "$work/mixed" "v3.json" "cubecg_report_version 3" "reads versions 1, 2"

# a version-2 run report must carry its topology
mkdir "$work/notopo"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cubecg_report_version"]=2; d.setdefault("topology", {}).pop("nodes", None); json.dump(d, open(sys.argv[2],"w"))' \
  "$one" "$work/notopo/notopo.json"
refuse v2-without-topology "$work/notopo" "notopo.json" "required key 'topology.nodes' is missing"

mkdir "$work/nokey"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["solves"][0]["time_s"]; json.dump(d, open(sys.argv[2],"w"))' \
  "$one" "$work/nokey/nokey.json"
refuse missing-key "$work/nokey" "nokey.json" "solves\[0\]: required key 'time_s' is missing"

mkdir "$work/kind"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["kind"]="weather"; json.dump(d, open(sys.argv[2],"w"))' \
  "$one" "$work/kind/kind.json"
refuse unknown-kind "$work/kind" "kind.json" "unknown kind \"weather\""

mkdir "$work/notreport" && echo '[1, 2, 3]' >"$work/notreport/list.json"
refuse not-a-report "$work/notreport" "list.json" "not a cubecg report"
exit $fail
