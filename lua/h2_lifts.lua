-- h2_lifts.lua: the lift physics tested on Lockout, shared by static Halo 2
-- lifts and pack lifts: acceleration along the lift direction up to its
-- maximum speed, gravity compensation, steering (the velocity across the
-- direction) preserved. Also the oriented trigger box both kinds of lift use,
-- and the static lifts and kill floors of Halo 2 maps, which write their
-- HaloScript through the same script writer as pack lifts.
--
-- All quantities are Halo world units (WU, WU/s, WU/s^2) in the Halo frame.

local M = {}

local hmath = require("halo2_math")
local writer = require("script_writer")

local abs, sqrt = math.abs, math.sqrt

-- box builds an oriented trigger box in Halo world space.
--   center: world centre {x, y, z}
--   rot: local-to-world rotation (columns = local axes in world)
--   half: half extents along the local axes {x, y, z}
--   dir_local: the lift direction in local axes (unit)
--   acc, max_vel: WU/s^2 and WU/s; negates: gravity compensation
-- The fields are flat numbers so that a tick does no table allocation.
function M.box(center, rot, half, dir_local, acc, max_vel, negates)
  local d = hmath.mat_vec(rot, dir_local)
  return {
    cx = center[1], cy = center[2], cz = center[3],
    -- columns of rot: local X, Y, Z axes in world
    ax = rot[1][1], ay = rot[2][1], az = rot[3][1],
    bx = rot[1][2], by = rot[2][2], bz = rot[3][2],
    ux = rot[1][3], uy = rot[2][3], uz = rot[3][3],
    hx = half[1], hy = half[2], hz = half[3],
    dx = d[1], dy = d[2], dz = d[3],
    acc = acc, max_vel = max_vel, negates = negates and true or false,
    radius = sqrt(half[1] * half[1] + half[2] * half[2] + half[3] * half[3]),
  }
end

-- local_point returns the coordinates of world point (px, py, pz) in the
-- box's local axes, relative to its centre.
function M.local_point(b, px, py, pz)
  local rx, ry, rz = px - b.cx, py - b.cy, pz - b.cz
  return rx * b.ax + ry * b.ay + rz * b.az,
         rx * b.bx + ry * b.by + rz * b.bz,
         rx * b.ux + ry * b.uy + rz * b.uz
end

-- contains reports whether world point p is inside the box (faces included).
function M.contains(b, p)
  local lx, ly, lz = M.local_point(b, p[1], p[2], p[3])
  return abs(lx) <= b.hx and abs(ly) <= b.hy and abs(lz) <= b.hz
end

-- distance2 returns the squared distance from world point p to the box
-- (0 inside).
function M.distance2(b, p)
  local lx, ly, lz = M.local_point(b, p[1], p[2], p[3])
  local ex, ey, ez = abs(lx) - b.hx, abs(ly) - b.hy, abs(lz) - b.hz
  if ex < 0 then ex = 0 end
  if ey < 0 then ey = 0 end
  if ez < 0 then ez = 0 end
  return ex * ex + ey * ey + ez * ez
end

-- push returns the velocity (vx, vy, vz) a biped moving at v gets from one
-- tick of dt seconds inside lift box b, and the speed along the lift it
-- now carries. The speed along the direction grows by acc*dt up to max_vel
-- (a faster speed is kept, not braked); `carried`, when given, is the speed
-- along the lift this runtime pushed last tick and stands in for an engine
-- reading that lags the script transport; the component across the
-- direction (steering) is kept; with negates, g*dt is added upward so that
-- the engine's gravity for the tick is cancelled.
function M.push(b, vx, vy, vz, dt, g, carried)
  local along = vx * b.dx + vy * b.dy + vz * b.dz
  local sx, sy, sz = vx - b.dx * along, vy - b.dy * along, vz - b.dz * along
  if carried and carried > along then along = carried end
  if along < b.max_vel then
    along = along + b.acc * dt
    if along > b.max_vel then along = b.max_vel end
  end
  local ox, oy, oz = sx + b.dx * along, sy + b.dy * along, sz + b.dz * along
  if b.negates then oz = oz + g * dt end
  return ox, oy, oz, along
end

-- step_static applies static Halo 2 lifts (boxes built with M.box in world
-- space) to bipeds for one tick and returns the HaloScript texts, in order,
-- written through script_writer. A biped in several lifts takes the first.
-- Bipeds are {handle, position, velocity, facing} in WU and WU/s.
function M.step_static(lifts, bipeds, dt, g)
  g = g or hmath.GRAVITY_WU
  local out = {}
  for i = 1, #bipeds do
    local bp = bipeds[i]
    for j = 1, #lifts do
      local b = lifts[j]
      if M.contains(b, bp.position) then
        local v = bp.velocity
        local x, y, z = M.push(b, v[1], v[2], v[3], dt, g)
        local text = writer.set_world_velocity(bp.handle, { x, y, z }, bp.facing)
        if text then out[#out + 1] = text end
        break
      end
    end
  end
  return out
end

-- kill_floors returns the HaloScript that kills each biped below a kill
-- floor. A floor is {z = WU} and optionally bounds {min = {x, y}, max =
-- {x, y}} in world X/Y.
function M.kill_floors(floors, bipeds)
  local out = {}
  for i = 1, #bipeds do
    local bp = bipeds[i]
    local p = bp.position
    for j = 1, #floors do
      local f = floors[j]
      local inside = p[3] < f.z
      if inside and f.min and f.max then
        inside = p[1] >= f.min[1] and p[1] <= f.max[1] and p[2] >= f.min[2] and p[2] <= f.max[2]
      end
      if inside then
        local text = writer.kill(bp.handle)
        if text then out[#out + 1] = text end
        break
      end
    end
  end
  return out
end

return M
