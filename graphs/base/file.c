/*
** file.c — the one writer of every file dlbench writes (whole or not at all) and a capped
** reader of regular files. See dlb_file.h for the rules; this file holds their reasons:
** - the temporary file is made by mkostemp (O_CREAT|O_EXCL: an attacker's symlink at the
**   temporary name makes the call fail instead of being followed) in the destination's
**   own folder, so the rename cannot cross file systems and is atomic;
** - a destination that is a device node, FIFO, socket or directory is refused: replacing
**   /dev/null-like nodes with regular files, or a FIFO a reader waits on, is damage;
** - a symlink to a regular file is resolved (realpath) and its target replaced, so the
**   link stays a link; a dangling one is refused (it could point anywhere later);
** - data is fsynced before the rename, so a crash leaves the old file or the new one;
** - every error path closes and removes the temporary file; only SIGKILL or a power loss
**   between mkostemp and rename can leave a path.tmp.XXXXXX (harmless, never read).
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dlb_file.h"
#include "dlb_runtime.h"

/* What kind of non-regular file st is, for messages. */
static const char *kind(const struct stat *st) {
  if (S_ISDIR(st->st_mode)) return "a directory";
  if (S_ISCHR(st->st_mode)) return "a character device";
  if (S_ISBLK(st->st_mode)) return "a block device";
  if (S_ISFIFO(st->st_mode)) return "a FIFO";
  if (S_ISSOCK(st->st_mode)) return "a socket";
  return "a special file";
}

/* The permission bits of a new file: 0666 less the process's umask, what open(2) and
** every shell redirection give (mkostemp's temporary file is 0600, so commit sets them).
** The umask is read from /proc/self/status (Linux 4.7+), which changes nothing; elsewhere
** it is read by setting it and putting it back at once. */
static unsigned new_file_mode(void) {
  unsigned mask = 0;
  int found = 0;
  FILE *f = fopen("/proc/self/status", "re");
  if (f) {
    char line[128];
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "Umask: %o", &mask) == 1) { found = 1; break; }
    fclose(f);
  }
  if (!found) {
    mode_t m = umask(022);
    umask(m);
    mask = (unsigned)m;
  }
  return 0666u & ~mask;
}

/* Begin writing path: resolve the destination, make and open the temporary file. */
int dlb_file_begin(const char *path, dlb_file_tmp *t) {
  if (!t) return dlb_fail(DLB_EINVAL, "write: NULL argument");
  t->fd = -1; t->tmp = t->target = NULL; t->mode = new_file_mode();
  if (!path || !path[0]) return dlb_fail(DLB_EINVAL, "write: no file name");
  struct stat st;
  char *target = NULL;
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      if (stat(path, &st) != 0)
        return dlb_fail(DLB_EIO, "cannot write %s: is a symlink to a missing file", path);
      if (!S_ISREG(st.st_mode))
        return dlb_fail(DLB_EIO, "cannot write %s: is a symlink to %s (dlbench replaces only "
                        "regular files)", path, kind(&st));
      target = realpath(path, NULL);
      if (!target) return dlb_fail(DLB_EIO, "cannot write %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
      return dlb_fail(DLB_EIO, "cannot write %s: is %s (dlbench replaces only regular "
                      "files)", path, kind(&st));
    }
    if (access(target ? target : path, W_OK) != 0) {
      int e = errno;
      dlb_free(target);
      return dlb_fail(DLB_EIO, "cannot write %s: %s", path, strerror(e));
    }
    t->mode = (unsigned)(st.st_mode & 07777);
  } else if (errno != ENOENT) {
    return dlb_fail(DLB_EIO, "cannot write %s: %s", path, strerror(errno));
  }
  if (!target) target = dlb_strdup(path);
  size_t n = target ? strlen(target) : 0;
  char *tmp = target ? dlb_malloc(n + 12) : NULL;
  if (!tmp) { dlb_free(target); return dlb_fail(DLB_ENOMEM, "write %s: out of memory", path); }
  snprintf(tmp, n + 12, "%s.tmp.XXXXXX", target);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    dlb_free(tmp); dlb_free(target);
    return dlb_fail(DLB_EIO, "cannot write %s: %s", path, strerror(e));
  }
  t->fd = fd; t->tmp = tmp; t->target = target;
  return DLB_OK;
}

/* Remove the temporary file and free the names. */
void dlb_file_abort(dlb_file_tmp *t) {
  if (!t) return;
  if (t->fd >= 0) close(t->fd);
  if (t->tmp) unlink(t->tmp);
  dlb_free(t->tmp); dlb_free(t->target);
  t->fd = -1; t->tmp = t->target = NULL;
}

/* Finish: fsync, permission bits, rename over the target, fsync the folder. With keep,
** t->fd stays open on the new file (the caller closes it). */
int dlb_file_commit(dlb_file_tmp *t, int keep) {
  if (!t || t->fd < 0 || !t->tmp) return dlb_fail(DLB_EINVAL, "write: no file begun");
  int st = DLB_OK;
  if (fchmod(t->fd, (mode_t)t->mode) != 0 || fsync(t->fd) != 0)
    st = dlb_fail(DLB_EIO, "cannot write %s: %s", t->target, strerror(errno));
  if (st == DLB_OK && !keep) {
    int fd = t->fd;
    t->fd = -1;
    if (close(fd) != 0) st = dlb_fail(DLB_EIO, "cannot write %s: %s", t->target, strerror(errno));
  }
  if (st == DLB_OK && rename(t->tmp, t->target) != 0)
    st = dlb_fail(DLB_EIO, "cannot write %s: cannot rename into place: %s", t->target,
                  strerror(errno));
  if (st != DLB_OK) { dlb_file_abort(t); return st; }
  /* the rename itself survives a crash once the folder is synced (best effort) */
  char *slash = strrchr(t->target, '/');
  const char *dir = ".";
  if (slash) { *slash = '\0'; dir = slash == t->target ? "/" : t->target; }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) { (void)fsync(dfd); close(dfd); }
  dlb_free(t->tmp); dlb_free(t->target);
  t->tmp = t->target = NULL;
  if (!keep) t->fd = -1;
  return DLB_OK;
}

/* The whole cycle for a buffer; with lockfd, the new file stays open, locked. */
static int write_whole(const char *path, const char *data, size_t len, int *lockfd) {
  if (!data && len > 0) return dlb_fail(DLB_EINVAL, "write: NULL data");
  dlb_file_tmp t;
  int st = dlb_file_begin(path, &t);
  if (st != DLB_OK) return st;
  if (lockfd && (flock(t.fd, LOCK_EX | LOCK_NB) != 0 ||
                 fcntl(t.fd, F_SETFL, fcntl(t.fd, F_GETFL) | O_APPEND) != 0)) {
    st = dlb_fail(DLB_EIO, "cannot lock %s: %s", path, strerror(errno));
    dlb_file_abort(&t);
    return st;
  }
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(t.fd, data + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      st = dlb_fail(DLB_EIO, "cannot write %s: %s", path, w < 0 ? strerror(errno) : "short write");
      dlb_file_abort(&t);
      return st;
    }
    done += (size_t)w;
  }
  st = dlb_file_commit(&t, lockfd != NULL);
  if (st == DLB_OK && lockfd) *lockfd = t.fd;
  return st;
}

int dlb_file_write(const char *path, const char *data, size_t len) {
  return write_whole(path, data, len, NULL);
}

int dlb_file_write_locked(const char *path, const char *data, size_t len, int *fd) {
  if (!fd) return dlb_fail(DLB_EINVAL, "write: NULL argument");
  *fd = -1;
  return write_whole(path, data, len, fd);
}

/* Open for appending and lock; the lock must be on the file path names now (a writer
** may have renamed a new file over it between our open and our flock: then try again). */
int dlb_file_lock_append(const char *path, int *fd) {
  if (!path || !fd) return dlb_fail(DLB_EINVAL, "lock: NULL argument");
  *fd = -1;
  for (int attempt = 0; attempt < 100; attempt++) {
    struct stat pre;
    if (stat(path, &pre) == 0 && !S_ISREG(pre.st_mode)) /* a FIFO would not even open */
      return dlb_fail(DLB_EIO, "cannot use %s: is %s (not a regular file)", path, kind(&pre));
    int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (f < 0) return dlb_fail(DLB_EIO, "cannot open %s for appending: %s", path, strerror(errno));
    struct stat st, now;
    if (fstat(f, &st) != 0) {
      int e = errno;
      close(f);
      return dlb_fail(DLB_EIO, "cannot open %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
      close(f);
      return dlb_fail(DLB_EIO, "cannot use %s: is %s (not a regular file)", path, kind(&st));
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      close(f);
      if (e == EWOULDBLOCK)
        return dlb_fail(DLB_EIO, "%s is in use by another process (it holds the file locked)", path);
      return dlb_fail(DLB_EIO, "cannot lock %s: %s", path, strerror(e));
    }
    if (stat(path, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
      (void)fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
      *fd = f;
      return DLB_OK;
    }
    close(f); /* replaced under us: lock the new file */
  }
  return dlb_fail(DLB_EIO, "cannot lock %s: it keeps being replaced", path);
}

/* Read a regular file whole, up to max bytes. */
int dlb_file_read(const char *path, size_t max, char **data, size_t *len) {
  if (!path || !data || !len) return dlb_fail(DLB_EINVAL, "read: NULL argument");
  *data = NULL; *len = 0;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below) */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return dlb_fail(e == ENOENT ? DLB_ENOTFOUND : DLB_EIO, "cannot open %s: %s", path, strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return dlb_fail(DLB_EIO, "cannot read %s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return dlb_fail(DLB_EIO, "cannot read %s: is %s (not a regular file)", path, kind(&st));
  }
  if ((unsigned long long)st.st_size > (unsigned long long)max) {
    close(fd);
    return dlb_fail(DLB_EIO, "cannot read %s: %lld bytes, more than the limit of %zu", path,
                    (long long)st.st_size, max);
  }
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = dlb_malloc(cap + 1);
  if (!buf) { close(fd); return dlb_fail(DLB_ENOMEM, "read %s: out of memory", path); }
  for (;;) {
    /* the file may grow while it is read: never past max */
    if (n == cap) {
      if (cap > max) break;
      size_t nc = cap * 2 > max + 1 ? max + 1 : cap * 2;
      char *nb = dlb_realloc(buf, nc + 1);
      if (!nb) { dlb_free(buf); close(fd); return dlb_fail(DLB_ENOMEM, "read %s: out of memory", path); }
      buf = nb; cap = nc;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      dlb_free(buf); close(fd);
      return dlb_fail(DLB_EIO, "cannot read %s: %s", path, strerror(e));
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (n > max) {
    dlb_free(buf);
    return dlb_fail(DLB_EIO, "cannot read %s: more than the limit of %zu bytes", path, max);
  }
  buf[n] = '\0';
  *data = buf; *len = n;
  return DLB_OK;
}

/* Free a dlb_file_read buffer. */
void dlb_file_free(char *data) {
  dlb_free(data);
}

/* See dlb_file.h: FNV-1a, 64 bits, as hex. */
int dlb_text_checksum(const char *data, size_t len, char *out, size_t outlen) {
  if (!out || outlen < 17) return dlb_fail(DLB_EINVAL, "checksum: the output holds fewer than 17 bytes");
  if (len > 0 && !data) return dlb_fail(DLB_EINVAL, "checksum: data is NULL");
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)data[i]) * 1099511628211ULL;
  static const char hex[] = "0123456789abcdef";
  for (int d = 15; d >= 0; d--, h >>= 4) out[d] = hex[h & 15];
  out[16] = 0;
  return DLB_OK;
}
