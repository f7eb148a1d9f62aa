-- tests/runner.lua: lists and runs the cases of the Lua suites. Go runs
-- each case as a subtest under gopher-lua; tests/run.lua runs them all
-- under a stand-alone interpreter (lua5.4).

local R = {}

R.SUITES = { "halo2_math", "script_writer", "pack_lifts", "lifts" }

-- cases returns the suite's cases: a sequence of {name, fn}.
function R.cases(suite)
  return require("tests." .. suite .. "_test")
end

-- names returns the names of the suite's cases, in order.
function R.names(suite)
  local out = {}
  local cs = R.cases(suite)
  for i = 1, #cs do out[i] = cs[i][1] end
  return out
end

-- run_case runs one case and returns nil, or the failure message.
function R.run_case(suite, name)
  local cs = R.cases(suite)
  for i = 1, #cs do
    if cs[i][1] == name then
      local ok, err = pcall(cs[i][2])
      if ok then return nil end
      return tostring(err)
    end
  end
  return "no case " .. name .. " in suite " .. suite
end

-- main runs the named suites (all when none) and returns the number of
-- failed cases, printing one line per case.
function R.main(suites)
  if #suites == 0 then suites = R.SUITES end
  local failed, total = 0, 0
  for _, suite in ipairs(suites) do
    local names = R.names(suite)
    for _, name in ipairs(names) do
      total = total + 1
      local err = R.run_case(suite, name)
      if err then
        failed = failed + 1
        print("FAIL " .. suite .. "/" .. name .. ": " .. err)
      else
        print("ok   " .. suite .. "/" .. name)
      end
    end
  end
  print(string.format("%d cases, %d failed (%s)", total, failed, _VERSION))
  return failed
end

return R
