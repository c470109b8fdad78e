#!/usr/bin/env python3
"""Package footprint (issues 12 and 27): sizes of the Python wheel, the Node addon, the wasm modules and the CLI.

Usage: python3 bench/footprint.py ROOT OUT_DIR   (writes OUT_DIR/footprint.json)

Measures what is built; builds nothing except the Python wheel, and that only
when the binding's venv has maturin (`bindings-python/.venv`, made by
`bindings-python/test.sh`): `maturin build --release` into OUT_DIR/wheel, which
reuses the release build that test.sh's `pip install` left in target/. The Node
addon is measured as built (`bindings-node/stc.node`) and stripped
(`strip -o`, a copy); each wasm module (decode-only, codec, stash) as built and gzipped
(`gzip -9`, what a web server would send). A missing artifact is reported as not built, with why.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

TARGET_BYTES = 2 * 1000 * 1000  # issue 12: default wheel and Node addon at most 2 MB


def stat(path):
    st = os.stat(path)
    return {"path": path, "bytes": st.st_size, "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(st.st_mtime))}


def stripped_size(path, out_dir):
    if not shutil.which("strip"):
        return None
    copy = os.path.join(out_dir, os.path.basename(path) + ".stripped")
    r = subprocess.run(["strip", "-o", copy, path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    size = os.path.getsize(copy)
    os.remove(copy)
    return size


def wheel(root, out_dir):
    venv = os.path.join(root, "bindings-python", ".venv", "bin")
    maturin = os.path.join(venv, "maturin")
    if not os.path.exists(maturin):
        return {"reason": "bindings-python/.venv has no maturin (run bindings-python/test.sh first)"}
    wheel_dir = os.path.join(out_dir, "wheel")
    shutil.rmtree(wheel_dir, ignore_errors=True)
    cmd = [maturin, "build", "--release", "--quiet", "--manifest-path", os.path.join(root, "bindings-python", "Cargo.toml"),
           "--out", wheel_dir]
    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PATH": venv + os.pathsep + os.environ["PATH"]})
    wheels = [f for f in os.listdir(wheel_dir) if f.endswith(".whl")] if os.path.isdir(wheel_dir) else []
    if r.returncode != 0 or not wheels:
        last = (r.stderr.strip().splitlines() or ["no wheel written"])[-1][:300]
        return {"reason": f"`maturin build --release` failed: {last}"}
    info = stat(os.path.join(wheel_dir, wheels[0]))
    info["command"] = "maturin build --release --manifest-path bindings-python/Cargo.toml"
    info["name"] = wheels[0]
    return info


def node_addon(root, out_dir):
    path = os.path.join(root, "bindings-node", "stc.node")
    if not os.path.exists(path):
        return {"reason": "bindings-node/stc.node not built (bindings-node/test.sh builds it)"}
    info = stat(path)
    info["stripped_bytes"] = stripped_size(path, out_dir)
    return info


# The browser package's three modules (bindings-wasm/README.md) and issue 27's gzip targets.
WASM_MODULES = [
    ("decode", "stc_decode_wasm_bg.wasm", 30_000),
    ("codec", "stc_wasm_bg.wasm", 60_000),
    ("stash", "stc_stash_wasm_bg.wasm", None),
]


def wasm_module(root, name):
    path = os.path.join(root, "bindings-wasm", "pkg", "web", name)
    if not os.path.exists(path):
        return {"reason": f"bindings-wasm/pkg/web/{name} not built (bindings-wasm/test.sh builds it)"}
    info = stat(path)
    with open(path, "rb") as f:
        info["gzip_bytes"] = len(gzip.compress(f.read(), 9))
    return info


def wasm_modules(root):
    return {key: dict(wasm_module(root, name), file=name, target_gzip_bytes=target) for key, name, target in WASM_MODULES}


def cli(root, out_dir):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    path = os.path.join(target, "release", "stc")
    if not os.path.exists(path):
        return {"reason": "target/release/stc not built"}
    info = stat(path)
    info["stripped_bytes"] = stripped_size(path, out_dir)
    return info


def main():
    root, out_dir = sys.argv[1], sys.argv[2]
    result = {
        "target_bytes": TARGET_BYTES,
        "python_wheel": wheel(root, out_dir),
        "node_addon": node_addon(root, out_dir),
        "wasm": wasm_module(root, "stc_wasm_bg.wasm"),
        "wasm_modules": wasm_modules(root),
        "cli": cli(root, out_dir),
        "node_candidates": os.path.exists(os.path.join(root, "bindings-node", "bench", "CANDIDATES.md")),
    }
    with open(os.path.join(out_dir, "footprint.json"), "w") as f:
        json.dump(result, f, indent=1)
    for k, v in result.items():
        if isinstance(v, dict):
            print(f"footprint.py: {k}: {v.get('bytes', v.get('reason'))}", file=sys.stderr)


if __name__ == "__main__":
    main()
