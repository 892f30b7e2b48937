-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/.
local dlb = require "dlbench"

print(string.format("dlbench %s on %s, backend %s", dlb.version(), _VERSION, dlb.backend))
print()

-- == section: graphs ==
-- == end: graphs ==

-- == section: models ==
-- == end: models ==

-- == section: hw ==
-- == end: hw ==

-- == section: plots ==
-- == end: plots ==

-- == section: sweeps ==
-- == end: sweeps ==

-- == section: scaling ==
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
