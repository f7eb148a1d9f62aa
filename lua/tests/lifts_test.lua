-- The lifts suite: player ownership, actor pooling, class lookup cost
-- boundaries (16 classes, 64 actors, call counts), cadence, world travel,
-- no retained wrappers, the push rules, rotated blocks and the Foundry Wide
-- preset's ride. The engine is sim/engine.lua, which records every call and
-- invalidates class and actor wrappers after each call into the runtime.

local T = require("tests.t")
local E = require("sim.engine")
local lifts = require("lifts")
local pack = require("pack_lifts")
local hmath = require("halo2_math")

local K = 3.048
local unpack = unpack or table.unpack -- Lua 5.1 / 5.4
local G = hmath.GRAVITY_WU
local DT = 1 / 30
local ROT0 = { pitch = 0, yaw = 0, roll = 0 }
local PAD_CLASS = "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C"
local PAD = PAD_CLASS .. "\tmjolnir\\forge\\foundry-wide\\lift_pad_4x4\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1"
local ANGLED_CLASS = "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftAngled.BP_LiftAngled_C"
local ANGLED = ANGLED_CLASS .. "\tmjolnir\\forge\\foundry-wide\\lift_angled\t0.5\t-1.25\t0.45\t2\t2\t6.75\t0\t0.6\t0.8\t12.5\t4.5\t0"

local function phantoms(...)
  local rows = { "forge-lifts 1" }
  for i = 1, select("#", ...) do rows[#rows + 1] = select(i, ...) end
  local ph, errs = pack.parse(table.concat(rows, "\n") .. "\n")
  if #errs > 0 then error("test rows rejected: " .. table.concat(errs, "; ")) end
  return ph
end

-- class_rows returns n lift rows with distinct class paths, numbered 1..n
-- but listed in a scrambled order, each a copy of the pad.
local function class_rows(n)
  local rows = {}
  for i = 1, n do
    local j = (i * 7) % n + 1
    local path = string.format("/Game/MJOLNIR/Forge/p/Lift%02d.Lift%02d_C", j, j)
    rows[#rows + 1] = path .. "\tmjolnir\\forge\\p\\lift" .. j .. "\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1"
  end
  return rows
end

local function class_path(j) return string.format("/Game/MJOLNIR/Forge/p/Lift%02d.Lift%02d_C", j, j) end

-- pad_world returns an engine with one Foundry Wide pad at the origin
-- (Blam handle 4000) and a runtime for peer 1.
local function pad_world(opts)
  opts = opts or {}
  local e = E.new({ floor_z = opts.floor_z, gravity = opts.gravity })
  e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
  local rt = lifts.new(e:adapter(1), phantoms(PAD))
  return e, rt
end

local IN_PAD = { 0, 0, 1 / K } -- 1 m up the pad's column

local function find_wrappers(v, path, seen, out)
  if type(v) ~= "table" or seen[v] then return end
  seen[v] = true
  if E.is_wrapper(v) then
    out[#out + 1] = path
    return
  end
  for k, x in pairs(v) do
    if not (path == "rt" and k == "adapter") then
      find_wrappers(k, path .. "[key]", seen, out)
      find_wrappers(x, path .. "." .. tostring(k), seen, out)
    end
  end
end

local function no_wrappers(rt, e, what)
  local found = {}
  find_wrappers(rt, "rt", {}, found)
  T.eq(#found, 0, what .. ": wrappers kept by the runtime (" .. table.concat(found, ", ") .. ")")
  T.eq(#e.stale, 0, what .. ": stale wrapper uses (" .. table.concat(e.stale, "; ") .. ")")
end

-- passes counts discovery passes by the engine's own record of class
-- resolutions: one pass resolves every used class once.
local function count_passes(e, per_pass)
  return e:calls_of("find_class") / per_pass
end

return {
  { "ownership_two_peers", function()
    local e = E.new({ gravity = 0 })
    e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
    local ph = phantoms(PAD)
    local rt1 = lifts.new(e:adapter(1), ph)
    local rt2 = lifts.new(e:adapter(2), ph)
    local mine = e:add_biped(11, 1, IN_PAD)
    local theirs = e:add_biped(22, 2, { 0.5 / K, 0, 1 / K })
    for _ = 1, 10 do e:step({ rt1, rt2 }, DT) end
    T.eq(#e.violations, 0, "violations: " .. table.concat(e.violations, "; "))
    T.eq(mine.pushes, 10, "pushes of peer 1's biped")
    T.eq(theirs.pushes, 10, "pushes of peer 2's biped")
    for _, s in ipairs(e.scripts) do
      local h = string.match(s.text, "^%(object_set_velocity (%d+) ")
      T.eq(tonumber(h), s.peer == 1 and 11 or 22, "handle pushed by peer " .. s.peer)
    end
  end },
  { "remote_biped_never_pushed", function()
    -- Even if an adapter hands the runtime a biped marked remote, it is
    -- never pushed.
    local e, rt = pad_world({ gravity = 0 })
    local remote = e:add_biped(33, 2, IN_PAD)
    local a = rt.adapter
    local orig = a.local_bipeds
    rawset(a, "local_bipeds", function()
      local out = orig()
      out[#out + 1] = { handle = 33, remote = true, position = { 0, 0, 1 / K }, velocity = { 0, 0, 0 }, facing = { 1, 0, 0 } }
      return out
    end)
    for _ = 1, 5 do e:step({ rt }, DT) end
    T.eq(remote.pushes, 0, "pushes of the remote biped")
    T.eq(#e.scripts, 0, "scripts")
    T.eq(T.count(e.logs, "remote biped 33"), 1, "remote biped logged once")
  end },
  { "forge_and_slayer_only", function()
    local e, rt = pad_world({ gravity = 0 })
    local b = e:add_biped(1, 1, IN_PAD)
    for _, mode in ipairs({ "forge", "slayer" }) do
      e.mode_name = mode
      local before = b.pushes
      e:step({ rt }, DT)
      T.eq(b.pushes, before + 1, "pushes in " .. mode)
    end
    e.mode_name = "campaign"
    local before = b.pushes
    for _ = 1, 5 do e:step({ rt }, DT) end
    T.eq(b.pushes, before, "pushes in campaign")
    T.eq(rt:state().carried, 0, "carried velocities outside forge and slayer")
  end },
  { "pooled_actors_do_nothing", function()
    local e = E.new({ gravity = 0 })
    local pooled = e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, nil)
    e:add_actor(PAD_CLASS, { 3048, 0, 0 }, ROT0, 4001) -- 10 WU away along X
    local rt = lifts.new(e:adapter(1), phantoms(PAD))
    local b = e:add_biped(1, 1, IN_PAD)
    for _ = 1, 20 do e:step({ rt }, DT) end
    T.eq(b.pushes, 0, "pushes from a pooled actor")
    T.eq(rt:state().active, 1, "active actors (the bound one)")
    T.eq(e:calls_of("actor_transform"), e:calls_of("actors_of_class"), "transforms read (bound actor only, one per pass)")
    -- The pooled actor is given a binding (a later duplicate, or a saved
    -- layout object spawned into it): the next pass finds it.
    pooled.handle = 4100
    for _ = 1, 20 do e:step({ rt }, DT) end
    T.ok(b.pushes > 0, "pushes once the actor has a binding")
    T.eq(rt:state().active, 2, "active actors after binding")
    -- A later duplicate is discovered too.
    e:add_actor(PAD_CLASS, { -3048, 0, 0 }, ROT0, 4200)
    for _ = 1, 20 do e:step({ rt }, DT) end
    T.eq(rt:state().active, 3, "active actors after a duplicate")
    -- Rebinding (the binding changes under a saved layout reload) uses the
    -- current handle; pooling again makes it inert.
    pooled.handle = nil
    local pushes = b.pushes
    for _ = 1, 20 do e:step({ rt }, DT) end
    T.eq(rt:state().active, 2, "active actors after pooling again")
    T.ok(b.pushes - pushes <= 1, "at most the tick before the next pass pushes")
    pushes = b.pushes
    for _ = 1, 20 do e:step({ rt }, DT) end
    T.eq(b.pushes, pushes, "no pushes from the re-pooled actor")
    no_wrappers(rt, e, "pooling")
  end },
  { "class_lookup_cost_boundaries", function()
    local cases = {
      { name = "one class", classes = 1, unloaded = {}, resolutions = 1, reads = 1 },
      { name = "sixteen classes", classes = 16, unloaded = {}, resolutions = 16, reads = 16 },
      { name = "seventeen classes", classes = 17, unloaded = {}, resolutions = 16, reads = 16 },
      { name = "forty classes", classes = 40, unloaded = {}, resolutions = 16, reads = 16 },
      { name = "unloaded classes", classes = 20, unloaded = { 2, 5, 16, 19 }, resolutions = 16, reads = 13 },
      { name = "none loaded", classes = 3, unloaded = { 1, 2, 3 }, resolutions = 3, reads = 0 },
    }
    for _, c in ipairs(cases) do
      local e = E.new({ gravity = 0 })
      local unloaded = {}
      for _, j in ipairs(c.unloaded) do unloaded[j] = true end
      for j = 1, c.classes do
        e:add_class(class_path(j), not unloaded[j])
        e:add_actor(class_path(j), { j * 3048, 0, 0 }, ROT0, 5000 + j)
      end
      local ph = phantoms(unpack(class_rows(c.classes)))
      local rt = lifts.new(e:adapter(1), ph)
      e:add_biped(1, 1, { 10000, 0, 0 }) -- far away: idle cadence
      for pass = 1, 3 do
        e:reset_calls()
        e.resolved = {}
        rt:discover(e.now)
        e:end_call()
        T.eq(e:calls_of("find_class"), c.resolutions, c.name .. " pass " .. pass .. ": class resolutions")
        T.eq(e:calls_of("actors_of_class"), c.reads, c.name .. " pass " .. pass .. ": class-list reads")
        T.ok(e:calls_of("find_class") <= 16 and e:calls_of("actors_of_class") <= 16, c.name .. ": at most 16/16")
        for i, path in ipairs(e.resolved) do
          T.eq(path, class_path(i), c.name .. ": class resolved " .. i .. " (sorted by class path)")
        end
      end
      T.eq(e:forbidden_count(), 0, c.name .. ": global scans or calls outside the adapter")
      local ignored = T.count(e.logs, "ignores")
      T.eq(ignored, c.classes > 16 and 1 or 0, c.name .. ": ignored classes logged once")
      if c.classes > 16 then T.has(e.logs, class_path(17), c.name .. ": first ignored class named") end
      no_wrappers(rt, e, c.name)
    end
  end },
  { "sixty_four_actors", function()
    local e = E.new({ gravity = 0 })
    for j = 1, 6 do
      for k = 1, 20 do e:add_actor(class_path(j), { k * 3048, j * 3048, 0 }, ROT0, j * 100 + k) end
    end
    local rt = lifts.new(e:adapter(1), phantoms(unpack(class_rows(6))))
    for pass = 1, 3 do
      e:reset_calls()
      rt:discover(e.now)
      e:end_call()
      T.eq(rt:state().active, 64, "active actors")
      -- Class 4 fills the limit; classes after it are not even read.
      T.eq(e:calls_of("actors_of_class"), 4, "class-list reads in pass " .. pass)
      T.eq(rt.active[61].handle, 401, "the 61st active actor is class 4's first")
      T.eq(rt.active[64].handle, 404, "the 64th active actor")
    end
    T.eq(T.count(e.logs, "more than 64 active lift actors"), 1, "actor limit logged once")
    -- The same handle listed twice (two wrappers for one object) counts once.
    local e2 = E.new({ gravity = 0 })
    e2:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 7)
    e2:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 7)
    local rt2 = lifts.new(e2:adapter(1), phantoms(PAD))
    rt2:discover(0)
    T.eq(rt2:state().active, 1, "one active lift per Blam handle")
  end },
  { "cadence_switches_at_five_metres", function()
    -- The pad's side face is 2 m from its axis; the biped stands 1 m up.
    local function passes_over(dist_m, ms)
      local e, rt = pad_world({ gravity = 0 })
      e:add_biped(1, 1, { (2 + dist_m) / K, 0, 1 / K })
      for _ = 1, ms / 25 do e:step({ rt }, 0.025, 25) end
      T.eq(e:forbidden_count(), 0, "global scans at " .. dist_m .. " m")
      no_wrappers(rt, e, "cadence at " .. dist_m .. " m")
      return count_passes(e, 1), rt
    end
    local n, rt = passes_over(10, 2000)
    T.eq(n, 4, "passes in 2 s idle (every 500 ms: 0, 500, 1000, 1500)")
    T.eq(rt:state().near, false, "near at 10 m")
    n, rt = passes_over(5.1, 2000)
    T.eq(n, 4, "passes in 2 s at 5.1 m")
    n, rt = passes_over(4.9, 1000)
    T.eq(n, 20, "passes in 1 s at 4.9 m (every 50 ms)")
    T.eq(rt:state().near, true, "near at 4.9 m")
    n = passes_over(0, 1000)
    T.eq(n, 20, "passes in 1 s inside the column")
    -- Walking up: idle until within 5 m, then near at once.
    local e, rt2 = pad_world({ gravity = 0 })
    local b = e:add_biped(1, 1, { 12 / K, 0, 1 / K })
    for _ = 1, 40 do e:step({ rt2 }, 0.025, 25) end -- 1 s at 12 m: passes at 0, 500
    T.eq(count_passes(e, 1), 2, "passes in the first second at 12 m")
    b.position[1] = 6 / K                                  -- 4 m from the face
    e:step({ rt2 }, 0.025, 25)                             -- now = 1000: due anyway
    local at = count_passes(e, 1)
    for _ = 1, 8 do e:step({ rt2 }, 0.025, 25) end         -- 1025 .. 1200
    T.eq(count_passes(e, 1) - at, 4, "passes in the 200 ms after coming near")
  end },
  { "no_wrapper_survives_a_call", function()
    local e = E.new({ floor_z = 0.5 / K })
    local moving = e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
    e:add_actor(ANGLED_CLASS, { 1000, 1000, 0 }, { pitch = 10, yaw = 20, roll = 30 }, 4001)
    local rt = lifts.new(e:adapter(1), phantoms(PAD, ANGLED))
    e:add_biped(1, 1, { 0, 0, 0.5 / K })
    for i = 1, 90 do
      moving.location[1] = i -- the piece is dragged in Forge
      e:step({ rt }, DT)
      no_wrappers(rt, e, "tick " .. i)
    end
    T.eq(e:forbidden_count(), 0, "global scans")
    -- The check itself can fail: a runtime that keeps a class wrapper
    -- between calls is caught by the engine.
    local e2 = E.new()
    e2:add_class(PAD_CLASS, true)
    local a = e2:adapter(1)
    local kept = a.find_class(PAD_CLASS)
    e2:end_call()
    a.actors_of_class(kept)
    T.eq(#e2.stale, 1, "a kept wrapper is reported as stale")
    local found = {}
    find_wrappers({ cache = kept }, "bad", {}, found)
    T.eq(#found, 1, "a kept wrapper is found in state")
  end },
  { "trigger_follows_live_transform", function()
    local e = E.new({ gravity = 0 })
    local actor = e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
    local rt = lifts.new(e:adapter(1), phantoms(PAD))
    local b = e:add_biped(1, 1, { 10 / K, 0, 1 / K }) -- 8 m from the face
    for _ = 1, 3 do e:step({ rt }, DT) end
    T.eq(b.pushes, 0, "pushes before the piece moves")
    actor.location = { 1000, 0, 0 } -- 10 m: the biped is now inside
    for _ = 1, 20 do e:step({ rt }, DT) end -- at most one idle period
    T.ok(b.pushes > 0, "pushes after the piece moved under the biped")
    -- Rolled 90 degrees the column lies along Halo -Y (Unreal +Y): authored
    -- Y becomes Halo +Z, authored Z becomes Halo -Y.
    actor.rotation = { pitch = 0, yaw = 0, roll = 90 }
    b.position = { 10 / K, -2 / K, 1 / K }
    b.velocity = { 0, 0, 0 }
    -- Near a lift a pass runs every 50 ms, so the box is at most one pass
    -- (two 30 Hz ticks) behind the piece: of six ticks, at least four push
    -- along the new direction.
    for _ = 1, 6 do e:step({ rt }, DT) end
    local a = 20 / K * DT
    T.ok(b.velocity[2] < -3.5 * a, "velocity along the rolled direction (Halo -Y): " .. T.fmt(b.velocity[2]))
    T.near(b.velocity[1], 0, 1e-9, "no push across the rolled column")
  end },
  { "locate_matches_brute_force", function()
    -- 64 lifts of mixed sizes (up to 100 m, tested for every biped) and
    -- rotations, 300 biped positions: the grid finds exactly the lift a
    -- brute-force scan finds, and the same "near".
    local seed = 12345
    local function rnd(lo, hi)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return lo + (hi - lo) * seed / 2147483648
    end
    local h2 = require("h2_lifts")
    local rows = {}
    for j = 1, 16 do
      local big = j % 5 == 0
      local sx, sy, sz = rnd(0.5, 8), rnd(0.5, 8), rnd(1, 12)
      if big then sx, sy, sz = 100, rnd(50, 100), 100 end
      rows[#rows + 1] = string.format("%s\tmjolnir\\forge\\p\\l%d\t0\t0\t0.45\t%.3f\t%.3f\t%.3f\t0\t0\t1\t20\t4.5\t1", class_path(j), j, sx, sy, sz)
    end
    local e = E.new({ gravity = 0 })
    local handle = 100
    for j = 1, 16 do
      for _ = 1, 4 do
        handle = handle + 1
        e:add_actor(class_path(j), { rnd(-20000, 20000), rnd(-20000, 20000), rnd(-500, 500) },
          { pitch = rnd(-90, 90), yaw = rnd(-180, 180), roll = rnd(-180, 180) }, handle)
      end
    end
    local rt = lifts.new(e:adapter(1), phantoms(unpack(rows)))
    rt:discover(0)
    e:end_call()
    T.eq(rt:state().active, 64, "active lifts")
    local nr2 = (lifts.NEAR_M / K) ^ 2
    local hits, nears = 0, 0
    for n = 1, 300 do
      local p
      if n % 3 == 0 then
        local b = rt.active[(n % 64) + 1]
        p = { b.cx + rnd(-3, 3), b.cy + rnd(-3, 3), b.cz + rnd(-3, 3) }
      else
        p = { rnd(-700, 700), rnd(-700, 700), rnd(-20, 20) }
      end
      local near, inside = rt:locate({ { position = p } })
      local want_in, want_near = nil, false
      for j = 1, #rt.active do
        local b = rt.active[j]
        if not want_in and h2.contains(b, p) then want_in = b end
        if h2.distance2(b, p) <= nr2 then want_near = true end
      end
      T.eq(inside[1], want_in, "lift found for position " .. n)
      T.eq(near, want_near, "near for position " .. n)
      if want_in then hits = hits + 1 end
      if want_near then nears = nears + 1 end
    end
    T.ok(hits > 20 and nears > hits, string.format("the layout exercises the grid: %d inside, %d near", hits, nears))
  end },
  { "push_rules", function()
    local e, rt = pad_world({ gravity = 0 })
    local b = e:add_biped(1, 1, IN_PAD, { 1 / K, 0.5 / K, 0 }, { 0, 1, 0 })
    rt:tick(DT)
    e:end_call()
    -- Steering kept, along grows by acc*dt, gravity for the tick added.
    T.vec_near(b.velocity, { 1 / K, 0.5 / K, 20 / K * DT + G * DT }, 1e-5, "first push (world)")
    T.eq(e.scripts[1].text, string.format("(object_set_velocity 1 %s %s %s)",
      require("script_writer").number(0.5 / K), require("script_writer").number(-1 / K),
      require("script_writer").number(20 / K * DT + G * DT)), "first push text (relative to facing +Y)")
    -- Near the maximum: clamped.
    b.velocity = { 0, 0, 4.5 / K - 0.01 }
    rt.carried = {}
    rt:tick(DT)
    e:end_call()
    T.near(b.velocity[3], 4.5 / K + G * DT, 2e-6, "clamped push")
    -- Faster than the maximum: kept, not braked.
    b.velocity = { 0, 0, 3 }
    rt.carried = {}
    rt:tick(DT)
    e:end_call()
    T.near(b.velocity[3], 3 + G * DT, 2e-6, "fast biped not braked")
    -- Without gravity compensation nothing is added for gravity.
    local e2 = E.new({ gravity = 0 })
    e2:add_actor(ANGLED_CLASS, { 0, 0, 0 }, ROT0, 9)
    local rt2 = lifts.new(e2:adapter(1), phantoms(ANGLED))
    local b2 = e2:add_biped(2, 1, { 0.5 / K, -1.25 / K, 2 / K })
    rt2:tick(DT)
    e2:end_call()
    local a = 12.5 / K * DT
    T.vec_near(b2.velocity, { 0, 0.6 * a, 0.8 * a }, 2e-6, "angled push without gravity compensation")
  end },
  { "carried_speed_stands_in_for_a_lagging_engine", function()
    -- The transport runs after the engine reports velocity; if the engine
    -- still reports 0, the runtime builds on the speed it carried.
    local e, rt = pad_world({ gravity = 0 })
    local b = e:add_biped(1, 1, IN_PAD)
    for i = 1, 3 do
      rt:tick(DT)
      e:end_call()
      T.near(b.velocity[3], math.min(i * 20 / K * DT, 4.5 / K) + G * DT, 2e-6, "push " .. i)
      b.velocity = { 0, 0, 0 } -- the engine lags
    end
  end },
  { "rotated_blocks", function()
    -- The angled lift under yaw/pitch/roll: a biped at the trigger centre is
    -- pushed along the rotated direction, computed here via Unreal axes.
    local rots = {
      { pitch = 0, yaw = 90, roll = 0 }, { pitch = 30, yaw = 0, roll = 0 },
      { pitch = 0, yaw = 0, roll = 45 }, { pitch = 20, yaw = -135, roll = 70 },
    }
    for i, rot in ipairs(rots) do
      local e = E.new({ gravity = 0 })
      local loc = { 100 * i, -50 * i, 25 * i }
      e:add_actor(ANGLED_CLASS, loc, rot, 9)
      local rt = lifts.new(e:adapter(1), phantoms(ANGLED))
      local rows = hmath.frotation_rows(rot.pitch, rot.yaw, rot.roll)
      local function to_world(q, origin)
        local w = { origin[1], origin[2], origin[3] }
        local qu = { 100 * q[1], -100 * q[2], 100 * q[3] }
        for r = 1, 3 do
          for k = 1, 3 do w[k] = w[k] + qu[r] * rows[r][k] end
        end
        return { w[1] / 304.8, -w[2] / 304.8, w[3] / 304.8 }
      end
      local centre = to_world({ 0.5, -1.25, 0.45 + 3.375 }, loc)
      local dir = to_world({ 0, 0.6, 0.8 }, { 0, 0, 0 })
      local b = e:add_biped(1, 1, centre)
      rt:tick(DT)
      e:end_call()
      local a = 12.5 / K * DT
      T.vec_near(b.velocity, { dir[1] * K * a, dir[2] * K * a, dir[3] * K * a }, 2e-6, "push under rotation " .. i)
      -- Just outside the far face along local X: no push.
      local outside = e:add_biped(2, 1, to_world({ 0.5 + 1.01, -1.25, 2 }, loc))
      rt:tick(DT)
      e:end_call()
      T.eq(outside.pushes, 0, "biped outside local +X face, rotation " .. i)
    end
  end },
  { "travel_clears_everything", function()
    local e, rt = pad_world({ floor_z = 0.5 / K })
    local b = e:add_biped(1, 1, { 0, 0, 0.5 / K })
    for _ = 1, 5 do e:step({ rt }, DT) end
    local s = rt:state()
    T.eq(s.active, 1, "active before travel")
    T.eq(s.carried, 1, "carried before travel")
    e:travel()
    s = rt:state()
    T.eq(s.active, 0, "active after travel")
    T.eq(s.carried, 0, "carried after travel")
    T.eq(s.pending, 0, "pending after travel")
    T.eq(s.discovered_at, nil, "discovery time after travel")
    T.eq(rt.stats.travels, 1, "travels")
    -- After travel the biped (respawned at rest) starts from zero, not from
    -- the carried speed, and the next tick discovers again.
    b.velocity = { 0, 0, 0 }
    local finds = e:calls_of("find_class")
    rt:tick(DT)
    e:end_call()
    T.eq(e:calls_of("find_class"), finds + 1, "discovery right after travel")
    T.near(b.velocity[3], 20 / K * DT + G * DT, 2e-6, "first push after travel")
  end },
  { "travel_during_flush_drops_pending", function()
    local e, rt = pad_world({ gravity = 0 })
    e:add_biped(1, 1, IN_PAD)
    e:add_biped(2, 1, { 0.2, 0, 1 / K })
    local fired = false
    e.on_script = function()
      if not fired then
        fired = true
        e:travel()
      end
    end
    rt:tick(DT)
    e:end_call()
    T.eq(#e.scripts, 1, "scripts run (the second push was pending at travel)")
    local s = rt:state()
    T.eq(s.pending, 0, "pending after travel")
    T.eq(s.carried, 0, "carried after travel")
    T.eq(s.active, 0, "active after travel")
  end },
  { "invalid_input_is_skipped", function()
    local e = E.new({ gravity = 0 })
    local broken = e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
    broken.no_transform = true
    e:add_actor(PAD_CLASS, { 0 / 0, 0, 0 }, ROT0, 4001)
    e:add_actor(PAD_CLASS, { 3048, 0, 0 }, { pitch = math.huge, yaw = 0, roll = 0 }, 4002)
    e:add_actor(PAD_CLASS, { -3048, 0, 0 }, ROT0, 4003)
    e:add_actor(PAD_CLASS, { 0, 3048, 0 }, ROT0, 1.5)
    local rt = lifts.new(e:adapter(1), phantoms(PAD))
    local bad = e:add_biped(1, 1, { 0 / 0, 0, 0 })
    local good = e:add_biped(2, 1, { -10, 0, 1 / K })
    for _ = 1, 40 do e:step({ rt }, DT) end
    T.eq(rt:state().active, 1, "active actors (only the valid one)")
    T.eq(bad.pushes, 0, "pushes of a biped with a non-finite position")
    T.ok(good.pushes > 0, "the valid lift still pushes")
    T.has(e.logs, "actor 4000 skipped: no transform", "nil transform message")
    T.has(e.logs, "actor 4001 skipped: location", "nan location message")
    T.has(e.logs, "actor 4002 skipped: rotation", "infinite rotation message")
    T.has(e.logs, "invalid Blam handle 1.5", "bad handle message")
    T.has(e.logs, "biped 1 has a missing or non-finite", "bad biped message")
    T.eq(T.count(e.logs, "actor 4000 skipped"), 1, "nil transform logged once over 40 ticks")
    -- Bad tick lengths push nothing and raise nothing.
    for _, dt in ipairs({ 0, -1, 2, 0 / 0, math.huge }) do
      local before = good.pushes
      rt:tick(dt)
      e:end_call()
      T.eq(good.pushes, before, "pushes with dt " .. tostring(dt))
    end
    -- An adapter that raises does not raise into the game.
    local a = rt.adapter
    rawset(a, "local_bipeds", function() error("engine exploded") end)
    for _ = 1, 30 do rt:tick(DT) end
    T.has(e.logs, "tick failed", "failure logged")
    T.has(e.logs, "engine exploded", "failure names the cause")
    T.eq(T.count(e.logs, "engine exploded"), 1, "a repeated failure logged once over 30 ticks")
  end },
  { "start_loads_lifts_txt", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write("forge-lifts 1\n" .. PAD .. "\n" .. ANGLED_CLASS .. "\tbad\n")
    f:close()
    local e = E.new({ gravity = 0 })
    e:add_actor(PAD_CLASS, { 0, 0, 0 }, ROT0, 4000)
    local rt = lifts.start(e:adapter(1), { lifts_path = path })
    os.remove(path)
    T.eq(rt:state().classes, 1, "classes loaded from the file")
    T.has(e.logs, "lifts.txt:3: want 14 tab-separated fields, got 2", "bad row logged")
    local b = e:add_biped(1, 1, IN_PAD)
    e:step({ rt }, DT)
    T.eq(b.pushes, 1, "the good row's lift pushes")
    local rt2 = lifts.start(e:adapter(1), { lifts_path = path .. ".missing" })
    T.eq(rt2:state().classes, 0, "classes without a file")
    T.has(e.logs, "cannot open", "missing file logged")
  end },
  { "foundry_wide_ride", function()
    -- A biped standing on the 0.5 m deck of a Foundry Wide pad rides the
    -- column to its top at 3.95 m and rises ballistically after leaving it.
    local e, rt = pad_world({ floor_z = 0.5 / K })
    local b = e:add_biped(1, 1, { 0, 0, 0.5 / K })
    local top = 3.95 / K
    local last_push_z, pushed_up
    e.on_script = function()
      last_push_z = b.position[3]
      pushed_up = b.velocity[3]
    end
    local exit_z, exit_t, apex, apex_t
    local after_push_z, after_push_v
    for i = 1, 120 do
      local pushes = b.pushes
      e:step({ rt }, DT)
      if b.pushes > pushes then
        T.ok(last_push_z <= top, string.format("push at %.4f WU is inside the column (top %.4f WU)", last_push_z, top))
        after_push_z, after_push_v = b.position[3], b.velocity[3]
      end
      local z = b.position[3]
      if not exit_z and z > top then exit_z, exit_t = z, i * DT end
      if exit_z and (not apex or z > apex) then apex, apex_t = z, i * DT end
      if apex and z < apex then break end
    end
    T.ok(exit_z ~= nil, "the biped leaves the column")
    -- The pushed speed reaches the maximum along the column; the push adds
    -- the tick's gravity on top.
    T.near(pushed_up, 4.5 / K + G * DT, 2e-6, "last pushed vertical speed (WU/s)")
    T.near(after_push_v, 4.5 / K, 2e-6, "speed after the engine's gravity (WU/s)")
    T.ok(exit_z - top <= after_push_v * DT + 1e-9, "exit height within one tick of the column top")
    -- Apex of the ballistic rise from the pushed speed: z + v^2 / 2g,
    -- reached by the fixed-step engine within v*dt.
    local predicted = after_push_z + after_push_v * after_push_v / (2 * G)
    T.ok(apex <= predicted + 1e-9, string.format("apex %.4f m not above prediction %.4f m", apex * K, predicted * K))
    T.near(apex, predicted, after_push_v * DT, "apex vs prediction (WU)")
    local rise_m = (4.5 * 4.5) / (2 * G * K)
    T.near(rise_m, 0.7963, 0.0001, "ballistic rise at 4.5 m/s (m)")
    T.ok(apex * K > 3.95 + rise_m - 0.15 and apex * K < 3.95 + 0.15 + rise_m, string.format("apex %.3f m", apex * K))
    T.ok(exit_t < apex_t, "exit before apex")
    no_wrappers(rt, e, "ride")
    T.eq(e:forbidden_count(), 0, "global scans during the ride")
  end },
}
