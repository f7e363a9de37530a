"""What the benchmark spec generators of tools/bench share: their command line.

A generator (gen_broadcast.py, gen_gemm_operands.py) describes its specs as dataclasses with a
`name` and writes each one's text; `main(specs, spec_text, script)` gives it the command line
`[--out DIR] [--check | --list]`: write every spec under DIR (default: the generator's folder),
atomically; --check writes nothing and exits 1 when a file there differs from what it would
write (the specs are the generator's output: edit the generator, never the files); --list
prints a line a spec, its fields in order.
"""
import argparse
import dataclasses
import pathlib
import sys


def main(specs, spec_text, script, description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", default=str(pathlib.Path(script).resolve().parent))
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        for spec in specs:
            print(" ".join(str(field) for field in dataclasses.astuple(spec)))
        return 0
    out = pathlib.Path(args.out)
    stale = []
    for spec in specs:
        path = out / f"{spec.name}.toml"
        text = spec_text(spec)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
            continue
        tmp = path.with_suffix(".toml.tmp")
        tmp.write_text(text)
        tmp.replace(path)
    if stale:
        print(f"stale (run tools/bench/{pathlib.Path(script).name}): " + " ".join(stale),
              file=sys.stderr)
        return 1
    return 0
