# fs/fs.mk - (owner fills in; see Makefile header)
