/* ckpt_names.h: the names of a checkpoint directory, owned by one file (ckpt_names.c): committed
 * checkpoints DIR/ckpt.<n>, their temporaries DIR/ckpt.<n>.tmp, the pointer DIR/latest (written by
 * ckpt_latest_write only), the lock DIR/cubecg.lock and each checkpoint's manifest.json. Every
 * part of io/ (manager, lock, backends) builds and recognises these names through it; what each
 * file must hold to be cubecg's own is decided here too (docs/checkpoint-safety.md). */
#ifndef CC_CKPT_NAMES_H
#define CC_CKPT_NAMES_H

#include "cc_io.h"

#define CKPT_LATEST "latest"
#define CKPT_LATEST_TMP "latest.tmp"
#define CKPT_LOCK "cubecg.lock"
#define CKPT_MANIFEST "manifest.json"
/* The files the backends write inside a checkpoint (ckpt_file_name recognises them): */
#define CKPT_RANK_FILE "rank.%d.%s"   /* rank, extension: a rank file; "gas": the gas receipt */
#define CKPT_GAS_PAGES "gas.%d.pages" /* owner: the gas store's page file of one owner */
#define CKPT_HDF5_STATE "state.h5"    /* the hdf5 backend's shared file */
#define CKPT_HDF5_XDMF "state.xmf"    /* ... and its XDMF description */

/* "ckpt.<iteration>" (committed) or "ckpt.<iteration>.tmp" into out; false if it does not fit. */
bool ckpt_name(char *out, size_t n, int iteration, bool temporary);
/* dir/ckpt.<iteration>[.tmp]; false if it does not fit. */
bool ckpt_path(char *out, size_t n, const char *dir, int iteration, bool temporary);
/* dir/<name> (one of the CKPT_ names, or a checkpoint's name); false if it does not fit. */
bool ckpt_join(char *out, size_t n, const char *dir, const char *name);
/* Whether name is exactly "ckpt.<n>" (temporary false) or "ckpt.<n>.tmp" (true), n >= 0 written
 * without sign or leading zeros: *iteration gets n. */
bool ckpt_name_parse(const char *name, int *iteration, bool *temporary);
/* Whether the name (inside a checkpoint or its temporary) is one cubecg's backends write:
 * manifest.json, rank.<r>.<ext>, gas.<owner>.pages, state.h5, state.xmf. */
bool ckpt_file_name(const char *name);

/* What dir/latest holds: exactly one line "ckpt.<n>" (the format cubecg has always written).
 * CC_OK with *iteration; CC_ERR_ARG naming the file when it exists and holds anything else (a
 * file cubecg did not write: never read as a pointer, never replaced); *exists false (and CC_OK)
 * when there is no such file. */
CC_WUR cc_err ckpt_latest_read(const char *dir, bool *exists, int *iteration);
/* Whether the text is a pointer cubecg wrote ("ckpt.<n>\n"); *iteration gets n. */
bool ckpt_latest_parse(const char *text, size_t len, int *iteration);
/* latest := ckpt.<iteration> (a temporary made durable, renamed over the old pointer), or removed
 * when iteration < 0. The only writer of dir/latest. */
CC_WUR cc_err ckpt_latest_write(const char *dir, int iteration, bool durable);

/* The lock file's text: "cubecg lock: host <host> pid <pid>\n". */
int ckpt_lock_text(char *out, size_t n, const char *host, long pid);
/* Whether text is exactly a lock text cubecg wrote: host and pid out. */
bool ckpt_lock_parse(const char *text, size_t len, char *host, size_t n_host, long *pid);

#endif
