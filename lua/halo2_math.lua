-- halo2_math.lua: the Halo 2 maths shared by the LevelLoader scripts.
--
-- Vectors are tables {x, y, z} (array part). Rotations are 3x3 matrices as
-- three rows {{a, b, c}, {d, e, f}, {g, h, i}} applied to column vectors.
--
-- Frames and units (LUA.md):
--   * Halo (Blam) world units: 1 WU = 3.048 m; right-handed, +X forward,
--     +Y left, +Z up; standard gravity 4.1712594 WU/s^2.
--   * Authored lift boxes: metres, the block's local axes, right-handed, Z up.
--   * Unreal: centimetres, left-handed, +X forward, +Y right, +Z up. A point
--     (x, y, z) in metres is (100x, -100y, 100z) in Unreal; a rotation
--     converts as S*R*S with S = diag(1, -1, 1).
--
-- Written in the subset Lua 5.1 and 5.4 share: no goto, no //, no bit
-- operators, no integer-only assumptions.

local M = {}

M.METRES_PER_WU = 3.048
M.CM_PER_M = 100
M.GRAVITY_WU = 4.1712594 -- Halo 2 standard gravity, WU/s^2

local sin, cos, sqrt, rad = math.sin, math.cos, math.sqrt, math.rad
local huge = math.huge

-- is_finite reports whether x is a number that is neither NaN nor infinite.
function M.is_finite(x)
  return type(x) == "number" and x == x and x ~= huge and x ~= -huge
end

-- vec_finite reports whether v holds three finite numbers.
function M.vec_finite(v)
  return type(v) == "table" and M.is_finite(v[1]) and M.is_finite(v[2]) and M.is_finite(v[3])
end

function M.vec(x, y, z) return { x, y, z } end
function M.add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
function M.sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
function M.scale(a, s) return { a[1] * s, a[2] * s, a[3] * s } end
function M.dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

function M.cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

function M.length(a) return sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3]) end

-- normalize returns a / |a|, or nil for a zero or non-finite vector.
function M.normalize(a)
  local l = M.length(a)
  if not M.is_finite(l) or l == 0 then return nil end
  return { a[1] / l, a[2] / l, a[3] / l }
end

-- mat_vec returns R*v.
function M.mat_vec(r, v)
  return {
    r[1][1] * v[1] + r[1][2] * v[2] + r[1][3] * v[3],
    r[2][1] * v[1] + r[2][2] * v[2] + r[2][3] * v[3],
    r[3][1] * v[1] + r[3][2] * v[2] + r[3][3] * v[3],
  }
end

-- mat_tvec returns transpose(R)*v (the inverse rotation for orthonormal R).
function M.mat_tvec(r, v)
  return {
    r[1][1] * v[1] + r[2][1] * v[2] + r[3][1] * v[3],
    r[1][2] * v[1] + r[2][2] * v[2] + r[3][2] * v[3],
    r[1][3] * v[1] + r[2][3] * v[2] + r[3][3] * v[3],
  }
end

function M.mat_mul(a, b)
  local out = {}
  for i = 1, 3 do
    out[i] = {}
    for j = 1, 3 do
      out[i][j] = a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j]
    end
  end
  return out
end

function M.transpose(r)
  return {
    { r[1][1], r[2][1], r[3][1] },
    { r[1][2], r[2][2], r[3][2] },
    { r[1][3], r[2][3], r[3][3] },
  }
end

function M.identity()
  return { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
end

-- frotation_rows returns the rows of Unreal's FRotationMatrix for an
-- FRotator in degrees: the actor's local X, Y and Z axes in Unreal world
-- space (pitch about Y, yaw about Z, roll about X).
function M.frotation_rows(pitch, yaw, roll)
  local sp, cp = sin(rad(pitch)), cos(rad(pitch))
  local sy, cy = sin(rad(yaw)), cos(rad(yaw))
  local sr, cr = sin(rad(roll)), cos(rad(roll))
  return {
    { cp * cy, cp * sy, sp },
    { sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp },
    { -(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp },
  }
end

-- unreal_to_halo_rotation converts an Unreal local-to-world rotation
-- (matrix applied to column vectors, columns = local axes) to the Halo
-- frame: S*R*S with S = diag(1, -1, 1).
function M.unreal_to_halo_rotation(r)
  return {
    { r[1][1], -r[1][2], r[1][3] },
    { -r[2][1], r[2][2], -r[2][3] },
    { r[3][1], -r[3][2], r[3][3] },
  }
end

-- frotator_to_halo returns the Halo-frame local-to-world rotation (columns
-- = the block's local right-handed axes in Halo world) of an FRotator.
function M.frotator_to_halo(pitch, yaw, roll)
  -- FRotationMatrix rows are the local axes; as a column-vector matrix
  -- that is its transpose.
  return M.unreal_to_halo_rotation(M.transpose(M.frotation_rows(pitch, yaw, roll)))
end

function M.m_to_wu(m) return m / M.METRES_PER_WU end
function M.wu_to_m(wu) return wu * M.METRES_PER_WU end

-- metres_to_unreal converts a Halo/authored point in metres to Unreal cm.
function M.metres_to_unreal(p)
  return { p[1] * M.CM_PER_M, -p[2] * M.CM_PER_M, p[3] * M.CM_PER_M }
end

-- unreal_to_metres converts an Unreal point in cm to Halo/authored metres.
function M.unreal_to_metres(p)
  return { p[1] / M.CM_PER_M, -p[2] / M.CM_PER_M, p[3] / M.CM_PER_M }
end

-- unreal_to_wu converts an Unreal point in cm to Halo world units.
function M.unreal_to_wu(p)
  local k = M.CM_PER_M * M.METRES_PER_WU
  return { p[1] / k, -p[2] / k, p[3] / k }
end

return M
