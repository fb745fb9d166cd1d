# tools/tools.mk - (owner fills in; see Makefile header)
