#!/usr/bin/env python3
"""mktree.py DIR [NDIRS [NFILES]] - the foldfs-check benchmark tree.

NDIRS directories of NFILES empty files each (default 1000 x 1000 =
1,000,000 entries).  Names are varied: mostly ASCII "word-NNNN.ext",
one in eight with Latin-1/Greek/Cyrillic letters, and two colliding names
per directory, so the checker does real folding and reports something.
Built in DIR.tmp and renamed to DIR at the end, so an interrupted run never
leaves a half tree that looks complete.
"""
import os
import shutil
import sys

dst = sys.argv[1]
ndirs = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
nfiles = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
tmp = dst + ".tmp"
shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)
words = ["report", "Budget", "photo", "IMG", "notes", "Résumé", "straße",
         "ΣΟΦΙΑ", "данные", "café", "README", "index", "Ölfass", "naïve"]
exts = [".txt", ".jpg", ".c", ".h", ".md", ".PDF", ""]
for d in range(ndirs):
    dp = os.path.join(tmp, "dir%04d" % d)
    os.mkdir(dp)
    for f in range(nfiles - 2):
        w = words[(f * 7 + d) % len(words)] if f % 8 == 0 else \
            words[(f * 3 + d) % 4]
        name = "%s-%05d%s" % (w, f, exts[(f + d) % len(exts)])
        os.close(os.open(os.path.join(dp, name),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    # a collision pair per directory
    for name in ("Collide-%d.txt" % d, "COLLIDE-%d.TXT" % d):
        os.close(os.open(os.path.join(dp, name),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
os.rename(tmp, dst)
print("created %s: %d directories x %d files" % (dst, ndirs, nfiles))
