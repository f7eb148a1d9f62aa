-- pack_lifts.lua: reads MJOLNIRForgePacks/lifts.txt (forgesync SPEC section
-- 6) and converts each row to the Halo 2 phantom format (LUA.md), then
-- places a phantom on a live actor transform as a world trigger box.
--
-- A row is checked against the same limits as the pack manifest (SPEC
-- section 3.1); a bad row is dropped on its own with a message naming its
-- line, field and value, and the other rows load.

local M = {}

local hmath = require("halo2_math")
local lifts = require("h2_lifts")

M.HEADER = "forge-lifts 1"
-- SPEC section 6 says "15 tab-separated fields" but lists 14 (class, tag,
-- offset x y z, size x y z, direction x y z, acceleration, max speed,
-- negates gravity), and the published lifts.txt has 14: the list wins.
M.FIELDS = 14
M.MAX_CLASS_BYTES = 200
M.MAX_TAG_BYTES = 240

local FIELD_NAMES = {
  "class", "tag", "offset x", "offset y", "offset z", "size x", "size y", "size z",
  "direction x", "direction y", "direction z", "acceleration", "max speed",
  "negates gravity",
}
M.FIELD_NAMES = FIELD_NAMES

-- Each numeric field: its first index and inclusive limits. The direction
-- has no per-component limit, only the unit-length rule (as in the
-- manifest), so 1.0004 is a valid z.
local RANGES = {
  { 3, 5, -100, 100, "offset" },
  { 6, 8, 0.1, 100, "size" },
  { 12, 12, 0.1, 100, "acceleration" },
  { 13, 13, 0.1, 30, "max speed" },
}

local function split_tabs(line)
  local out = {}
  local start = 1
  while true do
    local i = string.find(line, "\t", start, true)
    if not i then
      out[#out + 1] = string.sub(line, start)
      return out
    end
    out[#out + 1] = string.sub(line, start, i - 1)
    start = i + 1
  end
end

-- decimal returns the number a lifts.txt decimal field holds: an optional
-- minus, digits, optionally a dot and digits (no exponent, no hex, no
-- inf/nan, no spaces), or nil.
local function decimal(s)
  if not (string.find(s, "^%-?%d+$") or string.find(s, "^%-?%d+%.%d+$")) then
    return nil
  end
  local n = tonumber(s)
  if not hmath.is_finite(n) then return nil end
  return n
end

local function field_error(lineno, idx, what, value)
  return string.format("lifts.txt:%d: field %d (%s): %s, got %q", lineno, idx, FIELD_NAMES[idx], what, value)
end

-- parse_row checks one data row and returns it as numbers:
-- {class, tag, offset = {}, size = {}, direction = {}, acceleration,
-- max_speed, negates_gravity, line}, or nil and a message.
function M.parse_row(line, lineno)
  local f = split_tabs(line)
  if #f ~= M.FIELDS then
    return nil, string.format("lifts.txt:%d: want %d tab-separated fields, got %d", lineno, M.FIELDS, #f)
  end
  local class, tag = f[1], f[2]
  if #class > M.MAX_CLASS_BYTES or not string.find(class, "^/Game/MJOLNIR/Forge/[%w_/%.%-]+%.[%w_%-]+_C$") then
    return nil, field_error(lineno, 1, "want a class path /Game/MJOLNIR/Forge/<pack-id>/.../<Asset>.<Asset>_C of at most 200 bytes", class)
  end
  if #tag > M.MAX_TAG_BYTES or not string.find(tag, "^mjolnir\\forge\\[%w_%.%-\\]+$") then
    return nil, field_error(lineno, 2, "want a tag mjolnir\\forge\\<pack-id>\\... of at most 240 bytes", tag)
  end
  local nums = {}
  for i = 3, 13 do
    local n = decimal(f[i])
    if not n then return nil, field_error(lineno, i, "want a decimal number like 4, 0.45 or -0.5", f[i]) end
    nums[i] = n
  end
  for _, r in ipairs(RANGES) do
    for i = r[1], r[2] do
      if nums[i] < r[3] or nums[i] > r[4] then
        return nil, field_error(lineno, i, string.format("%s must be in [%s, %s]", r[5], tostring(r[3]), tostring(r[4])), f[i])
      end
    end
  end
  local dx, dy, dz = nums[9], nums[10], nums[11]
  local sq = dx * dx + dy * dy + dz * dz
  if math.abs(sq - 1) > 0.001 then
    return nil, string.format("lifts.txt:%d: fields 9-11 (direction): want a unit vector (|x^2+y^2+z^2-1| <= 0.001), got %s %s %s", lineno, f[9], f[10], f[11])
  end
  local neg = f[14]
  if neg ~= "1" and neg ~= "0" then
    return nil, field_error(lineno, 14, "want 1 or 0", neg)
  end
  return {
    class = class, tag = tag, line = lineno,
    offset = { nums[3], nums[4], nums[5] },
    size = { nums[6], nums[7], nums[8] },
    direction = { dx, dy, dz },
    acceleration = nums[12], max_speed = nums[13],
    negates_gravity = neg == "1",
  }
end

-- to_phantom converts a parsed row (metres, m/s, m/s^2, authored local
-- axes) to the Halo 2 phantom format (WU, WU/s, WU/s^2):
--   center = (offset + (0, 0, size_z / 2)) / 3.048
--   half_extents = size / 2 / 3.048
--   direction = the unit direction (renormalised)
--   direction_acc = acceleration / 3.048, direction_max_vel = max speed / 3.048
function M.to_phantom(row)
  local k = hmath.METRES_PER_WU
  local o, s = row.offset, row.size
  local d = hmath.normalize(row.direction)
  return {
    class = row.class, tag = row.tag, line = row.line,
    center = { o[1] / k, o[2] / k, (o[3] + s[3] / 2) / k },
    half_extents = { s[1] / 2 / k, s[2] / 2 / k, s[3] / 2 / k },
    direction = d,
    direction_acc = row.acceleration / k,
    direction_max_vel = row.max_speed / k,
    flags = { negates_gravity = row.negates_gravity },
  }
end

-- parse reads the text of lifts.txt and returns the phantoms, sorted by
-- class path, and the messages of every dropped row. A bad header drops
-- the whole file. A class path seen before drops the later row.
function M.parse(text)
  local phantoms, errs = {}, {}
  if type(text) ~= "string" then
    errs[1] = "lifts.txt: not text"
    return phantoms, errs
  end
  local lineno = 0
  local seen = {}
  local pos = 1
  local n = #text
  while pos <= n do
    local nl = string.find(text, "\n", pos, true)
    local line
    if nl then
      line = string.sub(text, pos, nl - 1)
      pos = nl + 1
    else
      line = string.sub(text, pos)
      pos = n + 1
    end
    if string.sub(line, -1) == "\r" then line = string.sub(line, 1, -2) end
    lineno = lineno + 1
    if lineno == 1 then
      if line ~= M.HEADER then
        errs[1] = string.format("lifts.txt:1: want header %q, got %q; no lifts loaded", M.HEADER, line)
        return {}, errs
      end
    elseif line ~= "" then
      local row, err = M.parse_row(line, lineno)
      if row and seen[row.class] then
        -- Two statements: gopher-lua assigns row before evaluating the
        -- message in "row, err = nil, ...row.class...".
        err = string.format("lifts.txt:%d: class %s already defined on line %d; row ignored", lineno, row.class, seen[row.class])
        row = nil
      end
      if row then
        seen[row.class] = lineno
        phantoms[#phantoms + 1] = M.to_phantom(row)
      else
        errs[#errs + 1] = err
      end
    end
  end
  if lineno == 0 then
    errs[1] = string.format("lifts.txt: empty, want header %q; no lifts loaded", M.HEADER)
  end
  table.sort(phantoms, function(a, b) return a.class < b.class end)
  return phantoms, errs
end

-- load reads lifts.txt at path and parses it. Errors come back as messages;
-- it never raises.
function M.load(path)
  local f, err = io.open(path, "rb")
  if not f then return {}, { "lifts.txt: cannot open " .. tostring(path) .. ": " .. tostring(err) } end
  local text = f:read("*a")
  f:close()
  return M.parse(text)
end

-- numbers_ok reports whether an actor transform, as the adapter returns it
-- (location x, y, z in cm, then pitch, yaw, roll in degrees), is usable,
-- and why not.
function M.numbers_ok(x, y, z, pitch, yaw, roll)
  if x == nil then return false, "no transform" end
  if not (hmath.is_finite(x) and hmath.is_finite(y) and hmath.is_finite(z)) then
    return false, "location is not three finite numbers"
  end
  if not (hmath.is_finite(pitch) and hmath.is_finite(yaw) and hmath.is_finite(roll)) then
    return false, "rotation is not a finite pitch/yaw/roll"
  end
  return true
end

-- transform_ok is numbers_ok for a transform table {location = {x, y, z},
-- rotation = {pitch, yaw, roll}}.
function M.transform_ok(t)
  if type(t) ~= "table" then return false, "no transform" end
  local l, r = t.location, t.rotation
  if type(l) ~= "table" then return false, "location is not three finite numbers" end
  if type(r) ~= "table" then return false, "rotation is not a finite pitch/yaw/roll" end
  return M.numbers_ok(l[1], l[2], l[3], r.pitch, r.yaw, r.roll)
end

local sin, cos, rad = math.sin, math.cos, math.rad
local WU_CM = hmath.CM_PER_M * hmath.METRES_PER_WU

-- place puts a phantom on an actor at Unreal location (x, y, z) cm with
-- FRotator (pitch, yaw, roll) degrees and returns its trigger as an
-- h2_lifts box in Halo world units. The actor's scale and mesh pivot are
-- ignored: the trigger follows the live translation and full rotation only.
-- It is the flat form of
--   rot = halo2_math.frotator_to_halo(pitch, yaw, roll)
--   centre = unreal_to_wu(location) + rot * phantom.center
-- with no intermediate tables, since discovery runs it for every actor that
-- moved (world_box_reference is the same through halo2_math). When `into`
-- is given, its fields are overwritten and it is returned.
function M.place(ph, x, y, z, pitch, yaw, roll, into)
  local sp, cp = sin(rad(pitch)), cos(rad(pitch))
  local sy, cy = sin(rad(yaw)), cos(rad(yaw))
  local sr, cr = sin(rad(roll)), cos(rad(roll))
  -- FRotationMatrix rows are the local X, Y, Z axes in Unreal world;
  -- S*R*S turns them into the Halo local axes: negate each row's Y
  -- component, and the whole Y row.
  local ax, ay, az = cp * cy, -(cp * sy), sp
  local bx, by, bz = -(sr * sp * cy - cr * sy), sr * sp * sy + cr * cy, sr * cp
  local ux, uy, uz = -(cr * sp * cy + sr * sy), -(cy * sr - cr * sp * sy), cr * cp
  local c, d, h = ph.center, ph.direction, ph.half_extents
  local b = into or {}
  b.cx = x / WU_CM + ax * c[1] + bx * c[2] + ux * c[3]
  b.cy = -y / WU_CM + ay * c[1] + by * c[2] + uy * c[3]
  b.cz = z / WU_CM + az * c[1] + bz * c[2] + uz * c[3]
  b.ax, b.ay, b.az, b.bx, b.by, b.bz, b.ux, b.uy, b.uz = ax, ay, az, bx, by, bz, ux, uy, uz
  b.hx, b.hy, b.hz = h[1], h[2], h[3]
  b.dx = ax * d[1] + bx * d[2] + ux * d[3]
  b.dy = ay * d[1] + by * d[2] + uy * d[3]
  b.dz = az * d[1] + bz * d[2] + uz * d[3]
  b.acc, b.max_vel = ph.direction_acc, ph.direction_max_vel
  b.negates = ph.flags.negates_gravity and true or false
  b.radius = math.sqrt(h[1] * h[1] + h[2] * h[2] + h[3] * h[3])
  return b
end

-- world_box is place for a transform table {location = {x, y, z} cm,
-- rotation = {pitch, yaw, roll} degrees}.
function M.world_box(ph, t, into)
  local l, r = t.location, t.rotation
  return M.place(ph, l[1], l[2], l[3], r.pitch, r.yaw, r.roll, into)
end

-- world_box_reference is world_box through halo2_math and h2_lifts.box, the
-- slow and obvious way; the pack_lifts suite holds the two equal.
function M.world_box_reference(ph, t)
  local origin = hmath.unreal_to_wu(t.location)
  local rot = hmath.frotator_to_halo(t.rotation.pitch, t.rotation.yaw, t.rotation.roll)
  local c = hmath.add(origin, hmath.mat_vec(rot, ph.center))
  return lifts.box(c, rot, ph.half_extents, ph.direction, ph.direction_acc, ph.direction_max_vel, ph.flags.negates_gravity)
end

return M
