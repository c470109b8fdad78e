"""A client written from seed 003 and stc-serve/README.md alone (Python
standard library): runs the seed's end-to-end session against a running
`stc serve` and exits non-zero on the first mismatch.

    python3 seed_client.py PORT
"""

import base64
import json
import socket
import sys

ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstyz"


def b54encode(data: bytes) -> str:
    """README: big-endian integer in base 54, one '1' per leading zero byte."""
    zeros = len(data) - len(data.lstrip(b"\0"))
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, d = divmod(n, 54)
        out = ALPHABET[d] + out
    return "1" * zeros + out


def tcp_exchange(port: int, payload: dict) -> dict:
    """The seed's native-host pseudo-code: one connection, one line each way."""
    data = json.dumps(payload).encode("utf-8") + b"\n"
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(data)
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(1024 * 1024)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf.split(b"\n", 1)[0].decode("utf-8"))


def check(cond, what):
    if not cond:
        sys.exit(f"seed_client: {what}")


def main() -> None:
    port = int(sys.argv[1])
    check(tcp_exchange(port, {"action": "ping"}) == {"ok": True, "result": {"message": "pong"}}, "ping")

    # 1. Encode prompt.
    p = tcp_exchange(
        port, {"action": "prompt", "text": "Summarize this. **show savings**", "encoding": "utf-8", "language": "en"}
    )
    check(p["ok"], f"prompt: {p}")
    r = p["result"]
    check(r["encoded_prompt_b64"] == base64.b64encode(b"Summarize this.").decode(), f"prompt b64: {r}")
    check(base64.b64decode(r["context_b64"]) == b"user: Summarize this.", f"context: {r}")
    check(r["savings_request"] == {"show_savings": True, "show_total": False}, f"flags: {r}")
    for k in ("raw", "encoded", "saved"):
        check(isinstance(r["prompt_tokens"][k], int), f"prompt_tokens: {r}")
    cid = r["conversation_id"]

    # 3. Encode model output to base54 client-side (with a leading NUL: leading zero byte), then send.
    answer = "\u0000model response é"
    resp = tcp_exchange(
        port, {"action": "response", "conversation_id": cid, "payload_b54": b54encode(answer.encode("utf-8"))}
    )
    check(resp["ok"], f"response: {resp}")
    r = resp["result"]
    check(r["decoded_text"] == answer, f"decoded: {r['decoded_text']!r}")
    check(r["tagline"].startswith("Token savings (prompt/response/context/combined): "), f"tagline: {r}")
    check(r["decoded_text_with_tagline"] == answer + "\n" + r["tagline"], "with tagline")
    s = r["savings"]
    check(
        s["combined_saved"] == s["prompt"]["saved"] + s["response"]["saved"] + s["context"]["saved"], f"combined: {s}"
    )
    check(
        base64.b64decode(r["context_b64"]).decode() == "user: Summarize this.\nassistant: " + answer,
        "context after response",
    )

    # Another encoding, reused by the conversation.
    p = tcp_exchange(port, {"action": "prompt", "text": "Grüße", "encoding": "latin-1", "language": "de"})["result"]
    check(base64.b64decode(p["encoded_prompt_b64"]) == "Grüße".encode("latin-1"), f"latin-1: {p}")
    resp = tcp_exchange(
        port,
        {
            "action": "response",
            "conversation_id": p["conversation_id"],
            "payload_b54": b54encode("Tschüß".encode("latin-1")),
        },
    )
    check(resp["result"]["decoded_text"] == "Tschüß", f"latin-1 response: {resp}")

    # Troubleshooting section's error codes.
    e = tcp_exchange(port, {"action": "response", "conversation_id": cid, "payload_b64": "aGk="})
    check(
        e == {"ok": False, "error": "missing_payload_b54", "detail": e.get("detail")} and e["detail"], f"missing: {e}"
    )
    e = tcp_exchange(port, {"action": "response", "conversation_id": cid, "payload_b54": "0OIl"})
    check(not e["ok"] and e["error"] == "invalid_base54", f"invalid: {e}")
    e = tcp_exchange(port, {"action": "context_get", "conversation_id": "not-a-conversation"})
    check(not e["ok"] and e["error"] == "unknown_conversation_id", f"unknown: {e}")

    # context_get / context_reset.
    g = tcp_exchange(port, {"action": "context_get", "conversation_id": cid})["result"]
    check(g["encoding"] == "utf-8" and g["language"] == "en", f"context_get: {g}")
    check(tcp_exchange(port, {"action": "context_reset", "conversation_id": cid})["ok"], "reset")
    check(not tcp_exchange(port, {"action": "context_get", "conversation_id": cid})["ok"], "reset twice")
    print("seed_client: ok")


if __name__ == "__main__":
    main()
