"""o200k_base tokens a model is shown per call of the reference MCP servers
(filesystem, memory, everything from npm) and of the Python SDK 2.x fixture:
for a text-reading host (all text blocks) and a structured-reading host
(structuredContent when present, as Claude Code and VS Code show it; the
client is named claude-code), direct and through `stc mcp-proxy` writing
STC version 1 and version 2. Prints a Markdown table; then the saving of
merging the Python SDK's one-block-per-element list results into one STC
array (`--merge-blocks`, on by default) on the SDK's typed list tools,
text-reading host, proxy v2 with `--merge-blocks false` against the default.

  python stc-mcp/bench/hosts.py STC COUNT_TOKENS WORKDIR
  (COUNT_TOKENS: cargo build --release -p stc-mcp --example count_tokens;
   corpus files from $STC_CORPUS, default ../shared/corpus)
Needs the peers of scripts/prereqs/30-mcp.sh.
"""
import json, os, subprocess, sys, shutil
W = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STC, COUNT, D = sys.argv[1], sys.argv[2], sys.argv[3]
PY2 = f"{W}/target/mcp2-venv/bin/python"
BIN = f"{W}/target/mcp-npm/node_modules/.bin"
CORPUS = os.environ.get("STC_CORPUS", f"{W}/../shared/corpus")
data = f"{D}/data"; os.makedirs(data, exist_ok=True)
for f in ["apache_builds.json", "twitter_timeline.json", "google_maps_api_response.json"]:
    shutil.copy(f"{CORPUS}/{f}", data)
ents = [{"name": f"person{i}", "entityType": "person", "observations": [f"works at company {i % 7}", f"lives in city {i % 5}"]} for i in range(50)]
rels = [{"from": f"person{i}", "to": f"person{(i * 3) % 50}", "relationType": "knows"} for i in range(40)]
mem = f"{D}/memory.jsonl"
cases = [
    ("filesystem read_text_file apache_builds.json", [f"{BIN}/mcp-server-filesystem", data], [["call", "read_text_file", {"path": f"{data}/apache_builds.json"}]], 0),
    ("filesystem read_text_file twitter_timeline.json", [f"{BIN}/mcp-server-filesystem", data], [["call", "read_text_file", {"path": f"{data}/twitter_timeline.json"}]], 0),
    ("filesystem read_text_file google_maps_api_response.json", [f"{BIN}/mcp-server-filesystem", data], [["call", "read_text_file", {"path": f"{data}/google_maps_api_response.json"}]], 0),
    ("memory read_graph (50 entities, 40 relations)", [f"{BIN}/mcp-server-memory"], [["call", "create_entities", {"entities": ents}], ["call", "create_relations", {"relations": rels}], ["call", "read_graph", {}]], 2),
    ("everything get-structured-content", [f"{BIN}/mcp-server-everything"], [["call", "get-structured-content", {"location": "Chicago"}]], 0),
    ("python SDK 2.x list[dict] rows(40)", [PY2, f"{W}/stc-mcp/tests/fixtures/fixture_server2.py"], [["call", "rows", {"n": 40}]], 0),
    ("python SDK 2.x list[Rec] typed(40)", [PY2, f"{W}/stc-mcp/tests/fixtures/fixture_server2.py"], [["call", "typed", {"n": 40}]], 0),
    ("python SDK 2.x dict obj(40)", [PY2, f"{W}/stc-mcp/tests/fixtures/fixture_server2.py"], [["call", "obj", {"n": 40}]], 0),
]
def run(cmd, steps, name, at):
    if os.path.exists(mem): os.remove(mem)
    spec = {"command": cmd, "mode": "auto", "name": name, "steps": [["list"]] + steps, "env": {"MEMORY_FILE_PATH": mem, "PATH": os.environ["PATH"]}}
    out = subprocess.run([PY2, f"{W}/stc-mcp/tests/fixtures/sdk_client.py", json.dumps(spec)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"hosts.py: {name} client, {' '.join(cmd[:6])}: sdk_client.py failed: {out.stderr[-1500:]}")
    return json.loads(out.stdout)["steps"][at + 1]
def tokens(text, tag):
    p = f"{D}/{tag}.txt"; open(p, "w").write(text)
    return int(subprocess.run([COUNT, p], capture_output=True, text=True).stdout.split()[0])
print("| call | host | direct | proxy v1 | proxy v2 | v1 saved | v2 saved |")
print("|---|---|---:|---:|---:|---:|---:|")
def view(r, host):
    return "\n".join(r["texts"]) if host == "text-reading" else r["model_view"]
for i, (label, server, steps, at) in enumerate(cases):
    # The server answers both clients alike: one direct run gives both hosts' views.
    direct = run(server, steps, "sdk-test-client", at)
    for host, name in [("text-reading", "sdk-test-client"), ("structured-reading (claude-code)", "claude-code")]:
        row = [tokens(view(direct, host), f"{i}-{name}-0")]
        for j, opts in enumerate([["--stc-version", "1", "--quiet"], ["--quiet"]], 1):
            r = run([STC, "mcp-proxy", *opts, "--", *server], steps, name, at)
            row.append(tokens(view(r, host), f"{i}-{name}-{j}"))
        d, v1, v2 = row
        print(f"| {label} | {host} | {d} | {v1} | {v2} | {100*(d-v1)/d:.1f} % | {100*(d-v2)/d:.1f} % |", flush=True)
print()
print("| call (text-reading host) | blocks from the server | direct | proxy v2, `--merge-blocks false` | blocks | proxy v2 (merged) | blocks | merging saves |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for i, (label, server, steps, at) in enumerate(cases):
    if "list[" not in label:
        continue
    direct = run(server, steps, "sdk-test-client", at)
    apart = run([STC, "mcp-proxy", "--quiet", "--merge-blocks", "false", "--", *server], steps, "sdk-test-client", at)
    merged = run([STC, "mcp-proxy", "--quiet", "--", *server], steps, "sdk-test-client", at)
    d, a, m = (tokens(view(r, "text-reading"), f"m{i}-{k}") for k, r in enumerate([direct, apart, merged]))
    print(f"| {label} | {len(direct['texts'])} | {d} | {a} | {len(apart['texts'])} | {m} | {len(merged['texts'])} | {a - m} ({100*(a-m)/a:.1f} %) |", flush=True)
