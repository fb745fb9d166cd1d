#!/usr/bin/env python3
"""sqlite-count.py MODE STEPS DIR... - a lock-heavy real program across views.

One SQLite database, reached through each DIR (the same file through a
foldfs view and directly in SOURCE, say); one process per DIR adds 1 to a
counter STEPS times, each in its own transaction (SQLite's own locking:
fcntl locks on the database and, in WAL mode, on its -shm file).  Prints
"count N want M", then SQLite's integrity check, and exits 0 only if no
increment was lost and the database is sound: a process that read a page
cached from before another's commit would lose one.  Exits 77 if Python
has no sqlite3 module.
"""
import multiprocessing
import os
import sys

try:
    import sqlite3
except ImportError:
    print("no sqlite3 module in this Python")
    sys.exit(77)


def database(d):
    return os.path.join(d, "count.db")


def add(args):
    d, steps = args
    c = sqlite3.connect(database(d), isolation_level=None, timeout=60)
    for _ in range(steps):
        while True:
            try:
                c.execute("begin immediate")
                v = c.execute("select v from t where k = 1").fetchone()[0]
                c.execute("update t set v = ? where k = 1", (v + 1,))
                c.execute("commit")
                break
            except sqlite3.OperationalError as e:
                # busy past the timeout: try again; anything else is a failure
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                if c.in_transaction:
                    c.execute("rollback")
    c.close()


def main():
    mode, steps, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    c = sqlite3.connect(database(dirs[0]), isolation_level=None, timeout=60)
    c.execute("pragma journal_mode = %s" % mode)
    c.execute("create table t (k integer primary key, v integer)")
    c.execute("insert into t values (1, 0)")
    c.close()
    with multiprocessing.Pool(len(dirs)) as pool:
        pool.map(add, [(d, steps) for d in dirs])
    c = sqlite3.connect(database(dirs[0]), isolation_level=None, timeout=60)
    v = c.execute("select v from t where k = 1").fetchone()[0]
    sound = c.execute("pragma integrity_check").fetchone()[0]
    c.close()
    want = steps * len(dirs)
    print("count %d want %d; integrity_check: %s" % (v, want, sound))
    return 0 if v == want and sound == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
