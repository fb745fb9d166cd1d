# fuzz/fuzz.mk - (owner fills in; see Makefile header)
