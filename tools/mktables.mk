# tools/mktables.mk - (owner fills in; see Makefile header)
