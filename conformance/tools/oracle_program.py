#!/usr/bin/env python3
"""tools/oracle.py as a program, so that stc-conformance-run can test it like
any other implementation (see conformance/RUNNER.md). Stdlib only.

    python3 conformance/tools/oracle_program.py decode [--max-depth N] [--stc-version 1|2]
    python3 conformance/tools/oracle_program.py encode [--profile compact|readable] [--max-depth N]

Reads the input on stdin. On success writes the output and a line feed on
stdout and exits 0. On invalid input writes `stc-error: KIND OFFSET` (the
error kind code and the UTF-8 byte offset) on stderr and exits 1.
"""

import sys

# sys.path[0] is this file's directory (also with -S); no pathlib: every
# import counts, this runs once per case.
import oracle  # noqa: E402


def main():
    # No argparse: this runs once per case, and its import is most of the start-up time.
    argv = sys.argv[1:]
    operation, profile, max_depth, version = None, "compact", 128, 1
    while argv:
        word = argv.pop(0)
        if word in ("decode", "encode") and operation is None:
            operation = word
        elif word == "--profile" and argv and argv[0] in ("compact", "readable"):
            profile = argv.pop(0)
        elif word == "--max-depth" and argv and argv[0].isdigit():
            max_depth = int(argv.pop(0))
        elif word == "--stc-version" and argv and argv[0] in ("1", "2"):
            version = int(argv.pop(0))
        else:
            sys.stderr.write(__doc__)
            return 2
    if operation is None:
        sys.stderr.write(__doc__)
        return 2
    data = sys.stdin.buffer.read()
    if operation == "decode":
        result = oracle.decode(data, max_depth, version=version)
    else:
        # Strict JSON first (kind and offset of the first error), then the writer.
        result = oracle.decode(data, max_depth, json_only=True)
        if result[0] == "ok":
            result = ("ok", oracle.encode(data.decode("utf-8"), profile))
    if result[0] == "err":
        sys.stderr.write("stc-error: %s %d\n" % (result[1], result[2]))
        return 1
    sys.stdout.buffer.write(result[1].encode("utf-8") + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
