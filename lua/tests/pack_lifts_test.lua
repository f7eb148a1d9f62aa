-- The pack_lifts suite: row parsing and limits, bad-row isolation,
-- source-to-Unreal coordinates, transformed trigger planes under
-- yaw/pitch/roll, and the standing-deck overlap.

local T = require("tests.t")
local pack = require("pack_lifts")
local hmath = require("halo2_math")
local h2 = require("h2_lifts")

local K = 3.048
local PAD = "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C\tmjolnir\\forge\\foundry-wide\\lift_pad_4x4\t0\t0\t0.45\t4\t4\t3.5\t0\t0\t1\t20\t4.5\t1"
local ANGLED = "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftAngled.BP_LiftAngled_C\tmjolnir\\forge\\foundry-wide\\lift_angled\t0.5\t-1.25\t0.45\t2\t2\t6.75\t0\t0.6\t0.8\t12.5\t4.5\t0"
-- The published testdata/companions/lifts.txt, byte for byte.
local PUBLISHED = "forge-lifts 1\n" .. ANGLED .. "\n" .. PAD .. "\n"

local function fields(row)
  local out = {}
  for f in string.gmatch(row .. "\t", "([^\t]*)\t") do out[#out + 1] = f end
  return out
end

local function with_field(row, i, value)
  local f = fields(row)
  f[i] = value
  return table.concat(f, "\t")
end

-- local_to_world maps an authored local point (metres) on an actor
-- transform to Halo WU by the Unreal route: Unreal local cm, then the
-- FRotationMatrix rows, then the location, then back to Halo. It does not
-- use the S*R*S conversion pack_lifts uses.
local function local_to_world(q, loc, rot)
  local rows = hmath.frotation_rows(rot.pitch, rot.yaw, rot.roll)
  local qu = { 100 * q[1], -100 * q[2], 100 * q[3] }
  local w = { loc[1], loc[2], loc[3] }
  for i = 1, 3 do
    for k = 1, 3 do w[k] = w[k] + qu[i] * rows[i][k] end
  end
  return { w[1] / 304.8, -w[2] / 304.8, w[3] / 304.8 }
end

local TRANSFORMS = {
  { loc = { 0, 0, 0 }, rot = { pitch = 0, yaw = 0, roll = 0 } },
  { loc = { 1250, -380, 96 }, rot = { pitch = 0, yaw = 90, roll = 0 } },
  { loc = { -500, 200, 1000 }, rot = { pitch = 30, yaw = 0, roll = 0 } },
  { loc = { 10, 20, 30 }, rot = { pitch = 0, yaw = 0, roll = 45 } },
  { loc = { 3048, 6096, -304.8 }, rot = { pitch = 20, yaw = -135, roll = 70 } },
  { loc = { 0, 0, 0 }, rot = { pitch = 0, yaw = 0, roll = 180 } },
}

return {
  { "published_file", function()
    local ph, errs = pack.parse(PUBLISHED)
    T.eq(#errs, 0, "errors: " .. table.concat(errs, "; "))
    T.eq(#ph, 2, "phantoms")
    T.eq(ph[1].class, "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftAngled.BP_LiftAngled_C", "first class (sorted)")
    T.eq(ph[1].tag, "mjolnir\\forge\\foundry-wide\\lift_angled", "first tag")
    T.eq(ph[1].line, 2, "first line")
    local pad = ph[2]
    T.vec_near(pad.center, { 0, 0, (0.45 + 1.75) / K }, 1e-15, "pad center")
    T.vec_near(pad.half_extents, { 2 / K, 2 / K, 1.75 / K }, 1e-15, "pad half extents")
    T.vec_near(pad.direction, { 0, 0, 1 }, 0, "pad direction")
    T.near(pad.direction_acc, 20 / K, 1e-15, "pad direction_acc")
    T.near(pad.direction_max_vel, 4.5 / K, 1e-15, "pad direction_max_vel")
    T.eq(pad.flags.negates_gravity, true, "pad negates gravity")
    local ang = ph[1]
    T.vec_near(ang.center, { 0.5 / K, -1.25 / K, (0.45 + 3.375) / K }, 1e-15, "angled center")
    T.vec_near(ang.direction, { 0, 0.6, 0.8 }, 1e-15, "angled direction")
    T.eq(ang.flags.negates_gravity, false, "angled negates gravity")
  end },
  { "crlf_and_no_final_newline", function()
    local ph, errs = pack.parse("forge-lifts 1\r\n" .. PAD .. "\r\n" .. ANGLED)
    T.eq(#errs, 0, "errors: " .. table.concat(errs, "; "))
    T.eq(#ph, 2, "phantoms")
  end },
  { "bad_header_loads_nothing", function()
    for _, text in ipairs({ "", "forge-lifts 2\n" .. PAD .. "\n", PAD .. "\n", "forge-lifts 1 \n" .. PAD .. "\n" }) do
      local ph, errs = pack.parse(text)
      T.eq(#ph, 0, "phantoms for header " .. T.fmt(string.sub(text, 1, 14)))
      T.eq(#errs, 1, "errors for header " .. T.fmt(string.sub(text, 1, 14)))
      T.ok(string.find(errs[1], "header", 1, true) ~= nil, "error names the header: " .. errs[1])
    end
    local ph, errs = pack.parse(nil)
    T.eq(#ph, 0, "phantoms of nil")
    T.eq(#errs, 1, "errors of nil")
  end },
  { "row_limits", function()
    -- Each case breaks one field of the pad row; the message must name the
    -- field, and the value where there is one.
    local cases = {
      { 3, "-100.5", "offset x" }, { 4, "100.01", "offset y" }, { 5, "1e2", "offset z" },
      { 6, "0.09", "size x" }, { 7, "100.5", "size y" }, { 8, "-1", "size z" },
      { 8, "abc", "size z" }, { 8, "", "size z" }, { 8, " 1", "size z" }, { 8, "0x10", "size z" },
      { 8, "inf", "size z" }, { 8, "nan", "size z" }, { 8, "1.", "size z" }, { 8, ".5", "size z" },
      { 8, "1,5", "size z" }, { 12, "0.05", "acceleration" }, { 12, "100.1", "acceleration" },
      { 13, "0", "max speed" }, { 13, "30.5", "max speed" }, { 14, "true", "negates gravity" },
      { 14, "2", "negates gravity" }, { 14, "", "negates gravity" },
      { 1, "/Game/Other/BP_X.BP_X_C", "class" }, { 1, "/Game/MJOLNIR/Forge/p/BP_X.BP_X", "class" },
      { 1, "/Game/MJOLNIR/Forge/p/" .. string.rep("a", 190) .. ".A_C", "class" },
      { 2, "other\\tag", "tag" }, { 2, "mjolnir\\forge\\p\\" .. string.rep("a", 230), "tag" },
      { 9, "0.5", "direction" }, { 11, "0.97", "direction" }, { 10, "1", "direction" },
    }
    for _, c in ipairs(cases) do
      local row = with_field(PAD, c[1], c[2])
      local got, err = pack.parse_row(row, 7)
      T.eq(got, nil, string.format("parse_row with field %d = %q", c[1], c[2]))
      T.ok(string.find(err, "lifts.txt:7:", 1, true) ~= nil, "message names the line: " .. err)
      T.ok(string.find(err, c[3], 1, true) ~= nil, "message names " .. c[3] .. ": " .. err)
    end
    -- Limits are inclusive, and the direction tolerance is on the squared
    -- length: 0.6^2 + 0.8^2 + ... within 0.001 is accepted.
    local edges = {
      { 3, "-100" }, { 4, "100" }, { 6, "0.1" }, { 7, "100" }, { 12, "0.1" }, { 12, "100" },
      { 13, "0.1" }, { 13, "30" }, { 14, "0" }, { 11, "1.0004" }, { 11, "0.9996" },
    }
    for _, c in ipairs(edges) do
      local got, err = pack.parse_row(with_field(PAD, c[1], c[2]), 3)
      T.ok(got ~= nil, string.format("field %d = %q accepted: %s", c[1], c[2], tostring(err)))
    end
  end },
  { "field_count", function()
    local got, err = pack.parse_row(PAD .. "\t1", 4)
    T.eq(got, nil, "row with 15 fields")
    T.ok(string.find(err, "want 14 tab-separated fields, got 15", 1, true) ~= nil, err)
    got, err = pack.parse_row("a b c", 5)
    T.eq(got, nil, "row with spaces")
    T.ok(string.find(err, "got 1", 1, true) ~= nil, err)
  end },
  { "bad_row_isolation", function()
    local text = "forge-lifts 1\n" ..
      with_field(ANGLED, 8, "200") .. "\n" ..          -- line 2: size too big
      PAD .. "\n" ..                                    -- line 3: good
      "\n" ..                                            -- line 4: blank, ignored
      with_field(PAD, 2, "mjolnir\\forge\\x\\dup") .. "\n" .. -- line 5: same class again
      with_field(with_field(PAD, 1, "/Game/MJOLNIR/Forge/p/B.B_C"), 12, "x") .. "\n" .. -- line 6: bad number
      with_field(PAD, 1, "/Game/MJOLNIR/Forge/p/A.A_C") .. "\n" -- line 7: good
    local ph, errs = pack.parse(text)
    T.eq(#ph, 2, "phantoms")
    T.eq(ph[1].class, "/Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C", "first phantom (sorted)")
    T.eq(ph[2].class, "/Game/MJOLNIR/Forge/p/A.A_C", "second phantom")
    T.eq(#errs, 3, "errors: " .. table.concat(errs, "; "))
    T.has(errs, "lifts.txt:2: field 8 (size z)", "size error")
    T.has(errs, "lifts.txt:5: class /Game/MJOLNIR/Forge/foundry-wide/Blocks/BP_LiftPad4x4.BP_LiftPad4x4_C already defined on line 3", "duplicate error")
    T.has(errs, "lifts.txt:6: field 12 (acceleration)", "number error")
  end },
  { "source_to_unreal_coordinates", function()
    -- An actor at Unreal (304.8, -609.6, 30.48) cm with no rotation is at
    -- Halo (1, 2, 0.1) WU; the pad's box centre sits (0.45 + 1.75) m above.
    local ph = pack.parse("forge-lifts 1\n" .. PAD .. "\n")[1]
    local b = pack.world_box(ph, { location = { 304.8, -609.6, 30.48 }, rotation = { pitch = 0, yaw = 0, roll = 0 } })
    T.vec_near({ b.cx, b.cy, b.cz }, { 1, 2, 0.1 + 2.2 / K }, 1e-12, "world centre")
    T.vec_near({ b.dx, b.dy, b.dz }, { 0, 0, 1 }, 1e-15, "world direction")
    -- The angled lift leans towards authored +Y, which is Unreal -Y.
    local ang = pack.parse("forge-lifts 1\n" .. ANGLED .. "\n")[1]
    b = pack.world_box(ang, { location = { 0, 0, 0 }, rotation = { pitch = 0, yaw = 0, roll = 0 } })
    T.vec_near({ b.dx, b.dy, b.dz }, { 0, 0.6, 0.8 }, 1e-15, "angled world direction (Halo)")
    local du = hmath.metres_to_unreal({ b.dx, b.dy, b.dz })
    T.vec_near(du, { 0, -60, 80 }, 1e-12, "angled direction in Unreal (cm per m)")
    T.vec_near({ b.cx, b.cy, b.cz }, { 0.5 / K, -1.25 / K, 3.825 / K }, 1e-12, "angled world centre")
  end },
  { "transformed_trigger_planes", function()
    -- For each face of both boxes under each transform: a point 5 mm inside
    -- the face is in the trigger and 5 mm outside is not. Points are placed
    -- through the Unreal route, independently of world_box.
    local eps = 0.005
    local ph = pack.parse(PUBLISHED)
    for pi = 1, #ph do
      local p = ph[pi]
      local c = { p.center[1] * K, p.center[2] * K, p.center[3] * K }
      local h = { p.half_extents[1] * K, p.half_extents[2] * K, p.half_extents[3] * K }
      for ti, tr in ipairs(TRANSFORMS) do
        local b = pack.world_box(p, { location = tr.loc, rotation = tr.rot })
        for axis = 1, 3 do
          for _, sign in ipairs({ -1, 1 }) do
            for _, d in ipairs({ -eps, eps }) do
              local q = { c[1], c[2], c[3] }
              -- stay off the edges: move a little along the other axes too
              for other = 1, 3 do
                if other ~= axis then q[other] = q[other] + 0.3 * h[other] end
              end
              q[axis] = c[axis] + sign * (h[axis] + d)
              local w = local_to_world(q, tr.loc, tr.rot)
              local want = d < 0
              local what = string.format("%s transform %d axis %d side %d offset %g: contains", p.tag, ti, axis, sign, d)
              T.eq(h2.contains(b, w), want, what)
              T.eq(h2.distance2(b, w) == 0, want, what .. " (distance2)")
            end
          end
        end
        -- The direction follows the rotation.
        local tip = local_to_world({ p.direction[1], p.direction[2], p.direction[3] }, { 0, 0, 0 }, tr.rot)
        T.vec_near({ b.dx, b.dy, b.dz }, { tip[1] * K, tip[2] * K, tip[3] * K }, 1e-12, p.tag .. " direction under transform " .. ti)
      end
    end
  end },
  { "world_box_matches_reference", function()
    local ph = pack.parse(PUBLISHED)
    for pi = 1, #ph do
      for ti, tr in ipairs(TRANSFORMS) do
        local t = { location = tr.loc, rotation = tr.rot }
        local got, want = pack.world_box(ph[pi], t), pack.world_box_reference(ph[pi], t)
        for _, k in ipairs({ "cx", "cy", "cz", "ax", "ay", "az", "bx", "by", "bz", "ux", "uy", "uz",
                             "hx", "hy", "hz", "dx", "dy", "dz", "acc", "max_vel", "radius" }) do
          T.near(got[k], want[k], 1e-12, string.format("%s transform %d field %s", ph[pi].tag, ti, k))
        end
        T.eq(got.negates, want.negates, "negates")
      end
    end
  end },
  { "standing_deck_overlap", function()
    -- The Foundry Wide pad's trigger starts at 0.45 m on a 0.5 m deck: a
    -- biped standing on the deck top is inside, 5 cm of overlap; the column
    -- ends at 3.95 m.
    local ph = pack.parse("forge-lifts 1\n" .. PAD .. "\n")[1]
    T.near(ph.center[3] * K - ph.half_extents[3] * K, 0.45, 1e-12, "trigger bottom (m)")
    T.near(ph.center[3] * K + ph.half_extents[3] * K, 3.95, 1e-12, "column top (m)")
    T.near(0.5 - (ph.center[3] - ph.half_extents[3]) * K, 0.05, 1e-12, "deck overlap (m)")
    for ti, tr in ipairs({ TRANSFORMS[1], TRANSFORMS[2], { loc = { 0, 0, 0 }, rot = { pitch = 0, yaw = 37, roll = 0 } } }) do
      local b = pack.world_box(ph, { location = tr.loc, rotation = tr.rot })
      local function at(x, y, z) return local_to_world({ x, y, z }, tr.loc, tr.rot) end
      T.eq(h2.contains(b, at(0, 0, 0.5)), true, "deck top centre inside, transform " .. ti)
      T.eq(h2.contains(b, at(1.9, -1.9, 0.5)), true, "deck top corner inside, transform " .. ti)
      T.eq(h2.contains(b, at(0, 0, 0.44)), false, "below the trigger, transform " .. ti)
      T.eq(h2.contains(b, at(0, 0, 3.94)), true, "just below the column top, transform " .. ti)
      T.eq(h2.contains(b, at(0, 0, 3.96)), false, "just above the column top, transform " .. ti)
    end
  end },
  { "transform_validation", function()
    local ok, why = pack.transform_ok(nil)
    T.eq(ok, false, "nil transform")
    T.eq(why, "no transform", "nil transform reason")
    ok, why = pack.transform_ok({ location = { 0, 0 / 0, 0 }, rotation = { pitch = 0, yaw = 0, roll = 0 } })
    T.eq(ok, false, "nan location")
    T.ok(string.find(why, "location", 1, true) ~= nil, why)
    ok, why = pack.transform_ok({ location = { 0, 0, 0 }, rotation = { pitch = 0, yaw = math.huge, roll = 0 } })
    T.eq(ok, false, "infinite yaw")
    T.ok(string.find(why, "rotation", 1, true) ~= nil, why)
    T.eq(pack.transform_ok({ location = { 0, 0, 0 }, rotation = { pitch = 0, yaw = 0, roll = 0 } }), true, "good transform")
  end },
  { "load_missing_file", function()
    local ph, errs = pack.load("/nonexistent/forgesync/lifts.txt")
    T.eq(#ph, 0, "phantoms")
    T.has(errs, "cannot open /nonexistent/forgesync/lifts.txt", "load error")
  end },
}
