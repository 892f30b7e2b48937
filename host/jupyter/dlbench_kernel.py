"""dlbench_kernel.py - the Jupyter kernel `dlbench` (docs/jupyter.md).

A wrapper kernel (Debian's python3-ipykernel speaks the Jupyter protocol: ZeroMQ sockets,
message signing, heartbeat, history, comms) around one persistent `dlbench kernel REQ MSG`
process, which runs the cells in one Lua state (host/kernel.c, lua/dlbench/kernel.lua):
    requests on a pipe (REQ): b"<op> <len>\\n" + payload     (execute, complete, inspect)
    messages on a pipe (MSG): b"<len>\\n" + JSON             (result, display, error, done...)
    its stdout and stderr:    the cells' own output, forwarded as stream messages
On a Jupyter interrupt (SIGINT to this process) the child gets SIGINT, which stops the
running cell as Ctrl-C does in the REPL (a sweep keeps its finished rows: dlb.sweep.last()).
If the child dies (os.exit in a cell), the cell fails with a message and a fresh child
starts. DLBENCH names the dlbench executable (kernel.json sets it), else PATH's.
"""
import base64
import codecs
import json
import os
import select
import shutil
import signal
import subprocess
import sys

# The kernel has no debugger (its language is Lua): keep ipykernel from importing debugpy,
# a fifth of the kernel's start-up (BENCHMARKS.md, "Where researchers work").
if "debugpy" not in sys.modules:
    sys.modules["debugpy"] = None

from ipykernel.kernelbase import Kernel  # noqa: E402

__version__ = "0.2"


class DlbenchKernel(Kernel):
    implementation = "dlbench"
    implementation_version = __version__
    language = "lua"
    language_version = "5.4"
    language_info = {
        "name": "lua",
        "version": "5.4",
        "mimetype": "text/x-lua",
        "file_extension": ".lua",
        "codemirror_mode": "lua",
        "pygments_lexer": "lua",
    }
    banner = "dlbench: Lua 5.4 with the dlbench workbench (help() for help)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.child = None
        self._silent = False
        self._start_child()

    # -- the dlbench process

    def _start_child(self):
        exe = os.environ.get("DLBENCH") or shutil.which("dlbench")
        if not exe:
            raise RuntimeError("dlbench kernel: no dlbench executable (set DLBENCH or PATH)")
        r, w = os.pipe()       # messages: child -> us
        qr, qw = os.pipe()     # requests: us -> child (its stdin is /dev/null)
        self.child = subprocess.Popen(
            [exe, "kernel", str(qr), str(w)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, pass_fds=(qr, w), start_new_session=True)
        os.close(w)
        os.close(qr)
        self.msgfd = r
        self.reqfile = os.fdopen(qw, "wb")
        self.msgbuf = b""
        self.decoders = {
            self.child.stdout.fileno(): ("stdout", codecs.getincrementaldecoder("utf-8")("replace")),
            self.child.stderr.fileno(): ("stderr", codecs.getincrementaldecoder("utf-8")("replace")),
        }

    def _stop_child(self):
        if self.child is None:
            return
        try:
            self.reqfile.close()
        except OSError:
            pass
        try:
            self.child.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        for f in (self.child.stdout, self.child.stderr):
            f.close()
        os.close(self.msgfd)
        self.child = None

    def _stream(self, fd, data, final=False):
        name, dec = self.decoders[fd]
        text = dec.decode(data, final)
        if text and not self._silent:
            self.send_response(self.iopub_socket, "stream", {"name": name, "text": text})

    def _drain(self):
        """Forward whatever the child wrote to stdout and stderr (it flushes before every
        message, so what precedes a message is in the pipes when the message arrives)."""
        fds = list(self.decoders)
        while True:
            ready = select.select(fds, [], [], 0)[0]
            if not ready:
                return
            for fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    fds.remove(fd)
                else:
                    self._stream(fd, data)
            if not fds:
                return

    def _request(self, op, payload):
        """Send a request; yield its messages (dicts) up to and including "done"."""
        body = payload.encode("utf-8")
        try:
            self.reqfile.write(b"%s %d\n" % (op.encode(), len(body)) + body)
            self.reqfile.flush()
        except (BrokenPipeError, OSError):
            yield from self._child_died()
            return
        fds = [self.msgfd] + list(self.decoders)
        interrupts = 0
        while True:
            try:
                ready = select.select(fds, [], [])[0]
            except KeyboardInterrupt:
                # a Jupyter interrupt: stop the cell as Ctrl-C does (the child has its own
                # session, so this is the only SIGINT it gets)
                interrupts += 1
                try:
                    os.kill(self.child.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
                continue
            for fd in ready:
                if fd != self.msgfd:
                    data = os.read(fd, 65536)
                    if data:
                        self._stream(fd, data)
                    else:
                        fds.remove(fd)
                    continue
                data = os.read(fd, 65536)
                if not data:
                    self._drain()
                    yield from self._child_died()
                    return
                self.msgbuf += data
                while True:
                    nl = self.msgbuf.find(b"\n")
                    if nl < 0:
                        break
                    n = int(self.msgbuf[:nl])
                    if len(self.msgbuf) < nl + 1 + n:
                        break
                    # "replace", as the streams: a value's text need not be UTF-8 (bytes
                    # of a binary file); a strict decode raised here and the cell hung
                    msg = json.loads(self.msgbuf[nl + 1:nl + 1 + n].decode("utf-8", "replace"))
                    self.msgbuf = self.msgbuf[nl + 1 + n:]
                    self._drain()
                    yield msg
                    if msg.get("type") == "done":
                        return

    def _child_died(self):
        status = self.child.wait()
        self._stop_child()
        self._start_child()
        text = ("the dlbench process ended (exit status %d) and was started again: "
                "the state (variables, loaded data) is gone" % status)
        yield {"type": "error", "ename": "KernelRestarted", "evalue": text, "traceback": [text]}
        yield {"type": "done", "status": "error"}

    @staticmethod
    def _bundle(msg):
        """The message's mime bundle, with figure files read (and removed)."""
        data = dict(msg.get("data") or {})
        for mime, path in (msg.get("files") or {}).items():
            try:
                with open(path, "rb") as f:
                    raw = f.read()
            finally:
                try:
                    os.remove(path)
                except OSError:
                    pass
            data[mime] = raw.decode("utf-8") if mime == "image/svg+xml" else \
                base64.b64encode(raw).decode("ascii")
        return data

    # -- the Jupyter requests

    def do_execute(self, code, silent, store_history=True, user_expressions=None,
                   allow_stdin=False):
        self._silent = silent
        error = None
        for msg in self._request("execute", "%d\n%s" % (self.execution_count, code)):
            kind = msg.get("type")
            if kind == "result" and not silent:
                self.send_response(self.iopub_socket, "execute_result", {
                    "execution_count": self.execution_count, "data": self._bundle(msg),
                    "metadata": {}})
            elif kind == "display" and not silent:
                self.send_response(self.iopub_socket, "display_data", {
                    "data": self._bundle(msg), "metadata": {}})
            elif kind == "error":
                error = {"ename": msg["ename"], "evalue": msg["evalue"],
                         "traceback": msg["traceback"]}
                if not silent:
                    self.send_response(self.iopub_socket, "error", error)
        if error:
            return dict(status="error", execution_count=self.execution_count, **error)
        return {"status": "ok", "execution_count": self.execution_count, "payload": [],
                "user_expressions": {}}

    def do_complete(self, code, cursor_pos):
        self._silent = True
        reply = {"matches": [], "cursor_start": cursor_pos, "cursor_end": cursor_pos}
        for msg in self._request("complete", "%d\n%s" % (cursor_pos, code)):
            if msg.get("type") == "complete":
                reply = msg
        return {"status": "ok", "matches": reply["matches"], "cursor_start": reply["cursor_start"],
                "cursor_end": reply["cursor_end"], "metadata": {}}

    def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        self._silent = True
        reply = {"found": False, "data": {}}
        for msg in self._request("inspect", "%d\n%s" % (cursor_pos, code)):
            if msg.get("type") == "inspect":
                reply = msg
        return {"status": "ok", "found": reply["found"], "data": reply["data"] or {},
                "metadata": {}}

    def do_shutdown(self, restart):
        self._stop_child()
        if restart:
            self._start_child()
        return {"status": "ok", "restart": restart}


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp
    IPKernelApp.launch_instance(kernel_class=DlbenchKernel)
