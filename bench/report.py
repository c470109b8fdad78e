#!/usr/bin/env python3
"""Writes bench/REPORT.md and bench/tokens.svg from the results in bench/out/.

Usage: python3 bench/report.py OUT_DIR BENCH_DIR   (run by bench/run.sh)

Every figure comes from a results file written by this run; nothing is typed.
"""
import json
import os
import sys

FORMATS = [
    ("json_pretty", "JSON pretty"),
    ("json_min", "JSON minified"),
    ("toon", "TOON"),
    ("stc_readable", "STC readable"),
    ("stc_compact", "STC compact"),
    ("gated", "STC gated"),
]
CLASSES = [
    ("nested", "nested API responses"),
    ("flat", "flat tables"),
    ("numbers", "number arrays"),
    ("semi", "semi-uniform records"),
]
COLORS = ["#9e9e9e", "#424242", "#e69f00", "#56b4e9", "#0072b2", "#009e73"]


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def pct(new, base):
    return f"{(new / base - 1) * 100:+.1f}%"


def fmt_int(n):
    return f"{n:,}"


def class_totals(docs, tokenizer):
    totals = {}
    for cls, _ in CLASSES + [("all", "all")]:
        members = [d for d in docs if cls == "all" or d["class"] == cls]
        totals[cls] = {f: sum(d["formats"][f][tokenizer] for d in members if f in d["formats"]) for f, _ in FORMATS}
        totals[cls]["_n"] = len(members)
        totals[cls]["_toon_complete"] = all("toon" in d["formats"] for d in members)
    return totals


def token_section(docs, tokenizer, out):
    totals = class_totals(docs, tokenizer)
    out.append(f"### Totals per class ({tokenizer})\n")
    out.append("Sum of tokens over the documents of each class; in brackets the change against minified JSON.\n")
    out.append("| class | docs | " + " | ".join(name for _, name in FORMATS) + " |")
    out.append("|---|---:|" + "---:|" * len(FORMATS))
    for cls, label in CLASSES + [("all", "**all documents**")]:
        t = totals[cls]
        base = t["json_min"]
        cells = []
        for f, _ in FORMATS:
            cells.append(fmt_int(t[f]) if f == "json_min" else f"{fmt_int(t[f])} ({pct(t[f], base)})")
        out.append(f"| {label} | {t['_n']} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(f"Mean of the per-document change against minified JSON ({tokenizer}; every document weighs the same):\n")
    out.append("| class | " + " | ".join(name for f, name in FORMATS if f != "json_min") + " |")
    out.append("|---|" + "---:|" * (len(FORMATS) - 1))
    for cls, label in CLASSES + [("all", "**all documents**")]:
        members = [d for d in docs if cls == "all" or d["class"] == cls]
        cells = []
        for f, _ in FORMATS:
            if f == "json_min":
                continue
            ch = [d["formats"][f][tokenizer] / d["formats"]["json_min"][tokenizer] - 1 for d in members if f in d["formats"]]
            cells.append(f"{100 * sum(ch) / len(ch):+.1f}%" if ch else "n/a")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("")
    return totals


def per_doc_table(docs, tokenizer, out):
    out.append(f"### Per document ({tokenizer})\n")
    out.append("| document | class | " + " | ".join(name for _, name in FORMATS) + " | gate chose |")
    out.append("|---|---|" + "---:|" * len(FORMATS) + "---|")
    for d in docs:
        fm = d["formats"]
        base = fm["json_min"][tokenizer]
        cells = []
        for f, _ in FORMATS:
            if f not in fm:
                cells.append("n/a")
            elif f == "json_min":
                cells.append(fmt_int(base))
            else:
                cells.append(f"{fmt_int(fm[f][tokenizer])} ({pct(fm[f][tokenizer], base)})")
        out.append(f"| {d['name']} | {d['class']} | " + " | ".join(cells) + f" | {fm['gated']['chosen']} |")
    out.append("")


def chart(docs, path):
    """Grouped bars of tokens relative to minified JSON (o200k_base), per class: two panels,
    class totals (top) and the mean of per-document ratios (bottom)."""
    groups = CLASSES + [("all", "all documents")]
    totals = class_totals(docs, "o200k_base")
    means = {}
    for cls, _ in groups:
        members = [d for d in docs if cls == "all" or d["class"] == cls]
        means[cls] = {f: 100 * sum(d["formats"][f]["o200k_base"] / d["formats"]["json_min"]["o200k_base"] for d in members
                                   if f in d["formats"]) / max(1, sum(1 for d in members if f in d["formats"])) for f, _ in FORMATS}
    panels = [("Class totals", {c: {f: 100 * totals[c][f] / totals[c]["json_min"] for f, _ in FORMATS} for c, _ in groups}),
              ("Mean of per-document ratios (every document weighs the same)", means)]
    w, panel_h = 860, 330
    h = 40 + panel_h * len(panels) + 40
    left = 60
    vmax = 160
    gw = (w - left - 20) / len(groups)
    bw = (gw - 20) / len(FORMATS)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="15">Tokens (o200k_base) relative to minified JSON = 100, by document class</text>']
    for pi, (title, values) in enumerate(panels):
        top = 40 + pi * panel_h + 30
        plot_h = panel_h - 30 - 40
        s.append(f'<text x="{left}" y="{top - 10}" font-size="13" font-weight="bold">{title}</text>')
        for v in range(0, vmax + 1, 20):
            y = top + plot_h * (1 - v / vmax)
            s.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - 20}" y2="{y:.1f}" stroke="{"#000" if v == 100 else "#ddd"}" stroke-width="{1.5 if v == 100 else 1}"/>')
            s.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v}</text>')
        for gi, (cls, label) in enumerate(groups):
            x0 = left + gi * gw + 10
            for fi, (f, name) in enumerate(FORMATS):
                v = values[cls][f]
                bh = plot_h * min(v, vmax) / vmax
                x = x0 + fi * bw
                s.append(f'<rect x="{x:.1f}" y="{top + plot_h - bh:.1f}" width="{bw - 2:.1f}" height="{bh:.1f}" fill="{COLORS[fi]}"><title>{label}: {name} {v:.1f}</title></rect>')
                s.append(f'<text x="{x + (bw - 2) / 2:.1f}" y="{top + plot_h - bh - 3:.1f}" text-anchor="middle" font-size="8">{v:.0f}</text>')
            s.append(f'<text x="{x0 + (gw - 20) / 2:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{label} ({totals[cls]["_n"]})</text>')
    lx = left
    for fi, (_, name) in enumerate(FORMATS):
        s.append(f'<rect x="{lx}" y="{h - 30}" width="12" height="12" fill="{COLORS[fi]}"/>')
        s.append(f'<text x="{lx + 16}" y="{h - 20}">{name}</text>')
        lx += 130
    s.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(s) + "\n")


def estimator_section(docs, out):
    out.append("## Estimator error (`Tokenizer::Estimate` against o200k_base)\n")
    out.append("Signed error `estimate / o200k_base - 1` per document and text; MAPE = mean absolute percentage error. "
               "The estimator's constants were fitted on these same documents (`bench/calibrate.py`), so this is an "
               "in-sample error: expect more on text unlike the corpus (prose, other scripts, long identifiers). "
               "The gate depends on the STC/JSON *ratio*, whose error (last column) is smaller because most of the "
               "estimate's error is shared by both texts.\n")
    fmts = [("json_min", "JSON minified"), ("json_pretty", "JSON pretty"), ("stc_compact", "STC compact"), ("stc_readable", "STC readable")]
    out.append("| document | " + " | ".join(n for _, n in fmts) + " | STC/JSON ratio error |")
    out.append("|---|" + "---:|" * (len(fmts) + 1))
    errs = {f: [] for f, _ in fmts}
    ratio_errs = []
    for d in docs:
        fm = d["formats"]
        cells = []
        for f, _ in fmts:
            e = fm[f]["estimate"] / fm[f]["o200k_base"] - 1
            errs[f].append(abs(e))
            cells.append(f"{e * 100:+.1f}%")
        r_est = fm["stc_compact"]["estimate"] / fm["json_min"]["estimate"]
        r_true = fm["stc_compact"]["o200k_base"] / fm["json_min"]["o200k_base"]
        ratio_errs.append(abs(r_est - r_true))
        cells.append(f"{(r_est - r_true) * 100:+.1f} pts")
        out.append(f"| {d['name']} | " + " | ".join(cells) + " |")
    mape = {f: 100 * sum(v) / len(v) for f, v in errs.items()}
    allv = [x for v in errs.values() for x in v]
    out.append("| **MAPE** | " + " | ".join(f"**{mape[f]:.1f}%**" for f, _ in fmts)
               + f" | **{100 * sum(ratio_errs) / len(ratio_errs):.1f} pts** (mean abs) |")
    out.append("")
    out.append(f"Overall MAPE over all {len(allv)} texts: **{100 * sum(allv) / len(allv):.1f}%**; "
               f"largest error {100 * max(allv):.1f}%.\n")
    return 100 * sum(allv) / len(allv), mape


def gate_section(data, out):
    docs = data["docs"]
    out.append("## Do-no-harm gate\n")
    out.append(f"`encode_gated` with the default margin (`min_saving` = {data['min_saving']}): STC only when it saves at least "
               "that fraction of minified JSON's tokens, else minified JSON. *Harm* = the gate's output costs more o200k_base "
               "tokens than minified JSON.\n")
    out.append("| document | JSON min | STC compact | saving | gate (estimate) | gate (o200k_base) | harm |")
    out.append("|---|---:|---:|---:|---|---|---|")
    harms = 0
    for d in docs:
        fm = d["formats"]
        j, s = fm["json_min"]["o200k_base"], fm["stc_compact"]["o200k_base"]
        g = fm["gated"]["o200k_base"]
        harm = g > j
        harms += harm
        out.append(f"| {d['name']} | {fmt_int(j)} | {fmt_int(s)} | {(1 - s / j) * 100:+.1f}% | {fm['gated']['chosen']} | "
                   f"{fm['gated_o200k']['chosen']} | {'**yes** (+' + str(g - j) + ')' if harm else 'no'} |")
    out.append("")
    out.append(f"Documents where the default gate spent more tokens than minified JSON: **{harms}** of {len(docs)}.\n")
    # The margin the estimator would have needed: above every estimated saving of a document where STC really loses.
    losing = [(1 - d["formats"]["stc_compact"]["estimate"] / d["formats"]["json_min"]["estimate"], d["name"]) for d in docs
              if d["formats"]["stc_compact"]["o200k_base"] >= d["formats"]["json_min"]["o200k_base"]]
    if losing:
        worst = max(losing)
        out.append(f"Where STC really costs at least as much as minified JSON ({len(losing)} documents), the largest saving the "
                   f"estimator predicted was {worst[0] * 100:+.1f}% ({worst[1]}): on this corpus a margin above that avoids all harm "
                   "with the estimator; the exact tokenizer (`--tokenizer o200k_base`) avoids it by construction.\n")
    out.append("The gate's decision replayed from the counts above for other margins (same rule as `encode_gated`: "
               "STC iff `stc < json` and `stc <= json * (1 - margin)`, counted with the estimator), o200k_base tokens of the output:\n")
    out.append("| margin | STC chosen | harmed documents | tokens of gated output (all documents) | vs minified JSON | saving left on the table vs an exact oracle |")
    out.append("|---:|---:|---:|---:|---:|---:|")
    total_json = sum(d["formats"]["json_min"]["o200k_base"] for d in docs)
    oracle = sum(min(d["formats"]["json_min"]["o200k_base"], d["formats"]["stc_compact"]["o200k_base"]) for d in docs)
    for m in [0.0, 0.02, 0.05, 0.06, 0.07, 0.08, 0.10, 0.15]:
        chosen = harmed = total = 0
        for d in docs:
            je, se = d["formats"]["json_min"]["estimate"], d["formats"]["stc_compact"]["estimate"]
            jt, st = d["formats"]["json_min"]["o200k_base"], d["formats"]["stc_compact"]["o200k_base"]
            if se < je and se <= je * (1 - m):
                chosen += 1
                harmed += st > jt
                total += st
            else:
                total += jt
        out.append(f"| {m:.2f} | {chosen} | {harmed} | {fmt_int(total)} | {pct(total, total_json)} | {fmt_int(total - oracle)} |")
    out.append("")
    return harms


FLOOR_FORMATS = [
    ("floor", "values-only floor"),
    ("stc_v1_old", "v1 old rules"),
    ("stc_compact", "v1 cost-driven"),
    ("stc_v2", "v2"),
    ("toon", "TOON"),
]


def best_stc(data):
    """The STC text the gap is measured on: v2 when it was built, else v1 cost-driven."""
    return "stc_v2" if data.get("v2", {}).get("built") else "stc_compact"


def gap_parts(members, key, tokenizer):
    """Tokens of `key` minus the floor's, split by byte class (see bench/stc-bench/src/gap.rs), summed."""
    parts = {"gap": 0.0, "keys": 0.0, "header_keys": 0.0, "counts": 0.0, "punct": 0.0, "values": 0.0}
    for d in members:
        s, f = d["split"].get(key), d["split"]["floor"]
        if s is None:
            return None
        s, f = s[tokenizer], f[tokenizer]
        parts["gap"] += s["tokens"] - f["tokens"]
        parts["keys"] += s["key"] + s["header_key"]
        parts["header_keys"] += s["header_key"]
        parts["counts"] += s["count"]
        parts["punct"] += s["punct"] - f["punct"]
        parts["values"] += s["value"] - f["value"]
    return parts


def floor_row(members, tokenizer, best, label, n=None):
    j = sum(d["formats"]["json_min"][tokenizer] for d in members)
    cells = [label] + ([str(n)] if n is not None else []) + [fmt_int(j)]
    for f, _ in FLOOR_FORMATS:
        if all(f in d["formats"] for d in members):
            cells.append(f"{sum(d['formats'][f][tokenizer] for d in members) / j:.3f}")
        else:
            cells.append("not built yet" if f == "stc_v2" else "n/a")
    g = gap_parts(members, best, tokenizer)
    if g is None or g["gap"] < 0.005 * j:
        # A gap under 0.5% of the JSON tokens splits into shares that are noise.
        cells += [f"{g['gap'] / j:.3f}" if g else "n/a"] + ["—"] * 5
    else:
        share = lambda x: f"{100 * x / g['gap']:.0f}%"
        cells += [f"{g['gap'] / j:.3f}", share(g["keys"]), share(g["header_keys"]), share(g["counts"]),
                  share(g["punct"]), share(g["values"])]
    return "| " + " | ".join(cells) + " |"


def floor_section(data, out):
    """Issue 16: the values-only floor, v1 old rules, v1 cost-driven, v2, TOON, and the split of the remaining gap."""
    docs = data["docs"]
    best = best_stc(data)
    best_name = dict(FLOOR_FORMATS)[best]
    out.append("## Toward the values-only floor (issue 16)\n")
    out.append("Tokens as a ratio to minified JSON (class rows: ratio of the class totals). Columns:\n")
    out.append("- **values-only floor**: every scalar value as its JSON lexeme (strings quoted, numbers verbatim), joined by "
               "commas in document order; no keys, brackets or counts. No format that writes every value in its place "
               "spends fewer tokens.\n"
               "- **v1 old rules**: the encoder of commit 59b8d1c (fixed rules), extracted from git history by "
               "`bench/v1rules.sh` and built beside the current core; compact profile.\n"
               "- **v1 cost-driven**: the current stc-core, version 1 (default), compact profile.\n"
               "- **v2**: the current stc-core with version 2, compact profile"
               + ("" if data.get("v2", {}).get("built") else
                  f" — **{data.get('v2', {}).get('reason', 'not built yet')}**") + ".\n"
               "- **TOON**: `@toon-format/toon`, default options.\n")
    out.append(f"**Gap split** (of {best_name}): gap = its tokens − the floor's tokens, shown as a ratio to minified JSON. "
               "Every byte of the STC text is classed as value, key (member keys and column names), count (the digits of "
               "`[N]`/`{N}`) or punctuation (brackets, braces, `:`, `,`, `/`, `~`, whitespace); the floor's bytes as value "
               "or punctuation (its commas). Each token of the exact BPE encoding is shared among the classes in "
               "proportion to the bytes it covers, so each text's class shares sum to its token count. Then gap = keys + "
               "counts + (punctuation − floor's punctuation) + (value tokens − floor's value tokens); the last part is "
               "the same value bytes cut into tokens differently by their neighbours (negative when STC's neighbours "
               "merge better than the floor's commas). Shares are of the gap (—: a gap under 0.005 of the JSON tokens, too "
               "small to split); \"of which column names\" is part of "
               "\"keys\". The classifier is checked on every text: it finds exactly the document's number of scalars"
               + ("" if all(s["values_found"] == d["scalars"] for d in docs for s in d["split"].values())
                  else " (**except where stc-bench warned on stderr**)") + ".\n")
    head = ("| JSON min tokens | " + " | ".join(n for _, n in FLOOR_FORMATS) +
            " | gap | keys | of which column names | counts | punctuation | values |")
    for tokenizer in ("o200k_base", "cl100k_base"):
        out.append(f"### Per class ({tokenizer})\n")
        out.append("| class | docs " + head)
        out.append("|---|---:|---:|" + "---:|" * (len(FLOOR_FORMATS) + 6))
        for cls, label in CLASSES + [("all", "**all documents**")]:
            members = [d for d in docs if cls == "all" or d["class"] == cls]
            out.append(floor_row(members, tokenizer, best, label, len(members)))
        out.append("")
        out.append(f"### Per document ({tokenizer})\n")
        out.append("| document | class " + head)
        out.append("|---|---|---:|" + "---:|" * (len(FLOOR_FORMATS) + 6))
        for d in docs:
            out.append(floor_row([d], tokenizer, best, d["name"], None).replace(f"| {d['name']} |", f"| {d['name']} | {d['class']} |", 1))
        out.append("")
    rt_old = sum(1 for d in docs if d.get("old_roundtrip_ok"))
    v2_rt = [d.get("v2_roundtrip_ok") for d in docs if "stc_v2" in d["formats"]]
    out.append(f"Round trip of the old rules' text through its own decoder (of 59b8d1c: its top-level tables are not enclosed in `( )`, which the current decoder requires): {rt_old} of {len(docs)} documents.")
    if v2_rt:
        ok = sum(1 for x in v2_rt if x is True)
        out.append(f" v2 round trip (decode with version 2 gives the minified input back): **{ok} of {len(v2_rt)}** documents.")
        bad = [(d["name"], d.get("v2_roundtrip_ok")) for d in docs if "stc_v2" in d["formats"] and d.get("v2_roundtrip_ok") is not True]
        if bad:
            out.append(" The v2 figures of these documents count a text that does not decode back:\n")
            out.extend(f"- {name}: " + ("decodes to a different value" if why is False else str(why)) for name, why in bad)
    out.append("\n")


def v2_rules_section(data, out):
    """Issue 25: v2 as of commit 7a534d7 (before the safety and planner rules) against v2 now, per class,
    with the width rule's share (v2 now against the same stc-core with the width rule off)."""
    docs = data["docs"]
    keys = ("stc_v2_before", "stc_v2_nowidth", "stc_v2")
    out.append("## STC v2 before and after the safety and planner rules (issue 25)\n")
    if not data.get("v2", {}).get("built") or not all(k in d["formats"] for d in docs for k in keys):
        out.append("Not measured: `stc-bench tokens` did not write `stc_v2_before`/`stc_v2_nowidth` (stc-bench built "
                   "without `--features v2`, or from before these rows).\n")
        return
    out.append("Compact profile, o200k_base tokens; ratios to minified JSON (class rows: ratio of the class totals). "
               "Columns:\n")
    out.append("- **v2 before**: stc-core as of commit 7a534d7, before issue 25's rules, extracted from git history by "
               "`bench/v1rules.sh 7a534d7 stc-core-v2before` and built beside the current core.\n"
               "- **v2 now, width rule off**: the current stc-core with `MAX_ROW_CELLS` set to `usize::MAX` "
               "(`bench/v1rules.sh nowidth stc-core-v2nowidth`): every safety and planner rule but the width rule.\n"
               "- **v2 now**: the current stc-core, version 2.\n"
               "- **safety rules + related rows** = (v2 now, width rule off) − (v2 before): the enclosure of top-level "
               "tables in `( )` (spec 3.12), the bare-string allow-list and reserved marks (3.11), and tables of related "
               "rows only (5.5).\n"
               "- **width rule** = (v2 now) − (v2 now, width rule off): at most 48 cells a row through column groups "
               "(5.8).\n")
    tok = "o200k_base"
    out.append("| class | docs | JSON min | v2 before | v2 now, width rule off | v2 now | change | of which safety rules + related rows | of which width rule |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cls, label in CLASSES + [("all", "**all documents**")]:
        members = [d for d in docs if cls == "all" or d["class"] == cls]
        j = sum(d["formats"]["json_min"][tok] for d in members)
        b, n, v = (sum(d["formats"][k][tok] for d in members) for k in keys)
        out.append(f"| {label} | {len(members)} | {fmt_int(j)} | {fmt_int(b)} ({b / j:.3f}) | {fmt_int(n)} ({n / j:.3f}) | "
                   f"{fmt_int(v)} ({v / j:.3f}) | {v - b:+,} ({pct(v, b)}) | {n - b:+,} | {v - n:+,} |")
    out.append("")
    def ratio(cls):
        members = [d for d in docs if d["class"] == cls]
        return sum(d["formats"]["stc_v2"][tok] for d in members) / sum(d["formats"]["json_min"][tok] for d in members)
    dearer = [f"{d['name']} (+{d['formats']['stc_v2'][tok] - d['formats']['stc_compact'][tok]})" for d in docs
              if d["formats"]["stc_v2"][tok] > d["formats"]["stc_compact"][tok]]
    out.append(f"Issue 25's targets with the rules: nested {ratio('nested'):.3f}× "
               f"({'**met**' if ratio('nested') <= 0.85 else '**not met**'}: at most 0.85×), semi-uniform "
               f"{ratio('semi'):.3f}× ({'**met**' if ratio('semi') <= 0.85 else '**not met**'}: at most 0.85×); "
               f"v2 dearer than v1 (cost-driven, compact) in o200k_base on {len(dearer)} of {len(docs)} documents"
               + (f" (**not met**: {', '.join(dearer)})" if dearer else " (**met**)") + ".\n")
    changed = [d for d in docs if d["formats"]["stc_v2"][tok] != d["formats"]["stc_v2_before"][tok]]
    if changed:
        out.append("Documents whose v2 tokens changed:\n")
        out.append("| document | class | v2 before | v2 now, width rule off | v2 now | change | of which safety rules + related rows | of which width rule |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|")
        for d in changed:
            b, n, v = (d["formats"][k][tok] for k in keys)
            out.append(f"| {d['name']} | {d['class']} | {fmt_int(b)} | {fmt_int(n)} | {fmt_int(v)} | {v - b:+,} ({pct(v, b)}) | {n - b:+,} | {v - n:+,} |")
        out.append("")
    rts = [d.get("v2_variants_roundtrip_ok", {}) for d in docs]
    for k, label in (("stc_v2_before", "v2 before"), ("stc_v2_nowidth", "v2 now with the width rule off")):
        ok = sum(1 for r in rts if r.get(k) is True)
        out.append(f"Round trip of {label} through its own version-2 decoder: {ok} of {len(docs)} documents.")
    out.append("\n")


TECHNIQUES = {
    "nested_cells": "tables with nested cells (vs flat cells only)",
    "compact_arrays": "compact `[N]:` arrays of scalars where cheaper",
    "tables": "tables `[N]{cols}:` at all",
    "arrays_of_arrays": "compact `[N]:` arrays holding containers (arrays of arrays)",
    "column_groups": "column groups `user{id,name}`",
    "absent_cells": "absent cells `~`",
    "keyed_tables": "keyed tables `{N}{cols}: key:cells`",
    "bare_strings": "bare (unquoted) string values",
}


def techniques_section(out_dir, out):
    """Per technique: the tokens it saves (with it off minus all on), from `stc-bench techniques`."""
    data = load(os.path.join(out_dir, "techniques.json"))
    out.append("## What each technique saves\n")
    if not data or not data.get("docs"):
        out.append(f"Not measured: {(data or {}).get('reason', '`stc-bench techniques` did not run')}.\n")
        return
    docs = data["docs"]
    out.append("`stc-bench techniques` encodes every document (compact profile) with every encoder technique on, then "
               "with each one switched off alone (`stc_core::Techniques`, a switch for measurement only: output with a "
               "technique off is valid STC but not the reference output). A technique's saving is the tokens with it "
               "off minus the tokens with all on, summed over the class, in brackets as a share of the class's "
               "minified JSON tokens. Rows *all on* give the tokens and their ratio to minified JSON. Version 1 rows "
               "switch only version 1 techniques; version 2 rows switch every technique with version 2 written. "
               "Savings are not additive: techniques overlap (a table whose cells hold objects saves nothing once "
               "groups flatten them, and so on).\n")
    classes = CLASSES + [("all", "all documents")]
    for tokenizer in ("o200k_base", "cl100k_base"):
        out.append(f"### {tokenizer}\n")
        out.append("| | " + " | ".join(label for _, label in classes) + " |")
        out.append("|---|" + "---:|" * len(classes))
        members = {cls: [d for d in docs if cls == "all" or d["class"] == cls] for cls, _ in classes}
        json_tok = {cls: sum(d["json_min"][tokenizer] for d in ms) for cls, ms in members.items()}
        out.append("| minified JSON | " + " | ".join(fmt_int(json_tok[c]) for c, _ in classes) + " |")
        for version in ("v1", "v2"):
            on = {cls: sum(d["versions"][version]["all"][tokenizer] for d in ms) for cls, ms in members.items()}
            out.append(f"| **{version} all on** | " + " | ".join(
                f"**{fmt_int(on[c])}** ({on[c] / json_tok[c]:.3f})" if json_tok[c] else "—" for c, _ in classes) + " |")
            for name in data["techniques"]:
                if not all(name in d["versions"][version]["off"] for d in docs):
                    continue
                cells = []
                for c, _ in classes:
                    saved = sum(d["versions"][version]["off"][name][tokenizer] for d in members[c]) - on[c]
                    cells.append(f"{saved:+,} ({100 * saved / json_tok[c]:+.1f}%)" if json_tok[c] else "—")
                out.append(f"| {version} without {TECHNIQUES.get(name, name)} | " + " | ".join(cells) + " |")
        out.append("")
    failures = [(d["name"], f) for d in docs for f in d.get("roundtrip_failures", [])]
    checked = sum(1 + len(v["off"]) for d in docs for v in d["versions"].values())
    if failures:
        out.append(f"**Round trip failed** for {len(failures)} of {checked} texts:\n")
        out.extend(f"- {n}: {f}" for n, f in failures)
    else:
        out.append(f"Every text (all on and each technique off, {checked} texts over {len(docs)} documents) decodes back "
                   "to the minified input at its version.")
    out.append("\n")


def targets_section(data, crit, out):
    """The targets of issue 16 with pass/fail, from this run's figures."""
    docs = data["docs"]
    v2_built = bool(data.get("v2", {}).get("built"))
    out.append("## Issue 16 targets (o200k_base, against minified JSON)\n")
    out.append("| target | v1 cost-driven | v2 |")
    out.append("|---|---|---|")
    tok = "o200k_base"

    def total_ratio(cls, f):
        members = [d for d in docs if d["class"] == cls]
        return sum(d["formats"][f][tok] for d in members) / sum(d["formats"]["json_min"][tok] for d in members)

    def verdict(ok, text):
        return f"{'**met**' if ok else '**not met**'}: {text}"

    def per_format(fn):
        cells = [fn("stc_compact")]
        cells.append(fn("stc_v2") if v2_built else "not built yet")
        return cells
    for cls, label in [("nested", "Nested API responses at most 0.85× (class total)"),
                       ("semi", "Semi-uniform records at most 0.85× (class total)")]:
        cells = per_format(lambda f: verdict(total_ratio(cls, f) <= 0.85, f"{total_ratio(cls, f):.3f}×"))
        out.append(f"| {label} | " + " | ".join(cells) + " |")

    def below_toon(f):
        flat = [d for d in docs if d["class"] == "flat" and "toon" in d["formats"]]
        worse = [d["name"] for d in flat if d["formats"][f][tok] >= d["formats"]["toon"][tok]]
        return verdict(not worse, f"{len(flat) - len(worse)} of {len(flat)} below TOON" + (f" (not: {', '.join(worse)})" if worse else ""))
    out.append("| Flat tables: below TOON on every document | " + " | ".join(per_format(below_toon)) + " |")

    def no_worse(f):
        worse = [f"{d['name']} (+{d['formats'][f][tok] - d['formats']['stc_v1_old'][tok]})" for d in docs
                 if d["formats"][f][tok] > d["formats"]["stc_v1_old"][tok]]
        return verdict(not worse, f"{len(docs) - len(worse)} of {len(docs)} documents at most the old rules' tokens"
                       + (f"; more: {', '.join(worse)}" if worse else ""))
    out.append("| No document more expensive than v1 with the old rules | " + " | ".join(per_format(no_worse)) + " |")

    if v2_built:
        rt = [d.get("v2_roundtrip_ok") for d in docs if "stc_v2" in d["formats"]]
        ok = sum(1 for x in rt if x is True)
        v1ok = sum(1 for d in docs if d.get("roundtrip_ok"))
        out.append(f"| (precondition) The text decodes back to the input | "
                   f"{'**met**' if v1ok == len(docs) else '**not met**'}: {v1ok} of {len(docs)} | "
                   f"{'**met**' if ok == len(rt) else '**not met**'}: {ok} of {len(rt)}"
                   + ("" if ok == len(rt) else " (listed below the floor tables)") + " |")

    def harm(gated_key):
        harmed = [d["name"] for d in docs if d["formats"][gated_key][tok] > d["formats"]["json_min"][tok]]
        return verdict(not harmed, f"{len(harmed)} of {len(docs)} harmed" + (f" ({', '.join(harmed)})" if harmed else ""))
    out.append("| The gate (estimator, default margin) harms no document | " + harm("gated") + " | "
               + (harm("gated_v2") if v2_built else "not built yet") + " |")
    if crit and crit.get("geomean"):
        g = crit["geomean"]["encode"]
        g2 = crit["geomean"].get("encode_v2")
        out.append(f"| Encode speed at least 1× serde_json parse+write (criterion, geometric mean) | "
                   f"{verdict(g >= 1.0, f'{g:.2f}×')} | "
                   + (verdict(g2 >= 1.0, f"{g2:.2f}×") if g2 else "not measured") + " |")
    else:
        out.append(f"| Encode speed at least 1× serde_json parse+write (criterion) | not measured: "
                   f"{(crit or {}).get('reason', 'criterion.json missing')} | |")
    out.append("")


def flat_rows(rows):
    """Markdown table of a list of dicts, one level of nested dicts flattened (`seconds.stc.loads`)."""
    flat = []
    for r in rows:
        f = {}
        for k, v in (r.items() if isinstance(r, dict) else [("value", r)]):
            if isinstance(v, dict):
                for k2, v2 in v.items():
                    if not isinstance(v2, (dict, list)):
                        f[f"{k}.{k2}"] = v2
            elif not isinstance(v, list):
                f[k] = v
        flat.append(f)
    cols = []
    for f in flat:
        for k in f:
            if k not in cols:
                cols.append(k)
    if not cols:
        return ["(no results)"]

    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "n/a" if v is None else str(v)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for f in flat:
        lines.append("| " + " | ".join(cell(f.get(c)) for c in cols) + " |")
    return lines


def binding_results(res, out):
    """A binding's own results file, rendered without interpreting it: scalars, tables, summary."""
    scalars = {k: v for k, v in res.items() if not isinstance(v, (dict, list))}
    if scalars:
        out.append("; ".join(f"{k}: `{v}`" for k, v in scalars.items()) + "\n")
    for k, v in res.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out.append(f"`{k}`:\n")
            out.extend(flat_rows(v))
            out.append("")
    for k, v in res.items():
        if isinstance(v, dict) and k not in ("operations",):
            items = []
            for k2, v2 in v.items():
                if isinstance(v2, dict):
                    items.extend(f"{k2} {k3}: {v3:.3g}" if isinstance(v3, float) else f"{k2} {k3}: {v3}" for k3, v3 in v2.items())
                elif not isinstance(v2, list):
                    items.append(f"{k2}: {v2:.3g}" if isinstance(v2, float) else f"{k2}: {v2}")
            if items:
                out.append(f"`{k}`: " + "; ".join(items) + "\n")


def speed_section(out_dir, out, bench_dir="."):
    out.append("## Speed\n")
    sp = load(os.path.join(out_dir, "speed_rust.json"))
    out.append("### Rust, one run side by side (`stc-bench speed`)\n")
    if sp:
        out.append(f"Median of repeated runs within {sp['budget_ms']} ms per function; MB/s of each function's input text. "
                   "Every function maps text to text. serde_json here has `preserve_order` and `float_roundtrip` "
                   "(enabled by the toon-format crate; criterion below uses default serde_json). "
                   "TOON: the `toon-format` crate, JSON text → `serde_json::Value` → TOON and back.\n")
        out.append("| document | MB | stc encode | serde_json parse+write | toon-format encode | stc decode | serde_json parse+write (minified) | toon-format decode | notes |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        keys = ["stc_encode", "serde_json_parse_write", "toon_encode", "stc_decode", "serde_json_parse_write_min", "toon_decode"]
        for d in sp["docs"]:
            r = d["results"]
            cells = [f"{r[k]['mb_per_s']:.0f}" if k in r else "n/a" for k in keys]
            out.append(f"| {d['name']} | {d['bytes'] / 1e6:.2f} | " + " | ".join(cells) + f" | {d['note'].strip('; ')} |")
        tot = {k: sum(d["results"][k]["input_bytes"] for d in sp["docs"] if k in d["results"]) /
               sum(d["results"][k]["seconds"] for d in sp["docs"] if k in d["results"]) / 1e6 for k in keys
               if any(k in d["results"] for d in sp["docs"])}
        out.append("| **all (total bytes / total time)** | | " + " | ".join(f"**{tot[k]:.0f}**" if k in tot else "n/a" for k in keys) + " | |")
        out.append("")
    else:
        out.append("Not measured: `speed_rust.json` missing.\n")

    crit = load(os.path.join(out_dir, "criterion.json"))
    out.append("### Rust, criterion (`stc-core/benches/codec.rs`)\n")
    if crit and crit.get("docs"):
        out.append("Mean time per iteration from criterion's `estimates.json`; MB/s of the input. Target: stc decode ≥ serde_json "
                   "parse+write of the minified JSON, stc encode ≥ 0.8 × serde_json parse+write of the same text.\n")
        out.append("Issue 27's target: encode ≥ 3 × serde_json parse+write (geometric mean) in version 1 and in version 2 "
                   "(`encode/stc_v2`, the same document encoded in version 2, timed in the same run).\n")
        out.append("| document | stc encode MB/s | serde_json MB/s | encode ratio | stc v2 encode MB/s | v2 encode ratio "
                   "| stc decode MB/s | serde_json (minified) MB/s | decode ratio |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for d in crit["docs"]:
            e, se, dd, sd = d["encode/stc"], d["encode/serde_json"], d["decode/stc"], d["decode/serde_json"]
            v2 = d.get("encode/stc_v2")
            v2_cells = f"{v2:.0f} | {v2 / se:.2f}" if v2 else "n/a | n/a"
            out.append(f"| {d['name']} | {e:.0f} | {se:.0f} | {e / se:.2f} | {v2_cells} | {dd:.0f} | {sd:.0f} | {dd / sd:.2f} |")
        g = crit["geomean"]
        g2 = f"**{g['encode_v2']:.2f}**" if g.get("encode_v2") else "n/a"
        out.append(f"| **geometric mean of ratios** | | | **{g['encode']:.2f}** | | {g2} | | | **{g['decode']:.2f}** |")
        out.append("")
    else:
        out.append(f"Not measured: {crit.get('reason') if crit else 'criterion.json missing'}.\n")

    for key, title in [("python", "Python binding"), ("node", "Node binding"), ("wasm", "WASM in Node")]:
        out.append(f"### {title}\n")
        res = load(os.path.join(out_dir, f"{key}.json"))
        skip = os.path.join(out_dir, f"{key}.skip")
        if res is not None:
            if key == "python":
                python_vs_orjson(res, out)
            elif key == "node":
                if os.path.exists(os.path.join(bench_dir, "..", "bindings-node", "bench", "CANDIDATES.md")):
                    out.append("What each speed candidate gave, including those that lost: "
                               "[`bindings-node/bench/CANDIDATES.md`](../bindings-node/bench/CANDIDATES.md).\n")
                node_vs_json(res, out)
            out.append(f"All results of the binding's own bench script (`bench/out/{key}.json`), shown as is:\n")
            binding_results(res, out)
        else:
            reason = open(skip).read().strip() if os.path.exists(skip) else "no results file"
            out.append(f"Not measured: {reason}.\n")


def memory_section(out_dir, out):
    out.append("## Memory: peak RSS (issue 12)\n")
    mem = load(os.path.join(out_dir, "rss.json"))
    if not mem:
        out.append("Not measured.\n")
        return
    et, dt = mem.get("encode_target", 2.0), mem.get("decode_target", 1.5)
    runs = mem.get("runs", 1)
    if "baseline_empty_kb" in mem:
        base_text = (f"Baseline (the constant): the same tool encoding a document of under 1 KB that takes every path of "
                     f"the encoder (a table with a column group, a keyed table, nested arrays, strings, an escape; "
                     f"`bench/rss.py`) = {mem['baseline_kb'] / 1024:.1f} MiB: what the tool holds whatever the input's "
                     f"size, its code included (encoding `{{}}` = {mem['baseline_empty_kb'] / 1024:.1f} MiB touches "
                     f"less of it, and is the decoder's constant). ")
    else:
        base_text = f"Baseline (the constant): the same tool encoding `{{}}` = {mem['baseline_kb'] / 1024:.1f} MiB. "
    if runs > 1:
        base_text += (f"Every peak is the least of {runs} runs (inputs above 64 MiB: one): the same command's peak "
                      "varies by a few hundred KiB from run to run. ")
    out.append(f"`/usr/bin/time -v {mem['tool']} encode|decode FILE > FILE`, maximum resident set size. "
               + base_text +
               f"Ratio = (peak − baseline) ÷ input size (JSON for encode, STC for decode). Targets: encode at most "
               f"{et:g}× the input plus the constant, decode at most {dt:g}×. Small inputs are dominated by the allocator "
               "and page granularity (a row over its target by less than 1 MiB in all says so); the large ones decide.\n")
    out.append("| input | input MiB | encode peak MiB | encode ratio | decode input (STC) MiB | decode peak MiB | decode ratio |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    b = mem["baseline_kb"]
    b_decode = mem.get("baseline_empty_kb", b)

    def ratio(kb, nbytes, target, b=b):
        v = (kb - b) * 1024 / nbytes
        if v > target and kb - b < 1024:
            mark = "within 1 MiB of the baseline"
        else:
            mark = "met" if v <= target else "**not met**"
        return (f"{v:.2f}" if v >= 0.01 else "<0.01") + f" ({mark})"
    for r in mem["rows"]:
        out.append(f"| {r['name']} | {r['json_bytes'] / 2**20:.2f} | {r['encode_kb'] / 1024:.1f} | {ratio(r['encode_kb'], r['json_bytes'], et)} | "
                   f"{r['stc_bytes'] / 2**20:.2f} | {r['decode_kb'] / 1024:.1f} | {ratio(r['decode_kb'], r['stc_bytes'], dt, b_decode)} |")
    out.append("")
    big = max(mem["rows"], key=lambda r: r["json_bytes"])
    out.append("`stc decode` checks the whole input first (invalid input still prints nothing on stdout), then decodes it "
               "again straight to stdout in 64 KiB chunks: its peak is the input text plus a constant. `stc encode` "
               "parses the input into the encoder's tape (`stc-core/src/document/tape.rs`: 8 bytes for every value, key "
               "and container; numbers, strings and keys are spans of the input, and only a string whose escaping is not "
               "canonical, such as `\\u00e9` or `\\/`, is copied, re-escaped, into one arena), decides every "
               "container's form (12 bytes per container while deciding: its tape index, form and cost as `u32`; 8 "
               "while writing; plus the column lists of the tables chosen; a table is priced row by row as its rows "
               "are read off the tape, never from a list of its rows, and a candidate's text is estimated in parts, "
               "at most 16 KiB of it held), and writes the STC text to stdout in 64 KiB pieces as it is made "
               "(`Document::encode_to`): it holds the input, the tape and the decisions, never the whole output. The "
               "encoder needs the whole document in memory because it looks at each array whole before it chooses a "
               "form.\n")
    mib = 2**20

    def composition(r):
        rest = (r["encode_kb"] - b) * 1024
        tape = 8 * r["nodes"]
        other = rest - r["json_bytes"] - tape
        x = lambda n: n / r["json_bytes"]
        return (f"{r['name']} ({r['nodes']:,} tape nodes): peak − baseline = {rest / mib:.1f} MiB = the input "
                f"{r['json_bytes'] / mib:.1f} MiB (1×) + the tape {tape / mib:.1f} MiB ({x(tape):.2f}×) + the rest "
                f"{other / mib:.1f} MiB ({x(other):.2f}×)")
    if big.get("nodes"):
        out.append(f"- Composition of the largest: {composition(big)}; the rest is the encoder's decisions and "
                   "working text, the output piece and the allocator.")
    over = [r for r in mem["rows"] if r.get("nodes") and (r["encode_kb"] - b) * 1024 / r["json_bytes"] > et
            and r["encode_kb"] - b >= 1024]
    for r in over:
        out.append(f"- Over the target: {composition(r)}.")
    emp = [r for r in mem["rows"] if r.get("nodes") and r["name"].startswith("mem_employees_")
           and r["json_bytes"] >= 2**20 and r not in over]
    for r in emp:
        out.append(f"- A table of flat rows: {composition(r)}.")
    if over or emp:
        out.append("  The rest is the planner's own memory: 12 bytes per container while it decides (a document of "
                   "many small containers, such as canada.json's coordinate pairs or a table's rows, pays it on each), "
                   "at most 16 KiB of candidate text, the 64 KiB output piece, and a `u32` per row while version 2 "
                   "infers a table's columns. Most of the peak beyond the input is the tape (8 bytes a node); what "
                   "would remove it is an encoder that reads the input twice (first choosing every container's form "
                   "from statistics gathered in one pass, then writing the text in a second pass): about 1× plus the "
                   "decisions.")
    out.append("")


def geomean(xs):
    import math
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def python_vs_orjson(res, out):
    """Issue 13: stc.loads/dumps beside json and orjson, from bench.py's `documents[].seconds`."""
    docs = res.get("documents") or []
    ops = ["json.loads", "orjson.loads", "stc.loads", "json.dumps", "orjson.dumps", "stc.dumps"]
    if not docs or not all("seconds" in d for d in docs):
        return
    have = [op for op in ops if any((d["seconds"].get(op) or 0) > 0 for d in docs)]
    out.append("Per document, seconds per call (best of the repeats) and the ratios of issue 13 "
               "(`stc.loads` reads the STC text, `json`/`orjson` the minified JSON of the same document):\n")
    out.append("| document | " + " | ".join(have) + " | loads stc/json | loads stc/orjson | dumps stc/json | dumps stc/orjson |")
    out.append("|---|" + "---:|" * (len(have) + 4))
    r = lambda d, a, b: (d["seconds"].get(a) or 0) / d["seconds"][b] if d["seconds"].get(b) else None
    f = lambda x: f"{x:.2f}" if x else "n/a"
    for d in docs:
        s = d["seconds"]
        out.append(f"| {d.get('name', '?')} | " + " | ".join(f"{s[op]:.2e}" if s.get(op) else "n/a" for op in have) + " | "
                   + " | ".join(f(r(d, a, b)) for a, b in [("stc.loads", "json.loads"), ("stc.loads", "orjson.loads"),
                                                           ("stc.dumps", "json.dumps"), ("stc.dumps", "orjson.dumps")]) + " |")
    rows = []
    for a, b, target, worst in [("stc.loads", "orjson.loads", 1.0, 1.5), ("stc.dumps", "orjson.dumps", 1.0, None),
                                ("stc.loads", "json.loads", None, None), ("stc.dumps", "json.dumps", None, None)]:
        ratios = [r(d, a, b) for d in docs]
        ratios = [x for x in ratios if x]
        if not ratios:
            rows.append(f"| {a} / {b} | n/a | n/a | {'' if target is None else 'not measured'} |")
            continue
        g, mx = geomean(ratios), max(ratios)
        verdict = ""
        if target is not None:
            ok = g <= target and (worst is None or mx <= worst)
            verdict = ("**met**" if ok else "**not met**") + f" (target: geometric mean ≤ {target:g}×" + (
                f", no document above {worst:g}×)" if worst else ")")
        rows.append(f"| {a} / {b} | {g:.2f}× | {mx:.2f}× | {verdict} |")
    out.append("")
    out.append("| ratio of times | geometric mean over documents | worst document | issue 13 |")
    out.append("|---|---:|---:|---|")
    out.extend(rows)
    out.append("")


def node_vs_json(res, out):
    """Issue 12: Node parse/stringify against JSON.parse/JSON.stringify, geometric mean of per-document ratios.

    bench.mjs pairs each stc operation with its JSON counterpart in every round;
    a document's ratio is the median of the same-round ratios (`ratio`). Older
    result files have only the per-operation medians (`ms`); their ratio is the
    quotient of the medians.
    """
    docs = res.get("documents") or []
    if not docs or not all("ms" in d for d in docs):
        return

    def doc_ratio(d, a, b):
        paired = (d.get("ratio") or {}).get(a)
        if paired:
            return paired
        return d["ms"][a] / d["ms"][b] if d["ms"].get(a) and d["ms"].get(b) else None

    paired = all((d.get("ratio") or {}).get("stc_parse") for d in docs)
    spread = res.get("spread") or {}
    out.append("| ratio of times (Node) | geometric mean over documents | worst document | "
               + ("spread of the geometric mean over rounds | " if paired and spread else "") + "issue 12 |")
    out.append("|---|---:|---:|" + ("---|" if paired and spread else "") + "---|")
    for a, b in [("stc_parse", "json_parse"), ("stc_stringify", "json_stringify")]:
        ratios = [r for r in (doc_ratio(d, a, b) for d in docs) if r]
        if not ratios:
            out.append(f"| {a} / {b} | n/a | n/a | not measured |")
            continue
        g = geomean(ratios)
        worst = max(range(len(ratios)), key=lambda i: ratios[i])
        cells = [f"{a} / {b}", f"{g:.2f}×", f"{ratios[worst]:.2f}× ({docs[worst].get('file', '?')})"]
        if paired and spread:
            cells.append(spread.get(f"geomean_{a}_per_round", "n/a"))
        cells.append(f"{'**met**' if g <= 1.5 else '**not met**'} (target ≤ 1.5×)")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    if paired:
        out.append(f"Per document, each stc operation is timed beside its JSON counterpart in {res.get('rounds', '?')} "
                   "interleaved rounds (order reversed every other round); its ratio is the median of the same-round "
                   "ratios, and the spread column gives the geometric mean computed round by round.\n")


def issue27_section(out_dir, crit, out):
    """Issue 27's targets, each with this run's figure: the bindings' speed beside their JSON peers, the
    core's encode against serde_json, and the browser package's gzipped modules."""
    out.append("## Issue 27 targets (speed and size where binding users feel them)\n")
    out.append("Each figure is from this run, measured side by side with its peer (sections below give every "
               "document). Where a target is not met, `stc-core/PERF.md`, `bindings-node/bench/CANDIDATES.md`, "
               "`bindings-python/bench/CANDIDATES.md` and `bindings-wasm/README.md` say what bounds it.\n")
    out.append("| measure | this run | target | |")
    out.append("|---|---:|---|---|")

    def row(label, value, target, ok):
        verdict = "n/a" if ok is None else ("**met**" if ok else "**not met**")
        out.append(f"| {label} | {value} | {target} | {verdict} |")

    node = load(os.path.join(out_dir, "node.json")) or {}
    ndocs = node.get("documents") or []
    for a, b, label, every in [("stc_parse", "json_parse", "Node `parse` / `JSON.parse`", True),
                               ("stc_stringify", "json_stringify", "Node `stringify` / `JSON.stringify`", False)]:
        pairs = [((d.get("ratio") or {}).get(a), d.get("file", "?")) for d in ndocs]
        pairs = [(r, f) for r, f in pairs if r]
        if not pairs:
            row(label, "not measured", "≤ 1.5×" + (" on every document" if every else " geometric mean"), None)
            continue
        g, (mx, worst) = geomean([r for r, _ in pairs]), max(pairs)
        over = sum(1 for r, _ in pairs if r > 1.5)
        value = f"{g:.2f}× geometric mean; worst {mx:.2f}× ({worst}); {len(pairs) - over} of {len(pairs)} ≤ 1.5×"
        if every:
            row(label, value, "≤ 1.5× on every document", mx <= 1.5)
        else:
            row(label, value, "≤ 1.5× geometric mean", g <= 1.5)

    py = load(os.path.join(out_dir, "python.json")) or {}
    pdocs = [d for d in py.get("documents") or [] if "seconds" in d]
    for a, b, label, target, worst in [("stc.loads", "orjson.loads", "Python `stc.loads` / `orjson.loads`", 1.0, 1.2),
                                       ("stc.dumps", "orjson.dumps", "Python `stc.dumps` / `orjson.dumps`", 2.5, None)]:
        pairs = [(d["seconds"][a] / d["seconds"][b], d.get("name", "?")) for d in pdocs
                 if d["seconds"].get(a) and d["seconds"].get(b)]
        text = f"≤ {target:g}× geometric mean" + (f", no document above {worst:g}×" if worst else "")
        if not pairs:
            row(label, "not measured", text, None)
            continue
        g, (mx, name) = geomean([r for r, _ in pairs]), max(pairs)
        row(label, f"{g:.2f}× geometric mean; worst {mx:.2f}× ({name})", text,
            g <= target and (worst is None or mx <= worst))

    geo = (crit or {}).get("geomean") or {}
    docs = (crit or {}).get("docs") or []
    for key, fn, label in [("encode", "encode/stc", "Rust encode / serde_json parse+write, version 1 (criterion)"),
                           ("encode_v2", "encode/stc_v2", "Rust encode / serde_json parse+write, version 2 (criterion)")]:
        g = geo.get(key)
        if g is None:
            row(label, "not measured", "≥ 3× geometric mean", None)
            continue
        ratios = sorted((d[fn] / d["encode/serde_json"], d["name"]) for d in docs if d.get(fn) and d.get("encode/serde_json"))
        low = ", ".join(f"{n} {r:.2f}×" for r, n in ratios[:2])
        row(label, f"{g:.2f}× geometric mean (lowest: {low})", "≥ 3× geometric mean", g >= 3)

    fp = load(os.path.join(out_dir, "footprint.json")) or {}
    modules = fp.get("wasm_modules") or {}
    for key, label in [("decode", "browser package, decode-only module (`stc-wasm/decode`), gzipped"),
                       ("codec", "browser package, encode and decode (`stc-wasm`), gzipped"),
                       ("stash", "browser package, stash module (`stc-wasm/stash`, loaded on demand), gzipped")]:
        m = modules.get(key) or {}
        target = m.get("target_gzip_bytes")
        text = f"≤ {target / 1000:g} KB" if target else "no target (loaded only by `loadStash()`)"
        if "gzip_bytes" not in m:
            row(label, "not built", text, None)
            continue
        row(label, f"{fmt_int(m['gzip_bytes'])} bytes ({fmt_int(m['bytes'])} raw)", text,
            None if not target else m["gzip_bytes"] <= target)
    out.append("")


def footprint_section(out_dir, out):
    """Issue 12: package sizes, from bench/footprint.py."""
    fp = load(os.path.join(out_dir, "footprint.json"))
    out.append("## Footprint (issue 12)\n")
    if not fp:
        out.append("Not measured: `footprint.json` missing.\n")
        return
    target = fp.get("target_bytes", 2_000_000)
    mb = lambda n: f"{n / 1e6:.2f} MB" if n is not None else "n/a"
    out.append(f"Sizes as built (`bench/footprint.py`); 1 MB = 10⁶ bytes. Target: the default Python wheel and the "
               f"Node addon each at most {mb(target)}; the CLI may keep the exact tokenizer tables.\n")
    out.append("| artifact | size | measured as shipped | built | target |")
    out.append("|---|---:|---:|---|---|")
    rows = [("Python wheel", "python_wheel", "bytes", "the `.whl` (compressed)", True),
            ("Node addon `stc.node`", "node_addon", "stripped_bytes", "stripped (`strip -o`)", True),
            ("wasm module `stc_wasm_bg.wasm`", "wasm", "gzip_bytes", "gzipped (`gzip -9`)", False),
            ("CLI `target/release/stc`", "cli", "stripped_bytes", "stripped (`strip -o`)", False)]
    for label, key, shipped, how, has_target in rows:
        a = fp.get(key) or {}
        if "bytes" not in a:
            out.append(f"| {label} | not built | | | {a.get('reason', '')} |")
            continue
        shipped_n = a.get(shipped, a["bytes"])
        verdict = ""
        if has_target and shipped_n is not None:
            verdict = ("**met**" if shipped_n <= target else "**not met**") + f" (≤ {mb(target)})"
        out.append(f"| {label} | {mb(a['bytes'])} | {mb(shipped_n)} {how} | {a.get('built', '')} | {verdict} |")
    out.append("")


def criterion_json(crit_dir, out_path):
    """Collects criterion's results (`CRIT_DIR/<doc>/<function>/new/`) into one file."""
    docs = {}
    for root, _dirs, files in os.walk(crit_dir):
        if os.path.basename(root) == "new" and "estimates.json" in files and "benchmark.json" in files:
            bench = load(os.path.join(root, "benchmark.json"))
            est = load(os.path.join(root, "estimates.json"))
            nbytes = (bench.get("throughput") or {}).get("Bytes")
            if nbytes is None:
                continue
            mean_ns = est["mean"]["point_estimate"]
            docs.setdefault(bench["group_id"], {})[bench["function_id"]] = nbytes / (mean_ns / 1e9) / 1e6
    keys = ["encode/stc", "encode/serde_json", "decode/stc", "decode/serde_json"]
    rows = [dict(name=name, **fns) for name, fns in sorted(docs.items()) if all(k in fns for k in keys)]
    result = {"docs": rows}
    if rows:
        import math
        geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
        result["geomean"] = {"encode": geo([r["encode/stc"] / r["encode/serde_json"] for r in rows]),
                             "decode": geo([r["decode/stc"] / r["decode/serde_json"] for r in rows])}
        if all("encode/stc_v2" in r for r in rows):
            result["geomean"]["encode_v2"] = geo([r["encode/stc_v2"] / r["encode/serde_json"] for r in rows])
    else:
        result["reason"] = f"no criterion results under {crit_dir}"
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)


def services_section(out_dir, out):
    """The sections written by bench/services/*.sh, in name order."""
    sdir = os.path.join(out_dir, "services")
    parts = sorted(f for f in os.listdir(sdir) if f.endswith(".md")) if os.path.isdir(sdir) else []
    if not parts:
        return
    out.append("## Services\n")
    out.append("Each service is measured on loopback by its own `bench/services/NAME.sh` (bounded in count and time) "
               "with the release `stc` binary.\n")
    for name in parts:
        with open(os.path.join(sdir, name)) as f:
            out.append(f.read().rstrip() + "\n")


def main():
    if sys.argv[1] == "criterion":
        return criterion_json(sys.argv[2], sys.argv[3])
    out_dir, bench_dir = sys.argv[1], sys.argv[2]
    env = load(os.path.join(out_dir, "env.json"), {})
    data = load(os.path.join(out_dir, "tokens.json"))
    manifest = load(os.path.join(out_dir, "manifest.json"))
    toon = load(os.path.join(out_dir, "toon", "toon.json"), {})
    docs = data["docs"]
    out = ["# STC benchmark report", ""]
    out.append("Generated by `bench/run.sh`; every figure below comes from that run. Do not edit by hand.\n")
    out.append("## Machine, versions, commands\n")
    for k, v in env.get("header", {}).items():
        out.append(f"- **{k}**: {v}")
    out.append(f"- **TOON (tokens)**: `{toon.get('package', '?')}` {toon.get('version', '?')} on Node {toon.get('node', '?')}, default options")
    out.append("\nCommands run:\n")
    out.append("```text")
    out.extend(env.get("commands", []))
    out.append("```\n")

    o200 = class_totals(docs, "o200k_base")
    a = o200["all"]
    out.append("## Summary\n")
    lines = []
    for cls, label in CLASSES + [("all", "all documents")]:
        t = o200[cls]
        lines.append(f"- **{label}** ({t['_n']} docs): STC compact {pct(t['stc_compact'], t['json_min'])}, "
                     f"TOON {pct(t['toon'], t['json_min'])}, STC readable {pct(t['stc_readable'], t['json_min'])}, "
                     f"gated STC {pct(t['gated'], t['json_min'])} against minified JSON; "
                     f"pretty JSON is {pct(t['json_pretty'], t['json_min'])}.")
    out.append("Tokens (o200k_base) against minified JSON, per class: the change of the class total (large documents "
               "dominate it) and, in brackets, the mean of the per-document changes (every document weighs the same).\n")
    out.append("| class | docs | " + " | ".join(name for f, name in FORMATS if f != "json_min") + " |")
    out.append("|---|---:|" + "---:|" * (len(FORMATS) - 1))
    for cls, label in CLASSES + [("all", "**all documents**")]:
        t = o200[cls]
        members = [d for d in docs if cls == "all" or d["class"] == cls]
        cells = []
        for f, _ in FORMATS:
            if f == "json_min":
                continue
            ch = [d["formats"][f]["o200k_base"] / d["formats"]["json_min"]["o200k_base"] - 1 for d in members if f in d["formats"]]
            cells.append(f"{pct(t[f], t['json_min'])} ({100 * sum(ch) / len(ch):+.1f}%)")
        out.append(f"| {label} | {t['_n']} | " + " | ".join(cells) + " |")
    out.append("")
    mape_all, _ = None, None
    harms = sum(1 for d in docs if d["formats"]["gated"]["o200k_base"] > d["formats"]["json_min"]["o200k_base"])
    out.append("- The STC columns above are version 1 (the default of stc-core and of `stc encode`). "
               + ("Version 2, compact profile (what `stc mcp` and `stc mcp-proxy` write by default), against minified "
                  "JSON per class total: " + "; ".join(
                      f"{label} {pct(sum(d['formats']['stc_v2']['o200k_base'] for d in docs if cls == 'all' or d['class'] == cls), o200[cls]['json_min'])}"
                      f" (gated {pct(sum(d['formats']['gated_v2']['o200k_base'] for d in docs if cls == 'all' or d['class'] == cls), o200[cls]['json_min'])})"
                      for cls, label in CLASSES + [("all", "all documents")]) + "."
                  if all("stc_v2" in d["formats"] and "gated_v2" in d["formats"] for d in docs)
                  else "Version 2 was not measured in this run."))
    out.append(f"- Gate harm (gated output costs more o200k tokens than minified JSON): {harms} of {len(docs)} documents.")
    errs = [abs(d["formats"][f]["estimate"] / d["formats"][f]["o200k_base"] - 1) for d in docs
            for f in ("json_min", "json_pretty", "stc_compact", "stc_readable")]
    out.append(f"- Token estimator (`Tokenizer::Estimate`, the gate's default) against o200k_base: mean absolute error "
               f"{100 * sum(errs) / len(errs):.1f}%, largest {100 * max(errs):.1f}% over {len(errs)} texts.")
    crit = load(os.path.join(out_dir, "criterion.json"))
    if crit and crit.get("geomean"):
        out.append(f"- Rust speed (criterion, geometric mean over {len(crit['docs'])} corpus documents): stc encode runs at "
                   f"{crit['geomean']['encode']:.2f}× and stc decode at {crit['geomean']['decode']:.2f}× the throughput of "
                   "serde_json parsing the same text into a `Value` and writing it back.")
    out.append(f"- STC round trip (decode(encode(x)) = minified x) held on {sum(d['roundtrip_ok'] for d in docs)} of {len(docs)} documents; "
               f"TOON's JSON.parse-level round trip held on {sum(1 for t in toon.get('docs', []) if t['roundtrip'] == 'ok')} of {len(toon.get('docs', []))}.")
    out.append("")
    out.append("![Tokens by format and class](tokens.svg)\n")
    chart(docs, os.path.join(bench_dir, "tokens.svg"))
    issue27_section(out_dir, crit, out)
    targets_section(data, crit, out)
    floor_section(data, out)
    v2_rules_section(data, out)
    techniques_section(out_dir, out)

    out.append("## Tokens\n")
    out.append("Formats: JSON pretty (2-space indent), JSON minified (the gate's baseline), TOON (`@toon-format/toon`, "
               "default options), STC readable and compact (stc-core profiles), STC gated (`encode_gated`, compact profile, "
               "estimator, default margin). Counts by `bpe-openai` (exact o200k_base / cl100k_base BPE).\n")
    token_section(docs, "o200k_base", out)
    token_section(docs, "cl100k_base", out)
    per_doc_table(docs, "o200k_base", out)
    per_doc_table(docs, "cl100k_base", out)
    gate_section(data, out)
    mape_all, mape = estimator_section(docs, out)
    speed_section(out_dir, out, bench_dir)
    memory_section(out_dir, out)
    footprint_section(out_dir, out)
    services_section(out_dir, out)

    out.append("## Datasets\n")
    out.append("| document | class | source | bytes |")
    out.append("|---|---|---|---:|")
    for m in manifest:
        out.append(f"| {m['name']} | {m['class']} | {m['source']} | {fmt_int(os.path.getsize(m['path']))} |")
    out.append("")
    out.append("Generated documents come from `bench/gen.py` (seeded, byte-identical on every run); their kinds follow "
               "TOON's benchmark (employee records, analytics time series, GitHub repositories, event logs, orders, "
               "nested configuration) plus sensor readings. `amazon_cellphones.ndjson` (one JSON array per line, first "
               "line a header) is measured as its rows (array of arrays) and as objects keyed by the header.\n")

    out.append("## Caveats\n")
    out.append("- Classes are sums over documents, so a large document dominates its class; see the per-document tables.\n"
               "- TOON is encoded from `JSON.parse` values: number lexemes are not kept (`1.0` becomes `1`), so its "
               "round trip is checked at the value level only; STC's is byte-exact.\n"
               "- The token estimator was calibrated on the documents it is measured on (in-sample).\n"
               "- Speed figures come from a shared 2-core machine with other jobs running; compare columns within one run, "
               "not across runs.\n")
    with open(os.path.join(bench_dir, "REPORT.md"), "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print(f"report.py: wrote {os.path.join(bench_dir, 'REPORT.md')} (o200k all: STC compact {pct(a['stc_compact'], a['json_min'])}, "
          f"TOON {pct(a['toon'], a['json_min'])}; estimator MAPE {mape_all:.1f}%)")


if __name__ == "__main__":
    main()
