-- tests/run.lua: runs the Lua suites under a stand-alone interpreter:
--   lua5.4 lua/tests/run.lua [suite ...]
-- It finds the scripts relative to its own path and exits non-zero when a
-- case fails.

local base = string.match(arg and arg[0] or "", "^(.*)[/\\]tests[/\\]run%.lua$") or "."
package.path = base .. "/?.lua;" .. package.path
local R = require("tests.runner")
local suites = {}
for i = 1, #arg do suites[#suites + 1] = arg[i] end
local failed = R.main(suites)
if failed > 0 then os.exit(1) end
