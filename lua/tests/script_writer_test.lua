-- The script_writer suite: number and handle formatting, the HaloScript
-- text, the object-relative velocity, and that static Halo 2 lifts, kill
-- floors and pack lifts all produce their text through the same writer,
-- byte for byte.

local T = require("tests.t")
local writer = require("script_writer")
local h2 = require("h2_lifts")
local hmath = require("halo2_math")
local pack = require("pack_lifts")
local lifts = require("lifts")
local E = require("sim.engine")

-- spy wraps the writer's entry points, recording every text they return,
-- and returns the record and a function that restores them.
local function spy()
  local rec = {}
  local orig_sv, orig_kill = writer.set_velocity, writer.kill
  writer.set_velocity = function(...)
    local text, err = orig_sv(...)
    rec[#rec + 1] = text or ("error: " .. tostring(err))
    return text, err
  end
  writer.kill = function(...)
    local text, err = orig_kill(...)
    rec[#rec + 1] = text or ("error: " .. tostring(err))
    return text, err
  end
  return rec, function() writer.set_velocity, writer.kill = orig_sv, orig_kill end
end

local FOUNDRY = "forge-lifts 1\n" ..
  "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C\tmjolnir\\forge\\foundry-wide\\lift_pad_4x4\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1\n"

return {
  { "numbers", function()
    local cases = {
      { 0, "0" }, { -0.0, "0" }, { 1, "1" }, { -1, "-1" }, { 1.5, "1.5" }, { 0.45, "0.45" },
      { 1 / 3, "0.333333" }, { -2 / 3, "-0.666667" }, { -2.0000004, "-2" }, { 1e-7, "0" },
      { -1e-7, "0" }, { 123456.7, "123456.7" }, { 4.5 / 3.048, "1.476378" }, { 1e6, "1000000" },
    }
    for _, c in ipairs(cases) do
      T.eq(writer.number(c[1]), c[2], "number(" .. T.fmt(c[1]) .. ")")
    end
    for _, bad in ipairs({ 0 / 0, math.huge, -math.huge, "1", nil }) do
      local s, err = writer.number(bad)
      T.eq(s, nil, "number(" .. tostring(bad) .. ")")
      T.ok(err and string.find(err, "not a finite number", 1, true), "number(" .. tostring(bad) .. ") says why")
    end
  end },
  { "handles", function()
    T.eq(writer.handle(0), "0", "handle(0)")
    T.eq(writer.handle(3758227525), "3758227525", "handle(0xE0010045)")
    T.eq(writer.handle(4294967295), "4294967295", "handle(max)")
    for _, bad in ipairs({ -1, 1.5, 4294967296, 0 / 0, "12", nil }) do
      T.eq(writer.handle(bad), nil, "handle(" .. tostring(bad) .. ")")
    end
  end },
  { "set_velocity_text", function()
    T.eq(writer.set_velocity(57, 1.25, -0.5, 0), "(object_set_velocity 57 1.25 -0.5 0)", "set_velocity")
    local s, err = writer.set_velocity(57, 1, 0 / 0, 0)
    T.eq(s, nil, "set_velocity with nan")
    T.ok(string.find(err, "left", 1, true) ~= nil, "error names the component: " .. err)
    s, err = writer.set_velocity(nil, 1, 0, 0)
    T.eq(s, nil, "set_velocity without a handle")
    T.ok(string.find(err, "object_set_velocity", 1, true) ~= nil, "error names the call: " .. err)
    T.eq(writer.kill(9), "(unit_kill 9)", "kill")
  end },
  { "relative_velocity", function()
    local cases = {
      { { 1, 0, 0 }, { 2, 3, 4 }, { 2, 3, 4 } },
      { { 0, 1, 0 }, { 2, 3, 4 }, { 3, -2, 4 } },   -- facing +Y: forward is +Y, left is -X
      { { 0, -5, 0 }, { 0, 1, 0 }, { -1, 0, 0 } },
      { { 1, 1, 7 }, { 1, 1, 0 }, { math.sqrt(2), 0, 0 } }, -- only the horizontal facing counts
      { { 0, 0, 1 }, { 2, 3, 4 }, { 2, 3, 4 } },   -- no horizontal facing: +X
    }
    for _, c in ipairs(cases) do
      local f, l, u = writer.relative_velocity(c[2], c[1])
      local what = string.format("relative_velocity({%g,%g,%g}, facing {%g,%g,%g})", c[2][1], c[2][2], c[2][3], c[1][1], c[1][2], c[1][3])
      T.vec_near({ f, l, u }, c[3], 1e-12, what)
      T.vec_near(writer.world_velocity(f, l, u, c[1]), c[2], 1e-12, "world_velocity of " .. what)
    end
  end },
  { "static_lift_through_writer", function()
    local b = h2.box({ 0, 0, 1 }, hmath.identity(), { 1, 1, 1 }, { 0, 0, 1 }, 6, 2, true)
    local rec, restore = spy()
    local out = h2.step_static({ b }, {
      { handle = 7, position = { 0, 0, 0.5 }, velocity = { 0.5, 0, 0 }, facing = { 1, 0, 0 } },
      { handle = 8, position = { 5, 0, 0.5 }, velocity = { 0, 0, 0 }, facing = { 1, 0, 0 } },
    }, 0.1, 4)
    restore()
    T.eq(#out, 1, "static lift texts (biped 8 is outside)")
    T.eq(#rec, 1, "writer calls")
    T.eq(out[1], rec[1], "static lift text is the writer's")
    -- along 0 + 6*0.1 = 0.6, plus gravity 4*0.1 = 0.4 up; steering 0.5 kept.
    T.eq(out[1], "(object_set_velocity 7 0.5 0 1)", "static lift text")
  end },
  { "kill_floor_through_writer", function()
    local rec, restore = spy()
    local out = h2.kill_floors({ { z = -10 }, { z = 0, min = { -1, -1 }, max = { 1, 1 } } }, {
      { handle = 1, position = { 0, 0, -11 } },
      { handle = 2, position = { 0.5, 0, -0.1 } },
      { handle = 3, position = { 3, 0, -0.1 } },
      { handle = 4, position = { 0, 0, 0.1 } },
    })
    restore()
    T.eq(#out, 2, "kill floor texts")
    T.eq(out[1], "(unit_kill 1)", "first kill")
    T.eq(out[2], "(unit_kill 2)", "second kill (bounded floor)")
    T.eq(rec[1], out[1], "writer record 1")
    T.eq(rec[2], out[2], "writer record 2")
  end },
  { "pack_and_static_lifts_same_bytes", function()
    -- The Foundry Wide pad on an actor at the origin, and the same box as a
    -- static Halo 2 lift, push the same biped with the same bytes.
    local phantoms, errs = pack.parse(FOUNDRY)
    T.eq(#errs, 0, "parse errors")
    local e = E.new()
    e:add_actor(phantoms[1].class, { 0, 0, 0 }, { pitch = 0, yaw = 0, roll = 0 }, 4000)
    local start = { 0.1, -0.2, 1 / hmath.METRES_PER_WU }
    local vel = { 0.3, 0.2, 0.1 }
    local facing = { 0.6, 0.8, 0 }
    e:add_biped(12, 1, start, vel, facing)
    local rt = lifts.new(e:adapter(1), phantoms)
    local rec, restore = spy()
    e:step({ rt }, 1 / 30)
    local static = pack.world_box(phantoms[1], { location = { 0, 0, 0 }, rotation = { pitch = 0, yaw = 0, roll = 0 } })
    local out = h2.step_static({ static }, { { handle = 12, position = start, velocity = vel, facing = facing } }, 1 / 30)
    restore()
    T.eq(#e.scripts, 1, "pack lift scripts")
    T.eq(#out, 1, "static lift scripts")
    T.eq(e.scripts[1].text, out[1], "pack lift text vs static lift text")
    T.eq(#rec, 2, "writer calls (one per lift kind)")
    T.eq(rec[1], e.scripts[1].text, "pack lift text came from the writer")
    T.eq(rec[2], out[1], "static lift text came from the writer")
  end },
}
