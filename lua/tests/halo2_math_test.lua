-- The Halo 2 maths suite. These cases pin halo2_math.lua alone and do not
-- change when lift code changes.

local T = require("tests.t")
local m = require("halo2_math")

local function det(r)
  return r[1][1] * (r[2][2] * r[3][3] - r[2][3] * r[3][2])
    - r[1][2] * (r[2][1] * r[3][3] - r[2][3] * r[3][1])
    + r[1][3] * (r[2][1] * r[3][2] - r[2][2] * r[3][1])
end

local function orthonormal(r, what)
  local rt = m.mat_mul(m.transpose(r), r)
  for i = 1, 3 do
    for j = 1, 3 do
      T.near(rt[i][j], i == j and 1 or 0, 1e-12, what .. string.format(" (R^T R)[%d][%d]", i, j))
    end
  end
  T.near(det(r), 1, 1e-12, what .. " det")
end

local ROTATORS = {
  { 0, 0, 0 }, { 0, 90, 0 }, { 30, 0, 0 }, { 0, 0, 45 }, { 30, 60, 45 }, { -80, 190, -135 }, { 89.9, -45, 10 },
}

return {
  { "constants", function()
    T.eq(m.METRES_PER_WU, 3.048, "METRES_PER_WU")
    T.eq(m.GRAVITY_WU, 4.1712594, "GRAVITY_WU")
    T.near(m.m_to_wu(3.048), 1, 1e-15, "m_to_wu(3.048)")
    T.near(m.wu_to_m(2), 6.096, 1e-15, "wu_to_m(2)")
  end },
  { "finite", function()
    T.eq(m.is_finite(0), true, "is_finite(0)")
    T.eq(m.is_finite(-1.5), true, "is_finite(-1.5)")
    T.eq(m.is_finite(0 / 0), false, "is_finite(nan)")
    T.eq(m.is_finite(math.huge), false, "is_finite(inf)")
    T.eq(m.is_finite(-math.huge), false, "is_finite(-inf)")
    T.eq(m.is_finite("1"), false, "is_finite(\"1\")")
    T.eq(m.vec_finite({ 1, 2, 3 }), true, "vec_finite{1,2,3}")
    T.eq(m.vec_finite({ 1, 0 / 0, 3 }), false, "vec_finite with nan")
    T.eq(m.vec_finite({ 1, 2 }), false, "vec_finite of two")
    T.eq(m.vec_finite(nil), false, "vec_finite(nil)")
  end },
  { "vectors", function()
    T.vec_near(m.add({ 1, 2, 3 }, { 4, 5, 6 }), { 5, 7, 9 }, 0, "add")
    T.vec_near(m.sub({ 1, 2, 3 }, { 4, 5, 6 }), { -3, -3, -3 }, 0, "sub")
    T.vec_near(m.scale({ 1, -2, 3 }, 2), { 2, -4, 6 }, 0, "scale")
    T.eq(m.dot({ 1, 2, 3 }, { 4, 5, 6 }), 32, "dot")
    T.vec_near(m.cross({ 1, 0, 0 }, { 0, 1, 0 }), { 0, 0, 1 }, 0, "x cross y")
    T.vec_near(m.cross({ 0, 1, 0 }, { 0, 0, 1 }), { 1, 0, 0 }, 0, "y cross z")
    T.eq(m.length({ 3, 4, 12 }), 13, "length")
    T.vec_near(m.normalize({ 0, 3, 4 }), { 0, 0.6, 0.8 }, 1e-15, "normalize")
    T.eq(m.normalize({ 0, 0, 0 }), nil, "normalize(0)")
    T.eq(m.normalize({ 0 / 0, 0, 1 }), nil, "normalize(nan)")
  end },
  { "frotation_matrix_axes", function()
    -- Yaw 90: local X points along Unreal +Y; pitch 90: local X points up;
    -- roll 90: local Y points down (Unreal's FRotationMatrix, left-handed).
    local r = m.frotation_rows(0, 90, 0)
    T.vec_near(r[1], { 0, 1, 0 }, 1e-15, "yaw 90 local X")
    T.vec_near(r[2], { -1, 0, 0 }, 1e-15, "yaw 90 local Y")
    r = m.frotation_rows(90, 0, 0)
    T.vec_near(r[1], { 0, 0, 1 }, 1e-15, "pitch 90 local X")
    T.vec_near(r[3], { -1, 0, 0 }, 1e-15, "pitch 90 local Z")
    r = m.frotation_rows(0, 0, 90)
    T.vec_near(r[2], { 0, 0, -1 }, 1e-15, "roll 90 local Y")
    T.vec_near(r[3], { 0, 1, 0 }, 1e-15, "roll 90 local Z")
  end },
  { "rotations_orthonormal", function()
    for _, a in ipairs(ROTATORS) do
      local what = string.format("rotator(%g, %g, %g)", a[1], a[2], a[3])
      orthonormal(m.frotation_rows(a[1], a[2], a[3]), what .. " unreal")
      orthonormal(m.frotator_to_halo(a[1], a[2], a[3]), what .. " halo")
    end
  end },
  { "halo_rotation_matches_unreal_points", function()
    -- Rotating an authored point in the Halo frame and converting to
    -- Unreal gives the same point as converting first and rotating with the
    -- FRotationMatrix rows.
    local q = { 0.7, -1.3, 2.1 }
    for _, a in ipairs(ROTATORS) do
      local rows = m.frotation_rows(a[1], a[2], a[3])
      local qu = m.metres_to_unreal(q)
      local wu = { 0, 0, 0 }
      for i = 1, 3 do
        for k = 1, 3 do wu[k] = wu[k] + qu[i] * rows[i][k] end
      end
      local via_halo = m.metres_to_unreal(m.mat_vec(m.frotator_to_halo(a[1], a[2], a[3]), q))
      T.vec_near(via_halo, wu, 1e-9, string.format("rotator(%g, %g, %g) point", a[1], a[2], a[3]))
    end
  end },
  { "yaw_turns_clockwise_in_halo", function()
    -- Unreal is left-handed: a positive yaw turns forward towards +Y
    -- (right), which is Halo's -Y.
    T.vec_near(m.mat_vec(m.frotator_to_halo(0, 90, 0), { 1, 0, 0 }), { 0, -1, 0 }, 1e-15, "yaw 90 forward")
    T.vec_near(m.mat_vec(m.frotator_to_halo(0, 0, 0), { 0, 1, 0 }), { 0, 1, 0 }, 0, "identity left")
  end },
  { "unit_conversion", function()
    T.vec_near(m.metres_to_unreal({ 1, 2, 3 }), { 100, -200, 300 }, 0, "metres_to_unreal")
    T.vec_near(m.unreal_to_metres({ 100, -200, 300 }), { 1, 2, 3 }, 0, "unreal_to_metres")
    T.vec_near(m.unreal_to_wu({ 304.8, 609.6, -30.48 }), { 1, -2, -0.1 }, 1e-12, "unreal_to_wu")
  end },
  { "matrices", function()
    local a = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 10 } }
    T.vec_near(m.mat_vec(a, { 1, 0, -1 }), { -2, -2, -3 }, 0, "mat_vec")
    T.vec_near(m.mat_tvec(a, { 1, 0, -1 }), { -6, -6, -7 }, 0, "mat_tvec")
    local p = m.mat_mul(a, m.identity())
    for i = 1, 3 do T.vec_near(p[i], a[i], 0, "a*I row " .. i) end
  end },
}
