# lib/lib.mk - (owner fills in; see Makefile header)
