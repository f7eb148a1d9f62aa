-- sim/engine.lua: a simulated engine behind the lifts.lua adapter, for the
-- test suites and for forgesync lift-preview. It is not deployed.
--
-- It records every adapter call, hands out class and actor wrappers that
-- are invalidated when the current call into the runtime ends (as UE4SS
-- wrappers may not be kept), records any use of a stale wrapper and any
-- access to an adapter member that is not part of the contract (a global
-- object scan such as FindAllOf), applies object_set_velocity and unit_kill
-- scripts to its bipeds, and integrates Halo gravity at a fixed step.
--
-- Units: positions in WU, velocities in WU/s, actor locations in Unreal cm.

local E = {}

local GRAVITY_WU = 4.1712594

local ALLOWED = {
  find_class = true, actors_of_class = true, actor_transform = true, blam_handle = true,
  local_bipeds = true, run_script = true, now_ms = true, mode = true, on_travel = true,
  log = true,
}

local Engine = {}
Engine.__index = Engine

-- new returns an empty world at time 0 in mode "forge".
--   opts.floor_z: a floor at this height (WU) that bipeds stand on
--   opts.gravity: WU/s^2, default Halo 2 standard gravity
--   opts.keep: false keeps no script or class-resolution history
--   opts.apply: false counts scripts without running them
function E.new(opts)
  opts = opts or {}
  local e = setmetatable({}, Engine)
  e.now = 0
  e.mode_name = "forge"
  e.floor_z = opts.floor_z
  e.gravity = opts.gravity or GRAVITY_WU
  e.classes = {}      -- path -> {loaded = bool, actors = {actor, ...}}
  e.bipeds = {}       -- sequence of {handle, owner, spartan, position, velocity, facing}
  e.calls = {}        -- adapter member -> count, for the whole run
  e.forbidden = {}    -- member name -> count of accesses outside the contract
  e.stale = {}        -- messages: wrappers used after the call that issued them
  e.violations = {}   -- messages: scripts that touched another peer's biped
  e.scripts = {}      -- every script text run, in order, with its peer
  e.script_count = 0  -- how many scripts ran
  e.keep = opts.keep ~= false -- false: keep no history (benchmarks)
  e.apply_scripts = opts.apply ~= false -- false: scripts are counted, not run
  e.logs = {}
  e.travel_fns = {}
  e.issued = {}       -- wrappers issued during the current call
  e.resolved = {}     -- every class path passed to find_class, in order
  e.on_script = nil   -- optional hook(text, peer) run inside run_script
  return e
end

-- add_class declares a lift class; loaded says whether find_class finds it.
function Engine:add_class(path, loaded)
  local c = self.classes[path]
  if not c then
    c = { actors = {} }
    self.classes[path] = c
  end
  c.loaded = loaded ~= false
  return c
end

-- add_actor places an actor of class path at location (cm) with rotation
-- {pitch, yaw, roll} (degrees); handle is its Blam binding or nil (pooled).
function Engine:add_actor(path, location, rotation, handle)
  local c = self.classes[path] or self:add_class(path, true)
  local actor = {
    class = path, handle = handle,
    location = { location[1], location[2], location[3] },
    rotation = { pitch = rotation.pitch or 0, yaw = rotation.yaw or 0, roll = rotation.roll or 0 },
  }
  c.actors[#c.actors + 1] = actor
  return actor
end

-- add_biped adds a biped owned by peer `owner`.
function Engine:add_biped(handle, owner, position, velocity, facing)
  local b = {
    handle = handle, owner = owner or 1, spartan = true,
    position = { position[1], position[2], position[3] },
    velocity = velocity and { velocity[1], velocity[2], velocity[3] } or { 0, 0, 0 },
    facing = facing and { facing[1], facing[2], facing[3] } or { 1, 0, 0 },
    pushes = 0, killed = false,
  }
  self.bipeds[#self.bipeds + 1] = b
  return b
end

function Engine:biped(handle)
  for i = 1, #self.bipeds do
    if self.bipeds[i].handle == handle then return self.bipeds[i] end
  end
  return nil
end

function Engine:count(name)
  self.calls[name] = (self.calls[name] or 0) + 1
end

-- calls_of returns how many times the adapter member was called.
function Engine:calls_of(name) return self.calls[name] or 0 end

-- reset_calls zeroes the call counters.
function Engine:reset_calls() self.calls = {} end

-- A wrapper is {kind, target, valid} with WRAPPER as its metatable.
local WRAPPER = {}

function Engine:wrap(kind, target)
  local w = setmetatable({ kind, target, true }, WRAPPER)
  local issued = self.issued
  issued[#issued + 1] = w
  return w
end

function Engine:unwrap(w, kind, who)
  if getmetatable(w) ~= WRAPPER or w[1] ~= kind then
    self.stale[#self.stale + 1] = who .. ": not a " .. kind .. " wrapper: " .. tostring(w)
    return nil
  end
  if not w[3] then
    self.stale[#self.stale + 1] = who .. ": " .. kind .. " wrapper used after the call that obtained it"
    return nil
  end
  return w[2]
end

-- end_call ends the current call into the runtime: every wrapper handed out
-- so far becomes invalid, as UE4SS wrappers do.
function Engine:end_call()
  for i = 1, #self.issued do self.issued[i][3] = false end
  self.issued = {}
end

-- is_wrapper reports whether v is a wrapper this engine handed out.
function E.is_wrapper(v)
  return getmetatable(v) == WRAPPER
end

local function copy3(v) return { v[1], v[2], v[3] } end

-- adapter returns the adapter table peer `peer` hands to lifts.lua.
function Engine:adapter(peer)
  peer = peer or 1
  local e = self
  local a = {}
  -- The members count their calls and check wrappers inline: this fake
  -- should cost little next to the runtime in the benchmarks.
  local calls = e.calls
  function a.find_class(path)
    calls = e.calls
    calls.find_class = (calls.find_class or 0) + 1
    if e.keep then e.resolved[#e.resolved + 1] = path end
    local c = e.classes[path]
    if c and c.loaded then return e:wrap("class", path) end
    return nil
  end
  function a.actors_of_class(cls)
    calls = e.calls
    calls.actors_of_class = (calls.actors_of_class or 0) + 1
    local path = e:unwrap(cls, "class", "actors_of_class")
    if not path then return {} end
    local out = {}
    local actors = e.classes[path].actors
    local issued = e.issued
    for i = 1, #actors do
      local w = setmetatable({ "actor", actors[i], true }, WRAPPER)
      out[i] = w
      issued[#issued + 1] = w
    end
    return out
  end
  function a.actor_transform(w)
    calls = e.calls
    calls.actor_transform = (calls.actor_transform or 0) + 1
    local actor
    if getmetatable(w) == WRAPPER and w[1] == "actor" and w[3] then actor = w[2] else actor = e:unwrap(w, "actor", "actor_transform") end
    if not actor or actor.no_transform then return nil end
    local l, r = actor.location, actor.rotation
    return l[1], l[2], l[3], r.pitch, r.yaw, r.roll
  end
  function a.blam_handle(w)
    calls = e.calls
    calls.blam_handle = (calls.blam_handle or 0) + 1
    if getmetatable(w) == WRAPPER and w[1] == "actor" and w[3] then return w[2].handle end
    local actor = e:unwrap(w, "actor", "blam_handle")
    if not actor then return nil end
    return actor.handle
  end
  function a.local_bipeds()
    e:count("local_bipeds")
    local out = {}
    for i = 1, #e.bipeds do
      local b = e.bipeds[i]
      if b.owner == peer and b.spartan and not b.killed then
        out[#out + 1] = { handle = b.handle, position = copy3(b.position), velocity = copy3(b.velocity), facing = copy3(b.facing) }
      end
    end
    return out
  end
  function a.run_script(text)
    e:count("run_script")
    e.script_count = e.script_count + 1
    if e.keep then e.scripts[#e.scripts + 1] = { text = text, peer = peer } end
    if e.apply_scripts then e:apply(text, peer) end
    if e.on_script then e.on_script(text, peer) end
    return true
  end
  function a.now_ms() e:count("now_ms") return e.now end
  function a.mode() e:count("mode") return e.mode_name end
  function a.on_travel(fn) e:count("on_travel") e.travel_fns[#e.travel_fns + 1] = fn end
  function a.log(msg) e:count("log") e.logs[#e.logs + 1] = msg end
  return setmetatable(a, {
    __index = function(_, k)
      e.forbidden[k] = (e.forbidden[k] or 0) + 1
      if not ALLOWED[k] then
        return function() e.forbidden[k] = (e.forbidden[k] or 0) + 1 return {} end
      end
      return nil
    end,
  })
end

-- forbidden_count returns how many accesses outside the adapter contract
-- (global object scans and the like) were made.
function Engine:forbidden_count()
  local n = 0
  for _, c in pairs(self.forbidden) do n = n + c end
  return n
end

-- apply executes a script the runtime sent, as the LevelLoader transport
-- would: object_set_velocity sets a velocity relative to the object's
-- facing; unit_kill kills it.
function Engine:apply(text, peer)
  -- Split "(op a b ...)" on spaces with plain finds: gopher-lua's pattern
  -- matching is slow enough to dominate the benchmarks.
  local parts = {}
  if string.sub(text, 1, 1) == "(" and string.sub(text, -1) == ")" then
    local pos, last = 2, #text - 1
    while true do
      local j = string.find(text, " ", pos, true)
      if not j or j > last then
        parts[#parts + 1] = string.sub(text, pos, last)
        break
      end
      parts[#parts + 1] = string.sub(text, pos, j - 1)
      pos = j + 1
    end
  end
  local op, h = parts[1], tonumber(parts[2])
  if op == "object_set_velocity" and #parts == 5 and h then
    local b = self:biped(h)
    if not b then
      self.violations[#self.violations + 1] = "object_set_velocity on unknown object " .. parts[2]
      return
    end
    if b.owner ~= peer then
      self.violations[#self.violations + 1] = string.format("peer %d pushed biped %s owned by peer %d", peer, parts[2], b.owner)
    end
    local f, l, u = tonumber(parts[3]), tonumber(parts[4]), tonumber(parts[5])
    if not (f and l and u) then
      self.violations[#self.violations + 1] = "object_set_velocity with a bad number: " .. text
      return
    end
    local fx, fy = b.facing[1], b.facing[2]
    local n = math.sqrt(fx * fx + fy * fy)
    if n < 1e-9 then fx, fy = 1, 0 else fx, fy = fx / n, fy / n end
    b.velocity = { f * fx - l * fy, f * fy + l * fx, u }
    b.pushes = b.pushes + 1
    return
  end
  if op == "unit_kill" and #parts == 2 and h then
    local b = self:biped(h)
    if b then b.killed = true end
    return
  end
  self.violations[#self.violations + 1] = "unknown script: " .. text
end

-- physics advances every biped by dt seconds: gravity, then position
-- (semi-implicit Euler), then the floor.
function Engine:physics(dt)
  for i = 1, #self.bipeds do
    local b = self.bipeds[i]
    if not b.killed then
      local v, p = b.velocity, b.position
      v[3] = v[3] - self.gravity * dt
      p[1] = p[1] + v[1] * dt
      p[2] = p[2] + v[2] * dt
      p[3] = p[3] + v[3] * dt
      if self.floor_z and p[3] < self.floor_z then
        p[3] = self.floor_z
        if v[3] < 0 then v[3] = 0 end
      end
    end
  end
end

-- travel fires every registered travel callback.
function Engine:travel()
  for i = 1, #self.travel_fns do self.travel_fns[i]() end
end

-- step runs one game tick: each runtime ticks (a call into the runtime,
-- after which its wrappers are invalid), physics advances, the clock moves
-- by ms (default dt * 1000).
function Engine:step(runtimes, dt, ms)
  for i = 1, #runtimes do
    runtimes[i]:tick(dt)
    self:end_call()
  end
  self:physics(dt)
  self.now = self.now + (ms or dt * 1000)
end

return E
