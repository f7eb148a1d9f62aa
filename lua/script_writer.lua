-- script_writer.lua: the one LevelLoader script writer. Static Halo 2 lifts,
-- kill floors and pack lifts all turn their requests into HaloScript text
-- here, so the same request always gives the same bytes.
--
-- Numbers are written deterministically: fixed point with six decimals,
-- trailing zeros and a trailing dot removed, "-0" written "0". Object
-- handles are non-negative integers written in decimal.

local M = {}

local hmath = require("halo2_math")

local format, sub, floor = string.format, string.sub, math.floor

-- number returns the deterministic text of x, or nil and a message when x
-- is not a finite number.
function M.number(x)
  if not hmath.is_finite(x) then
    return nil, "not a finite number: " .. tostring(x)
  end
  -- "%.6f" always ends in six decimals: count their trailing zeros with
  -- arithmetic (library calls are what cost in gopher-lua) and cut them,
  -- with the dot when all six go.
  local s = format("%.6f", x)
  local frac = tonumber(sub(s, -6))
  local cut = 7
  if frac ~= 0 then
    cut = 0
    while frac % 10 == 0 do
      frac = frac / 10
      cut = cut + 1
    end
  end
  if cut > 0 then s = sub(s, 1, -1 - cut) end
  if s == "-0" then s = "0" end
  return s
end

-- valid_handle reports whether h is a Blam object handle: an integer in
-- [0, 2^32 - 1].
function M.valid_handle(h)
  return type(h) == "number" and h >= 0 and h <= 4294967295 and h == floor(h)
end

-- handle returns the text of a Blam object handle, or nil and a message.
function M.handle(h)
  if not M.valid_handle(h) then
    return nil, "not a Blam object handle: " .. tostring(h)
  end
  return format("%.0f", h)
end

-- set_velocity returns the HaloScript that sets an object's velocity
-- relative to its facing, in WU/s:
-- (object_set_velocity <handle> <forward> <left> <up>).
function M.set_velocity(handle, forward, left, up)
  local h, err = M.handle(handle)
  if not h then return nil, "object_set_velocity: " .. err end
  local f, ferr = M.number(forward)
  if not f then return nil, "object_set_velocity " .. h .. " forward: " .. ferr end
  local l, lerr = M.number(left)
  if not l then return nil, "object_set_velocity " .. h .. " left: " .. lerr end
  local u, uerr = M.number(up)
  if not u then return nil, "object_set_velocity " .. h .. " up: " .. uerr end
  return "(object_set_velocity " .. h .. " " .. f .. " " .. l .. " " .. u .. ")"
end

-- kill returns the HaloScript that kills a unit: (unit_kill <handle>).
function M.kill(handle)
  local h, err = M.handle(handle)
  if not h then return nil, "unit_kill: " .. err end
  return "(unit_kill " .. h .. ")"
end

-- relative_velocity converts a Halo world velocity into the object-relative
-- (forward, left, up) components object_set_velocity expects, given the
-- object's facing (a world vector; only its horizontal part counts). A
-- facing with no horizontal part is treated as +X.
function M.relative_velocity(v, facing)
  local fx, fy = facing[1], facing[2]
  local l = math.sqrt(fx * fx + fy * fy)
  if not hmath.is_finite(l) or l < 1e-9 then
    fx, fy = 1, 0
  else
    fx, fy = fx / l, fy / l
  end
  -- left = up x forward = (-fy, fx, 0)
  return v[1] * fx + v[2] * fy, -v[1] * fy + v[2] * fx, v[3]
end

-- world_velocity is the inverse of relative_velocity.
function M.world_velocity(forward, left, up, facing)
  local fx, fy = facing[1], facing[2]
  local l = math.sqrt(fx * fx + fy * fy)
  if not hmath.is_finite(l) or l < 1e-9 then
    fx, fy = 1, 0
  else
    fx, fy = fx / l, fy / l
  end
  return { forward * fx - left * fy, forward * fy + left * fx, up }
end

-- set_world_velocity writes a world-frame velocity as an object-relative
-- object_set_velocity for an object facing `facing`.
function M.set_world_velocity(handle, v, facing)
  local f, l, u = M.relative_velocity(v, facing)
  return M.set_velocity(handle, f, l, u)
end

return M
