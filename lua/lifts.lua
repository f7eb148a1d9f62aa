-- lifts.lua: the pack lift runtime. It discovers lift actors through the
-- engine's native actor-class lists, places each phantom from lifts.txt on
-- its actor's live transform, and every tick pushes the locally controlled
-- Spartan bipeds that stand inside a trigger, through the shared script
-- writer. World travel clears everything it carries.
--
-- All engine access goes through one injected adapter table:
--   find_class(path)      non-loading soft-class resolution; nil when not loaded
--   actors_of_class(cls)  the engine's native actor-class list (a sequence)
--   actor_transform(a)    x, y, z (location, cm), pitch, yaw, roll (FRotator,
--                         degrees) as six numbers, or nil
--   blam_handle(a)        the actor's current Blam object handle, or nil for
--                         hidden and pooled actors
--   local_bipeds()        a sequence of {handle, position = {x, y, z} WU,
--                         velocity = {x, y, z} WU/s, facing = {x, y, z}} for the
--                         Spartan bipeds this peer controls
--   run_script(text)      the LevelLoader script transport
--   now_ms()              a monotonic clock in milliseconds
--   mode()                "forge", "slayer", or anything else (inactive)
--   on_travel(fn)         registers fn to run when the world travels
--   log(msg)              optional; defaults to print
--
-- Class and actor wrappers are used only inside the call that obtained
-- them; the runtime keeps class paths, Blam handles and plain numbers.
-- Nothing here raises into the game: errors are logged and the tick ends.

local M = {}

local hmath = require("halo2_math")
local writer = require("script_writer")
local h2 = require("h2_lifts")
local pack = require("pack_lifts")

M.MAX_CLASSES = 16   -- class definitions resolved per discovery pass
M.MAX_ACTORS = 64    -- active lift actors
M.IDLE_MS = 500      -- discovery cadence with no local biped near a lift
M.NEAR_MS = 50       -- discovery cadence with a local biped near a lift
M.NEAR_M = 5         -- "near": within this many metres of a trigger box
M.MAX_DT = 1         -- a tick longer than this (seconds) pushes nothing
M.ACTIVE_MODES = { forge = true, slayer = true }
M.MAX_LOGGED = 256   -- distinct once-only messages remembered

local Runtime = {}
Runtime.__index = Runtime

local function default_log(msg) print(msg) end

-- new returns a runtime for the given adapter and phantoms (from
-- pack_lifts.parse). Of the phantoms' class paths, sorted, the first
-- MAX_CLASSES are used and the rest are ignored with one message.
function M.new(adapter, phantoms, opts)
  opts = opts or {}
  local rt = setmetatable({}, Runtime)
  rt.adapter = adapter
  rt.log_fn = opts.log or adapter.log or default_log
  rt.gravity = opts.gravity or hmath.GRAVITY_WU
  rt.logged, rt.logged_count = {}, 0
  rt.by_class = {}
  local paths = {}
  for i = 1, #(phantoms or {}) do
    local ph = phantoms[i]
    if not rt.by_class[ph.class] then
      rt.by_class[ph.class] = ph
      paths[#paths + 1] = ph.class
    end
  end
  table.sort(paths)
  rt.class_paths = {}
  for i = 1, #paths do
    if i <= M.MAX_CLASSES then
      rt.class_paths[i] = paths[i]
    else
      rt:log_once("classes", string.format(
        "%d lift class definitions; the runtime uses the first %d by class path and ignores %s and %d more",
        #paths, M.MAX_CLASSES, paths[i], #paths - i))
      break
    end
  end
  rt.near_wu = M.NEAR_M / hmath.METRES_PER_WU
  rt.stats = { passes = 0, resolutions = 0, list_reads = 0, pushes = 0, travels = 0 }
  rt:clear()
  if adapter.on_travel then
    adapter.on_travel(function() rt:travel() end)
  end
  return rt
end

-- start loads lifts.txt from opts.lifts_path and returns a runtime.
function M.start(adapter, opts)
  opts = opts or {}
  local phantoms, errs = pack.load(opts.lifts_path or "MJOLNIRForgePacks/lifts.txt")
  local rt = M.new(adapter, phantoms, opts)
  for i = 1, #errs do rt:log(errs[i]) end
  return rt
end

function Runtime:log(msg)
  pcall(self.log_fn, "[lifts] " .. msg)
end

-- log_once logs msg the first time key is seen.
function Runtime:log_once(key, msg)
  if self.logged[key] then return end
  if self.logged_count < M.MAX_LOGGED then
    self.logged[key] = true
    self.logged_count = self.logged_count + 1
  end
  self:log(msg)
end

-- clear drops everything carried between ticks: discovered actors, carried
-- velocities and pending pushes; the next tick discovers again.
function Runtime:clear()
  self.active = {}
  self.carried = {}
  self.pending = {}
  self.last_discovery = nil
  self.near = false
end

-- travel is called when the world travels.
function Runtime:travel()
  self.stats.travels = self.stats.travels + 1
  self:clear()
end

-- state returns counts of what the runtime carries, for status and tests.
function Runtime:state()
  local carried = 0
  for _ in pairs(self.carried) do carried = carried + 1 end
  return { active = #self.active, carried = carried, pending = #self.pending, near = self.near,
           classes = #self.class_paths, discovered_at = self.last_discovery }
end

-- discover reads the actor lists of the used classes and rebuilds the
-- active trigger boxes from each actor's current Blam binding and transform.
-- It costs at most MAX_CLASSES class resolutions and as many list reads.
function Runtime:discover(now)
  local a = self.adapter
  local stats = self.stats
  stats.passes = stats.passes + 1
  local active = {}
  local seen = {}
  local full = false
  -- Boxes of the previous pass, by handle, rewritten in place; moved says
  -- whether any was placed again.
  self.moved = false
  local previous = {}
  local prev = self.active
  for i = 1, #prev do previous[prev[i].handle] = prev[i] end
  for i = 1, #self.class_paths do
    local path = self.class_paths[i]
    local cls = a.find_class(path)
    stats.resolutions = stats.resolutions + 1
    if cls ~= nil then
      local actors = a.actors_of_class(cls)
      stats.list_reads = stats.list_reads + 1
      local ph = self.by_class[path]
      if type(actors) == "table" then
        for j = 1, #actors do
          local actor = actors[j]
          local h = a.blam_handle(actor)
          if h ~= nil and not seen[h] then
            if not (type(h) == "number" and h >= 0 and h <= 4294967295 and h % 1 == 0) then
              self:log_once("handle:" .. path, path .. ": actor has an invalid Blam handle " .. tostring(h) .. "; skipped")
            elseif #active >= M.MAX_ACTORS then
              full = true
              break
            else
              local x, y, z, pitch, yaw, roll = a.actor_transform(actor)
              local b = previous[h]
              -- A piece that has not moved keeps its box: equal numbers
              -- are the numbers validated last pass (NaN never compares
              -- equal). Anything else is checked and placed again.
              if not (b and b.class == path and x == b.lx and y == b.ly and z == b.lz
                  and pitch == b.rp and yaw == b.ry and roll == b.rr) then
                b = nil
              end
              local ok, why = true, nil
              if not b then
                ok, why = pack.numbers_ok(x, y, z, pitch, yaw, roll)
                if ok then
                  b = pack.place(ph, x, y, z, pitch, yaw, roll, previous[h])
                  self.moved = true
                  b.lx, b.ly, b.lz, b.rp, b.ry, b.rr = x, y, z, pitch, yaw, roll
                end
              end
              if ok then
                previous[h] = nil
                b.handle = h
                b.class = path
                seen[h] = true
                active[#active + 1] = b
              else
                self:log_once("transform:" .. path .. ":" .. tostring(h),
                  string.format("%s: actor %s skipped: %s", path, tostring(h), why))
              end
            end
          end
        end
      end
    end
    if full then
      if not self.logged.actors then
        self:log_once("actors", string.format("more than %d active lift actors; the rest are ignored from %s on", M.MAX_ACTORS, path))
      end
      break
    end
  end
  -- Keep the previous list (and the grid built on it) when no box moved.
  if #active == #prev and not self.moved then
    local same = true
    for i = 1, #active do
      if active[i] ~= prev[i] then
        same = false
        break
      end
    end
    if same then active = prev end
  end
  self.active = active
  self.last_discovery = now
end

-- finite3 reports whether v holds three finite numbers (x - x is 0 only
-- for finite x). It is halo2_math.vec_finite without the calls per
-- component, since every tick runs it for every biped.
local function finite3(v)
  if type(v) ~= "table" then return false end
  local x, y, z = v[1], v[2], v[3]
  return type(x) == "number" and type(y) == "number" and type(z) == "number"
    and x - x == 0 and y - y == 0 and z - z == 0
end

local function biped_ok(b)
  return type(b) == "table" and writer.valid_handle(b.handle) and finite3(b.position)
    and finite3(b.velocity) and (b.facing == nil or finite3(b.facing))
end

local FORWARD = { 1, 0, 0 } -- facing assumed when a biped reports none

-- tick runs one tick of dt seconds. It never raises into the game.
function Runtime:tick(dt)
  local ok, err = pcall(self.step, self, dt)
  if not ok then
    -- Once per distinct error: a broken adapter must not flood the log
    -- at the tick rate.
    self:log_once("tick:" .. tostring(err), "tick failed: " .. tostring(err))
    self.pending = {}
  end
end

function Runtime:step(dt)
  local a = self.adapter
  if not M.ACTIVE_MODES[a.mode()] then
    if next(self.carried) or #self.pending > 0 then
      self.carried = {}
      self.pending = {}
    end
    return
  end
  local now = a.now_ms()
  if not hmath.is_finite(now) then
    self:log_once("now", "now_ms returned " .. tostring(now) .. "; tick skipped")
    return
  end
  local raw = a.local_bipeds()
  local bipeds = {}
  if type(raw) == "table" then
    for i = 1, #raw do
      local b = raw[i]
      if b and b.remote then
        self:log_once("remote:" .. tostring(b.handle), "local_bipeds returned remote biped " .. tostring(b.handle) .. "; never pushed")
      elseif biped_ok(b) then
        bipeds[#bipeds + 1] = b
      else
        self:log_once("biped:" .. tostring(b and b.handle), "biped " .. tostring(b and b.handle) .. " has a missing or non-finite handle, position, velocity or facing; skipped")
      end
    end
  end

  -- Which trigger each biped is in, and whether any is near one.
  local near, inside = self:locate(bipeds)
  local interval = near and M.NEAR_MS or M.IDLE_MS
  local last = self.last_discovery
  if last == nil or now - last >= interval or now < last then
    self:discover(now)
    near, inside = self:locate(bipeds)
  end
  self.near = near

  local dt_ok = hmath.is_finite(dt) and dt > 0 and dt <= M.MAX_DT
  if not dt_ok then
    self:log_once("dt:" .. tostring(dt), "tick length " .. tostring(dt) .. " s is not in (0, " .. M.MAX_DT .. "]; no pushes")
  end
  local carried = {}
  local queue = {}
  for i = 1, #bipeds do
    local bp = bipeds[i]
    local box = inside[i]
    if box and dt_ok then
      local v = bp.velocity
      local key = bp.handle
      -- The carried speed counts only on the same lift, pointing the same way.
      local c = self.carried[key]
      local base = nil
      if c and c.lift == box.handle and c.dx * box.dx + c.dy * box.dy + c.dz * box.dz > 0.999 then
        base = c.along
      end
      local x, y, z, along = h2.push(box, v[1], v[2], v[3], dt, self.gravity, base)
      local text, werr = writer.set_world_velocity(bp.handle, { x, y, z }, bp.facing or FORWARD)
      if text then
        carried[key] = { along = along, lift = box.handle, dx = box.dx, dy = box.dy, dz = box.dz }
        queue[#queue + 1] = text
      else
        self:log_once("write:" .. tostring(key), "lift push not written: " .. werr)
      end
    end
  end
  self.carried = carried
  self.pending = queue
  -- Flush. A travel fired from inside the transport replaces self.pending
  -- and drops the rest of this queue.
  for i = 1, #queue do
    if self.pending ~= queue then return end
    self.stats.pushes = self.stats.pushes + 1
    a.run_script(queue[i])
  end
  if self.pending == queue then self.pending = {} end
end

-- GRID_WU is the cell size of the 2D grid (world X/Y) locate uses to find
-- the lifts near a biped without testing all of them; a lift whose reach
-- covers more than GRID_MAX_CELLS cells is tested for every biped instead.
M.GRID_WU = 6
M.GRID_MAX_CELLS = 36

local floor = math.floor

local function cell_key(ix, iy)
  return (ix + 1048576) * 2097152 + (iy + 1048576)
end

-- index builds the grid of the active boxes: for each cell, the indices of
-- the boxes whose reach (bounding sphere grown by NEAR_M) overlaps it.
function Runtime:index(active)
  local grid, big = {}, {}
  local g = M.GRID_WU
  for j = 1, #active do
    local b = active[j]
    local reach = b.radius + self.near_wu
    local x0, x1 = floor((b.cx - reach) / g), floor((b.cx + reach) / g)
    local y0, y1 = floor((b.cy - reach) / g), floor((b.cy + reach) / g)
    b.reach2 = reach * reach
    if (x1 - x0 + 1) * (y1 - y0 + 1) > M.GRID_MAX_CELLS then
      big[#big + 1] = j
    else
      for ix = x0, x1 do
        for iy = y0, y1 do
          local k = cell_key(ix, iy)
          local list = grid[k]
          if not list then
            list = {}
            grid[k] = list
          end
          list[#list + 1] = j
        end
      end
    end
  end
  self.grid, self.grid_big, self.grid_of = grid, big, active
end

local abs = math.abs
local EMPTY = {}

-- locate returns whether any biped is within NEAR_M of an active trigger,
-- and for each biped index the first active box (in discovery order)
-- containing it.
function Runtime:locate(bipeds)
  local active = self.active
  if self.grid_of ~= active then self:index(active) end
  local near = false
  local inside = {}
  local nr2 = self.near_wu * self.near_wu
  local g = M.GRID_WU
  local grid, big = self.grid, self.grid_big
  for i = 1, #bipeds do
    local p = bipeds[i].position
    local px, py, pz = p[1], p[2], p[3]
    local first = nil
    local list = grid[cell_key(floor(px / g), floor(py / g))] or EMPTY
    -- The cell's candidates, then the big lifts; the box test is inline
    -- because function calls are what cost in gopher-lua.
    for pass = 1, 2 do
      if pass == 2 then list = big end
      for k = 1, #list do
        local j = list[k]
        if not first or j < first then
          local b = active[j]
          local rx, ry, rz = px - b.cx, py - b.cy, pz - b.cz
          if rx * rx + ry * ry + rz * rz <= b.reach2 then
            local ex = abs(rx * b.ax + ry * b.ay + rz * b.az) - b.hx
            local ey = abs(rx * b.bx + ry * b.by + rz * b.bz) - b.hy
            local ez = abs(rx * b.ux + ry * b.uy + rz * b.uz) - b.hz
            if ex <= 0 and ey <= 0 and ez <= 0 then
              near = true
              first = j
            else
              if ex < 0 then ex = 0 end
              if ey < 0 then ey = 0 end
              if ez < 0 then ez = 0 end
              if ex * ex + ey * ey + ez * ez <= nr2 then near = true end
            end
          end
        end
      end
    end
    if first then inside[i] = active[first] end
  end
  return near, inside
end

return M
