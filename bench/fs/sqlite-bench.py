#!/usr/bin/env python3
"""sqlite-bench.py DIR N MODE - SQLite's transaction rate in DIR.

A 20,000-row table in DIR/bench.db (journal mode MODE: delete or wal);
then N update transactions of one row each (SQLite takes its fcntl locks
for every one), then N full-scan queries (each a read transaction, right
after the writes).  Prints one line: "WRITES_PER_S QUERIES_PER_S".  Exits
77 if Python has no sqlite3 module.  Used by fsbench (make bench-fs).
"""
import os
import sys
import time

try:
    import sqlite3
except ImportError:
    print("no sqlite3 module in this Python")
    sys.exit(77)


def main():
    d, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    path = os.path.join(d, "bench.db")
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("pragma journal_mode = %s" % mode)
    c.execute("create table t (k integer primary key, v text)")
    c.execute("begin")
    for _ in range(20000):
        c.execute("insert into t (v) values (?)", ("x" * 100,))
    c.execute("commit")
    t0 = time.monotonic()
    for i in range(n):
        c.execute("begin immediate")
        c.execute("update t set v = ? where k = ?", ("y" * 100, 1 + (i * 7919) % 20000))
        c.execute("commit")
    t1 = time.monotonic()
    for _ in range(n):
        c.execute("select count(*) from t where v like 'y%'").fetchone()
    t2 = time.monotonic()
    c.close()
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass
    print("%.1f %.1f" % (n / (t1 - t0), n / (t2 - t1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
