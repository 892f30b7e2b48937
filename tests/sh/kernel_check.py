"""kernel_check.py - the Jupyter kernel `dlbench` driven as Jupyter drives it (used by
tests/sh/test_kernel.sh, which sets JUPYTER_PATH to a kernel spec pointing at the build).
Prints "ok NAME" / "not ok NAME" lines; the shell test counts them.
usage: python3 kernel_check.py NOTEBOOK_OUT [SEED.ipynb]"""
import os
import sys
import time

import nbformat
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient

results = []


def check(name, cond, why=""):
    results.append(cond)
    print(("ok " if cond else "not ok ") + name)
    if not cond:
        print(name + ": " + str(why), file=sys.stderr)


# -- 1. a notebook executed through the kernel by nbclient
nb = nbformat.v4.new_notebook()
cells = [
    "x = 20\nx + 1",                                                        # 0 a value
    "local f = dlb.plot.figure{width = 3, height = 2}\nf:line{x = {1, 2, 3}, y = {1, 4, 9}}\nf",  # 1 PNG
    'dlb.table{{model = "a", time = 1.5}, {model = "b<c>", time = 2}}',     # 2 HTML table
    "local y = 1\nlocal z = nil\nreturn y + z.w",                           # 3 error, line 3
    'print("printed")\nhelp(dlb.hw.get)',                                   # 4 stream, help
    'display(dlb.plot.figure{width = 2, height = 2}, "svg")',               # 5 SVG by display
    "x * 2",                                                                # 6 the state persists
    "local t = dlb.table{{a = 1}}\nt:count();",                             # 7 ; hides the value
    "n = 0\nfor _, v in ipairs{1, 2, 3} do\n  n = n + v\nend\nn",              # 8 a loop, then its value
    "m = 0\nfor _, v in ipairs{1, 2, 3} do\n  m = m + v\nend",                  # 9 ends with a block's end
    "m",                                                                    # 10
    "string.char(104, 105, 255, 33)",                                       # 11 not UTF-8 (review7)
    "x + 2",                                                                # 12 still answering
    "local sv = 7\nlocal sw = sv + 1",                                        # 13 session locals
    "sv * sw",                                                              # 14 (review 15)
    "local sg = 2\nsg * 3\nsg",                                              # 15 expression alone
]
nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
client = NotebookClient(nb, kernel_name="dlbench", timeout=60, allow_errors=True)
t0 = time.time()
client.execute()
check("nbclient runs a notebook through the kernel (%.1f s)" % (time.time() - t0), True)
nbformat.write(nb, sys.argv[1])
out = [c.outputs for c in nb.cells]


def data(outs, kind, mime):
    for o in outs:
        if o.output_type == kind and mime in o.get("data", {}):
            return o.data[mime]
    return None


check("a value is the cell's result", data(out[0], "execute_result", "text/plain") == "21", out[0])
png = data(out[1], "execute_result", "image/png")
import base64
check("a figure as the cell's value shows as image/png",
      png is not None and base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n", out[1])
html = data(out[2], "execute_result", "text/html")
check("a dlb.table shows as an HTML table",
      html is not None and "<table" in html and "<td>b&lt;c&gt;</td>" in html and "<td>1.5</td>" in html, out[2])
err = [o for o in out[3] if o.output_type == "error"]
check("an error is a Jupyter error naming the cell's line",
      len(err) == 1 and err[0].ename == "LuaError" and err[0].evalue.startswith("In[4]:3: attempt to index a nil value"),
      out[3])
stream = "".join(o.text for o in out[4] if o.output_type == "stream")
check("print and help() reach the notebook", "printed" in stream and "dlb.hw.get(name)" in stream, out[4])
svg = data(out[5], "display_data", "image/svg+xml")
check("display(f, \"svg\") shows SVG", svg is not None and "<svg" in svg, out[5])
check("one persistent state across cells", data(out[6], "execute_result", "text/plain") == "40", out[6])
check("a trailing ; hides the value", not [o for o in out[7] if o.output_type == "execute_result"], out[7])
check("a cell's last line is its value", data(out[8], "execute_result", "text/plain") == "6", out[8])
check("a cell ending with a block runs the whole block", data(out[10], "execute_result", "text/plain") == "6",
      out[9] + out[10])
# a value whose text is not UTF-8 (bytes read from a binary file): shown with the byte
# replaced, and the kernel answers the next cell (before review7 the wrapper's strict UTF-8
# decode of the message raised, and the cell and the ones after it got no answer)
check("a value that is not UTF-8 shows with the byte replaced",
      data(out[11], "execute_result", "text/plain") == "hi\ufffd!", out[11])
check("the kernel answers after a value that is not UTF-8",
      data(out[12], "execute_result", "text/plain") == "22", out[12])

check("a cell's top-level locals are session variables (the REPL's rule)",
      data(out[14], "execute_result", "text/plain") == "56", out[13] + out[14])
err = [o for o in out[15] if o.output_type == "error"]
check("a syntax error names the line that is an expression alone",
      len(err) == 1 and "(line 2, `sg * 3`, is an expression alone" in err[0].evalue, out[15])

# -- 2. the protocol directly: first-cell latency, completion, help, interrupt
t0 = time.time()
km, kc = start_new_kernel(kernel_name="dlbench")
try:
    r = kc.execute_interactive("1 + 1", timeout=30, output_hook=lambda m: None)
    first = time.time() - t0
    check("first cell's result %.2f s after starting the kernel" % first,
          r["content"]["status"] == "ok" and first < float(sys.argv[3] if len(sys.argv) > 3 else 10), first)
    m = kc.complete("dlb.hw.ge", 9, reply=True, timeout=10)["content"]
    check("Tab completion through the protocol", "dlb.hw.get" in m["matches"] and m["cursor_start"] == 0, m)
    kc.execute_interactive("tt = dlb.table{{a = 1}}", timeout=30, output_hook=lambda m: None)
    m = kc.complete("tt:piv", 6, reply=True, timeout=10)["content"]
    check("completion of methods (tt:piv -> tt:pivot)", "tt:pivot" in m["matches"], m)
    m = kc.inspect("dlb.table.pivot", 15, reply=True, timeout=10)["content"]
    check("help through inspect (Shift-Tab)", m["found"] and "pivot" in m["data"]["text/plain"], m)
    # a sweep interrupted: its finished rows stay, as in the REPL
    # (a slow fn that burns no CPU, as test_sweep_repl.sh's: a poll on no descriptors, which
    # the interrupt's signal ends; not os.execute, whose system() ignores SIGINT while its
    # child runs; a busy loop here spun for the 2 s before the interrupt)
    kc.execute('t = dlb.sweep({i = dlb.range(1, 400)}, function(p) dlb.core._proc_poll({}, 0.02) '
               'return {v = p.i} end, {jobs = 1})',
               stop_on_error=False)  # else ipykernel aborts the next request if it comes fast
    time.sleep(2.0)
    km.interrupt_kernel()
    reply = kc.get_shell_msg(timeout=30)["content"]
    check("interrupt stops a running sweep",
          reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt"
          and "dlb.sweep.last()" in reply["evalue"], reply)
    got = []
    r = kc.execute_interactive("dlb.sweep.last():count()", timeout=30,
                               output_hook=lambda m: got.append(m))
    vals = [m["content"]["data"]["text/plain"] for m in got if m["msg_type"] == "execute_result"]
    check("dlb.sweep.last() keeps the partial rows after the interrupt",
          len(vals) == 1 and 0 < int(vals[0]) < 400,
          [(m["msg_type"], m["content"]) for m in got])
    r = kc.execute_interactive("os.exit(3)", timeout=30, output_hook=lambda m: None)
    r2 = []
    kc.execute_interactive("1 + 2", timeout=30, output_hook=lambda m: r2.append(m))
    check("a cell that ends the process: a clear error, and a fresh state after",
          r["content"]["status"] == "error" and "exit status 3" in r["content"]["evalue"]
          and any(m["msg_type"] == "execute_result" for m in r2), r["content"])
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)

# -- 3. a seed notebook (generated from notebooks/*.lua) runs through the kernel
if len(sys.argv) > 2 and sys.argv[2] != "-":
    seed = nbformat.read(sys.argv[2], as_version=4)
    # run where Jupyter runs it: the notebook's folder (its data/ paths are relative to it)
    NotebookClient(seed, kernel_name="dlbench", timeout=120, allow_errors=True,
                   resources={"metadata": {"path": os.path.dirname(os.path.abspath(sys.argv[2]))}}).execute()
    errs = [o for c in seed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    check("seed notebook %s runs without an error" % sys.argv[2], not errs,
          errs[0] if errs else "")

print("%d passed, %d failed" % (sum(results), len(results) - sum(results)))
