#!/usr/bin/env python3
"""check-test.py - suite "check": foldfs-check on generated trees.

Covers: known collisions found with the right winner (and a randomized
cross-check against an independent model of canonical caseless matching),
JSON Lines parsed back and matched against the tree, fsck exit codes
0/1/4/8/16, --fix then --undo restoring the exact tree (twice, also over
two --fix runs that renamed an entry twice), an interrupted
--fix (test hook and a real kill -9), --upgrade-to naming real code points
picked from the UCD files, --compat/--ignorables, --casefold-dir,
--set-encoding, --info, the bounded-fd walk on a deep tree, linear work
for --fix on one huge group and for a second --undo of a large log
(instructions counted by valgrind, when there is one), and the record
module's own unit tests (build/record-test).

Usage: check-test.py --build BUILD [--ucd /usr/share/unicode]
                     [--only test_a,test_b]
Ends with "N passed, N failed"; exits non-zero on any failure.
"""
import argparse
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unicodedata

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--ucd", default="/usr/share/unicode")
ap.add_argument("--only", help="comma-separated test functions to run")
ap.add_argument("--tmp", help="scratch directory (default BUILD/check-tmp; "
                "tests/fs/otherfs.sh puts it on xfs and btrfs)")
args = ap.parse_args()
BUILD = os.path.abspath(args.build)
CHECK = os.path.join(BUILD, "foldfs-check")
TMP = os.path.abspath(args.tmp) if args.tmp else os.path.join(BUILD, "check-tmp")

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return cond


def u(s):
    return s.encode("utf-8")


def fresh(name):
    d = os.path.join(TMP, name)
    if os.path.exists(d):
        subprocess.run(["chmod", "-R", "u+rwx", d])
        shutil.rmtree(d)
    os.makedirs(d)
    os.chmod(d, 0o755)
    return d


def mkfile(d, name, content=None):
    p = os.path.join(os.fsencode(d), name)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    if content is None:
        content = b"content of " + name + b"\n" + os.urandom(16)
    os.write(fd, content)
    os.close(fd)


def mkdir(d, name):
    p = os.path.join(os.fsencode(d), name)
    os.mkdir(p)
    return os.fsdecode(p)


def run(argv, env=None, user=None, wrap=None):
    cmd = (wrap or []) + [CHECK] + argv
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
               "--clear-groups"] + cmd
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(cmd, capture_output=True, env=e, cwd=TMP)
    return p.returncode, p.stdout, p.stderr


def reachable_by(user, path):
    """Can uid user run foldfs-check and list path?"""
    p = subprocess.run(["setpriv", "--reuid=%d" % user, "--regid=%d" % user,
                        "--clear-groups", "sh", "-c",
                        'test -x "$0" && test -r "$1" && test -x "$1"',
                        CHECK, path], cwd="/")
    return p.returncode == 0


def jrun(argv, **kw):
    rc, out, err = run(["--json"] + argv, **kw)
    objs = []
    ok = True
    for line in out.split(b"\n"):
        if not line:
            continue
        try:
            objs.append(json.loads(line))
        except ValueError as ex:
            ok = False
            print("bad JSON line %r: %s" % (line[:200], ex))
    check(ok, "every output line of %s is JSON" % " ".join(argv))
    return rc, objs, err


def listing(root):
    """Full byte-exact listing: relative path, type, mode, content hash,
    casefold attribute."""
    out = []
    rootb = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(rootb):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, rootb)
            if stat.S_ISDIR(st.st_mode):
                try:
                    xa = os.getxattr(p, "user.foldfs.casefold")
                except OSError:
                    xa = None
                out.append((rel, "d", stat.S_IMODE(st.st_mode), xa))
            elif stat.S_ISLNK(st.st_mode):
                out.append((rel, "l", 0, os.readlink(p)))
            else:
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
                out.append((rel, "f", stat.S_IMODE(st.st_mode), h))
    return sorted(out)


def contents(lst):
    return sorted(x[3] for x in lst if x[1] == "f")


def by_type(objs, t):
    return [o for o in objs if o.get("type") == t]


def names_of(o):
    return frozenset(bytes.fromhex(n["name_hex"]) for n in o["names"])


def summary(objs):
    s = by_type(objs, "summary")
    return s[-1] if s else {}


def key_model(b):
    """Canonical caseless match (Unicode D145) of a well-formed name:
    NFD(casefold(NFD(x))).  Used only with characters from old Unicode
    versions, where every version agrees."""
    s = b.decode("utf-8")
    return unicodedata.normalize(
        "NFD", unicodedata.normalize("NFD", s).casefold())


# ---------------------------------------------------------------------------
def test_record_unit():
    p = subprocess.run([os.path.join(BUILD, "record-test"),
                        fresh("record-unit")],
                       capture_output=True, text=True)
    sys.stdout.write("".join(l + "\n" for l in p.stdout.splitlines()
                             if l.startswith("FAIL") or
                             l.startswith("note")))
    last = [l for l in p.stdout.splitlines() if " passed, " in l]
    global passed, failed
    if last and p.returncode in (0, 1):
        a, b = last[-1].split(" passed, ")
        passed += int(a)
        failed += int(b.split()[0])
        if p.returncode and not int(b.split()[0]):
            check(False, "record-test exited %d" % p.returncode)
    else:
        check(False, "record-test crashed: rc=%d %s" % (p.returncode,
                                                         p.stderr))


GROUPS = [
    [b"README", b"ReadMe", b"readme"],
    [u("\u00e9t\u00e9"), u("e\u0301te\u0301"), u("\u00c9T\u00c9")],
    [u("Stra\u00dfe"), b"STRASSE", b"strasse"],
    [u("\u212a"), b"k", b"K"],
    [u("\u03a3"), u("\u03c3"), u("\u03c2")],
    [u("\u00c5"), u("A\u030a"), u("\u212b"), u("\u00e5")],
    [u("\u1e9e"), b"ss", b"SS"],
    [u("\u01c4"), u("\u01c5"), u("\u01c6")],
]
NOISE = [b"a", b"b", b"resume", u("r\u00e9sum\u00e9"), u("D\u017d"),
         u("\u2460"), b"1", u("\uff21"), b"zz", u("a\u200db"), b"ab"]
BAD = [b"caf\xe9", b"CAF\xe9"]


def build_t1(root):
    d1 = mkdir(root, b"one")
    d2 = mkdir(root, b"two")
    for i, g in enumerate(GROUPS):
        for n in g:
            mkfile(d1 if i % 2 == 0 else d2, n)
    for n in NOISE:
        mkfile(d1, n)
    for n in BAD:
        mkfile(d2, n)
    sub = mkdir(root, b"Sub")
    mkfile(root, b"sub")
    mkfile(sub, b"x")
    return {os.fsencode(d1): [g for i, g in enumerate(GROUPS) if i % 2 == 0],
            os.fsencode(d2): [g for i, g in enumerate(GROUPS) if i % 2 == 1],
            os.fsencode(root): [[b"Sub", b"sub"]]}


def test_known_collisions():
    root = fresh("t1")
    expect = build_t1(root)
    rc, objs, err = jrun(["--casefold", root])
    check(rc == 4, "collisions -> exit 4 (got %d)" % rc)
    found = {}
    for o in by_type(objs, "collision"):
        d = bytes.fromhex(o["dir_hex"])
        found.setdefault(os.path.abspath(d), set()).add(names_of(o))
        win = bytes.fromhex(o["winner"]["name_hex"])
        check(win == min(names_of(o)),
              "winner of %r is the bytewise smallest" % names_of(o))
        check(o["count"] == len(o["names"]), "count field")
    for d, groups in expect.items():
        want = {frozenset(g) for g in groups}
        got = found.get(os.path.abspath(d), set())
        check(got == want, "groups in %r: missing %r, extra %r" %
              (d, want - got, got - want))
    check(set(found) <= {os.path.abspath(d) for d in expect},
          "no collisions reported elsewhere: %r" % set(found))
    bad = by_type(objs, "ill_formed")
    check(sorted(bytes.fromhex(o["name_hex"]) for o in bad) == sorted(BAD)
          and all(o["offset"] == 3 and o["severity"] == "warning"
                  for o in bad), "ill-formed names with offsets: %r" % bad)
    s = summary(objs)
    check(s.get("collision_groups") == sum(len(g) for g in expect.values())
          and s.get("colliding_names") ==
          sum(len(x) for g in expect.values() for x in g)
          and s.get("ill_formed") == 2 and s.get("exit") == 4
          and s.get("folding_directories") == 4 and s.get("directories") == 4,
          "summary: %r" % s)
    # + one, two, Sub, sub in the root and Sub/x
    total = sum(len(g) for g in GROUPS) + len(NOISE) + len(BAD) + 5
    check(s.get("names") == total, "names counted: %r vs %d" %
          (s.get("names"), total))

    # The text report: winner marked, names escaped, code points shown
    # for names that look alike.
    rc, out, err = run(["--casefold", root])
    text = out.decode("utf-8", "replace")
    check(rc == 4 and "'README'  (winner)" in text and
          "'caf\\xe9' (byte offset 3)" in text and
          "<U+0041 U+030A>" in text and "'Sub' [dir]  (winner)" in text,
          "text report:\n" + text)
    check(err == b"", "no progress line or noise when piped: %r" % err)
    # Names that differ only in an invisible ignorable print the same:
    # their code points tell them apart.
    ig = fresh("t1-ignorable")
    mkfile(ig, b"Notes")
    mkfile(ig, u("No\u200btes"))
    rc, out, err = run(["--casefold", "--flags", "ignorables", ig])
    text = out.decode("utf-8", "replace")
    check(rc == 4 and "<U+004E U+006F U+200B U+0074" in text,
          "zero width space shown as a code point:\n" + text)

    # Without --casefold and without attributes nothing folds.
    rc, objs, err = jrun([root])
    check(rc == 0 and not by_type(objs, "collision") and
          summary(objs).get("folding_directories") == 0,
          "attribute-less tree does not fold without --casefold")
    # The attribute selects folding directories.
    os.setxattr(os.path.join(root, "two"), "user.foldfs.casefold", b"1")
    rc, objs, err = jrun([root])
    dirs = {os.path.basename(bytes.fromhex(o["dir_hex"]))
            for o in by_type(objs, "collision")}
    check(rc == 4 and dirs == {b"two"} and
          summary(objs).get("folding_directories") == 1,
          "only the directory with the attribute folds: %r" % dirs)


def test_random_model():
    """Randomized names from characters whose folding every Unicode
    version agrees on; groups must equal the D145 model's classes."""
    rnd = random.Random(4242)
    tokens = ["a", "A", "e", "E", "\u00e9", "\u00c9", "e\u0301", "E\u0301",
              "s", "S", "\u00df", "ss", "SS", "k", "K", "\u212a", "\u03c3",
              "\u03a3", "\u03c2", "o", "O", "\u00f6", "o\u0308", "\u00d6",
              "x", "\u00c5", "\u212b", "a\u030a", "\u0130", "i", "I",
              "\u0131", "\u01c4", "\u01c6", "\u1f88", "\u1f80"]
    root = fresh("t-random")
    dirs = [mkdir(root, b"d%d" % i) for i in range(4)]
    made = {d: set() for d in dirs}
    for _ in range(2500):
        name = "".join(rnd.choice(tokens) for _ in range(rnd.randint(1, 4)))
        d = rnd.choice(dirs)
        b = u(name)
        if b in made[d]:
            continue
        made[d].add(b)
        mkfile(d, b, b"")
    rc, objs, err = jrun(["--casefold", root])
    got = {}
    for o in by_type(objs, "collision"):
        got.setdefault(os.path.basename(bytes.fromhex(o["dir_hex"])),
                       set()).add(names_of(o))
    ok = True
    for d in dirs:
        classes = {}
        for b in made[d]:
            classes.setdefault(key_model(b), set()).add(b)
        want = {frozenset(v) for v in classes.values() if len(v) > 1}
        have = got.get(os.path.basename(os.fsencode(d)), set())
        if want != have:
            ok = False
            print("model mismatch in %s: missing %r extra %r" %
                  (d, list(want - have)[:3], list(have - want)[:3]))
    check(ok, "2500 random names: groups equal the NFD(casefold(NFD)) model")
    check(rc == 4, "random tree has collisions")


def test_json_escaping():
    root = fresh("t-json")
    names = [b"new\nline", b"New\nLine", b'quo"te', b"back\\slash",
             b'QUO"TE', b"Back\\Slash",
             b"ctl\x01", b"Ctl\x01", b"tab\t", b"\xff\xfe", b"\xffX",
             u("\u2028sep"), u("\u2028SEP"), u("\U0001F600"),
             u("c1\u009b31m"), u("C1\u009b31M"),
             u("bidi\u202etxt.exe"), u("BIDI\u202etxt.exe"), u("iso\u2066"),
             u("ISO\u2066")]
    for n in names:
        mkfile(root, n)
    rc, objs, err = jrun(["--casefold", root])
    listed = set(os.listdir(os.fsencode(root)))
    ok = True
    for o in objs:
        for k, v in list(o.items()):
            if k.endswith("_hex") and k != "dir_hex" and isinstance(v, str):
                b = bytes.fromhex(v)
                base = k[:-4]
                if o["type"] in ("collision", "ill_formed") and b not in listed:
                    ok = False
                s = o.get(base)
                try:
                    if isinstance(s, str) and s != b.decode("utf-8"):
                        ok = False
                except UnicodeDecodeError:
                    # ill-formed bytes appear as \xNN text
                    if "\\xff" not in s:
                        ok = False
        for n in (o["names"] if isinstance(o.get("names"), list) else []):
            if bytes.fromhex(n["name_hex"]) not in listed:
                ok = False
    check(ok, "JSON names round-trip to the exact bytes on disk")
    groups = {names_of(o) for o in by_type(objs, "collision")}
    want = {frozenset([b"new\nline", b"New\nLine"]),
            frozenset([b"ctl\x01", b"Ctl\x01"]),
            frozenset([b'quo"te', b'QUO"TE']),
            frozenset([b"back\\slash", b"Back\\Slash"]),
            frozenset([u("\u2028sep"), u("\u2028SEP")]),
            frozenset([u("c1\u009b31m"), u("C1\u009b31M")]),
            frozenset([u("bidi\u202etxt.exe"), u("BIDI\u202etxt.exe")]),
            frozenset([u("iso\u2066"), u("ISO\u2066")])}
    check(groups == want, "collisions among odd names: %r" % groups)
    bad = {bytes.fromhex(o["name_hex"]): o for o in by_type(objs,
                                                              "ill_formed")}
    check(set(bad) == {b"\xff\xfe", b"\xffX"} and
          bad[b"\xffX"]["name"] == "\\xffX" and bad[b"\xffX"]["offset"] == 0,
          "ill-formed names in JSON: %r" % bad)
    check(by_type(objs, "tree") and objs[0]["type"] == "tree" and
          objs[-1]["type"] == "summary", "tree object first, summary last")
    raw = run(["--json", "--casefold", root])[1]
    check(b"ctl\\u0001" in raw and b"new\\u000aline" in raw and
          b"\\u2028sep" in raw and b'quo\\"te' in raw and
          b"back\\\\slash" in raw, "control characters escaped as \\u00XX")
    # C1 controls too (a terminal showing the JSON acts on U+009B, CSI),
    # as the text output and the man page have it
    check(b"c1\\u009b31m" in raw and u("\u009b") not in raw,
          "C1 control characters escaped as \\u00XX in JSON")
    # and bidi controls, which the text output escapes too: a name must
    # not show reordered ("exe.txt") to whoever reads the JSON
    check(b"bidi\\u202etxt.exe" in raw and b"iso\\u2066" in raw and
          u("\u202e") not in raw and u("\u2066") not in raw,
          "bidi controls escaped as \\uXXXX in JSON")


def test_exit_codes():
    clean = fresh("t-clean")
    mkfile(clean, b"a")
    mkfile(clean, b"B")
    mkdir(clean, b"c")
    rc, out, err = run(["--casefold", clean])
    check(rc == 0 and b"exit 0" in out, "clean tree -> 0 (%d)" % rc)
    coll = fresh("t-coll")
    mkfile(coll, b"x")
    mkfile(coll, b"X")
    check(run(["--casefold", coll])[0] == 4, "collision -> 4")
    check(run(["--casefold", clean, coll])[0] == 4, "two PATHs OR together")
    rc, out, err = run(["--casefold", os.path.join(TMP, "does-not-exist")])
    check(rc == 8 and b"does-not-exist" in err, "missing PATH -> 8")
    check(run(["--bogus"])[0] == 16, "unknown option -> 16")
    # a misspelt encoding or version is a usage error before any PATH is
    # looked at (was 8, per PATH, and hidden behind a missing PATH)
    missing = os.path.join(TMP, "does-not-exist")
    for opts, what in ((["-e", "utf8-1x"], b"--encoding utf8-1x"),
                       (["-u", "99.0"], b"--upgrade-to 99.0"),
                       (["--set-encoding", "latin1"],
                        b"--set-encoding latin1")):
        rc, out, err = run(opts + [missing])
        check(rc == 16 and what in err and b"does-not-exist" not in err,
              "%s -> 16 before the PATH (%d) %r" % (what, rc, err))
    check(run([])[0] == 16, "no PATH -> 16")
    check(run(["--yes", clean])[0] == 16, "--yes without --fix -> 16")
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log",
                        os.path.join(TMP, "coll.log"), coll])
    check(rc == 1, "--fix --yes corrected -> 1 (%d)" % rc)
    check(run(["--casefold", coll])[0] == 0, "after the fix -> 0")
    # Without --log the rename log is ./foldfs-check-fix-<UTC time>.log
    dflt = fresh("t-deflog")
    mkfile(dflt, b"y")
    mkfile(dflt, b"Y")
    had = set(os.listdir(TMP))
    rc, out, err = run(["--casefold", "--fix", "--yes", dflt])
    new = [n for n in set(os.listdir(TMP)) - had
           if n.startswith("foldfs-check-fix-") and n.endswith(".log")]
    check(rc == 1 and len(new) == 1 and
          len(new[0]) == len("foldfs-check-fix-YYYYmmdd-HHMMSS.log"),
          "--fix --yes without --log writes ./foldfs-check-fix-*.log "
          "(%d, %r)" % (rc, new))
    if new:
        rc, out, err = run(["--undo", os.path.join(TMP, new[0])])
        check(rc == 0 and sorted(os.listdir(dflt)) == ["Y", "y"],
              "--undo with that log restores y and Y (%d)" % rc)
        os.unlink(os.path.join(TMP, new[0]))

    # An unreadable directory: reported, the walk goes on (8 | 4).
    part = fresh("t-partial")
    a = mkdir(part, b"a")
    locked = mkdir(part, b"locked")
    z = mkdir(part, b"z")
    for d in (a, z):
        mkfile(d, b"Q")
        mkfile(d, b"q")
    mkfile(locked, b"hidden")
    os.chmod(locked, 0)
    user = 65534 if os.geteuid() == 0 else None
    if user is not None and shutil.which("setpriv") is None:
        check(False, "setpriv needed to test as an unprivileged user")
    elif user is not None and not reachable_by(user, part):
        # e.g. the build tree is private to root (a clone in /root)
        print("test_exit_codes: unreadable part skipped (%s or %s is out of "
              "reach of uid %d)" % (CHECK, part, user))
    else:
        rc, objs, err = jrun(["--casefold", part], user=user)
        colls = by_type(objs, "collision")
        errs = by_type(objs, "error")
        check(rc == 12, "unreadable part + collisions -> 8|4 = 12 (%d)" % rc)
        check(len(colls) == 2, "walk continued past the error: %d" %
              len(colls))
        check(len(errs) == 1 and errs[0]["errno"] == 13 and
              bytes.fromhex(errs[0]["dir_hex"]).endswith(b"locked"),
              "error object names the directory: %r" % errs)
        check(b"locked" in err and b"Permission denied" in err,
              "error on stderr: %r" % err)
    os.chmod(locked, 0o755)

    # Strict record: ill-formed names are errors (4); otherwise warnings.
    st = fresh("t-strict")
    mkfile(st, b"ok")
    mkfile(st, b"bad\xc3")
    rc, objs, err = jrun(["--casefold", st])
    check(rc == 0 and by_type(objs, "ill_formed")[0]["severity"] ==
          "warning", "non-strict ill-formed -> warning, exit 0 (%d)" % rc)
    rc, objs, err = jrun(["--casefold", "--flags", "strict", st])
    check(rc == 4 and by_type(objs, "ill_formed")[0]["severity"] == "error",
          "strict ill-formed -> error, exit 4 (%d)" % rc)


def test_fix_undo():
    root = fresh("t-fix")
    build_t1(root)
    # nested: both spellings of a directory hold colliding names
    d1 = mkdir(root, b"Docs")
    d2 = mkdir(root, b"docs")
    for d in (d1, d2):
        mkfile(d, b"Report.txt")
        mkfile(d, b"report.txt")
        mkfile(d, b"REPORT.txt")
    # the first candidate spelling is already taken by an unrelated name
    mkfile(d1, b"report (2).txt", b"keep me\n")
    # a long name: the new spelling must be shortened on a char boundary
    mkfile(d1, u("\u00c9" * 127) + b"x")
    mkfile(d1, u("\u00e9" * 127) + b"x")
    os.symlink(b"target", os.path.join(os.fsencode(d1), b"Link"))
    os.symlink(b"target2", os.path.join(os.fsencode(d1), b"link"))
    before = listing(root)

    rc, objs, err = jrun(["--casefold", "--fix", root])
    check(rc == 4 and listing(root) == before,
          "dry run: exit 4, tree unchanged (%d)" % rc)
    dry = by_type(objs, "rename")
    check(dry and all(o["status"] == "dry-run" for o in dry),
          "dry run lists would-be renames")

    log = os.path.join(TMP, "t-fix.log")
    if os.path.exists(log):
        os.unlink(log)
    rc, objs, err = jrun(["--casefold", "--fix", "--yes", "--log", log, root])
    after = listing(root)
    ren = by_type(objs, "rename")
    check(rc == 1, "--fix --yes -> 1 (%d) %r" % (rc, err))
    check(len(after) == len(before) and contents(after) == contents(before),
          "no entry lost or changed by --fix")
    check(all(o["status"] == "done" for o in ren) and
          [o["from_hex"] for o in ren] == [o["from_hex"] for o in dry] and
          [o["to_hex"] for o in ren] == [o["to_hex"] for o in dry],
          "real run renames what the dry run announced")
    logl = [l for l in open(log, "rb").read().split(b"\n")
            if l.startswith(b"rename ")]
    check(len(logl) == len(ren) == summary(objs).get("renamed"),
          "one log line per rename (%d/%d)" % (len(logl), len(ren)))
    d1b = os.fsencode(d1)
    check(open(os.path.join(d1b, b"report (2).txt"), "rb").read() ==
          b"keep me\n", "existing 'report (2).txt' untouched")
    news = [bytes.fromhex(o["to_hex"]) for o in ren]
    check(all(len(n) <= 255 for n in news) and
          all(n.decode("utf-8") for n in news),
          "new names are well-formed and at most 255 bytes")
    check(any(n.endswith(b" (2)x") or n.endswith(b" (2)") for n in news
              if len(n) > 200), "long name shortened: %r" %
          [n for n in news if len(n) > 200])
    winners = set()
    for o in by_type(objs, "collision"):
        winners.add((bytes.fromhex(o["dir_hex"]),
                     bytes.fromhex(o["winner"]["name_hex"])))
    check(all(os.path.lexists(os.path.join(
        os.path.join(os.fsencode(TMP), d) if not os.path.isabs(d) else d, w))
        for d, w in winners if not d.endswith(b"docs")),
        "every winner keeps its name")
    rc, objs2, err = jrun(["--casefold", root])
    check(rc == 0 and not by_type(objs2, "collision"),
          "no collisions after --fix (%d)" % rc)

    rc, uobjs, err = jrun(["--undo", log])
    check(rc == 0, "--undo -> 0 (%d) %r" % (rc, err[-300:]))
    check(listing(root) == before, "--undo restores the exact original tree")
    undone = by_type(uobjs, "undo")
    # JSON: one object per rename, newest first, each reversed exactly
    check(len(undone) == len(ren) and
          all(o["status"] == "restored" for o in undone) and
          [(o["from_hex"], o["to_hex"]) for o in undone] ==
          [(o["to_hex"], o["from_hex"]) for o in reversed(ren)],
          "--undo --json: every rename reversed, newest first: %r" %
          [(o.get("from"), o.get("status")) for o in undone][:4])
    # Undoing again changes nothing: entries below a directory the log
    # renamed are found under its restored name, and reported skipped.
    rc, out, err = run(["--undo", log])
    check(rc == 0 and listing(root) == before and b"skipped" in out and
          b"cannot" not in out,
          "second --undo changes nothing, exit 0 (%d) %r" % (rc, out[-300:]))

    # Conflict: the original name came back meanwhile -> never overwritten.
    os.unlink(log)
    rc, objs, err = jrun(["--casefold", "--fix", "--yes", "--log", log, root])
    r0 = by_type(objs, "rename")[0]
    dd = bytes.fromhex(r0["dir_hex"])
    dd = dd if os.path.isabs(dd) else os.path.join(os.fsencode(TMP), dd)
    oldp = os.path.join(dd, bytes.fromhex(r0["from_hex"]))
    mkfile(dd, bytes.fromhex(r0["from_hex"]), b"newcomer\n")
    rc, out, err = run(["--undo", log])
    check(rc == 4 and open(oldp, "rb").read() == b"newcomer\n" and
          os.path.lexists(os.path.join(dd, bytes.fromhex(r0["to_hex"]))),
          "--undo conflict: exit 4, nothing overwritten (%d)" % rc)
    # Malformed log: nothing is undone.
    badlog = os.path.join(TMP, "bad.log")
    open(badlog, "w").write("# foldfs-check rename log, format 1\n"
                            "rename zz 61 62\n")
    check(run(["--undo", badlog])[0] == 8, "malformed log -> 8")
    open(badlog, "w").write("hello\n")
    check(run(["--undo", badlog])[0] == 8, "not a log -> 8")
    # Without a newline it is still not a log (not an empty one: 0).
    open(badlog, "w").write("hello")
    rc, out, err = run(["--undo", badlog])
    check(rc == 8 and b"not a foldfs-check rename log" in err,
          "not a log, no newline -> 8 (%d) %r" % (rc, err))
    # A header cut short by a crash: a log with nothing to undo.
    open(badlog, "w").write("# foldfs-check rename log, for")
    check(run(["--undo", badlog])[0] == 0, "header cut short -> 0")
    # A FIFO is no log: refused at once (reading it waited for a writer).
    fifo = os.path.join(TMP, "undo.fifo")
    if os.path.lexists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    try:
        p = subprocess.run([CHECK, "--undo", fifo], capture_output=True,
                           timeout=20)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = None, b"hung"
    check(rc == 8 and b"not a regular file" in err,
          "--undo of a FIFO -> 8 at once (%r %r)" % (rc, err))


def test_undo_chain():
    """Two --fix runs with one log, the second renaming the names the first
    gave: --undo restores the tree, and undoing again finds every entry
    already back (skipped, exit 0), not lost."""
    root = fresh("t-chain")
    for n in (b"Report.txt", b"report.TXT", b"b", b"B"):
        mkfile(root, n)
    before = listing(root)
    log = os.path.join(TMP, "t-chain.log")
    if os.path.exists(log):
        os.unlink(log)
    fix = ["--casefold", "--fix", "--yes", "--log", log, root]
    check(run(fix)[0] == 1, "chain: first --fix renames")
    for n in (b"REPORT (2).TXT", b"B (2)"):  # they win against the new names
        mkfile(root, n)
    mid = listing(root)
    check(run(fix)[0] == 1, "chain: second --fix renames the first's names")
    rc, out, err = run(["--undo", log])
    after = listing(root)
    check(rc == 0 and set(before) <= set(after) and
          contents(after) == contents(mid),
          "chain: --undo restores both runs (%d) %r" % (rc, out[-300:]))
    rc, out, err = run(["--undo", log])
    check(rc == 0 and listing(root) == after and b"cannot" not in out,
          "chain: a second --undo skips all, exit 0 (%d) %r" %
          (rc, out[-300:]))


def instructions(argv):
    """Instructions foldfs-check executes for argv, counted by valgrind
    (a count, not a time: the same on a loaded machine), with its exit
    status and standard output; None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    rc, out, err = run(argv, wrap=["valgrind", "--tool=cachegrind",
                                   "--cache-sim=no",
                                   "--cachegrind-out-file=/dev/null"])
    m = re.search(rb"I\s+refs:\s+([\d,]+)", err)
    return (int(m.group(1).replace(b",", b"")) if m else -1), rc, out


def test_scaling():
    """--fix on one huge collision group and a second --undo of a large
    log cost linear work: four times the names, about four times the
    instructions (the quadratic versions took about sixteen)."""
    # Numbering goes on where the group's last loser of the same kind
    # stopped, around numbers taken already (by a file, or a directory).
    root = fresh("t-numbering")
    for n in (b"A.txt", b"a.TXT", b"a.txt", b"a (3).txt", b"a.txt (2)"):
        mkfile(root, n)
    for n in (b"A.TXT", b"A.tXt"):
        mkdir(root, n)
    rc, objs, err = jrun(["--casefold", "--fix", root])
    got = sorted((bytes.fromhex(o["from_hex"]), bytes.fromhex(o["to_hex"]))
                 for o in by_type(objs, "rename"))
    check(rc == 4 and got == [(b"A.tXt", b"A.tXt (3)"),
                              (b"A.txt", b"A (2).txt"),
                              (b"a.TXT", b"a (4).TXT"),
                              (b"a.txt", b"a (5).txt")],
          "--fix numbers around taken names, per kind (%d) %r" % (rc, got))
    # Under compat "a\uff0etxt" (a fullwidth full stop) equals "a.txt" but
    # has no extension: its numbers are not those of "a.txt", and 2 is
    # free for it although "a.txt" got 3 and "a.txt (3)" exists.
    root = fresh("t-numbering2")
    for n in (b"A.txt", b"a.txt", u("a\uff0etxt"), b"a (2).txt",
              b"a.txt (3)"):
        mkfile(root, n)
    rc, objs, err = jrun(["--casefold", "--flags", "compat", "--fix", root])
    got = sorted((bytes.fromhex(o["from_hex"]), bytes.fromhex(o["to_hex"]))
                 for o in by_type(objs, "rename"))
    check(rc == 4 and got == [(b"a.txt", b"a (3).txt"),
                              (u("a\uff0etxt"), u("a\uff0etxt (2)"))],
          "--fix gives the smallest free number (%d) %r" % (rc, got))
    # A name cut to make room for " (N)" is cut one byte shorter from
    # N=10 on: there "a" + e-acute and "ae" + combining acute both keep
    # only "a", below 10 the second keeps "ae".  Its " (2)".." (9)" are
    # taken, so it gets 10; the first is still free to take 2.
    root = fresh("t-numbering3")
    p = b"a" * 249
    for n in (b"A" + p[1:] + u("a\u00e9z"), p + u("ae\u0301z"),
              p + u("a\u00e9z")):
        mkfile(root, n)
    for k in range(2, 10):
        mkfile(root, p + b"ae (%d)" % k)
    rc, objs, err = jrun(["--casefold", "--fix", root])
    got = sorted((bytes.fromhex(o["from_hex"]), bytes.fromhex(o["to_hex"]))
                 for o in by_type(objs, "rename"))
    check(rc == 4 and got == [(p + u("ae\u0301z"), p + b"a (10)"),
                              (p + u("a\u00e9z"), p + b"a (2)")],
          "--fix on names cut for the number: the smallest free number "
          "(%d) %r" % (rc, [(a[249:], b[249:]) for a, b in got]))
    if not shutil.which("valgrind"):
        print("skipped: no valgrind to count instructions")
        return
    # One group of n spellings of one name: each loser's number used to
    # be searched from 2 up, n^2/2 lookups.
    counts = []
    for n in (300, 1200):
        root = fresh("t-scale-fix%d" % n)
        for i in range(n):
            mkfile(root, bytes(c ^ (0x20 if i >> k & 1 else 0)
                               for k, c in enumerate(b"reportabcdefgh"))
                   + b".txt", b"x")
        ir, rc, out = instructions(["--json", "--casefold", "--fix", root])
        ren = [json.loads(l) for l in out.split(b"\n")
               if l.startswith(b'{"type":"rename"')]
        to = sorted(int(bytes.fromhex(o["to_hex"])[16:-5]) for o in ren)
        check(rc == 4 and to == list(range(2, n + 1)),
              "--fix dry run, a group of %d: numbers 2..%d (%d)" % (n, n, rc))
        counts.append(ir)
    check(0 < counts[1] < 8 * counts[0],
          "--fix on a group 4x the size: %.1fx the instructions (%r)" %
          (counts[1] / max(counts[0], 1), counts))
    # A log of a directory renamed, then each of n entries in it renamed
    # twice (two runs).  A second --undo finds the directory back under
    # its old name: every entry's directory, and every entry's older name,
    # used to be looked for in all older renames.
    counts = []
    for n in (500, 2000):
        root = fresh("t-scale-undo%d" % n)
        rootb = os.fsencode(root)
        log = os.path.join(TMP, "t-scale-undo%d.log" % n)
        d = os.path.join(rootb, b"d (2)")
        os.mkdir(d)
        lines = [b"rename %s %s %s %d" % (hexb(rootb), hexb(b"d"), hexb(b"d (2)"),
                                          os.stat(d).st_ino)]
        inos = []
        for i in range(n):
            mkfile(d, b"f%d (2) (2)" % i)
            inos.append(os.stat(os.path.join(d, b"f%d (2) (2)" % i)).st_ino)
        for sfx in ((b"", b" (2)"), (b" (2)", b" (2) (2)")):
            for i in range(n):
                lines.append(b"rename %s %s %s %d" % (
                    hexb(d), hexb(b"f%d" % i + sfx[0]),
                    hexb(b"f%d" % i + sfx[1]), inos[i]))
        with open(log, "wb") as f:
            f.write(b"# foldfs-check rename log, format 2; undo: x\n" +
                    b"\n".join(lines) + b"\n")
        rc, out, err = run(["--undo", log])
        after = listing(root)
        check(rc == 0 and sorted(x[0] for x in after) ==
              sorted([b"d"] + [b"d/f%d" % i for i in range(n)]),
              "large log, %d entries: --undo restores (%d) %r" %
              (n, rc, out[-200:]))
        ir, rc, out = instructions(["--undo", log])
        check(rc == 0 and listing(root) == after and
              out.endswith(b": 0 restored, %d skipped, 0 failed; exit 0\n"
                           % (2 * n + 1)),
              "large log, %d entries: a second --undo skips all (%d) %r" %
              (n, rc, out[-200:]))
        counts.append(ir)
        os.unlink(log)
    check(0 < counts[1] < 8 * counts[0],
          "a second --undo of a log 4x the size: %.1fx the instructions "
          "(%r)" % (counts[1] / max(counts[0], 1), counts))


def many_collisions(root, ndirs=30, ngroups=20):
    for i in range(ndirs):
        d = mkdir(root, b"dir%02d" % i)
        for j in range(ngroups):
            for n in (b"File%d.txt" % j, b"file%d.txt" % j,
                      b"FILE%d.TXT" % j):
                mkfile(d, n)
    return ndirs * ngroups * 2


def log_renames(log):
    out = []
    for l in open(log, "rb").read().split(b"\n"):
        w = l.split(b" ")
        if len(w) == 5 and w[0] == b"rename":
            out.append(tuple(bytes.fromhex(x.decode()) for x in w[1:4]))
    return out


def test_interrupted():
    root = fresh("t-int")
    total = many_collisions(root)
    before = listing(root)
    log = os.path.join(TMP, "t-int.log")
    if os.path.exists(log):
        os.unlink(log)
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root],
                       env={"FOLDFS_CHECK_STOP_AFTER": "137"})
    check(rc == -signal.SIGKILL, "test hook kills after 137 renames (%d)" % rc)
    mid = listing(root)
    lr = log_renames(log)
    check(len(lr) == 137, "log holds exactly the 137 renames (%d)" % len(lr))
    check(all(not os.path.lexists(os.path.join(d, o)) and
              os.path.lexists(os.path.join(d, n)) for d, o, n in lr),
          "every logged rename happened")
    check(len(mid) == len(before) and contents(mid) == contents(before),
          "interrupted: no name or content lost")
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    check(rc == 1, "re-run completes (%d)" % rc)
    check(len(log_renames(log)) == total, "log complete: %d renames" %
          len(log_renames(log)))
    check(run(["--casefold", root])[0] == 0, "clean after the re-run")
    rc, out, err = run(["--undo", log])
    check(rc == 0 and listing(root) == before,
          "undo of the two runs restores the original (%d)" % rc)

    # A real kill -9 at an arbitrary moment.
    os.unlink(log)
    p = subprocess.Popen([CHECK, "--casefold", "--fix", "--yes", "--log", log,
                          "-q", root], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline and p.poll() is None:
        if os.path.exists(log) and len(log_renames(log)) >= 50:
            break
        time.sleep(0.001)
    p.send_signal(signal.SIGKILL)
    p.wait()
    mid = listing(root)
    lr = log_renames(log)
    happened = [os.path.lexists(os.path.join(d, n)) and
                not os.path.lexists(os.path.join(d, o)) for d, o, n in lr]
    # Only the last logged rename may be missing (logged, then killed).
    check(all(happened[:-1]) if happened else True,
          "kill -9: all logged renames but the last happened")
    check(len(mid) == len(before) and contents(mid) == contents(before),
          "kill -9 after %d renames: no name or content lost" % len(lr))
    print("kill -9 landed after %d logged renames" % len(lr))
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    check(rc in (0, 1) and run(["--casefold", root])[0] == 0,
          "re-run after kill -9 completes (%d)" % rc)
    rc, out, err = run(["--undo", log])
    check(rc == 0 and listing(root) == before,
          "undo after kill -9 + re-run restores the original (%d)" % rc)


def hexb(b):
    return b.hex().encode()


def test_log_safety():
    """The rename log stays usable and --undo moves only what --fix moved,
    whatever the log's name, a full disk, a refused attempt, symbolic
    links or depth."""
    root = fresh("t-log")

    def tree():
        if os.path.exists(root):
            subprocess.run(["chmod", "-R", "u+rwx", root])
            shutil.rmtree(root)
        os.makedirs(root)
        for n in (b"Report.txt", b"report.txt", b"REPORT.TXT"):
            mkfile(root, n)
        return listing(root)

    # A log name longer than any fixed buffer, and one with a newline.
    for name in ("L" * 200 + ".log", "fix\nnl.log"):
        before = tree()
        d = os.path.join(TMP, "t-logdir")
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        log = os.path.join(d, name)
        rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log,
                            root])
        first = open(log, "rb").read().split(b"\n")[0]
        check(rc == 1 and first.startswith(
            b"# foldfs-check rename log, format 2; undo:"),
              "log %r: header written (%d) %r" % (name[:12], rc, first[:60]))
        # the log's name is escaped in messages like any other path: a
        # newline in it must not start a line of its own
        esc = os.fsencode(log).replace(b"\n", b"\\x0a")
        check(b"logging renames to " + esc + b"\n" in out and
              b"\nnl.log" not in out + err,
              "log %r: its name is escaped in --fix output %r" %
              (name[:12], out[:120]))
        rc, out, err = run(["--undo", log])
        check(rc == 0 and listing(root) == before,
              "log %r: --undo restores the tree (%d) %r" %
              (name[:12], rc, err[-200:]))
        check(b"undo " + esc + b":" in out and
              b"\nnl.log" not in out + err,
              "log %r: its name is escaped in --undo output %r" %
              (name[:12], out[-120:]))
    # A log in a directory that --fix renames moves with it: say where.
    t = fresh("t-logmoved")
    mkdir(t, b"Logs")
    logs = mkdir(t, b"logs")
    before = listing(t)
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log",
                        os.path.join(logs, "fix.log"), t])
    moved = os.path.join(t, "logs (2)", "fix.log")
    check(rc == 1 and os.path.exists(moved) and
          b"it is now " + os.fsencode(moved) + b"\n" in err,
          "a log moved by a directory rename: its new path is told "
          "(%d) %r" % (rc, err[-200:]))
    rc, out, err = run(["--undo", moved])
    check(rc == 0 and [x for x in listing(t)
                       if x[0] != b"logs/fix.log"] == before,
          "a moved log: --undo with its new path restores (%d)" % rc)
    # Nor in errors about the log (a terminal escape, a forged line).
    forged = os.path.join(TMP, "no\nfoldfs-check: all clean\x1b[2J.log")
    for argv in (["--undo", forged],
                 ["--casefold", "--fix", "--yes", "--log",
                  os.path.join(forged, "x.log"), root]):
        rc, out, err = run(argv)
        check(rc & 8 and b"\nfoldfs-check: all clean" not in out + err and
              b"\x1b" not in out + err and
              b"no\\x0afoldfs-check: all clean\\x1b[2J.log" in err,
              "%s with a log name holding control characters: escaped in "
              "messages (%d) %r" % (argv[0], rc, err[-160:]))

    check(run(["--casefold", "--log", "x.log", root])[0] == 16,
          "--log without --fix: usage error")
    # An existing file that is not a log is never appended to.
    before = tree()
    notes = os.path.join(TMP, "notes.txt")
    open(notes, "w").write("my notes\n")
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", notes, root])
    check(rc & 8 and listing(root) == before and
          open(notes).read() == "my notes\n" and b"not a foldfs-check" in err,
          "--log on a non-log file: refused, nothing renamed (%d) %r" %
          (rc, err[-200:]))
    # A log that cannot be opened: an operational error, nothing renamed.
    rc, objs, err = jrun(["--casefold", "--fix", "--yes", "--log",
                          "/nonexistent/x.log", root])
    ren = by_type(objs, "rename")
    check(rc == 12 and summary(objs).get("errors", 0) >= 1 and
          listing(root) == before and ren and
          all(o["status"] == "failed" and "reason" in o for o in ren),
          "unopenable log: exit 12, errors counted, nothing renamed (%d) %r"
          % (rc, summary(objs)))
    # The default log name is predictable: a symbolic link planted under
    # it (by whoever can write the current directory) is not followed,
    # neither is one given with --log.
    plant = fresh("t-log-plant")
    victim = os.path.join(TMP, "t-log-victim")
    if os.path.lexists(victim):
        os.unlink(victim)
    now = int(time.time())
    for s in range(now - 1, now + 30):
        os.symlink(victim, os.path.join(plant, time.strftime(
            "foldfs-check-fix-%Y%m%d-%H%M%S.log", time.gmtime(s))))
    p = subprocess.run([CHECK, "--casefold", "--fix", "--yes", root],
                       capture_output=True, cwd=plant)
    check(p.returncode == 12 and not os.path.lexists(victim) and
          listing(root) == before and b"symbolic link" in p.stderr,
          "default log name planted as a link: refused, nothing written or "
          "renamed (%d) %r" % (p.returncode, p.stderr[-200:]))
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log",
                        os.path.join(plant, os.listdir(plant)[0]), root])
    check(rc == 12 and not os.path.lexists(victim) and
          listing(root) == before,
          "--log naming a link: refused (%d) %r" % (rc, err[-200:]))

    # A disk that fills up while logging (RLIMIT_FSIZE: writes past the
    # limit are cut short, then fail): the log stays well formed, nothing
    # is renamed without its line, a re-run finishes, --undo restores.
    root2 = fresh("t-log-full")
    many_collisions(root2, ndirs=4, ngroups=10)
    before = listing(root2)
    log = os.path.join(TMP, "t-log-full.log")
    if os.path.exists(log):
        os.unlink(log)

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    p = subprocess.run([CHECK, "--casefold", "--fix", "--yes", "--log", log,
                        root2], capture_output=True, cwd=TMP,
                       preexec_fn=small_disk)
    data = open(log, "rb").read()
    lr = log_renames(log)
    done = [os.path.lexists(os.path.join(d, n)) for d, o, n in lr]
    check(p.returncode == 13 and data.endswith(b"\n") and 0 < len(lr) < 80
          and all(done),
          "log full: exit 13, log ends with a whole line, every logged "
          "rename done (%d, %d lines) %r" % (p.returncode, len(lr),
                                             p.stderr[-200:]))
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root2])
    check(rc == 1 and run(["--casefold", root2])[0] == 0,
          "log full: the re-run finishes the job (%d) %r" % (rc, err[-200:]))
    rc, out, err = run(["--undo", log])
    check(rc == 0 and listing(root2) == before,
          "log full: --undo restores the original (%d) %r" % (rc, out[-300:]))
    # A crash left half a line: the next run cuts it off, --undo works.
    before = tree()
    with open(log, "wb") as f:
        f.write(b"# foldfs-check rename log, format 2\nrename 2f746d")
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    rc2, out2, err2 = run(["--undo", log])
    check(rc == 1 and b"incomplete last line" in err and rc2 == 0 and
          listing(root) == before,
          "half a line in the log: cut off, undo restores (%d %d) %r" %
          (rc, rc2, err2[-200:]))
    # ... and where that half line was the header: written again, or
    # --undo could not read the log afterwards
    for head in (b"# foldfs-check rename log, format 2; undo: foldfs-ch",
                 b"# foldfs-check rename"):
        before = tree()
        with open(log, "wb") as f:
            f.write(head)
        rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log,
                            root])
        rc2, out2, err2 = run(["--undo", log])
        check(rc == 1 and b"header line was incomplete" in err and
              rc2 == 0 and listing(root) == before,
              "half a header %r: written again, undo restores (%d %d) %r" %
              (head[-6:], rc, rc2, err2[-200:]))
    # a header of a format this version cannot read is not appended to
    with open(log, "wb") as f:
        f.write(b"# foldfs-check rename log, format 23\n")
    before = tree()
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    check(rc == 12 and b"not a foldfs-check rename log" in err and
          listing(root) == before,
          "format 23: not appended to, nothing renamed (%d) %r" % (rc, err))
    # The renamed file has left its new name and another file took the
    # old one: not "skipped" (the inode says the rename happened), and
    # named under -q too.
    before = tree()
    os.remove(log)
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    lr = log_renames(log)
    d, o, n = lr[0]
    os.rename(os.path.join(d, n), os.path.join(d, b"moved-away"))
    mkfile(d, o, b"someone else's")
    rc, out, err = run(["--undo", log, "-q"])
    check(rc == 4 and b"moved on" in out and o in out,
          "renamed file moved on, old name retaken: failed, named under -q "
          "(%d) %r" % (rc, out))

    # A failed line cancels its rename: --undo must not move the file
    # that took the name (created by someone else between our check and
    # our rename), even once what --fix renamed has moved on.
    rt = os.path.join(os.fsencode(TMP), b"t-log-race")
    for fmt in (1, 2):
        if os.path.exists(rt):
            shutil.rmtree(rt)
        os.makedirs(rt)
        mkfile(rt, b"x (2)", b"racer\n")
        mkfile(rt, b"x (3)", b"ours\n")
        ino = os.lstat(os.path.join(rt, b"x (3)")).st_ino
        tail = b" %d" % ino if fmt == 2 else b""
        log = os.path.join(TMP, "t-log-race.log")
        with open(log, "wb") as f:
            f.write(b"# foldfs-check rename log, format %d\n" % fmt)
            for verb, new in ((b"rename", b"x (2)"), (b"failed", b"x (2)"),
                              (b"rename", b"x (3)")):
                f.write(b"%s %s %s %s%s\n" % (verb, hexb(rt), hexb(b"x"),
                                              hexb(new), tail))
        rc, out, err = run(["--undo", log])
        check(rc == 0 and
              open(os.path.join(rt, b"x"), "rb").read() == b"ours\n" and
              open(os.path.join(rt, b"x (2)"), "rb").read() == b"racer\n",
              "format %d: refused attempt not undone, no conflict (%d) %r" %
              (fmt, rc, out[-300:]))
        os.rename(os.path.join(rt, b"x"), os.path.join(rt, b"moved"))
        rc, out, err = run(["--undo", log])
        check(rc == 4 and not os.path.lexists(os.path.join(rt, b"x")) and
              open(os.path.join(rt, b"x (2)"), "rb").read() == b"racer\n",
              "format %d: what we renamed moved on; the racer's file stays "
              "(%d) %r" % (fmt, rc, out[-300:]))
    # Format 2: a different file under the new name is never moved.
    if os.path.exists(rt):
        shutil.rmtree(rt)
    os.makedirs(rt)
    mkfile(rt, b"a (2)", b"someone else\n")
    ino = os.lstat(os.path.join(rt, b"a (2)")).st_ino
    with open(log, "wb") as f:
        f.write(b"# foldfs-check rename log, format 2\n")
        f.write(b"rename %s %s %s %d\n" % (hexb(rt), hexb(b"a"),
                                          hexb(b"a (2)"), ino + 1))
    rc, out, err = run(["--undo", log])
    check(rc == 4 and not os.path.lexists(os.path.join(rt, b"a")) and
          b"another file now has the new name" in out,
          "another inode under the new name: left alone, exit 4 (%d) %r" %
          (rc, out[-300:]))
    with open(log, "ab") as f:
        f.write(b"failed 2f 61 62 1\n")
    check(run(["--undo", log])[0] == 8,
          "a failed line without its rename line: damaged log, exit 8")

    # --undo follows no symbolic link: a directory of the log replaced by
    # a link to elsewhere is not entered.
    before = tree()
    sub = os.path.join(os.fsencode(root), b"sub")
    os.mkdir(sub)
    mkfile(sub, b"Passwd", b"P\n")
    mkfile(sub, b"passwd", b"p\n")
    outside = os.path.join(os.fsencode(TMP), b"t-log-outside")
    if os.path.exists(outside):
        shutil.rmtree(outside)
    os.makedirs(outside)
    log = os.path.join(TMP, "t-log-link.log")
    if os.path.exists(log):
        os.unlink(log)
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, root])
    moved = [n for d, o, n in log_renames(log) if d.endswith(b"/sub")]
    os.rename(sub, sub + b".real")
    os.symlink(outside, sub)
    mkfile(outside, moved[0] if moved else b"passwd (2)", b"outside\n")
    rc, out, err = run(["--undo", log])
    check(rc & 8 and sorted(os.listdir(outside)) ==
          [moved[0] if moved else b"passwd (2)"] and
          b"symbolic link" in out,
          "--undo does not follow a symbolic link in the tree (%d) %r" %
          (rc, out[-300:]))

    # The log inside the tree, losing a collision: never renamed.
    tree()
    s7 = os.path.join(os.fsencode(root), b"sub7")
    os.mkdir(s7)
    mkfile(s7, b"FIX.LOG", b"user file\n")
    log = os.path.join(s7, b"fix.log")
    open(log, "wb").close()  # there when the walk lists sub7
    rc, objs, err = jrun(["--casefold", "--fix", "--yes", "--log",
                          os.fsdecode(log), root])
    bad = [o for o in by_type(objs, "rename") if o["status"] == "failed"]
    check(rc == 5 and len(bad) == 1 and "rename log" in bad[0]["reason"] and
          os.path.exists(log) and log_renames(log),
          "the log in the tree is never renamed (%d) %r" % (rc, bad))
    rc, out, err = run(["--undo", os.fsdecode(log)])
    check(rc == 0, "and --undo of it works (%d) %r" % (rc, out[-200:]))

    # Deeper than PATH_MAX: --undo walks the path one name at a time.
    rd = fresh("t-log-deep")
    p = os.fsencode(rd)
    dfd = os.open(p, os.O_RDONLY)
    for i in range(25):
        os.mkdir(b"D" * 200, dir_fd=dfd)
        nfd = os.open(b"D" * 200, os.O_RDONLY, dir_fd=dfd)
        os.close(dfd)
        dfd = nfd
    for n in (b"Deep.txt", b"deep.txt"):
        fd = os.open(n, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=dfd)
        os.write(fd, n)
        os.close(fd)
    log = os.path.join(TMP, "t-log-deep.log")
    if os.path.exists(log):
        os.unlink(log)
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log", log, rd])
    rc2, out2, err2 = run(["--undo", log])
    # rewound first: btrfs lists through a descriptor only the entries
    # that were there when it was opened or last rewound
    os.lseek(dfd, 0, os.SEEK_SET)
    check(rc == 1 and rc2 == 0 and
          sorted(map(os.fsencode, os.listdir(dfd))) ==
          [b"Deep.txt", b"deep.txt"],
          "deeper than PATH_MAX: fixed and undone (%d %d) %r" %
          (rc, rc2, out2[-200:]))
    os.close(dfd)

    # ascii: an ill-formed 255-byte name is shortened, not emptied.
    ra = fresh("t-log-ascii")
    mkfile(ra, b"\x80" * 254 + b"A")
    mkfile(ra, b"\x80" * 254 + b"a")
    rc, objs, err = jrun(["--casefold", "--encoding", "ascii", "--fix", ra])
    new = [bytes.fromhex(o["to_hex"]) for o in by_type(objs, "rename")]
    check(len(new) == 1 and len(new[0]) >= 240 and len(new[0]) <= 255,
          "ascii: ill-formed long name keeps its bytes (%r)" %
          [len(n) for n in new])


def load_ucd():
    ages = {}
    for l in open(os.path.join(args.ucd, "DerivedAge.txt")):
        l = l.split("#")[0].strip()
        if not l:
            continue
        r, a = [x.strip() for x in l.split(";")]
        lo, _, hi = r.partition("..")
        for c in range(int(lo, 16), int(hi or lo, 16) + 1):
            ages[c] = a
    folds = {}
    for l in open(os.path.join(args.ucd, "CaseFolding.txt")):
        l = l.split("#")[0].strip()
        if not l:
            continue
        f = [x.strip() for x in l.split(";")]
        if f[1] in ("C", "F"):
            folds[int(f[0], 16)] = [int(x, 16) for x in f[2].split()]
    return ages, folds


def vtuple(a):
    return tuple(int(x) for x in a.split("."))


def test_upgrade():
    ages, folds = load_ucd()
    # Code points assigned after 12.1 (and up to 15.0) that case fold to a
    # single code point: each pair collides only under the newer tables.
    new = sorted(c for c, f in folds.items()
                 if (12, 1) < vtuple(ages.get(c, "0.0")) <= (15, 0)
                 and len(f) == 1)
    pick = [new[i] for i in range(0, len(new), max(1, len(new) // 6))][:6]
    check(len(pick) >= 3, "found new case pairs in the UCD: %r" % pick)
    root = fresh("t-upgrade")
    d = mkdir(root, b"d")
    for c in pick:
        mkfile(d, u(chr(c)) + b".txt")
        mkfile(d, u(chr(folds[c][0])) + b".txt")
    mkfile(d, b"Old.txt")
    mkfile(d, b"old.txt")     # collides under both versions: not a change
    mkfile(d, b"plain")
    rc, objs, err = jrun(["--casefold", "--upgrade-to", "15.0", root])
    check(rc == 4, "upgrade with changes -> 4 (%d)" % rc)
    wc = by_type(objs, "would_collide")
    cc = by_type(objs, "class_change")
    ok = True
    for c in pick:
        want = frozenset([u(chr(c)) + b".txt", u(chr(folds[c][0])) + b".txt"])
        hit = [o for o in wc if names_of(o) == want]
        cps = {p["cp"]: p["age"] for o in hit for p in o["code_points"]}
        tag = "U+%04X" % c
        if len(hit) != 1 or cps.get(tag) != ages[c]:
            ok = False
            print("U+%04X (age %s): would_collide %r" % (c, ages[c], hit))
        ch = [o for o in cc if bytes.fromhex(o["name_hex"]) ==
              u(chr(c)) + b".txt"]
        if len(ch) != 1 or tag not in [p["cp"] for p in ch[0]["code_points"]]:
            ok = False
            print("no class_change naming %s: %r" % (tag, ch))
        for o in hit + ch:
            for p in o["code_points"]:
                a = vtuple(p["age"])
                if not ((12, 1) < a <= (15, 0)):
                    ok = False
    check(ok, "upgrade report names %d new code points with their ages %s" %
          (len(pick), [(hex(c), ages[c]) for c in pick]))
    check(len(wc) == len(pick), "no other new collisions: %d" % len(wc))
    involved = {bytes.fromhex(n["name_hex"]) for o in wc for n in o["names"]}
    involved |= {bytes.fromhex(o["name_hex"]) for o in cc}
    check(not involved & {b"Old.txt", b"old.txt", b"plain"},
          "names made of old characters are not reported")
    check(summary(objs).get("would_collide") == len(pick) and
          summary(objs).get("target") == "utf8-15.0.0", "upgrade summary")
    rc, out, err = run(["--casefold", "--upgrade-to", "15.0", root])
    c0 = pick[0]
    check(("U+%04X (%s)" % (c0, ages[c0])).encode() in out and
          b"would collide under utf8-15.0.0" in out, "text upgrade report")
    # And back down: the pairs would stop colliding.
    rc, objs, err = jrun(["--casefold", "--encoding", "utf8-15.0",
                          "--upgrade-to", "12.1", root])
    check(rc == 4 and len(by_type(objs, "would_split")) == len(pick),
          "downgrade splits the pairs (%d)" % len(by_type(objs,
                                                          "would_split")))
    # An upgrade that changes nothing.
    calm = fresh("t-upgrade-calm")
    for n in (b"a", b"B", u("\u00e9"), u("\u00c9t\u00e9")):
        mkfile(calm, n)
    rc, objs, err = jrun(["--casefold", "--upgrade-to", "15.0", calm])
    check(rc == 0 and summary(objs).get("class_changes") == 0,
          "upgrade without changes -> 0 (%d)" % rc)


def test_profiles():
    root = fresh("t-profile")
    for n in (u("\uff21bc"), b"abc", u("a\u200db"), b"ab", b"plain"):
        mkfile(root, n)
    rc, objs, err = jrun(["--casefold", "--compat", root])
    wc = by_type(objs, "would_collide")
    check(rc == 4 and len(wc) == 1 and
          names_of(wc[0]) == {u("\uff21bc"), b"abc"} and
          "U+FF21" in [p["cp"] for p in wc[0]["code_points"]],
          "--compat: fullwidth A would match (%r)" % wc)
    rc, objs, err = jrun(["--casefold", "--ignorables", root])
    wc = by_type(objs, "would_collide")
    check(rc == 4 and len(wc) == 1 and
          names_of(wc[0]) == {u("a\u200db"), b"ab"} and
          "U+200D" in [p["cp"] for p in wc[0]["code_points"]],
          "--ignorables: ZWJ would be dropped (%r)" % wc)
    rc, objs, err = jrun(["--casefold", "--flags", "compat", "--compat", root])
    ws = by_type(objs, "would_split")
    check(rc == 4 and len(ws) == 1 and
          names_of(ws[0]) == {u("\uff21bc"), b"abc"},
          "compat record, --compat flips it off: split (%r)" % ws)


def test_kernel_profile():
    # --profile ext4: the kernel's order of marks.  Under plain ignorables
    # the ZWNJ is dropped and the marks around it sorted, and U+0345 is
    # ordered as class 240, so each pair collides; the kernel keeps both
    # pairs apart.  Case folding still joins Straße and STRASSE.
    root = fresh("t-kprofile")
    apart = (u("a\u0300\u200c\u0316"), u("a\u0316\u0300"))
    ypo = (u("\u03b1\u0345\u0300"), u("\u03b1\u0300\u0345"))
    same = (u("Stra\u00dfe"), b"STRASSE")
    for n in apart + ypo + same + (u("A\u0300\u00ad\u0316"),):
        mkfile(root, n)
    rc, objs, err = jrun(["--casefold", "--flags", "ignorables", root])
    groups = [names_of(o) for o in by_type(objs, "collision")]
    check(rc == 4 and len(groups) == 3 and set(ypo) in groups and
          set(same) in groups and
          set(apart + (u("A\u0300\u00ad\u0316"),)) in groups,
          "--flags ignorables: marks sorted across the ZWNJ (%r)" % groups)
    rc, objs, err = jrun(["--casefold", "--profile", "ext4", root])
    groups = [names_of(o) for o in by_type(objs, "collision")]
    tree = by_type(objs, "tree")
    check(rc == 4 and len(groups) == 2 and set(same) in groups and
          {apart[0], u("A\u0300\u00ad\u0316")} in groups,
          "--profile ext4: only Straße and the two kept apart alike (%r)"
          % groups)
    check(len(tree) == 1 and tree[0].get("profile") == "ext4" and
          tree[0]["encoding"] == "utf8-12.1.0" and
          tree[0]["flags"] == "ignorables,kernel-order",
          "--profile ext4: the tree line names it (%r)" % tree)
    for argv, what in ((["--profile", "xfs", root], "unknown profile"),
                       (["--profile", "ext4", "-e", "utf8", root],
                        "with --encoding"),
                       (["--profile", "ext4", "--flags", "", root],
                        "with --flags"),
                       (["--profile", "ext4", "--info", root], "with --info"),
                       (["--profile", "ext4", "--set-encoding", "utf8-15.0",
                         root], "with --set-encoding")):
        rc, out, err = run(argv)
        check(rc == 16 and b"--help" in err, "--profile %s: usage error "
              "(exit %d, %r)" % (what, rc, err))


def test_casefold_dir():
    root = fresh("t-cfdir")
    top = mkdir(root, b"Top")
    a = mkdir(top, b"A")
    b = mkdir(a, b"B")
    mkfile(top, b"f")
    mkfile(b, b"Note")
    mkfile(b, b"NOTE")
    before = listing(root)
    rc, out, err = run(["--casefold-dir", top])
    check(rc == 4 and listing(root) == before and b"refusing" in err,
          "--casefold-dir refuses with collisions, changes nothing (%d)" % rc)
    rc, out, err = run(["--casefold-dir", top, "--fix", "--yes", "--log",
                        os.path.join(TMP, "cfdir.log")])
    check(rc == 1, "--casefold-dir --fix --yes -> 1 (%d) %r" % (rc, err))
    dirs = [x for x in listing(root) if x[1] == "d"]
    check(all(x[3] == b"1" for x in dirs if x[0].startswith(b"Top")) and
          len(dirs) == 3, "attribute set on DIR and every subdirectory")
    rc, objs, err = jrun([root])
    check(rc == 0 and summary(objs).get("folding_directories") == 3,
          "attribute-driven check is clean afterwards (%d)" % rc)
    # The two steps separately: --fix, then --casefold-dir.
    two = fresh("t-cfdir3")
    sub = mkdir(two, b"S")
    mkfile(sub, b"Dup")
    mkfile(sub, b"DUP")
    check(run(["--casefold-dir", two])[0] == 4, "refused before --fix")
    rc, out, err = run(["--casefold", "--fix", "--yes", "--log",
                        os.path.join(TMP, "cfdir3.log"), two])
    check(rc == 1, "--fix alone -> 1 (%d)" % rc)
    rc, out, err = run(["--casefold-dir", two])
    check(rc == 0 and os.getxattr(sub, "user.foldfs.casefold") == b"1",
          "--casefold-dir succeeds after --fix (%d)" % rc)
    clean = fresh("t-cfdir2")
    mkfile(mkdir(clean, b"x"), b"y")
    # --fix without --yes is a dry run of the whole command
    coll = fresh("t-cfdir4")
    mkfile(coll, b"Dup")
    mkfile(mkdir(coll, b"d"), b"dup")
    mkfile(coll, b"DUP")
    for tree, want in ((clean, 0), (coll, 4)):
        before = listing(tree)
        rc, out, err = run(["--casefold-dir", tree, "--fix"])
        check(rc == want and listing(tree) == before and
              b"dry run" in out,
              "--casefold-dir --fix without --yes sets nothing (%d %r)"
              % (rc, out))
    rc, out, err = run(["--casefold-dir", two, "--fix"])
    check(rc == 0 and b"dry run" in out, "dry run on a fixed tree (%d)" % rc)
    rc, objs, err = jrun(["--casefold-dir", clean])
    check(rc == 0 and summary(objs).get("casefold_set") == 2,
          "--casefold-dir on a clean tree -> 0, 2 dirs (%d)" % rc)
    # Again, and on a tree where only a subdirectory lacks it: only what
    # this run changed is counted
    rc, objs, err = jrun(["--casefold-dir", clean])
    check(rc == 0 and summary(objs).get("casefold_set") == 0,
          "--casefold-dir again: nothing set (%d %r)" % (rc, summary(objs)))
    mkdir(clean, b"z")
    rc, out, err = run(["--casefold-dir", clean])
    check(rc == 0 and b"set on 1 directory\n" in out,
          "--casefold-dir with one new subdirectory: 1 set (%d %r)"
          % (rc, out))


def record_text(root):
    return open(os.path.join(root, ".foldfs"), "rb").read()


def test_set_encoding_info():
    root = fresh("t-setenc")
    fold = mkdir(root, b"fold")
    plain = mkdir(root, b"plain")
    os.setxattr(fold, "user.foldfs.casefold", b"1")
    mkfile(plain, u("\ua7c7"))
    mkfile(plain, u("\ua7c8"))   # in a non-folding directory: irrelevant
    mkfile(fold, u("\ua7c7x"))
    mkfile(fold, b"ok")

    rc, out, err = run(["--info", root])
    check(rc == 1 and b"no encoding record" in out, "--info without record")
    rc, out, err = run(["--set-encoding", "utf8-12.1", root])
    check(rc == 0 and b"encoding=utf8-12.1.0\n" in record_text(root),
          "--set-encoding creates the record (%d)" % rc)
    rc, out, err = run(["--info", root])
    check(rc == 0 and b"Encoding:                 utf8-12.1.0" in out and
          b"Unicode version:          12.1.0" in out, "--info: %r" % out)
    rc, objs, err = jrun(["--info", root])
    check(rc == 0 and objs[0]["encoding"] == "utf8-12.1.0", "--info --json")

    rec = record_text(root)
    rc, objs, err = jrun(["--set-encoding", "utf8-15.0", root])
    check(rc == 4 and record_text(root) == rec and
          by_type(objs, "class_change"),
          "--set-encoding refused when a class changes (%d)" % rc)
    # Strict refused while an ill-formed name sits in a folding directory.
    mkfile(fold, b"bad\xff")
    rc, out, err = run(["--set-encoding", "utf8-12.1", "--set-flags",
                        "strict", root])
    check(rc == 4 and record_text(root) == rec,
          "--set-flags strict refused with an ill-formed name (%d)" % rc)
    check(b"ill-formed name" in out and b"bad\\xff" in out and
          b"byte offset 3" in out and b"error under strict" in out,
          "the refusal names it and its offset: %r" % out)
    rc, objs, err = jrun(["--set-encoding", "utf8-12.1", "--set-flags",
                          "strict", root])
    wr = by_type(objs, "would_refuse")
    check(rc == 4 and len(wr) == 1 and
          bytes.fromhex(wr[0]["name_hex"]) == b"bad\xff" and
          wr[0]["offset"] == 3 and wr[0]["to"].startswith("utf8-12.1"),
          "--json: a would_refuse object: %r" % wr)
    os.unlink(os.path.join(os.fsencode(fold), b"bad\xff"))
    os.unlink(os.path.join(os.fsencode(fold), u("\ua7c7x")))
    mkfile(fold, u("\ua7c8x"))   # lower case: same class in both versions
    rc, out, err = run(["--set-encoding", "utf8-15.0", root])
    check(rc == 0 and b"encoding=utf8-15.0.0\n" in record_text(root),
          "--set-encoding proceeds when nothing changes (%d)" % rc)
    # The record is found from a subdirectory and .foldfs is not a name.
    rc, objs, err = jrun([fold])
    t = by_type(objs, "tree")[0]
    check(t["encoding"] == "utf8-15.0.0" and t["record"] and
          t["record"].endswith("/.foldfs"), "record found upward: %r" % t)
    # --info of that subdirectory names the tree's record, as the check
    # finds it, rather than claiming a mount would create one there
    rc, out, err = run(["--info", fold])
    check(rc == 1 and b"no encoding record of its own" in out and
          os.fsencode(os.path.join(root, ".foldfs")) in out and
          b"first read-write mount" not in out,
          "--info inside a recorded tree names its record (%d) %r" %
          (rc, out))
    rc, objs, err = jrun(["--info", fold])
    check(rc == 1 and objs and objs[0]["present"] is False and
          bytes.fromhex(objs[0].get("tree_hex", "")) ==
          os.fsencode(os.path.realpath(root)),
          "--info --json: the enclosing tree (%d) %r" % (rc, objs))
    rc, objs, err = jrun(["--casefold", root])
    check(summary(objs).get("names") == 6, "record file is not counted (%r)"
          % summary(objs).get("names"))
    # A malformed record is an operational error with a clear message.
    open(os.path.join(root, ".foldfs"), "w").write(
        "format=1\nencoding=utf8\ncolour=blue\n")
    rc, out, err = run([root])
    check(rc == 8 and b"unknown key 'colour'" in err,
          "malformed record -> 8: %r" % err)
    rc, out, err = run(["--info", root])
    check(rc == 8 and b"line 3" in err, "--info on a malformed record")


def test_record_terminal_safe():
    """--info shows the record's free-text fields escaped, as names are;
    a malformed record's message too."""
    root = fresh("t-recesc")
    rec = os.path.join(root, ".foldfs")
    open(rec, "wb").write(
        b"format=1\nencoding=utf8-12.1\nflags=\n" +
        b"created=" + u("\u009b2J\u202egnp.exe") + b"\n" +
        b"creator=x" + u("\u2066") + b"\xff\\y\n")
    raw = (u("\u009b"), u("\u202e"), u("\u2066"), b"\xff")
    rc, out, err = run(["--info", root])
    check(rc == 0 and not any(r in out + err for r in raw) and
          b"Created:                  \\xc2\\x9b2J\\xe2\\x80\\xaegnp.exe\n"
          in out and
          b"Creator:                  x\\xe2\\x81\\xa6\\xff\\\\y\n" in out,
          "--info escapes C1, bidi and ill-formed bytes of fields (%d) %r"
          % (rc, out[-160:]))
    rc, out, err = run(["--info", "--json", root])
    o = json.loads(out) if rc == 0 else {}
    check(rc == 0 and not any(r in out for r in raw[:3]) and
          o.get("created") == "\u009b2J\u202egnp.exe" and
          o.get("creator") == "x\u2066\\xff\\y",
          "--info --json escapes them as \\uXXXX (%d) %r" % (rc, out))
    # a PATH whose record cannot be read still has its JSON object, as
    # in a check (it had none: a JSON reader missed it)
    missing = os.path.join(TMP, "t-recesc-missing")
    rc, objs, err = jrun(["--info", root, missing])
    check(rc == 8 and len(objs) == 2 and objs[0].get("type") == "record" and
          objs[1].get("type") == "error" and objs[1].get("op") == "info" and
          objs[1].get("exit") == 8 and
          bytes.fromhex(objs[1].get("dir_hex", "")) == os.fsencode(missing),
          "--info --json: an error object for an unreadable PATH (%d) %r" %
          (rc, objs))
    # option values quoted in usage errors, likewise, and the options
    # getopt refuses (its own messages echo them raw)
    for argv, want in ((["--x\x1b[2J"], b"option '--x\\x1b[2J' is not known"),
                       ([b"-\x9b"], b"invalid option -- '\\x9b'"),
                       (["--json=\x1b"], b"option '--json' doesn't allow an "
                                         b"argument"),
                       (["--upgrade-to"], b"option '--upgrade-to' requires an "
                                         b"argument")):
        rc, out, err = run(argv)
        check(rc == 16 and err.startswith(b"foldfs-check: " + want) and
              b"\x1b" not in err and b"\x9b" not in err and not out,
              "%r: usage error, escaped (%d) %r" % (argv, rc, err))
    for argv in (["--flags", "x\x1b[2J"], ["--encoding", "x\x1b[2J"]):
        rc, out, err = run(argv + [root])
        check(rc == 16 and b"\x1b" not in err and b"x\\x1b[2J" in err,
              "%s: the bad value is quoted escaped (%d) %r" %
              (argv[0], rc, err))
    open(rec, "wb").write(b"format=1\nencoding=utf8-12.1\n" +
                          b"k" + u("\u009b2J\u202e") + b"=1\n")
    for argv in (["--info", root], [root]):
        rc, out, err = run(argv)
        check(rc == 8 and not any(r in out + err for r in raw) and
              b"unknown key 'k\\xc2\\x9b2J\\xe2\\x80\\xae'" in err,
              "%s: a malformed record's message is escaped (%d) %r" %
              (argv[0], rc, err))
    # and foldfs --info, which prints the record the same way
    daemon = os.path.join(BUILD, "foldfs")
    if os.path.exists(daemon):
        open(rec, "wb").write(b"format=1\nencoding=utf8-12.1\n" +
                              b"creator=" + u("\u202e") + b"\n")
        p = subprocess.run([daemon, "--info", root], capture_output=True)
        check(p.returncode == 0 and raw[1] not in p.stdout and
              b"Creator:                  \\xe2\\x80\\xae\n" in p.stdout,
              "foldfs --info escapes fields too (%d) %r" %
              (p.returncode, p.stdout[-80:]))


def test_undo_elsewhere():
    """A log given (or defaulted) relative to the current directory names
    itself absolutely, so its --undo works from anywhere."""
    root = fresh("t-undo-rel")
    for n in (b"Report.txt", b"report.txt"):
        mkfile(root, n)
    before = listing(root)
    logdir = fresh("t-undo-rel-logs")
    for argv in (["--log", "rel.log"], []):
        p = subprocess.run([CHECK, "--casefold", "--fix", "--yes"] + argv +
                           [root], capture_output=True, cwd=logdir)
        logs = [n for n in os.listdir(logdir) if n.endswith(".log")]
        if not check(p.returncode == 1 and len(logs) == 1,
                     "--fix %r from another directory (%d) %r" %
                     (argv, p.returncode, p.stderr)):
            return
        log = os.path.join(logdir, logs[0])
        first = open(log, "rb").read().split(b"\n")[0]
        check(first.endswith(b"--undo " + os.fsencode(log)) and
              b"logging renames to " + os.fsencode(log) + b"\n" in p.stdout,
              "the header and the message name the log absolutely: %r" %
              first)
        cmd = first.split(b"undo: ", 1)[-1].split(b" ")
        p = subprocess.run([CHECK] + cmd[1:], capture_output=True, cwd="/")
        check(cmd[0] == b"foldfs-check" and p.returncode == 0 and
              listing(root) == before,
              "the header's undo command works from / (%d) %r" %
              (p.returncode, p.stderr))
        os.unlink(log)


def test_record_rules():
    """Which record a check uses, and what --set-encoding and
    --casefold-dir may change."""
    root = fresh("t-rules")
    d = mkdir(root, b"docs")
    mkfile(d, u("\uff21"))    # fullwidth A: equals "a" only under compat
    mkfile(d, b"a")
    open(os.path.join(root, ".foldfs"), "w").write(
        "format=1\nencoding=utf8-12.1\nflags=compat\n")
    os.chmod(os.path.join(root, ".foldfs"), 0o644)
    # A record in a directory one may search but not list (0711).
    os.chmod(root, 0o711)
    if reachable_by(65534, d):
        rc, out, err = run(["--casefold", d], user=65534)
        check(rc == 4 and b"collision" in out and b"no encoding record"
              not in out, "record in a 0711 directory is read (%d) %r" %
              (rc, (out + err)[-300:]))
    else:
        print("skipped: uid 65534 cannot reach %s" % d)
    os.chmod(root, 0o755)
    # A parent's record of a third user governs nothing (anyone may write
    # a .foldfs into /tmp); the daemon has the same rule.
    rec = os.path.join(root, ".foldfs")
    os.chown(rec, 4321, 4321)
    rc, out, err = run(["--casefold", d])
    rc2, out2, err2 = run(["--casefold", root])
    os.chown(rec, 0, 0)
    rc3, out3, err3 = run(["--casefold", d])
    check(rc == 0 and b"no encoding record" in out and
          rc2 == 4 and rc3 == 4,
          "another user's record above PATH ignored (%d), its own tree's "
          "record read (%d), root's above PATH read (%d) %r"
          % (rc, rc2, rc3, (out + err)[-300:]))
    # --set-encoding checks under the tree's own record only.
    rc, out, err = run(["--casefold", "--flags", "compat", "--set-encoding",
                        "utf8-12.1", root])
    check(rc == 16, "--set-encoding with --flags: usage error (%d)" % rc)
    rc, out, err = run(["--encoding", "utf8-15.0", "--casefold-dir", d])
    check(rc == 16, "--casefold-dir with --encoding: usage error (%d)" % rc)
    rc, out, err = run(["--casefold", "--set-encoding", "utf8-15.0", d])
    check(rc == 4 and not os.path.exists(os.path.join(d, ".foldfs")) and
          b"is inside the tree recorded in" in err,
          "--set-encoding in a recorded tree's subdirectory refused (%d) %r"
          % (rc, err[-200:]))
    # Collisions that stay (the new record changes no class) are still
    # problems: exit 4, record written.
    rc, out, err = run(["--casefold", "--set-encoding", "utf8-15.0",
                        "--set-flags", "compat", root])
    check(rc == 4 and b"encoding=utf8-15.0.0\n" in record_text(root),
          "--set-encoding with collisions left: written, exit 4 (%d)" % rc)
    # Strict that stays strict is not a change for ill-formed names.
    open(os.path.join(root, ".foldfs"), "w").write(
        "format=1\nencoding=utf8-12.1\nflags=strict\n")
    os.unlink(os.path.join(os.fsencode(d), u("\uff21")))
    mkfile(d, b"bad\xff")
    rc, out, err = run(["--casefold", "--set-encoding", "utf8-15.0", root])
    check(rc == 4 and b"encoding=utf8-15.0.0\n" in record_text(root) and
          b"would change" not in err,
          "strict stays strict: not refused for ill-formed names (%d) %r" %
          (rc, err[-200:]))
    # The record's temporary file never replaces a file of that name.
    os.unlink(os.path.join(root, ".foldfs"))
    p = subprocess.run(["sh", "-c", 'echo precious > "$1/.foldfs.tmp.$$" && '
                        'echo precious > "$1/.foldfs.tmp.$$.0" && exec "$2" '
                        '-q --set-encoding utf8-12.1 "$1"', "sh", root, CHECK],
                       capture_output=True)
    tmps = [n for n in os.listdir(root) if n.startswith(".foldfs.tmp.")]
    check(len(tmps) == 2 and all(open(os.path.join(root, n)).read() ==
                                 "precious\n" for n in tmps) and
          b"encoding=utf8-12.1.0\n" in record_text(root),
          "a file named like the temporary record survives (%r)" % tmps)
    # --json: a PATH that cannot be checked still gets an object.
    rc, objs, err = jrun(["--casefold", d, "/nonexistent-foldfs-path"])
    errs = [o for o in by_type(objs, "error") if o.get("op") == "check"]
    check(rc & 8 and len(by_type(objs, "summary")) == 1 and len(errs) == 1 and
          errs[0]["dir"] == "/nonexistent-foldfs-path" and errs[0]["exit"] == 8,
          "--json: an error object for a PATH not checked (%d) %r" % (rc, errs))
    # --profile ext4: the summary names the flags as the tree object does.
    rc, objs, err = jrun(["--profile", "ext4", d])
    check(summary(objs).get("flags") == by_type(objs, "tree")[0]["flags"] ==
          "ignorables,kernel-order", "ext4 flags in tree and summary: %r" %
          summary(objs).get("flags"))
    # Text output escapes a PATH's control bytes everywhere.
    odd = mkdir(root, b"x\x1b[2J\nFAKE")
    rc, out, err = run(["--info", odd])
    rc2, out2, err2 = run(["--casefold", odd])
    check(b"\x1b" not in out + err + out2 + err2 and
          b"\\x1b" in out + out2, "control bytes of a PATH escaped: %r" %
          (out + err + out2 + err2)[-300:])
    # --casefold-dir is all or nothing: a part it cannot set (read-only)
    # leaves no directory with the attribute it did not have.
    cf = os.path.join(os.fsencode(TMP), b"t-rules-cf")
    if os.path.exists(cf):
        for m in (b"D/b", b"R"):
            subprocess.run(["umount", os.path.join(cf, m)],
                           capture_output=True)
        shutil.rmtree(cf)
    for sub in (b"D/a/a1", b"D/b/b1", b"D/c/c1"):
        os.makedirs(os.path.join(cf, sub))
    ro = os.path.join(cf, b"D/b")
    if (subprocess.run(["mount", "--bind", ro, ro]).returncode or
            subprocess.run(["mount", "-o", "remount,bind,ro", ro]).returncode):
        print("skipped: cannot make a read-only bind mount")
        return
    try:
        rc, out, err = run(["--casefold-dir", os.fsdecode(os.path.join(cf, b"D"))])
        have = []
        for dp, dn, fn in os.walk(cf):
            try:
                os.getxattr(dp, "user.foldfs.casefold")
                have.append(dp)
            except OSError:
                pass
        check(rc == 12 and not have and b"removed it again" in err,
              "--casefold-dir failing in part sets nothing (%d) %r %r" %
              (rc, have, err[-200:]))
    finally:
        subprocess.run(["umount", ro])
    # A PATH on a read-only file system: changes are refused once, before
    # the walk, not attempted name by name; a dry run still reports.
    ro = os.path.join(cf, b"R")
    os.makedirs(ro)
    for n in (b"x", b"X"):
        open(os.path.join(ro, n), "wb").close()
    if (subprocess.run(["mount", "--bind", ro, ro]).returncode or
            subprocess.run(["mount", "-o", "remount,bind,ro", ro]).returncode):
        print("skipped: cannot make a read-only bind mount")
        return
    try:
        log = os.path.join(cf, b"fix.log")
        rc, out, err = run(["--casefold", "--fix", "--yes", "--log",
                            os.fsdecode(log), os.fsdecode(ro)])
        check(rc == 8 and err.count(b"read-only file system") == 1 and
              b"FAILED" not in out and not os.path.exists(log),
              "--fix --yes on a read-only PATH: refused once (%d) %r %r" %
              (rc, out[-200:], err[-200:]))
        for args, what in ((["--casefold-dir"], b"marked"),
                           (["--set-encoding", "utf8-15.0"], b"recorded")):
            rc, out, err = run(args + [os.fsdecode(ro)])
            check(rc == 8 and b"read-only file system: nothing can be " +
                  what in err, "%s on a read-only PATH: refused (%d) %r" %
                  (args[0], rc, err[-200:]))
        rc, out, err = run(["--casefold", "--fix", os.fsdecode(ro)])
        check(rc == 4 and b"would rename" in out,
              "--fix dry run on a read-only PATH still reports (%d) %r" %
              (rc, (out + err)[-200:]))
    finally:
        subprocess.run(["umount", ro])


def test_write_errors():
    """Output that cannot be written is an operational error on every
    path, for foldfs-check and foldfs's printing commands."""
    root = fresh("t-full")
    run(["-q", "--set-encoding", "utf8-12.1", root])  # --info prints it
    daemon = os.path.join(BUILD, "foldfs")
    cmds = [[CHECK, "--info", root], [CHECK, "--help"],
            [CHECK, "--casefold", root]]
    if os.path.exists(daemon):
        cmds += [[daemon, "--info", root], [daemon, "--help"],
                 [daemon, "--version"]]
    for argv in cmds:
        with open("/dev/full", "wb") as full:
            p = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE)
        want = 1 if argv[0] == daemon else 8
        check(p.returncode & want and b"write error" in p.stderr,
              "%s > /dev/full fails (%d)" %
              (" ".join(os.path.basename(a) for a in argv), p.returncode))


def test_deep():
    root = fresh("t-deep")
    p = os.fsencode(root)
    branch = []
    for i in range(150):
        p = os.path.join(p, b"L%d" % i)
        os.mkdir(p)
        if i % 30 == 0:
            branch.append(p)
    mkfile(p, b"Bottom")
    mkfile(p, b"bottom")
    for bp in branch:
        for k in range(3):
            q = os.path.join(bp, b"side%d" % k)
            os.mkdir(q)
            mkfile(q, b"S")
            mkfile(q, b"s")
    res = []
    for m in ("2", "64"):
        rc, objs, err = jrun(["--casefold", "--max-fds", m, root])
        res.append((rc, sorted((o["dir_hex"], o["winner"]["name_hex"])
                               for o in by_type(objs, "collision"))))
    check(res[0] == res[1] and res[0][0] == 4 and
          len(res[0][1]) == 1 + 3 * len(branch),
          "deep tree: same findings with 2 fds as with 64 (%d)" %
          len(res[0][1]))

    # Deeper than PATH_MAX with short names, and side directories at every
    # level: going back up must not reopen each level from the root (one
    # open per level each time: quadratic, minutes for a few thousand).
    # (rm -rf: shutil.rmtree recurses once per level and would fail)
    subprocess.run(["rm", "-rf", os.path.join(TMP, "t-deep-wide")])
    root = fresh("t-deep-wide")
    fd = os.open(root, os.O_RDONLY)
    depth = 2000
    for i in range(depth):
        for n in (b"c", b"s%da" % i, b"s%db" % i):   # orders vary per level
            os.mkdir(n, dir_fd=fd)
        if i % 500 == 0:
            for n in (b"X", b"x"):
                os.close(os.open(n, os.O_CREAT | os.O_WRONLY, dir_fd=fd))
        nfd = os.open(b"c", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
    res = []
    for m in ("2", "64"):
        # opens counted, not time: linear is a few per directory, the
        # quadratic walk ~depth/2 per level (~2 million here)
        with tempfile.NamedTemporaryFile() as tr:
            rc, objs, err = jrun(["--casefold", "--max-fds", m, root],
                                 wrap=["strace", "-f", "-qq", "-c", "-U",
                                       "calls,syscall", "-e",
                                       "trace=openat", "-o", tr.name])
            opens = re.findall(rb"^\s*(\d+)\s+openat", open(tr.name, "rb").read(),
                               re.M)
        s = summary(objs)
        res.append((rc, s.get("directories"), s.get("collision_groups")))
        n_open = int(opens[0]) if opens else -1
        check(0 < n_open < 4 * (3 * depth + 1),
              "deep tree with side directories, --max-fds %s: %d opens for "
              "%d directories" % (m, n_open, 3 * depth + 1))
    check(res[0] == res[1] == (4, 3 * depth + 1, depth // 500),
          "deep tree with side directories: all walked (%r)" % res)
    # --max-fds beyond the open-file limit: kept under it, still all
    # walked (before: EMFILE, subtrees left out, exit 8)
    rc, objs, err = jrun(["--casefold", "--max-fds", "1000", root],
                         wrap=["prlimit", "--nofile=48:48"])
    s = summary(objs)
    check((rc, s.get("directories"), s.get("collision_groups")) == res[0],
          "--max-fds 1000 with 48 descriptors: all walked (%d %r %r)"
          % (rc, summary(objs), err[-200:]))
    subprocess.run(["rm", "-rf", root])


def test_progress():
    root = fresh("t-progress")
    for i in range(20):
        d = mkdir(root, b"d%d" % i)
        for j in range(50):
            mkfile(d, b"f%d" % j, b"")
    env = {"FOLDFS_CHECK_PROGRESS_MS": "0"}   # show at once (test hook)
    rc, out, err = run(["--casefold", root], env=env)
    check(rc == 0 and err == b"", "no progress line when stderr is a pipe")
    rc, out, err = run(["--casefold", "--progress", root], env=env)
    check(b"\r\x1b[K" in err and b"names" in err,
          "--progress forces it: %r" % err[:80])
    if not shutil.which("script"):
        check(False, "script(1) is needed to test the terminal case")
        return
    for opt, want in (("", True), ("--no-progress", False)):
        cmd = "%s --casefold %s %s >/dev/null" % (CHECK, opt, root)
        e = dict(os.environ)
        e.update(env)
        p = subprocess.run(["script", "-qec", cmd, "/dev/null"],
                           capture_output=True, env=e, cwd=TMP)
        got = b"\r\x1b[K" in p.stdout and b" names" in p.stdout
        check(got == want, "terminal %s: progress %s (%r)" %
              (opt or "default", "shown" if want else "hidden",
               p.stdout[-120:]))


def mounted(mnt):
    want = os.path.realpath(mnt)
    with open("/proc/self/mountinfo") as f:
        return any(l.split()[4] == want for l in f)


def test_daemon_agrees():
    """The winner foldfs-check reports is the file a foldfs mount opens
    for any other spelling (skipped without the daemon or /dev/fuse)."""
    daemon = os.path.join(BUILD, "foldfs")
    if not os.access(daemon, os.X_OK) or not os.path.exists("/dev/fuse"):
        print("test_daemon_agrees: skipped (no %s or /dev/fuse)" % daemon)
        return
    root = fresh("t-daemon")
    src = mkdir(root, b"src")
    mnt = mkdir(root, b"mnt")
    d = mkdir(src, b"d")
    for g in GROUPS:
        for n in g:
            mkfile(d, n)
    rc, objs, err = jrun(["--casefold", src])
    groups = [(names_of(o), bytes.fromhex(o["winner"]["name_hex"]))
              for o in by_type(objs, "collision")]
    check(len(groups) == len(GROUPS), "groups found before mounting")
    p = subprocess.Popen([daemon, src, mnt, "-f", "-o", "casefold"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(200):
        if mounted(mnt) or p.poll() is not None:
            break
        time.sleep(0.05)
    if not mounted(mnt):
        p.kill()
        check(False, "foldfs did not mount: %r" % p.stderr.read())
        return
    try:
        md = os.path.join(os.fsencode(mnt), b"d")
        ok = True
        for names, win in groups:
            want = open(os.path.join(os.fsencode(d), win), "rb").read()
            # spellings that are not stored: the model key, upper case
            for other in (key_model(win), key_model(win).upper(),
                          unicodedata.normalize("NFC", key_model(win))):
                ob = u(other)
                if ob in names:
                    continue
                got = open(os.path.join(md, ob), "rb").read()
                if got != want:
                    ok = False
                    print("lookup %r: got %r, want winner %r" %
                          (ob, got[:30], win))
            for n in names:   # exact spellings find themselves
                if open(os.path.join(md, n), "rb").read() != \
                        open(os.path.join(os.fsencode(d), n), "rb").read():
                    ok = False
                    print("exact lookup %r found another file" % n)
        check(ok, "the mount opens the reported winner for other spellings")
        check(set(os.listdir(md)) == set(os.listdir(os.fsencode(d))),
              "the mount lists every stored name")
        # The tree holding both SOURCE and the view: the view is not
        # walked (its names are SOURCE's again), and a note says so.
        # --info through the view would find no record (it is hidden
        # there): refused as a check is, not "no encoding record"
        rc, out, err = run(["--info", mnt])
        check(rc == 8 and b"inside a foldfs view" in err and
              b"no encoding record" not in out,
              "--info of a view is refused (%d) %r %r" % (rc, out, err))
        rc, objs, err = jrun(["--casefold", root])
        notes = [o["message"] for o in by_type(objs, "note")]
        check(len(by_type(objs, "collision")) == len(GROUPS) and
              any("a foldfs view of" in m and "not walked" in m
                  for m in notes),
              "a view inside PATH is not walked: %d groups (want %d), "
              "notes %r" % (len(by_type(objs, "collision")), len(GROUPS),
                            notes))
        # A view that cannot be stat()ed (realpath() still resolves it):
        # exit 8 with a message naming it, not a silent 8
        if reachable_by(65534, TMP):
            rc, out, err = run(["--casefold", mnt], user=65534)
            check(rc == 8 and os.fsencode(mnt) in err and
                  b"Permission denied" in err,
                  "another user's view: exit 8 saying why (%d) %r" %
                  (rc, err))
        p.kill()   # the daemon dies, the mount stays: ENOTCONN
        p.wait(timeout=10)
        time.sleep(1.5)   # once the cached attributes (1 s) are stale
        for argv in (["--casefold", mnt], ["--info", mnt]):
            rc, out, err = run(argv)
            check(rc == 8 and os.fsencode(mnt) in err and
                  b"not connected" in err,
                  "%s on a view whose daemon died: exit 8 saying why "
                  "(%d) %r" % (argv[0], rc, err))
    finally:
        subprocess.run(["fusermount3", "-u", mnt])
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def test_help():
    rc, out, err = run(["--help"])
    for opt in ("--encoding", "--profile", "--casefold", "--upgrade-to",
                "--compat", "--ignorables", "--fix", "--yes", "--undo",
                "--casefold-dir", "--info", "--set-encoding", "--json",
                "Exit status"):
        check(rc == 0 and opt.encode() in out, "--help mentions " + opt)
    rc, out, err = run(["--version"])
    check(rc == 0 and out.startswith(b"foldfs-check "), "--version")
    # -q quiets the text output only, as foldfs-check(1) says: with --json
    # the tree and summary objects are still written
    q = fresh("t-quiet")
    mkfile(q, b"x")
    mkfile(q, b"X")
    rc, out, err = run(["-q", "--casefold", q])
    check(rc == 4 and b"collision" in out and b"foldfs-check:" not in out,
          "-q: the collision without header or summary: %r" % out)
    rc, objs, err = jrun(["-q", "--casefold", q])
    check(rc == 4 and len(by_type(objs, "tree")) == 1 and
          summary(objs).get("exit") == 4,
          "-q --json: tree and summary objects still written: %r" % objs)


os.makedirs(TMP, exist_ok=True)
os.chmod(TMP, 0o755)
for t in (test_record_unit, test_known_collisions, test_random_model,
          test_json_escaping, test_exit_codes, test_fix_undo,
          test_undo_chain, test_scaling, test_interrupted, test_log_safety, test_upgrade, test_profiles,
          test_kernel_profile, test_casefold_dir,
          test_set_encoding_info, test_record_terminal_safe,
          test_undo_elsewhere, test_record_rules, test_write_errors,
          test_deep, test_progress,
          test_daemon_agrees, test_help):
    if args.only and t.__name__ not in args.only.split(","):
        continue
    before = failed
    try:
        t()
    except Exception as ex:  # a crash in a test is a failure, not an abort
        import traceback
        traceback.print_exc()
        check(False, "%s raised %r" % (t.__name__, ex))
    print("%-26s %s" % (t.__name__, "ok" if failed == before else
                        "FAILED (%d)" % (failed - before)))
if not failed:   # keep the trees for a post-mortem only
    subprocess.run(["chmod", "-R", "u+rwx", TMP])
    shutil.rmtree(TMP, ignore_errors=True)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
