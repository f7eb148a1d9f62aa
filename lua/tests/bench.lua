-- tests/bench.lua: worlds at the runtime's limits for the Go benchmarks
-- (go test -bench . ./lua/).

local B = {}

local E = require("sim.engine")
local lifts = require("lifts")
local pack = require("pack_lifts")

-- world builds n_classes lift classes (the runtime uses 16), per_class
-- bound actors of each on a 10 m grid, and n_bipeds local bipeds standing
-- in different lifts, and returns functions that run one tick (clock
-- advancing by step_ms) and one discovery pass.
function B.world(n_classes, per_class, n_bipeds, step_ms)
  local rows = { "forge-lifts 1" }
  for j = 1, n_classes do
    rows[#rows + 1] = string.format("/Game/MJOLNIR/Forge/bench/Lift%02d.Lift%02d_C\tmjolnir\\forge\\bench\\lift%d\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1", j, j, j)
  end
  local ph, errs = pack.parse(table.concat(rows, "\n") .. "\n")
  if #errs > 0 then error(errs[1]) end
  -- The engine keeps no history and does not run the scripts, so that the
  -- figures are the runtime's (plus the adapter building its tables).
  local e = E.new({ gravity = 0, keep = false, apply = false })
  local handle = 1000
  for j = 1, n_classes do
    for k = 1, per_class do
      handle = handle + 1
      e:add_actor(ph[j].class, { k * 1000, j * 1000, 0 }, { pitch = 0, yaw = 15 * k, roll = 0 }, handle)
    end
  end
  for i = 1, n_bipeds do
    -- Inside the first actor of class i, 1 m up the column (Unreal +Y
    -- is Halo -Y).
    e:add_biped(i, 1, { 1000 / 304.8, -i * 1000 / 304.8, 1 / 3.048 })
  end
  local rt = lifts.new(e:adapter(1), ph, { log = function() end })
  local dt = 1 / 30
  local w = {}
  function w.tick()
    rt:tick(dt)
    e:end_call()
    e.now = e.now + step_ms
  end
  function w.discover()
    rt:discover(e.now)
    e:end_call()
  end
  -- discover_moving turns every actor by one degree first, so that every
  -- box is placed again (the worst case: all pieces being dragged).
  function w.discover_moving()
    for _, c in pairs(e.classes) do
      for i = 1, #c.actors do
        local r = c.actors[i].rotation
        r.yaw = (r.yaw + 1) % 360
      end
    end
    rt:discover(e.now)
    e:end_call()
  end
  w.rt = rt
  function w.state() return rt:state(), e.stale, e:forbidden_count(), e.script_count end
  return w
end

return B
