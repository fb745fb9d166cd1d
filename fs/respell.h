/*
 * respell.h - FOLDFS_IOC_RESPELL in the daemon (respell.c), for ioctl.c.
 */
#ifndef FOLDFS_RESPELL_H
#define FOLDFS_RESPELL_H

#include "foldfs.h"

/* Answer FOLDFS_IOC_RESPELL issued on directory d; replies to req. */
void respell_ioctl(fuse_req_t req, struct node *d, const void *in_buf,
		   size_t in_bufsz);

#endif /* FOLDFS_RESPELL_H */
