-- sim/preview.lua: rides a biped up one lift with the real scripts, for
-- forgesync lift-preview. The lift's block stands at the world origin,
-- unrotated, in the simulated engine; the biped starts at rest and is
-- pushed by lifts.lua exactly as in the game, at a fixed tick. Not
-- deployed.

local P = {}

local E = require("sim.engine")
local lifts = require("lifts")
local pack = require("pack_lifts")
local h2 = require("h2_lifts")
local hmath = require("halo2_math")

local ROT0 = { pitch = 0, yaw = 0, roll = 0 }

-- run simulates one lift.
--   text: a lifts.txt with the header and exactly one row
--   opts: floor_m (the block top, where the biped stands and lands),
--         start_m {x, y, z} (block-local metres), tick_hz, max_s
-- It returns a table of samples (t, x, y, z, vx, vy, vz in metres and
-- seconds; inside: the biped is in the trigger; pushed: the tick ending
-- at this sample pushed it), the reason the ride ended ("landed",
-- "re-entered", "never entered", "time limit") and the runtime's messages;
-- or nil and a message when the row is rejected.
function P.run(text, opts)
  local ph, errs = pack.parse(text)
  if #errs > 0 then return nil, errs[1] end
  if #ph ~= 1 then return nil, "lift-preview: want exactly one lift row, got " .. #ph end
  local K = hmath.METRES_PER_WU
  local e = E.new({ floor_z = opts.floor_m / K })
  e:add_actor(ph[1].class, { 0, 0, 0 }, ROT0, 1000)
  local st = opts.start_m
  local b = e:add_biped(1, 1, { st[1] / K, st[2] / K, st[3] / K })
  local logs = {}
  local rt = lifts.new(e:adapter(1), ph, { log = function(m) logs[#logs + 1] = m end })
  local box = pack.world_box(ph[1], { location = { 0, 0, 0 }, rotation = ROT0 })
  local dt = 1 / opts.tick_hz
  local n = math.floor(opts.max_s * opts.tick_hz + 0.5)
  local s = { t = {}, x = {}, y = {}, z = {}, vx = {}, vy = {}, vz = {}, inside = {}, pushed = {} }
  local function record(t, pushed)
    local p, v = b.position, b.velocity
    local i = #s.t + 1
    s.t[i] = t
    s.x[i], s.y[i], s.z[i] = p[1] * K, p[2] * K, p[3] * K
    s.vx[i], s.vy[i], s.vz[i] = v[1] * K, v[2] * K, v[3] * K
    s.inside[i] = h2.contains(box, p)
    s.pushed[i] = pushed
  end
  record(0, false)
  local state = "before"
  local reason = "time limit"
  for i = 1, n do
    local pushes = b.pushes
    e:step({ rt }, dt)
    local pushed = b.pushes > pushes
    record(i * dt, pushed)
    local inside = s.inside[#s.inside]
    if state == "before" then
      if pushed then state = "riding" end
      if state == "before" and i * dt >= 1 then
        reason = "never entered"
        break
      end
    end
    if state == "riding" and not inside then
      state = "flying"
    elseif state == "flying" then
      if inside then
        reason = "re-entered"
        break
      end
      if b.position[3] <= e.floor_z and b.velocity[3] == 0 then
        reason = "landed"
        break
      end
    end
  end
  return s, reason, logs
end

return P
