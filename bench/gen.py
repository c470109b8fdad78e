#!/usr/bin/env python3
"""Deterministic benchmark datasets and the manifest of every measured document.

Usage: python3 bench/gen.py CORPUS_DIR OUT_DIR [--big-mb N]

Writes OUT_DIR/data/*.json (generated, seeded: same bytes on every run),
OUT_DIR/manifest.json (documents measured for tokens and speed) and
OUT_DIR/memory.json (documents measured for peak RSS; with --big-mb N also a generated
event log of about N MB, the issue-12 memory input, written but never committed). Corpus documents are
read in place; only `amazon_cellphones.ndjson` (one JSON array per line, the
first line a header) is turned into two JSON documents: its rows as one array
of arrays, and the same rows as objects keyed by the header.

The generated kinds follow TOON's own benchmark datasets (employee records,
e-commerce orders, time-series analytics, GitHub repositories, event logs,
deeply nested configuration), plus a sensor-readings document for the
number-array class.
"""
import json
import os
import random
import sys

FIRST = ["Alice", "Bob", "Carol", "David", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy",
         "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Yvonne"]
LAST = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Martinez",
        "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee"]
DEPARTMENTS = ["Engineering", "Sales", "Marketing", "Finance", "Operations", "Support", "Legal", "HR"]
PRODUCTS = ["Wireless Mouse", "USB-C Hub", "Mechanical Keyboard", "27\" Monitor", "Laptop Stand",
            "Noise-Cancelling Headphones", "Webcam 1080p", "Desk Lamp", "Ergonomic Chair", "Cable Organizer"]
STATUSES = ["pending", "processing", "shipped", "delivered", "cancelled"]
ENDPOINTS = ["/api/users", "/api/orders", "/api/products", "/api/auth/login", "/api/search", "/api/cart"]
LEVELS = ["info", "info", "info", "warn", "error"]
WORDS = ["fast", "simple", "modern", "tiny", "reactive", "typed", "secure", "open", "cloud", "native",
         "framework", "library", "toolkit", "engine", "runtime", "compiler", "database", "parser"]


def day(rng, year=2025):
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def employees(rng, n):
    rows = []
    for i in range(1, n + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        rows.append({
            "id": i,
            "name": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}{i}@example.com",
            "department": rng.choice(DEPARTMENTS),
            "salary": rng.randrange(45000, 180000, 500),
            "yearsExperience": rng.randint(0, 30),
            "active": rng.random() < 0.9,
        })
    return rows


def analytics(rng, days):
    rows = []
    for d in range(days):
        views = rng.randint(2000, 9000)
        clicks = int(views * rng.uniform(0.02, 0.08))
        conversions = int(clicks * rng.uniform(0.05, 0.2))
        rows.append({
            "date": f"2025-{1 + d // 28 % 12:02d}-{1 + d % 28:02d}",
            "views": views,
            "clicks": clicks,
            "conversions": conversions,
            "revenue": round(conversions * rng.uniform(20, 90), 2),
            "bounceRate": round(rng.uniform(0.2, 0.7), 2),
        })
    return {"metrics": rows}


def repositories(rng, n):
    rows = []
    for i in range(n):
        a, b = rng.sample(WORDS, 2)
        owner = rng.choice(FIRST).lower() + str(rng.randint(1, 99))
        rows.append({
            "id": 10000000 + rng.randint(0, 89999999),
            "name": f"{a}-{b}",
            "repo": f"{owner}/{a}-{b}",
            "description": f"A {a} {b} for {rng.choice(WORDS)} applications",
            "createdAt": day(rng, rng.randint(2010, 2020)) + "T10:00:00Z",
            "stars": rng.randint(1000, 200000),
            "watchers": rng.randint(100, 8000),
            "forks": rng.randint(100, 40000),
            "defaultBranch": rng.choice(["main", "master"]),
        })
    return {"repositories": rows}


def orders(rng, n):
    out = []
    for i in range(n):
        items = []
        for _ in range(rng.randint(1, 4)):
            items.append({"sku": f"SKU-{rng.randint(1000, 9999)}", "name": rng.choice(PRODUCTS),
                          "quantity": rng.randint(1, 3), "price": round(rng.uniform(5, 400), 2)})
        first, last = rng.choice(FIRST), rng.choice(LAST)
        out.append({
            "orderId": f"ORD-{100000 + i}",
            "customer": {"id": rng.randint(1, 5000), "name": f"{first} {last}",
                         "email": f"{first.lower()}@example.com"},
            "items": items,
            "total": round(sum(x["price"] * x["quantity"] for x in items), 2),
            "status": rng.choice(STATUSES),
            "orderDate": day(rng),
        })
    return {"orders": out}


def event_logs(rng, n):
    logs = []
    for i in range(n):
        level = rng.choice(LEVELS)
        entry = {
            "timestamp": f"2025-03-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:{rng.randint(0, 59):02d}Z",
            "level": level,
            "endpoint": rng.choice(ENDPOINTS),
            "statusCode": 200 if level == "info" else rng.choice([400, 404, 429, 500, 503]),
            "responseTime": rng.randint(5, 2500),
            "userId": rng.randint(1000, 9999),
        }
        if level == "error":
            entry["error"] = {"message": rng.choice(["upstream timeout", "connection reset", "invalid token"]),
                              "retryable": rng.random() < 0.5}
        logs.append(entry)
    return {"logs": logs}


def nested_config(rng):
    def service(name):
        return {
            "enabled": rng.random() < 0.8,
            "image": f"registry.example.com/{name}:{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            "replicas": rng.randint(1, 8),
            "resources": {"limits": {"cpu": f"{rng.choice([250, 500, 1000, 2000])}m", "memory": f"{rng.choice([256, 512, 1024])}Mi"},
                          "requests": {"cpu": "100m", "memory": "128Mi"}},
            "env": {"LOG_LEVEL": rng.choice(["debug", "info", "warn"]), "REGION": rng.choice(["eu-west-1", "us-east-1"])},
            "ports": [8080 + rng.randint(0, 10), 9090],
            "healthCheck": {"path": "/healthz", "intervalSeconds": rng.choice([10, 15, 30]), "timeoutSeconds": 5,
                            "thresholds": {"healthy": 2, "unhealthy": 3}},
        }
    return {
        "version": "3.2",
        "environment": "production",
        "database": {"primary": {"host": "db-1.internal", "port": 5432, "pool": {"min": 2, "max": 20, "idleTimeoutMs": 30000},
                                 "tls": {"enabled": True, "verify": True, "ca": "/etc/ssl/ca.pem"}},
                     "replicas": [{"host": f"db-{i}.internal", "port": 5432, "weight": rng.randint(1, 5)} for i in range(2, 5)]},
        "cache": {"redis": {"url": "redis://cache.internal:6379/0", "ttlSeconds": 3600, "cluster": {"enabled": False, "nodes": []}}},
        "services": {name: service(name) for name in ["api", "worker", "scheduler", "gateway", "search", "billing"]},
        "features": {"flags": {f: rng.random() < 0.5 for f in ["newCheckout", "darkMode", "betaSearch", "auditLog"]},
                     "rollout": {"strategy": "canary", "steps": [5, 25, 50, 100], "pauseMinutes": 30}},
        "observability": {"metrics": {"enabled": True, "endpoint": "/metrics", "labels": {"team": "platform", "tier": "backend"}},
                          "tracing": {"sampler": {"type": "ratio", "ratio": 0.1}, "exporter": {"otlp": {"endpoint": "http://otel:4317", "insecure": True}}}},
    }


def sensor_readings(rng, sensors, n):
    return {"sensors": [{"id": f"sensor-{s:03d}", "unit": "celsius",
                         "readings": [round(rng.gauss(21.0, 3.0), 2) for _ in range(n)]} for s in range(sensors)]}


def dump(path, value):
    # Plain `json.dumps` layout (", " and ": "), as a typical tool response.
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)


CORPUS_CLASSES = {
    "twitter.json": "nested", "twitter_api_response.json": "nested", "twitter_timeline.json": "nested",
    "github_events.json": "nested", "google_maps_api_response.json": "nested", "update-center.json": "nested",
    "apache_builds.json": "nested",
    "canada.json": "numbers", "mesh.json": "numbers", "numbers.json": "numbers",
    "citm_catalog.json": "semi", "gsoc-2018.json": "semi", "instruments.json": "semi", "random.json": "semi",
}


def big_event_log(path, megabytes):
    """An event log of about `megabytes` MB (semi-uniform records, ~150 bytes each), written in chunks."""
    rng = random.Random(200)
    target = megabytes * 1_000_000
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"logs": [')
        written, i = 0, 0
        while written < target:
            chunk = event_logs(rng, 10000)["logs"]
            text = json.dumps(chunk, ensure_ascii=False)[1:-1]
            f.write((", " if i else "") + text)
            written += len(text) + 2
            i += 1
        f.write("]}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    big_mb = 0
    if "--big-mb" in sys.argv:
        big_mb = int(sys.argv[sys.argv.index("--big-mb") + 1])
        args.remove(str(big_mb))
    corpus, out = args[0], args[1]
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    manifest = []

    def add(name, cls, path, source):
        manifest.append({"name": name, "class": cls, "path": os.path.abspath(path), "source": source})

    for fname in sorted(os.listdir(corpus)):
        if fname in CORPUS_CLASSES:
            add(fname[:-len(".json")], CORPUS_CLASSES[fname], os.path.join(corpus, fname), "corpus")
        elif fname.endswith(".json"):
            add(fname[:-len(".json")], "nested", os.path.join(corpus, fname), "corpus (unclassified)")

    ndjson = os.path.join(corpus, "amazon_cellphones.ndjson")
    if os.path.exists(ndjson):
        with open(ndjson, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
        header, rows = lines[0], lines[1:]
        dump(os.path.join(data, "amazon_cellphones_rows.json"), rows)
        add("amazon_cellphones_rows", "flat", os.path.join(data, "amazon_cellphones_rows.json"), "corpus ndjson, rows as arrays")
        dump(os.path.join(data, "amazon_cellphones_records.json"), [dict(zip(header, r)) for r in rows])
        add("amazon_cellphones_records", "flat", os.path.join(data, "amazon_cellphones_records.json"), "corpus ndjson, rows as objects")

    generated = [
        ("gen_employees_100", "flat", lambda r: {"employees": employees(r, 100)}),
        ("gen_analytics_180d", "flat", lambda r: analytics(r, 180)),
        ("gen_github_repos_100", "flat", lambda r: repositories(r, 100)),
        ("gen_event_logs_500", "semi", lambda r: event_logs(r, 500)),
        ("gen_orders_100", "semi", lambda r: orders(r, 100)),
        ("gen_nested_config", "nested", nested_config),
        ("gen_sensor_readings", "numbers", lambda r: sensor_readings(r, 20, 200)),
    ]
    for i, (name, cls, make) in enumerate(generated):
        path = os.path.join(data, name + ".json")
        dump(path, make(random.Random(1000 + i)))
        add(name, cls, path, "generated")

    memory = []
    # The largest corpus documents.
    for fname in ["twitter.json", "citm_catalog.json", "canada.json", "gsoc-2018.json"]:
        if os.path.exists(os.path.join(corpus, fname)):
            memory.append(os.path.abspath(os.path.join(corpus, fname)))
    for n in [1000, 10000, 100000]:
        path = os.path.join(data, f"mem_employees_{n}.json")
        dump(path, employees(random.Random(n), n))
        memory.append(os.path.abspath(path))
    if big_mb:
        path = os.path.join(data, f"mem_event_logs_{big_mb}mb.json")
        big_event_log(path, big_mb)
        memory.append(os.path.abspath(path))

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(out, "memory.json"), "w") as f:
        json.dump(memory, f, indent=1)
    print(f"gen.py: {len(manifest)} documents, {len(memory)} memory inputs in {out}")


if __name__ == "__main__":
    main()
