-- tests/t.lua: a tiny assertion library for the Lua suites. Each check
-- raises an error naming what was checked, what was found and what was
-- wanted; the runner turns the error into a failed case.

local T = {}

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end
T.fmt = fmt

function T.fail(msg) error(msg, 3) end

-- eq checks got == want.
function T.eq(got, want, what)
  if got ~= want then T.fail(string.format("%s = %s; want %s", what, fmt(got), fmt(want))) end
end

-- ok checks that cond is true.
function T.ok(cond, what)
  if not cond then T.fail("not true: " .. what) end
end

-- near checks |got - want| <= tol.
function T.near(got, want, tol, what)
  if type(got) ~= "number" or not (math.abs(got - want) <= tol) then
    T.fail(string.format("%s = %s; want %s within %s", what, fmt(got), fmt(want), fmt(tol)))
  end
end

-- vec_near checks three components within tol.
function T.vec_near(got, want, tol, what)
  if type(got) ~= "table" then T.fail(what .. " = " .. tostring(got) .. "; want a vector") end
  for i = 1, 3 do
    if type(got[i]) ~= "number" or not (math.abs(got[i] - want[i]) <= tol) then
      T.fail(string.format("%s = {%s, %s, %s}; want {%s, %s, %s} within %s", what,
        fmt(got[1]), fmt(got[2]), fmt(got[3]), fmt(want[1]), fmt(want[2]), fmt(want[3]), fmt(tol)))
    end
  end
end

-- has checks that some string in list contains needle (plain text).
function T.has(list, needle, what)
  for i = 1, #list do
    if string.find(list[i], needle, 1, true) then return list[i] end
  end
  T.fail(string.format("%s: no message contains %q; got {%s}", what, needle, table.concat(list, " | ")))
end

-- count returns how many strings in list contain needle.
function T.count(list, needle)
  local n = 0
  for i = 1, #list do
    if string.find(list[i], needle, 1, true) then n = n + 1 end
  end
  return n
end

return T
