#!/usr/bin/env python3
"""tools/mutation_net.py without a build: the list parses and applies to the tree, a bad
list is refused with its reason, and a mutation is applied to the scratch copy only (never
the source) and reverted with a fresh mtime, whatever the nets say."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
TOOL = ROOT / "tools" / "mutation_net.py"
sys.path.insert(0, str(TOOL.parent))
import mutation_net as mn  # noqa: E402

failures = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def tool(*args):
    p = subprocess.run([sys.executable, str(TOOL), *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, check=False)
    return p.returncode, p.stdout


# The project's own list: at least 25 changes, each applying to exactly one line.
rc, out = tool("--check-list")
expect(rc == 0, f"--check-list of the project's list exits 0 (got {rc}: {out.strip()})")
mutations = mn.load_list(mn.DEFAULT_LIST)
expect(len(mutations) >= 25, f"the list holds at least 25 mutations ({len(mutations)})")
for m in mutations:
    original, changed = mn.mutated_text(ROOT, m)
    diff = [(a, b) for a, b in zip(original.splitlines(), changed.splitlines()) if a != b]
    expect(len(diff) == 1 and len(original.splitlines()) == len(changed.splitlines()),
           f"{m.name}: changes exactly one line")

with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    src = tmp / "src"
    (src / "emitter").mkdir(parents=True)
    target = src / "emitter" / "a.cpp"
    target.write_text("int f(int x) {\n  if (x < 4)\n    return 1;\n  if (x > 9)\n    return 1;\n  return 0;\n}\n")
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    subprocess.run(["git", "-C", str(src), "add", "."], check=True)

    def write_list(body):
        path = tmp / "list.toml"
        path.write_text(body)
        return path

    def entry(name, file, match, replace):
        return (f"[[mutation]]\nname = '{name}'\nfile = '{file}'\nmatch = '{match}'\n"
                f"replace = '{replace}'\n")

    cases = {
        "matches 0 lines": entry("none", "emitter/a.cpp", "if (x > 4)", "if (x >= 4)"),
        "matches 2 lines": entry("twice", "emitter/a.cpp", "return 1;", "return 2;"),
        "is outside": entry("outside", "driver/cli/x.cpp", "a", "b"),
        "the replacement is the line itself": entry("same", "emitter/a.cpp", "if (x < 4)",
                                                    "  if (x < 4)  "),
        "appears twice": entry("dup", "emitter/a.cpp", "if (x < 4)", "if (x <= 4)") * 2,
        "no [[mutation]]": "# empty\n",
    }
    for reason, body in cases.items():
        rc, out = tool("--list", str(write_list(body)), "--source", str(src), "--check-list")
        expect(rc == 2 and reason in out, f"a list whose mutation {reason!r} exits 2 saying so "
                                          f"(got {rc}: {out.strip()})")
    rc, out = tool("--list", str(write_list(entry("ok", "emitter/a.cpp", "if (x < 4)",
                                                  "if (x <= 4)"))), "--source", str(src),
                   "--only", "nope", "--check-list")
    expect(rc == 2 and "no mutation named nope" in out, "--only with an unknown name exits 2")

    # Apply and revert in a scratch copy, with a stand-in for the nets.
    listed = mn.load_list(write_list(entry("ok", "emitter/a.cpp", "if (x < 4)", "if (x <= 4)")))
    tree = tmp / "scratch" / "tree"
    tree.mkdir(parents=True)
    expect(mn.sync_tree(src, tree) == 1, "the scratch copy gets the source's file")
    expect(mn.sync_tree(src, tree) == 0, "an unchanged file is not copied again")
    source_text = target.read_text()
    old = time.time() - 1000
    os.utime(tree / "emitter" / "a.cpp", (old, old))

    class Args:
        fuzz_seconds = 0
        fuzz_if_survived = False

    class FakeNets:
        def __init__(self, build_ok, failed):
            self.args, self.tree, self.seen = Args(), tree, None
            self.build_ok, self.failed = build_ok, failed

        def make(self, tag):
            self.seen = (tree / "emitter" / "a.cpp").read_text()
            return self.build_ok

        def ctest(self, tag):
            return self.failed, False

    for build_ok, failed, verdict in [(True, ["unit.x"], "caught"), (True, [], "survived"),
                                      (False, [], "build_failed")]:
        nets = FakeNets(build_ok, failed)
        o = mn.try_mutation(nets, listed[0])
        expect(o.verdict == verdict, f"build {build_ok}, failed {failed}: verdict {o.verdict}")
        expect(nets.seen is not None and "  if (x <= 4)\n" in nets.seen,
               "the build saw the changed line, indentation kept")
        expect((tree / "emitter" / "a.cpp").read_text() == source_text,
               "the scratch file is restored after the nets ran")
        expect((tree / "emitter" / "a.cpp").stat().st_mtime > old + 500,
               "the restored file has a fresh mtime (ninja rebuilds it)")
        expect(target.read_text() == source_text, "the source tree is never changed")

# The configure command: ccache only where it is installed, the caller's arguments last.
real_which = mn.shutil.which
try:
    for have_ccache in (True, False):
        mn.shutil.which = lambda name, have=have_ccache: "/usr/bin/ccache" if have else None
        cmd = mn.cmake_command(Path("/s"), Path("/s/build"), ["-Dtomlplusplus_DIR=/d/cmake"])
        launcher = "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
        expect((launcher in cmd) == have_ccache,
               f"ccache {'installed' if have_ccache else 'missing'}: the launcher is "
               f"{'' if have_ccache else 'not '}passed ({cmd})")
        expect(cmd[-1] == "-Dtomlplusplus_DIR=/d/cmake", "--cmake-arg values come last")
finally:
    mn.shutil.which = real_which
args = mn.parse_args(["--cmake-arg=-DA=1", "--cmake-arg=-DB=2"])
expect(args.cmake_arg == ["-DA=1", "-DB=2"], f"--cmake-arg repeats ({args.cmake_arg})")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
