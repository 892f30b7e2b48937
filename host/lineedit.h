/*
** lineedit.h — the REPL's line editor, chosen at build time (premake --readline=):
**   gnu      GNU readline (the default; GPL: a binary linked with it is distributed
**            under the GPL's terms)
**   libedit  NetBSD libedit's readline emulation (BSD licence)
**   none     no line editor: a plain line reader, no completion, history kept in memory
** The host includes this header instead of a line editor's own; DLB_HAVE_RL tells whether
** readline's API (the GNU or libedit one) is there.
*/
#ifndef DLB_LINEEDIT_H
#define DLB_LINEEDIT_H

#if defined(DLB_READLINE_LIBEDIT)
#include <editline/readline.h>
#define DLB_HAVE_RL 1
#elif defined(DLB_READLINE_NONE)
#define DLB_HAVE_RL 0
#else
#include <readline/readline.h>
#include <readline/history.h>
#define DLB_HAVE_RL 1
#endif

#endif
