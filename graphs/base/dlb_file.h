/*
** dlb_file.h — files written whole or not at all, and files read with a size cap. Every
** file dlbench writes (CSV tables, catalogues, checkpoints, the REPL history, figures)
** goes through this one writer: a temporary file made with mkstemp (O_CREAT|O_EXCL, so
** never through a planted symlink) beside the destination, written, fsynced and renamed
** over it. A destination that exists but is not a regular file (a device node, a FIFO, a
** directory, or a symlink to one) is refused, never replaced; a symlink to a regular file
** is followed and its target replaced, so the link stays. Readers refuse anything but a
** regular file (a FIFO would hang, /dev/zero would fill memory) and files over a cap.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_FILE_H
#define DLB_FILE_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Write data[0..len) to path whole or not at all (see above). An existing file keeps its
** permission bits; a new one is 0666 less the umask (as open(2) makes it). DLB_EIO with a message naming path on failure (the
** temporary file is removed; only a process killed outright can leave a path.tmp.XXXXXX
** behind). */
DLB_API int dlb_file_write(const char *path, const char *data, size_t len);
/* Read the regular file path whole into a new buffer (*data, NUL-terminated, *len bytes;
** free it with dlb_file_free). Refuses a path that is not a regular file and a file over
** max bytes (DLB_EIO naming path and why); a missing file is DLB_ENOTFOUND. */
DLB_API int dlb_file_read(const char *path, size_t max, char **data, size_t *len);
/* Free a buffer of dlb_file_read; NULL is a no-op. */
DLB_API void dlb_file_free(char *data);
/* Open the regular file path for appending (created 0666 less the umask if missing, as dlb_file_write) and take an
** exclusive lock on it (flock, not waiting): a file another process holds locked is
** DLB_EIO "... is in use by another process"; a path that is not a regular file is
** refused. *fd receives the descriptor; closing it releases the lock. */
DLB_API int dlb_file_lock_append(const char *path, int *fd);
/* dlb_file_write, and *fd receives the new file open for appending and locked as
** dlb_file_lock_append's (the lock is taken before the file appears under path, so no
** other process can lock it in between). The caller then closes its old descriptor. */
DLB_API int dlb_file_write_locked(const char *path, const char *data, size_t len, int *fd);
/* The checksum of data[0..len) as 16 lower-case hex digits and a NUL in out (outlen >= 17):
** 64-bit FNV-1a (Fowler, Noll, Vo; offset basis 14695981039346656037, prime 1099511628211),
** which a changed byte, or two swapped, always changes: the seal of a line of a checkpoint
** (lua/dlbench/sweep_model_checkpoint.lua). Not a defence against a forger. */
DLB_API int dlb_text_checksum(const char *data, size_t len, char *out, size_t outlen);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
